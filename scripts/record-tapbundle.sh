#!/usr/bin/env bash
# Record tapbundle 5's own TAP stream with smartexpect's failures (`expect(x).toBeTrue()`…),
# for the explanation's known answers (tests/integration/issue41_tstest.rs).
#
# Writes test-data/producers/tapbundle/<case>.tap (stdout; tapbundle writes nothing on stderr)
# and VERSIONS.txt (node, tapbundle, smartexpect, tsx, the exit codes) from `tsx test/<case>.ts`
# run in a scratch ESM project, so the stack's paths are the project's. The project: $TB_DIR
# (one with @push.rocks/tapbundle and tsx installed), or tapbundle and tsx installed into a
# temporary folder with the overrides scripts/record-producers.sh uses.
# Usage (from anywhere): bash scripts/record-tapbundle.sh
set -euo pipefail
out="$(cd "$(dirname "${BASH_SOURCE[0]}")/../test-data/producers/tapbundle" && pwd)"
TAPBUNDLE_VERSION=5.6.3
TSX_VERSION=4.23.15
if [ -z "${TB_DIR:-}" ]; then
  TB_DIR=$(mktemp -d)
  trap 'rm -rf "$TB_DIR"' EXIT
  # The registry here has only some versions of its dependencies: pinned (one list for
  # every recording script).
  cp "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/tapbundle-package.json" "$TB_DIR/package.json"
  (cd "$TB_DIR" && PUPPETEER_SKIP_DOWNLOAD=1 npm install --silent --ignore-scripts --no-audit \
    --no-fund --save-exact "@push.rocks/tapbundle@$TAPBUNDLE_VERSION" "tsx@$TSX_VERSION" >/dev/null)
fi
version() { node -p "require('$TB_DIR/node_modules/$1/package.json').version"; }
mkdir -p "$TB_DIR/test"
cp "$out"/src/*.ts "$TB_DIR/test/"
versions="$out/VERSIONS.txt"
{
  echo "node $(node --version)"
  echo "@push.rocks/tapbundle $(version @push.rocks/tapbundle)"
  echo "@push.rocks/smartexpect $(version @push.rocks/smartexpect)"
  echo "tsx $(version tsx)"
} >"$versions"
for src in "$out"/src/*.ts; do
  case=$(basename "$src" .ts)
  set +e
  (cd "$TB_DIR" && node_modules/.bin/tsx "test/$case.ts" >"$out/$case.tap" 2>"$out/$case.stderr")
  code=$?
  set -e
  [ -s "$out/$case.stderr" ] || rm -f "$out/$case.stderr"
  echo "$case.tap exit=$code" >>"$versions"
done
cat "$versions"
