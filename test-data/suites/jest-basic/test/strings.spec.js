'use strict';
const { shout, words } = require('../src/strings');

describe('strings', () => {
  test('shouts', () => {
    expect(shout('hi')).toBeShouted();
  });

  test('splits words', () => {
    expect(words(' a  b c ')).toEqual(['a', 'b', 'c']);
  });

  test.skip('handles right-to-left text', () => {
    throw new Error('not written yet');
  });
});
