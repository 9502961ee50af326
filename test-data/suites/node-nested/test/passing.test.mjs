// A file of nested passing tests: its verdict is a pass.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';

describe('math', () => {
  it('adds', () => {
    assert.equal(1 + 1, 2);
  });

  describe('division', () => {
    it('divides', () => {
      assert.equal(6 / 3, 2);
    });

    it.skip('by zero', () => {});
  });
});
