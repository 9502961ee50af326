export const total = (...xs) => xs.reduce((a, b) => a + b, 0);
