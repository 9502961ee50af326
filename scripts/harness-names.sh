#!/bin/bash
# Issue 39's gate: every line of src/ that names a harness outside the places allowed to
# (src/harness/: the rooms and their registry; src/explain/failure/: the producers' failure
# readers, #41; src/cli/: the user's help). Prints nothing: the move is done, and
# tests/integration/layout.rs keeps it so. Why the boundaries are drawn so:
# docs/harness-adapters-plan.md, section 5. With --code, only lines of code: comments, test
# modules (a `#[cfg(test)] mod` to the end of its file) and `tests.rs`/`*_tests.rs` files
# left out (tests/integration/layout.rs, issue39_the_generic_layers_code_names_no_harness).
# Usage: scripts/harness-names.sh [--code] [REPO]
code=0
if [ "${1:-}" = "--code" ]; then code=1; shift; fi
cd "${1:-$(dirname "$0")/..}" || exit 2
long='pytest unittest tstest tapbundle perl python chromium mocha vitest yath node:test node-tap @tapjs libtest gotest busted sharness pgtap pg_prove psql'
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
alt+=('(?i:go test|cargo test|cargo\.toml|cargo metadata|cargo[ -]nextest|rustdoc|Test::More|Test2\b|Test::Harness|Devel::Cover|coverage\.py)' 'NODE_OPTIONS|NODE_PATH|NODE_V8_COVERAGE|node_modules' '"node"|"nodejs"|"go"|\bgo\.(mod|sum|work)\b' 'crate::browser|(?<![A-Za-z_])browser::')
re=$(IFS='|'; echo "${alt[*]}")
grep -rnIP "$re" src --exclude-dir=harness \
  | grep -v '^src/explain/failure/' \
  | grep -v '^src/cli/' \
  | if [ "$code" = 1 ]; then
      python3 -c '
import sys
starts = {}
def tests_from(f):
    if f not in starts:
        lines = open(f, encoding="utf-8", errors="replace").read().splitlines()
        at = next((i + 1 for i in range(len(lines) - 1)
                   if lines[i].strip() == "#[cfg(test)]" and lines[i + 1].lstrip().startswith("mod ")),
                  len(lines) + 1)
        starts[f] = at
    return starts[f]
for hit in sys.stdin:
    f, n, text = hit.split(":", 2)
    name = f.rsplit("/", 1)[-1]
    if name == "tests.rs" or name.endswith("_tests.rs") or text.lstrip().startswith("//"):
        continue
    if int(n) < tests_from(f):
        sys.stdout.write(hit)
'
    else cat; fi
