// node:test failures case: how node's tap reporter writes the values of
// failed comparisons (arrays as `0:`/`1:` maps, Infinity/NaN as bare
// words) and a failure nested two subtests deep.
import { test } from 'node:test';
import assert from 'node:assert';

test('arrays differ', () => {
  assert.deepStrictEqual([1, [2, 3], 'x'], [1, [2, 4], 'x']);
});

test('Infinity against a number', () => {
  assert.strictEqual(Infinity, 1);
});

test('a number against NaN', () => {
  assert.strictEqual(0, NaN);
});

test('-Infinity inside an object', () => {
  assert.deepStrictEqual({ low: -Infinity, list: [1, 2] }, { low: 0, list: [1, 2] });
});

test('outer', async (t) => {
  await t.test('middle', async (t) => {
    await t.test('inner passes', () => {});
    await t.test('inner fails', () => {
      assert.strictEqual('got', 'wanted');
    });
  });
});
