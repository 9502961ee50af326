const test = require('node:test');
const assert = require('node:assert');
const { double } = require('./helpers.js');

test('double', () => {
  assert.strictEqual(double(2), 4);
});

test('double of a negative', () => {
  assert.strictEqual(double(-3), -6);
});
