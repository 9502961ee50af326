exports.add = (a, b) => a + b;
// The planted bug: the range stops one short.
exports.range = (n) => Array.from({ length: n - 1 }, (_, i) => i);
