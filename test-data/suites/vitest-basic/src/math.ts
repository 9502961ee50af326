export const add = (a: number, b: number): number => a + b;

// Deliberately wrong for negative numbers: the fixture's one failing test.
export function range(from: number, to: number): number[] {
  const out: number[] = [];
  for (let i = from; i < to; i++) out.push(Math.abs(i));
  return out;
}
