// A page busy for ever: its coverage cannot be taken (tests/integration/coverage.rs).
console.log('1..1');
for (;;) {}
