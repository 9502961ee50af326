// node-tap: bail out in the middle of a run.
'use strict';
const t = require('tap');

t.pass('before the bail out');
t.test('subtest that bails', async t => {
  t.pass('inside the subtest');
  t.bailout('database # not \\ reachable');
});
t.pass('never reached');
