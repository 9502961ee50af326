const test = require('tape');
const { add } = require('../index.js');

test('add', (t) => {
  t.equal(add(1, 2), 3, 'adds');
  t.equal(add(-1, 1), 0, 'adds a negative');
  t.end();
});
