// tape explain case: every test opens with a `# name` heading; the same
// assertion name failing under two headings, an unnamed failure, strings
// and objects that tape prints inspected ('uri://a/', { a: [ 1, 2 ] }),
// `# SKIP` notices of skipped tests and the `# tests` trailer.
'use strict';
var test = require('tape');

test('first request', function (t) {
  t.equal(200, 404, 'status');
  t.end();
});

test('second request', function (t) {
  t.equal(301, 302, 'status');
  t.end();
});

test('unnamed', function (t) {
  t.fail();
  t.end();
});

test('inspected values', function (t) {
  t.equal('uri://a/', 'uri://b/', 'normalizes the uri');
  t.deepEqual({ a: [1, 2] }, { a: [1, 3] }, 'same object');
  t.end();
});

test('not ready yet', { skip: 'waits for the server' }, function (t) {
  t.pass('never runs');
  t.end();
});

test('skips inside a test', function (t) {
  t.skip('needs a network');
  t.pass('runs');
  t.end();
});
