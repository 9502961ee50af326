#!/usr/bin/env bash
# The reporter daemon's benchmarks (figures in benches/README.md):
#   1. one 50 MB stream through `tapline send` -> `tapline serve`, against `tapline parse` on
#      the same file (hyperfine, same session);
#   2. 200 streams of 10,000 points each sent at once; the daemon's peak memory (VmHWM).
# Needs: cargo build --release; hyperfine; python3 (corpus generator).
set -euo pipefail
cd "$(dirname "$0")/.."
bin=target/release/tapline
mkdir -p corpora
corpus=corpora/corpus-50m.tap
[ -f "$corpus" ] || python3 ../shared/perf/gen_corpus.py --size 50m -o "$corpus"
points=corpora/points-10k.tap
[ -f "$points" ] || python3 -c '
print("TAP version 14\n1..10000")
for i in range(1, 10001):
    print(f"ok {i} - point number {i} of the stream")' > "$points"
work=$(mktemp -d)
daemon=
trap '[ -n "$daemon" ] && kill "$daemon" 2>/dev/null; sleep 0.2; rm -rf "$work"' EXIT

start_daemon() { # $@: extra serve flags
  "$bin" serve --socket "$work/d.sock" --log-dir "$work/logs" --color never "$@" \
    >/dev/null 2>"$work/serve.err" &
  daemon=$!
  for _ in $(seq 1 200); do
    "$bin" status --socket "$work/d.sock" >/dev/null 2>&1 && return 0
    sleep 0.05
  done
  echo "daemon did not start" >&2; cat "$work/serve.err" >&2; exit 1
}
stop_daemon() {
  kill -TERM "$daemon"; wait "$daemon" || true; daemon=
}
peak_kib() { awk '/VmHWM/ {print $2}' "/proc/$daemon/status"; }

echo "== 1. one 50 MB stream: send -> daemon vs parse"
start_daemon
hyperfine -i -w1 -r"${RUNS:-6}" -N \
  "$bin parse $corpus" \
  "$bin parse --format summary $corpus" \
  "$bin send big $corpus --socket $work/d.sock"
echo "daemon peak RSS after the 50 MB streams: $(peak_kib) KiB"
stop_daemon

echo "== 2. 200 streams of 10,000 points at once"
start_daemon
before=$(peak_kib)
start=$(date +%s.%N)
pids=()
for i in $(seq 1 200); do
  "$bin" send "stream-$i" "$points" --socket "$work/d.sock" 2>/dev/null &
  pids+=($!)
done
failed=0
for p in "${pids[@]}"; do wait "$p" || failed=$((failed + 1)); done
end=$(date +%s.%N)
echo "200 streams x 10,000 points: $(python3 -c "print(round($end - $start, 2))") s, $failed failed sends"
echo "daemon peak RSS: before $before KiB, after $(peak_kib) KiB"
"$bin" status --socket "$work/d.sock" | python3 -c '
import json, sys
f = json.load(sys.stdin)["finished"]
print("finished", len(f), "passed", sum(1 for x in f if x["ok"]), "points", sum(x["pass"] for x in f))'
stop_daemon
