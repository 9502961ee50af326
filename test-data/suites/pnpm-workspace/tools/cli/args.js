// The planted bug: a flag's value keeps its leading '='.
exports.parse = (argv) => {
  const out = {};
  for (const a of argv) {
    const m = /^--([^=]+)(=.*)?$/.exec(a);
    if (m) out[m[1]] = m[2] === undefined ? true : m[2];
  }
  return out;
};
