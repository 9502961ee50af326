// A passing file: plain node printing TAP 14 by hand (no test framework).
'use strict';
const assert = require('node:assert');

const tests = [
  ['adds numbers', () => assert.strictEqual(1 + 1, 2)],
  ['joins strings', () => assert.strictEqual(['a', 'b'].join('-'), 'a-b')],
  ['parses JSON', () => assert.deepStrictEqual(JSON.parse('{"x":[1,2]}'), { x: [1, 2] })],
];
console.log('TAP version 14');
console.log(`1..${tests.length}`);
tests.forEach(([name, fn], i) => {
  try {
    fn();
    console.log(`ok ${i + 1} - ${name}`);
  } catch (e) {
    console.log(`not ok ${i + 1} - ${name}`);
    process.exitCode = 1;
  }
});
