#!/usr/bin/env bash
# Record the reference parser's results for every TAP stream of the repository.
#
# Installs tapjs tap-parser (pinned, the version CI's extra conformance check uses) OUTSIDE
# the repository (default /tmp/tapline-conformance, override with CONFORMANCE_ENV), runs it
# over every stream under test-data/streams/, test-data/producers/ and test-data/conformance/,
# and writes, for test-data/<dir>/<name>.tap,
#
#   test-data/conformance/expected/<dir>/<name>.json
#
# holding tap-parser's final result and its test points, subtests nested under the point
# that closes them (scripts/conformance-record.js documents the shape). `cargo test`
# (tests/integration/conformance.rs) compares tapline with these files; streams where
# tapline differs on purpose are listed in protocol-spec/divergences.txt.
#
# Needs: node (v18 or later) and npm.
# Usage (from anywhere): bash scripts/record-conformance.sh
# Idempotent: re-running installs nothing when the pinned version is there, and replaces
# every expected file (stale ones of deleted streams included).
set -euo pipefail

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$REPO_ROOT"

TAP_PARSER_VERSION=18.3.4
ENV_DIR="${CONFORMANCE_ENV:-/tmp/tapline-conformance}"
NODE_MODULES="$ENV_DIR/node_modules"
OUT=test-data/conformance/expected
DIRS=(streams producers conformance)

log() { printf '==> %s\n' "$*"; }

installed() {
  local pj="$NODE_MODULES/tap-parser/package.json"
  [ -f "$pj" ] && node -p "require(process.argv[1]).version" "$pj" 2>/dev/null || true
}

if [ "$(installed)" = "$TAP_PARSER_VERSION" ]; then
  log "tap-parser@$TAP_PARSER_VERSION already installed in $ENV_DIR"
else
  log "npm: installing tap-parser@$TAP_PARSER_VERSION into $ENV_DIR"
  mkdir -p "$ENV_DIR"
  npm install --prefix "$ENV_DIR" --no-audit --no-fund --save-exact \
    "tap-parser@$TAP_PARSER_VERSION" >/dev/null
fi
[ "$(installed)" = "$TAP_PARSER_VERSION" ] || {
  echo "record-conformance: failed to install tap-parser@$TAP_PARSER_VERSION" >&2
  exit 1
}

rm -rf "$OUT"
total=0
for dir in "${DIRS[@]}"; do
  [ -d "test-data/$dir" ] || continue
  # Every .tap below the folder except the expected results themselves, by relative path.
  while IFS= read -r -d '' sub; do
    rel="${sub#test-data/}"
    files=("$sub"/*.tap)
    [ -e "${files[0]}" ] || continue
    NODE_PATH="$NODE_MODULES" node scripts/conformance-record.js "$OUT/$rel" "${files[@]}"
    total=$((total + ${#files[@]}))
    printf '    %-40s %4d streams\n' "$rel" "${#files[@]}"
  done < <(find "test-data/$dir" -path "$OUT" -prune -o -type d -print0 | sort -z)
done
log "recorded $total streams with tap-parser@$TAP_PARSER_VERSION into $OUT"
