// node-tap mixed case: pass, fail with expected/actual, skip, todo,
// nested subtests, console output and comments.
// Names contain '#' and '\' to exercise escaping.
'use strict';
const t = require('tap');

t.pass('passes');

t.test('fails with a comparison', async t => {
  t.same({ a: 1, b: [1, 2] }, { a: 1, b: [1, 3] }, 'deep objects differ');
  t.equal('actual', 'expected', 'strings differ');
});

t.test('name with # hash and \\ backslash', async t => {
  t.pass('assertion with # hash and \\ backslash');
});

t.test('skipped test', { skip: 'not on this platform' }, async t => {
  t.fail('never runs');
});

t.test('todo test', { todo: 'not implemented yet' }, async t => {
  t.equal(41, 42, 'fails but is todo');
});

t.todo('todo without a body');

t.test('skipped and todo assertions', async t => {
  t.ok(false, 'skipped assertion', { skip: true });
  t.ok(false, 'todo assertion', { todo: 'later' });
});

t.test('prints to the console', async t => {
  console.log('console.log line from a test');
  console.log('# a line that looks like a comment');
  t.comment('comment from t.comment');
  t.pass('after console output');
});

t.test('parent with subtests', async t => {
  t.pass('assertion in parent');
  t.test('child passes', async t => {
    t.pass('child assertion');
  });
  t.test('child fails', async t => {
    t.equal(41, 42, 'the answer');
  });
  t.test('child # with \\ escapes', async t => {
    t.test('grandchild passes', async t => {
      t.pass('grandchild assertion');
    });
  });
});
