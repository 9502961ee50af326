import test from 'ava';

test('adds', (t) => {
  t.is(1 + 1, 2);
});

test('is numbers', (t) => {
  t.is(1 + 1, 3);
});

test('deep equal', (t) => {
  const got = {a: 1, b: [1, 2]};
  t.deepEqual(got, {a: 1, b: [1, 3]});
});

test('is strings', (t) => {
  t.is('hello there', 'hello world', 'greeting');
});

test('throws a TypeError', (t) => {
  const user = undefined;
  t.is(user.name, 'x');
});

test('true', (t) => {
  t.true(1 > 2);
});

test('regex', (t) => {
  t.regex('abc', /x/);
});
