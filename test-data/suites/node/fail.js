// A failing file: a deepStrictEqual failure reported as TAP 14 YAML expected/actual.
'use strict';
const assert = require('node:assert');

function slugify(title) {
  return title.toLowerCase().split(' ').join('-'); // bug: keeps punctuation
}

const tests = [
  ['slugifies a plain title', () => assert.strictEqual(slugify('Hello World'), 'hello-world')],
  ['slugifies every title', () =>
    assert.deepStrictEqual(['A B', 'Hi, there!'].map(slugify), ['a-b', 'hi-there'])],
];
console.log('TAP version 14');
console.log(`1..${tests.length}`);
tests.forEach(([name, fn], i) => {
  try {
    fn();
    console.log(`ok ${i + 1} - ${name}`);
  } catch (e) {
    process.exitCode = 1;
    console.log(`not ok ${i + 1} - ${name}`);
    console.log('  ---');
    console.log(`  message: ${JSON.stringify(e.message.split('\n')[0])}`);
    console.log(`  expected: ${JSON.stringify(e.expected)}`);
    console.log(`  actual: ${JSON.stringify(e.actual)}`);
    console.log('  ...');
  }
});
