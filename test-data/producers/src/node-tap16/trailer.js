// node-tap 16 trailer case: each failing subtest ends with `# failed 1 test`
// after its plan, right before its own `not ok` line, and the stream with
// `# failed 2 of 4 tests` and `# time=...` after its plan.
const t = require('tap');

t.test('parses', async t => {
  t.equal(1, 1, 'number');
});

t.test('formats', async t => {
  t.equal('a', 'b', 'letters');
});

t.test('rounds', async t => {
  t.equal(1.5, 2, 'half up');
});

t.test('trims', async t => {
  t.equal(' x'.trim(), 'x', 'spaces');
});
