#!/usr/bin/env bash
# Record ava's own TAP reporter (`ava --tap`, as a project's script or a `[[runner]]` that
# forces it runs) for the explanation's known answers (tests/integration/issue41_ava.rs).
#
# Writes test-data/producers/ava/<case>.tap (ava 6) and <case>-ava5.tap (ava 5, whose YAML
# says `values:` where ava 6 says `details:`, and whose `at:` is the test's line where ava 6's
# is its own assert.js) from `ava --tap test/<case>.js` run in a copy of src/ (an ES module
# project, so the paths are `test/<case>.js`), and VERSIONS.txt (node, ava, the exit codes).
# ava: $AVA6 and $AVA5 (their entrypoints/cli.mjs), or ava@6 and ava@5 installed into
# temporary folders. Usage (from anywhere): bash scripts/record-ava.sh
set -euo pipefail
out="$(cd "$(dirname "${BASH_SOURCE[0]}")/../test-data/producers/ava" && pwd)"
work=/tmp/tapline-record-ava
rm -rf "$work"
mkdir -p "$work"
trap 'rm -rf "$work"' EXIT
versions="$out/VERSIONS.txt"
echo "node $(node --version)" >"$versions"
for major in 6 5; do
  dir="$work/ava$major"
  mkdir -p "$dir/test"
  cp "$out"/src/*.js "$dir/test/"
  echo '{"name": "ava-explain", "private": true, "type": "module"}' >"$dir/package.json"
  var="AVA$major"
  cli="${!var:-}"
  if [ -z "$cli" ]; then
    (cd "$dir" && npm install --silent --no-audit --no-fund "ava@$major" >/dev/null)
    cli="$dir/node_modules/ava/entrypoints/cli.mjs"
  else
    # The test imports `ava`: the folder the given ava is installed in.
    ln -s "$(cd "$(dirname "$cli")/../.." && pwd)" "$dir/node_modules"
  fi
  suffix=$([ "$major" = 6 ] && echo "" || echo "-ava$major")
  echo "ava $(node "$cli" --version)" >>"$versions"
  for src in "$out"/src/*.js; do
    case=$(basename "$src" .js)
    set +e
    # ava's worker threads are per file; one at a time keeps the points in the file's order.
    (cd "$dir" && node "$cli" --tap --serial "test/$case.js" >"$out/$case$suffix.tap" 2>/dev/null)
    code=$?
    set -e
    echo "$case$suffix.tap exit=$code" >>"$versions"
  done
done
cat "$versions"
