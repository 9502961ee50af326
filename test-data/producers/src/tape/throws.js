// tape: a test that throws; the process dies and the TAP stream stops
// without a plan.
'use strict';
var test = require('tape');

test('passes first', function (t) {
  t.pass('fine');
  t.end();
});

test('throws an exception', function (t) {
  throw new Error('boom from inside a test');
});
