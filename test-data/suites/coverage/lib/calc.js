// Adds and doubles.
function used(a, b) {
  return a + b;
}

function unused(a) {
  const doubled = a * 2;
  return doubled;
}

module.exports = { used, unused };
