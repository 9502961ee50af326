function greet(user) {
  return `hello ${user.name}`;
}

describe('math', () => {
  it('adds', () => {
    expect(1 + 1).toBe(2);
  });

  it('toBe numbers', () => {
    const sum = 1 + 1;
    expect(sum).toBe(3);
  });

  it('toEqual objects', () => {
    const user = { name: 'ann', roles: ['admin', 'dev'] };
    expect(user).toEqual({ name: 'ann', roles: ['admin', 'ops'] });
  });

  it('toBe strings', () => {
    expect(greet({ name: 'bob', roles: [] })).toBe('hello world');
  });

  it('throws a TypeError', () => {
    const user = undefined;
    expect(greet(user)).toBe('hello');
  });
});
