// assert.throws and assert.rejects failures: another class thrown, nothing thrown, a string
// thrown, a validation function (scripts/record-node-test.sh; tests/integration/issue41_js_verified.rs).
import { test } from 'node:test';
import assert from 'node:assert';

function parse(text) {
  if (text === '') throw new RangeError('empty input');
  return JSON.parse(text);
}

test('throws another class', () => {
  assert.throws(() => parse(''), TypeError);
});

test('throws another class, with a message', () => {
  assert.throws(() => parse(''), TypeError, 'parse must reject an empty input');
});

test('throws nothing', () => {
  assert.throws(() => parse('{}'), TypeError);
});

test('throws nothing, a regular expression', () => {
  assert.throws(() => parse('{}'), /empty/);
});

test('throws a string', () => {
  assert.throws(() => {
    throw 'text';
  }, TypeError);
});

test('a validation function', () => {
  assert.throws(() => parse(''), (e) => e instanceof TypeError);
});

test('rejects with another class', async () => {
  await assert.rejects(async () => parse(''), TypeError);
});
