#!/bin/sh
# What `tapline run --forward` costs the run: the 200,000-point run of gen-big-run.sh, with
# and without forwarding every file to a live `tapline serve` on a Unix socket (logs on, its
# terminal report to /dev/null), alternated N rounds by alternate.py. benches/README.md,
# "Forwarding a run to the daemon".
# Usage: N=5 [SWAP=1] benches/forward.sh target/release/tapline DIR
set -eu
bin=$(realpath "$1")
dir=$2
here=$(dirname "$(realpath "$0")")
[ -d "$dir/test" ] || "$here/gen-big-run.sh" "$dir"
serve_dir=$(mktemp -d)
mkdir "$serve_dir/.git"
sock=$serve_dir/d.sock
(cd "$serve_dir" && exec "$bin" serve --socket "$sock" --color never 2>/dev/null) &
serve=$!
trap 'kill "$serve" 2>/dev/null; wait "$serve" 2>/dev/null; rm -rf "$serve_dir"' EXIT
i=0
until "$bin" status --socket "$sock" >/dev/null 2>&1; do
  i=$((i + 1)); [ "$i" -lt 200 ] || { echo "serve did not start" >&2; exit 1; }
  sleep 0.05
done
cd "$dir"
plain="plain|$bin run -q"
forward="forward|$bin run -q --forward $sock"
# SWAP=1 runs the forwarding run first in each round (the first command is the baseline).
if [ -n "${SWAP:-}" ]; then
  N=${N:-5} python3 "$here/alternate.py" "$forward" "$plain"
else
  N=${N:-5} python3 "$here/alternate.py" "$plain" "$forward"
fi
"$bin" status --socket "$sock" | python3 -c '
import json, sys
d = json.load(sys.stdin)
print("daemon: %d streams finished, %d points passed, %d open" % (
    len(d["finished"]), sum(s["pass"] for s in d["finished"]), len(d["open"])))'
