const test = require('node:test');
const assert = require('node:assert');
const { clamp } = require('../index.js');

test('clamp keeps a value inside', () => {
  assert.strictEqual(clamp(5, 0, 10), 5);
});

test('clamp raises a low value', () => {
  assert.strictEqual(clamp(-5, 0, 10), 0);
});
