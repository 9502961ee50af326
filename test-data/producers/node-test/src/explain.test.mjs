// node:test failures of every kind tapline explains (scripts/record-node-test.sh).
import { test, describe } from 'node:test';
import assert from 'node:assert';

function parse(text) {
  return JSON.parse(text);
}

test('adds', () => {
  assert.strictEqual(1 + 1, 2);
});

test('throws a TypeError', () => {
  const runner = {};
  runner.run();
});

test('throws a plain Error', () => {
  throw new Error('boom');
});

test('strict equal', () => {
  const got = 2 + 1;
  assert.strictEqual(got, 4);
});

describe('deep', () => {
  test('deep strict equal', () => {
    assert.deepStrictEqual({ a: 1, b: [1, 2] }, { a: 1, b: [1, 3] });
  });

  test('deep equal', () => {
    assert.deepEqual([1, 2, 3], [1, 2, 4]);
  });
});

test('throws with a message', () => {
  assert.throws(() => parse('{'), { message: /Expected property name/ });
  assert.throws(() => parse('{"a":'), { message: /never matches/ });
});

test('throws the wrong class', () => {
  assert.throws(() => {
    throw new RangeError('out of range');
  }, TypeError);
});

test('rejects with a regular expression', async () => {
  await assert.rejects(async () => {
    throw new Error('Ahh?');
  }, /Ahh!/);
});

test('custom message', () => {
  assert.strictEqual('got', 'wanted', 'the greeting');
});
