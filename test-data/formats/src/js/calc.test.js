// Jest tests whose jest-junit XML shows passes, a failing deep-equality, a skip and a todo.
describe('calc', () => {
  test('adds', () => {
    expect(1 + 2).toBe(3);
  });

  test('builds an object', () => {
    expect({ a: 1, b: [1, 2] }).toEqual({ a: 1, b: [1, 3] });
  });

  test.skip('divides by zero', () => {});

  test.todo('supports complex numbers');

  describe('strings', () => {
    test('joins', () => {
      expect(['a', 'b'].join('-')).toBe('a-b');
    });
  });
});

test('top-level async', async () => {
  await new Promise((r) => setTimeout(r, 5));
  expect(true).toBe(true);
});
