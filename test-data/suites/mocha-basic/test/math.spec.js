'use strict';
const assert = require('node:assert');

const math = lib('math');

describe('math', function () {
  it('adds', function () {
    assert.strictEqual(math.add(2, 3), 5);
  });

  describe('range', function () {
    it('counts up', function () {
      assert.deepStrictEqual(math.range(1, 4), [1, 2, 3]);
    });

    it('keeps negative numbers', function () {
      assert.deepStrictEqual(math.range(-2, 1), [-2, -1, 0]);
    });
  });
});
