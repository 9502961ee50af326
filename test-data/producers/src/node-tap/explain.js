// node-tap explain case: a failure with tap's multi-line `source:` block
// (code lines around a `--^` caret), a parent subtest whose child fails,
// two failures with the same name, and tap's `# failed N of M tests`.
'use strict';
const t = require('tap');

t.test('parent', async t => {
  t.test('child', async t => {
    t.equal('got', 'wanted', 'child fails');
  });
});

t.equal(1, 2, 'same name');
t.equal('a', 'b', 'same name');
t.pass('passes');
