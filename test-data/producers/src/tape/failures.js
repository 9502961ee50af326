// tape failures case: deepEqual of arrays, Infinity and NaN against
// numbers, and a failure in a nested subtest.
'use strict';
var test = require('tape');

test('arrays differ', function (t) {
  t.deepEqual([1, [2, 3], 'x'], [1, [2, 4], 'x'], 'arrays differ');
  t.end();
});

test('non-finite numbers', function (t) {
  t.equal(Infinity, 1, 'Infinity against a number');
  t.equal(0, NaN, 'a number against NaN');
  t.end();
});

test('outer', function (t) {
  t.test('inner', function (st) {
    st.equal('got', 'wanted', 'inner fails');
    st.end();
  });
  t.end();
});
