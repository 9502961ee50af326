'use strict';
const assert = require('node:assert');

const strings = lib('strings');

describe('strings', function () {
  it('shouts', function () {
    assert.strictEqual(strings.shout('hi'), 'HI!');
  });

  it('splits words', function () {
    assert.deepStrictEqual(strings.words(' a  b c '), ['a', 'b', 'c']);
  });

  it.skip('handles right-to-left text', function () {
    assert.fail('not written yet');
  });
});
