#!/bin/sh
# Issue 27: `tapline list` (static scan) on a 100-file project, and what per-test records
# (the log folder's tests/) cost a 200,000-point run. Needs a release build:
#
#     cargo build --release && TAPLINE_BASE=/path/to/base/tapline sh benches/list.sh
#
# Projects are made under ${BENCH_DIR:-/tmp/tapline-bench-list}; each figure is the median of
# ${RUNS:-11} runs, timed with date(1) in nanoseconds.
set -eu
TAPLINE=${TAPLINE:-$(pwd)/target/release/tapline}
DIR=${BENCH_DIR:-/tmp/tapline-bench-list}
RUNS=${RUNS:-11}
rm -rf "$DIR" && mkdir -p "$DIR/list/.git" "$DIR/list/test"

# 100 node:test files, each 5 describe blocks of 4 tests (2,600 tests in all, with a template name each).
i=1
while [ "$i" -le 100 ]; do
  awk -v f="$i" 'BEGIN {
    print "import { describe, it, test } from \"node:test\";"
    print "import assert from \"node:assert\";"
    for (d = 1; d <= 5; d++) {
      print "describe(\"group " d " of file " f "\", () => {"
      for (k = 1; k <= 4; k++)
        print "  it(\"case " k "\", () => { assert.strictEqual(" k " + 1, " k + 1 "); });"
      print "});"
    }
    print "test(`template ${1}`, () => {});"
  }' > "$DIR/list/test/t$i.test.mjs"
  i=$((i + 1))
done

# The median wall time of running "$@" RUNS times, in milliseconds.
median_ms() {
  n=0
  : > "$DIR/times"
  while [ "$n" -lt "$RUNS" ]; do
    s=$(date +%s%N)
    "$@" > /dev/null 2>&1 || true
    e=$(date +%s%N)
    echo $(((e - s) / 1000000)) >> "$DIR/times"
    n=$((n + 1))
  done
  sort -n "$DIR/times" | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'
}

cd "$DIR/list"
echo "list --source static, 100 files, $("$TAPLINE" list --source static | tail -1):" \
  "$(median_ms "$TAPLINE" list --source static) ms"

# 200 files x 1,000 points: the run with per-test records, and by a build without them.
cd - > /dev/null
sh benches/gen-big-run.sh "$DIR/big" > /dev/null
cd "$DIR/big"
echo "run, 200,000 points, with per-test records: $(median_ms "$TAPLINE" run -j2) ms"
# The same run by a build without per-test records (TAPLINE_BASE: e.g. main's release build).
if [ -n "${TAPLINE_BASE:-}" ]; then
  echo "run, 200,000 points, $TAPLINE_BASE: $(median_ms "$TAPLINE_BASE" run -j2) ms"
fi
echo "tests/: $(du -sb .nogit/testlogs/tests | cut -f1) bytes"
