export const add = (a: number, b: number): number => a + b

// The planted bug: subtracts the wrong way round.
export const sub = (a: number, b: number): number => b - a
