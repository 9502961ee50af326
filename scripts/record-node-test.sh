#!/usr/bin/env bash
# Record node:test's own TAP reporter (`node --test --test-reporter tap`, and `tsx --test` for
# a TypeScript file) for the explanation's known answers (tests/integration/issue41_node_test.rs).
#
# Writes test-data/producers/node-test/<case>.tap (stdout) and <case>.stderr from each source in
# src/ run in a copy of src/ at a fixed folder, /tmp/tapline-record-node-test/test/ (node's
# `location:` and stack frames are absolute: a fixed folder makes every recording name the same
# paths, which the tests put back under their own project), and VERSIONS.txt (node, tsx, the exit
# codes). tsx: tsx@3.12.7 (as coderbyheart/testing-with-node pins it: its `location:` is the transpiled
# place, `1:…`, while the stack is mapped) installed into that folder.
# A source named in DIRECT is also recorded as `tapline run` runs a node:test file, `node FILE`
# (node's TAP reporter in the test's own process, whose YAML keeps the values the runner's
# loses: the error `assert.throws` caught), as <case>-direct.tap.
# Usage (from anywhere): bash scripts/record-node-test.sh [CASE…] (default: every source; a
# case is a source's name less `.test.mjs`/`.test.ts`, so re-recording one leaves the others)
set -euo pipefail
out="$(cd "$(dirname "${BASH_SOURCE[0]}")/../test-data/producers/node-test" && pwd)"
work=/tmp/tapline-record-node-test
rm -rf "$work"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/test"
cp "$out"/src/*.mjs "$out"/src/*.ts "$work/test/"
(cd "$work" && npm init -y >/dev/null && npm install --silent --no-audit --no-fund tsx@3.12.7 >/dev/null)
versions="$out/VERSIONS.txt"
# The exit lines of the recordings not made again stay.
kept=$(grep '\.tap exit=' "$versions" 2>/dev/null || true)
for case in "$@"; do
  kept=$(printf '%s\n' "$kept" | grep -v -e "^$case\.tap " -e "^$case-direct\.tap " || true)
done
[ $# -gt 0 ] || kept=""
{
  echo "node $(node --version)"
  echo "tsx $(cd "$work" && node -p 'require("tsx/package.json").version')"
  [ -z "$kept" ] || printf '%s\n' "$kept"
} >"$versions"
DIRECT=(throws)
for src in "$out"/src/*.test.mjs "$out"/src/*.test.ts; do
  file=$(basename "$src")
  case=${file%.test.*}
  if [ $# -gt 0 ] && ! printf '%s\n' "$@" | grep -qx "$case"; then
    continue
  fi
  runner=(node)
  [[ $file == *.ts ]] && runner=("$work/node_modules/.bin/tsx")
  set +e
  (cd "$work" && "${runner[@]}" --test --test-reporter tap "test/$file" >"$out/$case.tap" 2>"$out/$case.stderr")
  code=$?
  set -e
  # node writes nothing to stderr under --test: an empty file is no recording.
  [ -s "$out/$case.stderr" ] || rm -f "$out/$case.stderr"
  echo "$case.tap exit=$code ($(basename "${runner[0]}") --test --test-reporter tap test/$file)" >>"$versions"
  if printf '%s\n' "${DIRECT[@]}" | grep -qx "$case"; then
    set +e
    (cd "$work" && "${runner[@]}" "test/$file" >"$out/$case-direct.tap" 2>"$out/$case-direct.stderr")
    code=$?
    set -e
    [ -s "$out/$case-direct.stderr" ] || rm -f "$out/$case-direct.stderr"
    echo "$case-direct.tap exit=$code ($(basename "${runner[0]}") test/$file)" >>"$versions"
  fi
done
cat "$versions"
