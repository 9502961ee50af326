#!/usr/bin/env bash
# Record node-tap's own TAP (each file run by node, as tap's runner spawns it) for the
# explanation's known answers (tests/integration/issue41_node_tap.rs).
#
# Writes into test-data/producers/node-tap/:
# - explain.tap (tap 18+) and explain16.tap (tap 16): `node test/explain.js` run in a copy of
#   src/ (so the YAML's paths are `test/explain.js`, relative as tap prints them);
# - dist/maps.js and dist/maps.js.map: src/maps.ts built by tsc with a source map beside it,
#   and maps.tap: `node dist/maps.js` without --enable-source-maps, so tap's `at:` and
#   `stack:` name the built file (tapline follows its `//# sourceMappingURL=`);
# - VERSIONS.txt (node, tap, tsc, the exit codes).
# tap: $TAP21 / $TAP16 (folders whose node_modules hold tap 21 / tap 16, tap 21's with
# typescript), or tap@21 and tap@16 installed into temporary folders.
# Usage (from anywhere): bash scripts/record-node-tap.sh
set -euo pipefail
out="$(cd "$(dirname "${BASH_SOURCE[0]}")/../test-data/producers/node-tap" && pwd)"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
install() { # folder, package
  mkdir -p "$1"
  (cd "$1" && npm init -y >/dev/null && npm install --silent --no-audit --no-fund "$2" >/dev/null)
}
if [ -z "${TAP21:-}" ]; then
  TAP21="$work/tap21"
  install "$TAP21" "tap@21 typescript@5"
fi
if [ -z "${TAP16:-}" ]; then
  TAP16="$work/tap16"
  install "$TAP16" tap@16
fi
versions="$out/VERSIONS.txt"
{
  echo "node $(node --version)"
  echo "tap $(node -p "require('$TAP21/node_modules/tap/package.json').version")"
  echo "tap 16 $(node -p "require('$TAP16/node_modules/tap/package.json').version")"
  echo "tsc $(node "$TAP21/node_modules/typescript/bin/tsc" --version)"
} >"$versions"
record() { # tap folder, recording, command…
  local tap=$1 name=$2
  shift 2
  rm -rf "$work/p"
  mkdir -p "$work/p/test" "$work/p/src"
  cp "$out/src/explain.js" "$work/p/test/"
  cp "$out/src/maps.ts" "$work/p/src/"
  ln -s "$tap/node_modules" "$work/p/node_modules"
  if [ "$name" = maps ]; then
    (cd "$work/p" && node node_modules/typescript/bin/tsc --sourceMap --outDir dist \
      --rootDir src --module commonjs --target es2022 --esModuleInterop --skipLibCheck \
      --moduleResolution node src/maps.ts)
    mkdir -p "$out/dist"
    cp "$work/p/dist/maps.js" "$work/p/dist/maps.js.map" "$out/dist/"
  fi
  set +e
  (cd "$work/p" && "$@" >"$out/$name.tap")
  code=$?
  set -e
  echo "$name.tap exit=$code" >>"$versions"
}
record "$TAP21" explain node test/explain.js
record "$TAP16" explain16 node test/explain.js
record "$TAP21" maps node dist/maps.js
cat "$versions"
