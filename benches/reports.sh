#!/bin/sh
# The cost of each report on a 200,000-point run (benches/README.md, "Reports").
# Usage: benches/reports.sh [TAPLINE] [DIR]   (DIR defaults to a temp dir; needs hyperfine)
# ARGS adds flags to every command (e.g. ARGS=--no-logs); RUNS sets the runs per command.
set -eu
tapline=$(realpath "${1:-target/release/tapline}")
dir=${2:-$(mktemp -d)}
here=$(dirname "$0")
[ -d "$dir/test" ] || "$here/gen-big-run.sh" "$dir"
out=$(mktemp -d)
cd "$dir"
# The run fails on purpose (16 failing points), hence -i.
hyperfine -i -N -w 2 -r "${RUNS:-15}" --export-markdown "$out/reports.md" \
  "$tapline run -q ${ARGS:-}" \
  "$tapline run -q ${ARGS:-} -o $out/r.jsonl" \
  "$tapline run -q ${ARGS:-} -o $out/r.json" \
  "$tapline run -q ${ARGS:-} -o $out/r.xml" \
  "$tapline run -q ${ARGS:-} -o $out/r.md" \
  "$tapline run -q ${ARGS:-} -o $out/r.html" \
  "$tapline run -q ${ARGS:-} -o $out/r.xml -o $out/r.md -o $out/r.html -o $out/r.json -o $out/r.jsonl"
ls -l "$out"
