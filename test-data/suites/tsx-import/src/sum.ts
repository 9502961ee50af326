export type Numbers = readonly number[]

// The bug the suite finds: the sum starts at 1.
export function sum(xs: Numbers): number {
  return xs.reduce((a, b) => a + b, 1)
}
