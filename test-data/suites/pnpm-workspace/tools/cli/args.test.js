const test = require('node:test');
const assert = require('node:assert');
const { parse } = require('./args.js');

test('a bare flag is true', () => {
  assert.deepStrictEqual(parse(['--force']), { force: true });
});

test('a flag takes its value', () => {
  assert.deepStrictEqual(parse(['--name=x']), { name: 'x' });
});
