#!/usr/bin/env bash
# Record mocha's own TAP reporter (`mocha --reporter tap`, as a project's script that forces it
# runs) for the explanation's known answers (tests/integration/issue41_mocha.rs).
#
# Writes test-data/producers/mocha/<case>.tap (stdout) and <case>.stderr from
# `mocha --reporter tap test/<case>.js` run in a copy of src/ (so the stack's paths are
# `test/<case>.js`, relative as mocha prints them), and VERSIONS.txt (node, mocha, the exit
# codes). mocha: $MOCHA (its bin/mocha.js), or mocha@11 installed into a temporary folder.
# Usage (from anywhere): bash scripts/record-mocha.sh
set -euo pipefail
out="$(cd "$(dirname "${BASH_SOURCE[0]}")/../test-data/producers/mocha" && pwd)"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/test"
cp "$out"/src/*.js "$work/test/"
if [ -z "${MOCHA:-}" ]; then
  (cd "$work" && npm install --silent --no-audit --no-fund mocha@11 >/dev/null)
  MOCHA="$work/node_modules/mocha/bin/mocha.js"
fi
versions="$out/VERSIONS.txt"
{
  echo "node $(node --version)"
  echo "mocha $(node "$MOCHA" --version)"
} >"$versions"
for src in "$out"/src/*.js; do
  case=$(basename "$src" .js)
  set +e
  (cd "$work" && node "$MOCHA" --reporter tap "test/$case.js" >"$out/$case.tap" 2>"$out/$case.stderr")
  code=$?
  set -e
  echo "$case.tap exit=$code" >>"$versions"
done
cat "$versions"
