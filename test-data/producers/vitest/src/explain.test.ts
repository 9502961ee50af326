import { describe, expect, it } from 'vitest';

interface User {
  name: string;
  roles: string[];
}

function greet(user: User): string {
  return `hello ${user.name}`;
}

describe('math', () => {
  it('adds', () => {
    expect(1 + 1).toBe(2);
  });

  it('toBe numbers', () => {
    const sum: number = 1 + 1;
    expect(sum).toBe(3);
  });

  it('toEqual objects', () => {
    const user: User = { name: 'ann', roles: ['admin', 'dev'] };
    expect(user).toEqual({ name: 'ann', roles: ['admin', 'ops'] });
  });

  it('toBe strings', () => {
    expect(greet({ name: 'bob', roles: [] })).toBe('hello world');
  });

  it('throws a TypeError', () => {
    const user = undefined as unknown as User;
    expect(greet(user)).toBe('hello');
  });
});
