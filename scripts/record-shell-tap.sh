#!/usr/bin/env bash
# Record a shell test library's verbose TAP (sharness, `./t0001-x.t -v` as `make TEST_OPTS=-v`
# runs it) for the explanation's known answers (tests/integration/issue41_shell_tap.rs).
#
# Writes test-data/producers/shell-tap/<case>.tap from `sh <case>.t -v` run in
# /tmp/tapline-record-shell-tap beside sharness.sh, and VERSIONS.txt (sharness, the exit codes).
# sharness: $SHARNESS (its sharness.sh), or Debian's package (`apt-get install sharness`).
# The diff headers' file times are those of the recording.
# Usage (from anywhere): bash scripts/record-shell-tap.sh
set -euo pipefail
out="$(cd "$(dirname "${BASH_SOURCE[0]}")/../test-data/producers/shell-tap" && pwd)"
lib="${SHARNESS:-/usr/share/sharness/sharness.sh}"
work=/tmp/tapline-record-shell-tap
rm -rf "$work"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work"
cp "$lib" "$work/sharness.sh"
cp "$out"/src/*.t "$work/"
versions="$out/VERSIONS.txt"
echo "sharness $(sed -n 's/^SHARNESS_VERSION="\(.*\)"$/\1/p' "$work/sharness.sh")" >"$versions"
for src in "$out"/src/*.t; do
  case=$(basename "$src" .t)
  set +e
  (cd "$work" && sh "$case.t" -v >"$out/$case.tap" 2>&1)
  code=$?
  set -e
  echo "$case.tap exit=$code" >>"$versions"
done
cat "$versions"
