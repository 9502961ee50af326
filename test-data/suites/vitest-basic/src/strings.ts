export const shout = (s: string): string => `${s.toUpperCase()}!`;
export const words = (s: string): string[] => s.split(/\s+/).filter(Boolean);
