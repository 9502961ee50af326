// tapbundle with node:assert: the AssertionError (message, diff and its
// fields) is printed after the `not ok` line.
import { tap } from '@push.rocks/tapbundle';
import assert from 'node:assert/strict';

tap.test('strict equal strings', async () => {
  assert.equal('hello world', 'hello there');
});

tap.test('passing test in between', async () => {
  console.log('output of the passing test');
  assert.ok(true);
});

tap.test('deep equal objects', async () => {
  assert.deepEqual({ name: 'tapline', tags: ['a', 'b'], n: 1 }, { name: 'tapline', tags: ['a', 'c'], n: 2 });
});

tap.test('allowed to fail', async (tools) => {
  tools.allowFailure();
  assert.ok(false, 'this failure is allowed');
});

tap.test('last passing test', async () => {
  assert.ok(true);
});

export default tap.start({ throwOnError: true });
