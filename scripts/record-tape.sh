#!/usr/bin/env bash
# Record tape's TAP (`node test/FILE`, as a project's `tape test/*.mjs` runs each file) for the
# explanation's known answers (tests/integration/issue41_tape.rs).
#
# Writes test-data/producers/tape/<case>.tap from `node test/<case>.mjs` run in
# /tmp/tapline-record-tape (a fixed folder, so the absolute `file://` places tape prints are
# the same on every recording), and VERSIONS.txt (node, tape, the exit codes). tape: $TAPE (a
# folder whose node_modules holds it), or tape@5 installed there.
# Usage (from anywhere): bash scripts/record-tape.sh
set -euo pipefail
out="$(cd "$(dirname "${BASH_SOURCE[0]}")/../test-data/producers/tape" && pwd)"
work=/tmp/tapline-record-tape
rm -rf "$work"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/test"
cp "$out"/src/*.mjs "$work/test/"
if [ -n "${TAPE:-}" ]; then
  ln -s "$TAPE/node_modules" "$work/node_modules"
else
  (cd "$work" && npm init -y >/dev/null && npm install --silent --no-audit --no-fund tape@5 >/dev/null)
fi
versions="$out/VERSIONS.txt"
{
  echo "node $(node --version)"
  echo "tape $(node -p "require('$work/node_modules/tape/package.json').version")"
} >"$versions"
for src in "$out"/src/*.mjs; do
  case=$(basename "$src" .mjs)
  set +e
  (cd "$work" && node "test/$case.mjs" >"$out/$case.tap")
  code=$?
  set -e
  echo "$case.tap exit=$code" >>"$versions"
done
cat "$versions"
