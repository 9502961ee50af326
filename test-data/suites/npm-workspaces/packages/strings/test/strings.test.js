const test = require('node:test');
const assert = require('node:assert');
const { shout, words } = require('../index.js');

test('shout', () => {
  assert.strictEqual(shout('hi'), 'HI!');
});

test('words', () => {
  assert.deepStrictEqual(words(' a  b '), ['a', 'b']);
});
