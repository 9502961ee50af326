export const shout = (s) => s.toUpperCase();
