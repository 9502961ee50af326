// node:test values case: what node's tap reporter writes for values its YAML
// cannot tell apart from others (a Date is a plain ISO scalar, a string is
// quoted, `undefined` is left out, a class's name and a Symbol are lost in
// the serialised error) and node's own diff in the message keeps; twice with
// node's diff skipping lines, so the YAML's values are all there is.
import { test } from 'node:test';
import assert from 'node:assert';

class Foo {
  constructor() {
    this.a = 1;
  }
}

function twelve(k5) {
  const o = {};
  for (let i = 0; i < 12; i++) o['k' + i] = i;
  o.k5 = k5;
  return o;
}

test('a Date against its ISO string', () => {
  assert.deepStrictEqual({ d: new Date(0) }, { d: '1970-01-01T00:00:00.000Z' });
});

test('undefined against null', () => {
  assert.deepStrictEqual({ u: undefined }, { u: null });
});

test('undefined against a string', () => {
  assert.strictEqual(undefined, 'undefined');
});

test('a Symbol against a string', () => {
  assert.strictEqual(Symbol('x'), 'Symbol(x)');
});

test('a class instance against an object', () => {
  assert.deepStrictEqual(new Foo(), { a: 1 });
});

test('a Date among skipped lines', () => {
  assert.deepStrictEqual(twelve(new Date(0)), twelve('1970-01-01T00:00:00.000Z'));
});

test('a class instance among skipped lines', () => {
  assert.deepStrictEqual(twelve(new Foo()), twelve({ a: 1 }));
});
