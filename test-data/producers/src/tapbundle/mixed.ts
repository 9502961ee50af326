// tapbundle example: pass, failing expects (string, object), a thrown error,
// console output around a failure, and a skipped test.
import { tap, expect } from '@push.rocks/tapbundle';

tap.test('adds numbers', async () => {
  console.log('log from a passing test');
  expect(1 + 1).toEqual(2);
});

tap.test('compares strings with a \\ backslash', async () => {
  console.log('log before the failing expect');
  expect('hello world').toEqual('hello there');
});

tap.test('passes after a failure', async () => {
  console.log('log from the next passing test');
  expect(true).toBeTrue();
});

tap.test('compares objects', async () => {
  expect({ name: 'tapline', tags: ['a', 'b'], n: 1 }).toEqual({ name: 'tapline', tags: ['a', 'c'], n: 2 });
});

tap.test('throws an error', async () => {
  throw new Error('boom from the test body');
});

tap.skip.test('is skipped', async () => {
  expect(1).toEqual(2);
});

tap.test('last passing test', async () => {
  expect([1, 2]).toEqual([1, 2]);
});

export default tap.start();
