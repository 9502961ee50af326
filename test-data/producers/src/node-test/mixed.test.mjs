// node:test mixed case: pass, fail with expected/actual, skip, todo,
// nested subtests, console output and diagnostics.
// Names contain '#' and '\' to exercise escaping.
import { test, describe, it } from 'node:test';
import assert from 'node:assert';

test('passes', () => {
  assert.strictEqual(1 + 1, 2);
});

test('fails with a comparison', () => {
  assert.deepStrictEqual({ a: 1, b: [1, 2] }, { a: 1, b: [1, 3] });
});

test('name with # hash and \\ backslash', () => {
  assert.ok(true);
});

test('skipped test', { skip: 'not on this platform' }, () => {});

test('todo test that fails', { todo: 'not implemented yet' }, () => {
  assert.strictEqual('actual', 'expected');
});

test('todo test that passes', { todo: true }, () => {});

test('prints to the console', (t) => {
  console.log('console.log line from a test');
  console.log('# a line that looks like a comment');
  t.diagnostic('diagnostic message from t.diagnostic');
});

test('parent with subtests', async (t) => {
  await t.test('child passes', () => {});
  await t.test('child fails', () => {
    assert.strictEqual(41, 42, 'the answer');
  });
  await t.test('child # with \\ escapes', async (t) => {
    await t.test('grandchild passes', () => {});
  });
});

describe('a describe block', () => {
  it('it passes', () => {});
  it.skip('it is skipped', () => {});
  it.todo('it is todo');
});
