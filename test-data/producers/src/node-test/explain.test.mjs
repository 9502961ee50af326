// node:test explain case: values whose YAML hides their type (a Date
// against its ISO string, undefined against null, a Symbol against a
// string, a class instance against a plain object), two failing tests with
// the same name, a failure nested in describe/it, and node's trailer.
import { describe, it, test } from 'node:test';
import assert from 'node:assert';

class Point {
  constructor(x) {
    this.x = x;
  }
}

test('date against its string', () => {
  assert.deepStrictEqual({ d: new Date(0) }, { d: '1970-01-01T00:00:00.000Z' });
});

test('same name', () => {
  assert.strictEqual(undefined, null);
});

test('same name', () => {
  assert.strictEqual(Symbol('x'), 'x');
});

describe('outer', () => {
  it('passes', () => {});
  describe('inner', () => {
    it('instance against a plain object', () => {
      assert.deepStrictEqual(new Point(1), { x: 1 });
    });
  });
});
