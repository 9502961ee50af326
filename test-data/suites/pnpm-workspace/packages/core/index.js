exports.clamp = (n, lo, hi) => Math.min(hi, Math.max(lo, n));
