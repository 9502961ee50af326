const test = require('tape');
const { range } = require('../index.js');

test('range', (t) => {
  t.deepEqual(range(3), [0, 1, 2], 'counts from zero');
  t.end();
});
