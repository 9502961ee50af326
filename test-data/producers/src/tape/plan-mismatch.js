// tape: a test whose plan does not match the number of assertions.
'use strict';
var test = require('tape');

test('plans three but runs one', function (t) {
  t.plan(3);
  t.pass('only assertion');
  setTimeout(function () { t.end(); }, 0);
});

test('runs after the mismatch', function (t) {
  t.pass('still runs');
  t.end();
});
