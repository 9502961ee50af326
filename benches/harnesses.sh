#!/bin/sh
# Real suites against their own harnesses (issue 26): for each checkout given, a bare
# `tapline run -j2` and the harness on its own files, alternated in one session by
# benches/alternate.py (a warm-up round, then N rounds), printing the medians and the ratio
# tapline / harness. The suites are not in this repository: fetch them, `npm install
# --ignore-scripts` the node ones, and pass their folders as NAME=PATH. A name not given is
# left out. Usage:
#
#   TAPLINE=target/release/tapline N=9 sh benches/harnesses.sh \
#     fast-uri=/tmp/suites/fast-uri deep-equal=/tmp/suites/deep-equal qs=/tmp/suites/qs \
#     object-inspect=/tmp/suites/object-inspect path-tiny=/tmp/suites/Path-Tiny \
#     role-tiny=/tmp/suites/Role-Tiny json-pp=/tmp/suites/JSON-PP \
#     light-my-request=/tmp/suites/light-my-request node-semver=/tmp/suites/node-semver \
#     bats-file=/tmp/suites/bats-file
#
# bats-file loads bats-support with `bats_load_library`: BATS_LIB_PATH defaults to the folder
# holding the bats-file checkout (put bats-support beside it).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
tapline=$(cd "$(dirname "${TAPLINE:-target/release/tapline}")" && pwd)/$(basename "${TAPLINE:-target/release/tapline}")
[ -x "$tapline" ] || { echo "failed to find tapline at $tapline (set TAPLINE)" >&2; exit 2; }
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg); N=${N:-9}"
for arg in "$@"; do
  name=${arg%%=*}
  dir=${arg#*=}
  [ -d "$dir" ] || { echo "failed to find the $name checkout at $dir" >&2; exit 2; }
  case $name in
    fast-uri|deep-equal|qs)
      harness="node_modules/.bin/tape 'test/**/*.js'"; ours="$tapline run -j2" ;;
    object-inspect)
      harness="node_modules/.bin/tape 'test/*.js'"; ours="$tapline run -j2" ;;
    path-tiny|role-tiny|json-pp)
      harness="prove -lr -j2 t"; ours="$tapline run -I lib -j2 t" ;;
    light-my-request)
      harness="node --test"; ours="$tapline run -j2" ;;
    node-semver)
      # tap 16 measures coverage unless told not to; tapline's bare run does not.
      harness="node_modules/.bin/tap --no-coverage -j2"; ours="$tapline run -j2" ;;
    bats-file)
      export BATS_LIB_PATH="${BATS_LIB_PATH:-$(dirname "$dir")}"
      harness="bats test"; ours="$tapline run -j2 test" ;;
    *) echo "failed to know the suite $name (see the usage)" >&2; exit 2 ;;
  esac
  # The first tapline run gives the planner its history, as a user's second run has.
  (cd "$dir" && $ours >/dev/null 2>&1 || true)
  out=$(cd "$dir" && python3 "$here/alternate.py" "harness|$harness" "tapline|$ours")
  echo "$out" | python3 -c '
import re, sys
name = sys.argv[1]
got = {}
for line in sys.stdin:
    m = re.match(r"(\S+)\s+wall\s+([0-9.]+) ms.*cpu\s+([0-9.]+) ms", line)
    if m:
        got[m.group(1)] = (float(m.group(2)), float(m.group(3)))
(hw, hc), (tw, tc) = got["harness"], got["tapline"]
print(f"{name:17s} harness {hw:7.1f} ms  tapline {tw:7.1f} ms  ratio {tw / hw:.2f}x  (cpu {hc:.0f} / {tc:.0f} ms)")
' "$name"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
