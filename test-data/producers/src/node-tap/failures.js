// node-tap failures case: t.same of arrays, Infinity and NaN against
// numbers, and a failure nested two subtests deep.
'use strict';
const t = require('tap');

t.test('arrays differ', async t => {
  t.same([1, [2, 3], 'x'], [1, [2, 4], 'x'], 'arrays differ');
});

t.test('non-finite numbers', async t => {
  t.equal(Infinity, 1, 'Infinity against a number');
  t.equal(0, NaN, 'a number against NaN');
});

t.test('outer', async t => {
  t.test('middle', async t => {
    t.pass('inner passes');
    t.equal('got', 'wanted', 'inner fails');
  });
});
