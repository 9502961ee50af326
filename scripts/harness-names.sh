#!/bin/bash
# Issue 39's gate: every line of src/ that names a harness outside the places allowed to
# (src/harness/: the rooms and their registry; src/explain/failure/: the producers' failure
# readers, #41; src/cli.rs: the user's help). Prints nothing once the move is done; until then
# `scripts/harness-names.sh | wc -l` measures what is left. Why the boundaries are drawn so:
# docs/harness-adapters-plan.md, section 5. Usage: scripts/harness-names.sh [REPO]
cd "${1:-$(dirname "$0")/..}" || exit 2
long='pytest unittest tstest tapbundle perl python chromium mocha vitest yath node:test node-tap @tapjs libtest gotest'
short='tape ava jest bats bun deno prove tsx tsrun'
alt=()
for w in $long; do
  cap="$(tr '[:lower:]' '[:upper:]' <<<"${w:0:1}")${w:1}"
  alt+=("(?<![A-Za-z])(?i:${w//:/\\:})|(?<=[a-z])${cap//:/\\:}")
done
for w in $short; do
  cap="$(tr '[:lower:]' '[:upper:]' <<<"${w:0:1}")${w:1}"
  alt+=("(?:(?<![A-Za-z])(?i:$w)|(?<=[a-z])$cap)(?![A-Za-z])")
done
alt+=('(?i:go test|cargo test|Test::More|Test2\b|Test::Harness|Devel::Cover|coverage\.py)' 'NODE_OPTIONS|NODE_PATH|NODE_V8_COVERAGE|node_modules' '"node"|"nodejs"|"go"|\bgo\.(mod|sum|work)\b' 'crate::browser|(?<![A-Za-z_])browser::')
re=$(IFS='|'; echo "${alt[*]}")
grep -rnIP "$re" src --exclude-dir=harness \
  | grep -v '^src/explain/failure/' \
  | grep -v '^src/cli\.rs:'
