'use strict';
const { add, range } = require('../src/math');

describe('math', () => {
  test('adds', () => {
    expect(add(2, 3)).toBe(5);
  });

  describe('range', () => {
    test('counts up', () => {
      expect(range(1, 4)).toEqual([1, 2, 3]);
    });

    test('keeps negative numbers', () => {
      expect(range(-2, 1)).toEqual([-2, -1, 0]);
    });
  });
});
