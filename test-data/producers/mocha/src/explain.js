const assert = require('assert');
// mocha --reporter tap failures: scripts/record-mocha.sh records them (tests/integration/issue41_mocha.rs).
describe('math', function () {
  it('adds', function () { assert.strictEqual(1 + 1, 2); });
  it('fails strict', function () {
    console.error('debug: about to compare');
    assert.strictEqual(1 + 1, 3);
  });
  it('throws plain', function () {
    throw new Error('expected 200 got 404');
  });
  it('deep', function () { assert.deepStrictEqual({a: 1, b: [1, 2]}, {a: 1, b: [1, 3]}); });
});
describe('http', function () {
  it('status', function () {
    const err = new Error('expected 200 "OK", got 404 "Not Found"');
    throw err;
  });
});
