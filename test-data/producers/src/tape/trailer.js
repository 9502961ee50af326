// tape trailer case: tape's own lines that belong to no test. A skipped
// test's `# SKIP name` notice comes right before the next test's heading,
// and the `# tests` / `# pass` / `# fail` trailer right after the plan; the
// last test fails, so both sit next to a failure.
'use strict';
var test = require('tape');

test('parse args', function (t) {
  t.equal(1, 1, 'accepts a number');
  t.end();
});

test('needs a network', { skip: true }, function (t) {
  t.ok(false, 'never runs');
  t.end();
});

test('alias', function (t) {
  t.equal('-a', '--all', 'expands the alias');
  t.end();
});
