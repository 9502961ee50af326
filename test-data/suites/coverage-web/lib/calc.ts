// Adds and doubles, typed.
export interface Pair {
  a: number;
  b: number;
}

export function used(p: Pair): number {
  const sum: number = p.a + p.b;
  return sum;
}

export function unused(a: number): number {
  const doubled: number = a * 2;
  return doubled;
}
