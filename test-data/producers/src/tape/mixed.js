// tape mixed case: pass, fail with expected/actual, skip, todo,
// nested subtests, console output and comments.
// Names contain '#' and '\' to exercise escaping.
'use strict';
var test = require('tape');

test('passes', function (t) {
  t.equal(1 + 1, 2, 'one plus one');
  t.ok(true);
  t.end();
});

test('fails with a comparison', function (t) {
  t.deepEqual({ a: 1, b: [1, 2] }, { a: 1, b: [1, 3] }, 'deep objects differ');
  t.equal('actual', 'expected', 'strings differ');
  t.end();
});

test('name with # hash and \\ backslash', function (t) {
  t.pass('assertion with # hash and \\ backslash');
  t.end();
});

test('skipped test', { skip: true }, function (t) {
  t.fail('never runs');
  t.end();
});

test('skipped assertions', function (t) {
  t.skip('this assertion is skipped');
  t.ok(false, 'skipped via option', { skip: true });
  t.end();
});

test('todo test', { todo: true }, function (t) {
  t.equal(41, 42, 'fails but is todo');
  t.end();
});

test('prints to the console', function (t) {
  console.log('console.log line from a test');
  console.log('# a line that looks like a comment');
  t.comment('comment from t.comment');
  t.pass('after console output');
  t.end();
});

test('parent with subtests', function (t) {
  t.pass('assertion in parent');
  t.test('child passes', function (st) {
    st.pass('child assertion');
    st.end();
  });
  t.test('child fails', function (st) {
    st.equal(41, 42, 'the answer');
    st.end();
  });
  t.end();
});

test('planned test', function (t) {
  t.plan(2);
  t.pass('first of two');
  t.pass('second of two');
});
