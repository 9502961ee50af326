#!/bin/sh
# Writes a project of FILES shell test files with POINTS TAP test points each (default
# 200 x 1000 = 200,000 points) under DIR, for the report benchmarks in benches/README.md.
# Each file prints its TAP from a here-document, so the producers cost next to nothing and
# the run measures tapline. Every 100th point is a SKIP; files 7, 57, 107 and 157 have a
# failing point (with a YAML wanted/found diff) every 250 points, so reports have failures
# and diffs to render.
# Usage: benches/gen-big-run.sh DIR [FILES] [POINTS]
set -eu
dir=$1
files=${2:-200}
points=${3:-1000}
mkdir -p "$dir/test" "$dir/.git"
i=0
while [ "$i" -lt "$files" ]; do
  awk -v n="$points" -v f="$i" 'BEGIN {
    print "cat <<'"'"'TAP'"'"'"
    print "TAP version 14"
    print "1.." n
    for (k = 1; k <= n; k++) {
      if (f % 50 == 7 && k % 250 == 0) {
        print "not ok " k " - point " k " of file " f " compares a record"
        print "  ---"
        print "  message: should be deeply equal"
        print "  wanted: {\"id\": " k ", \"name\": \"alice\", \"tags\": [\"a\", \"b\"]}"
        print "  found: {\"id\": " k ", \"name\": \"alicia\", \"tags\": [\"a\"]}"
        print "  ..."
      } else if (k % 100 == 0) {
        print "ok " k " - point " k " of file " f " # SKIP not on this platform"
      } else {
        print "ok " k " - point " k " of file " f " does its job"
      }
    }
    print "TAP"
  }' > "$dir/test/$(printf 'file_%03d.sh' "$i")"
  i=$((i + 1))
done
