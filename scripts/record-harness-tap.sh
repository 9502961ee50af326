#!/usr/bin/env bash
# Record the TAP tapline's own vitest and jest reporters print for a failing test file (what a
# bare `tapline run` of a vitest or jest project reads), for the explanation's known answers
# (tests/integration/issue41_vitest_jest.rs).
#
# For each HARNESS (vitest, jest): copies test-data/producers/HARNESS/src/* into test/ of a
# project at /tmp/tapline-record-HARNESS (a fixed place, so the recorded paths are the same on
# every recording) whose test script is `vitest run` / `jest`, runs it with `tapline run`, and
# keeps the file's log (.nogit/testlogs/, the bytes the reporter printed) as
# test-data/producers/HARNESS/explain.tap, with VERSIONS.txt (node, the harness, the exit
# code). The harness: the one test-data/suites/HARNESS-basic pins (vitest 4.0.17, jest
# 30.2.0), from that suite's node_modules when installed, else installed into the project.
# tapline: $TAPLINE, or target/debug/tapline. Usage (from anywhere):
#   bash scripts/record-harness-tap.sh [vitest|jest]...
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
tapline="${TAPLINE:-$repo/target/debug/tapline}"
for harness in "${@:-vitest jest}"; do
  for h in $harness; do
    out="$repo/test-data/producers/$h"
    suite="$repo/test-data/suites/$h-basic"
    work="/tmp/tapline-record-$h"
    rm -rf "$work"
    mkdir -p "$work/test"
    cp "$out"/src/* "$work/test/"
    case $h in
      vitest) script='vitest run'; module='"type": "module",'; version=$(node -p "require('$suite/package.json').devDependencies.vitest") ;;
      jest) script='jest'; module=''; version=$(node -p "require('$suite/package.json').devDependencies.jest") ;;
      *) echo "no harness $h (vitest, jest)" >&2; exit 2 ;;
    esac
    echo "{\"name\": \"$h-explain\", \"private\": true, $module \"scripts\": {\"test\": \"$script\"}}" >"$work/package.json"
    if [ -f "$suite/node_modules/$h/package.json" ]; then
      ln -s "$suite/node_modules" "$work/node_modules"
    else
      (cd "$work" && npm install --silent --no-audit --no-fund "$h@$version" >/dev/null)
    fi
    set +e
    (cd "$work" && "$tapline" run --no-cache --no-history >/dev/null 2>&1)
    code=$?
    set -e
    log=$(ls "$work"/.nogit/testlogs/test__*.log | head -1)
    cp "$log" "$out/explain.tap"
    {
      echo "node $(node --version)"
      echo "$h $(node -p "require('$work/node_modules/$h/package.json').version")"
      echo "explain.tap: the log of \`tapline run\` (exit=$code)"
    } >"$out/VERSIONS.txt"
    cat "$out/VERSIONS.txt"
    rm -rf "$work"
  done
done
