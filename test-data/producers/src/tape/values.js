// tape values case: what object-inspect prints into `expected:`/`actual:`
// (quoted strings, undefined, Dates, regexes, functions, class instances,
// Symbols, bigints), plain or in a `|-` block, and a quoted string YAML
// cannot read (`'it\'s'`).
'use strict';
var test = require('tape');

class Foo {
  constructor() {
    this.a = 1;
  }
}
function f() {}

test('values', function (t) {
  t.equal('uri://a/', 'uri://b/', 'inspected strings');
  t.equal(1, '1', 'a number against a string');
  t.equal(undefined, null, 'undefined against null');
  t.deepEqual(new Date(0), '1970-01-01T00:00:00.000Z', 'a Date against a string');
  t.equal(/ab+c/gi, /ab+c/g, 'regexes');
  t.equal(f, 'f', 'a function against a string');
  t.deepEqual(new Foo(), { a: 1 }, 'a class instance against an object');
  t.equal(Symbol('x'), 'x', 'a Symbol against a string');
  t.equal("it's", 'it"s', 'quotes YAML cannot read');
  t.equal('a\nb', 'a\nc', 'escaped line breaks');
  t.equal(BigInt(10), 10, 'a bigint against a number');
  t.end();
});
