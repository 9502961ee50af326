#!/usr/bin/env python3
"""Issue 27: after a run, does `tapline list` name exactly the tests the run reported?

For each project path given: a bare `tapline run --format jsonl` (its own log folder, under
a temporary directory, so the project's `.nogit` is left alone), then `tapline list --format
json` on the same log folder; prints the IDs each has that the other lacks (both should be 0).

Usage: TAPLINE=target/release/tapline benches/list_drift.py PATH ...
"""
import json, os, subprocess, sys, tempfile

tapline = os.path.abspath(os.environ.get("TAPLINE", "target/release/tapline"))
if len(sys.argv) < 2:
    sys.exit(__doc__)
for path in sys.argv[1:]:
    with tempfile.TemporaryDirectory() as logs:
        run = subprocess.run([tapline, "run", "-j2", "--format", "jsonl", "--log-dir", logs],
                             cwd=path, capture_output=True, text=True)
        listed = subprocess.run([tapline, "list", "--format", "json", "--log-dir", logs],
                                cwd=path, capture_output=True, text=True)
    reported, points = set(), 0
    for line in run.stdout.splitlines():
        event = json.loads(line)
        if event.get("test_id"):
            reported.add(event["test_id"])
            points += 1
    entries = [json.loads(line) for line in listed.stdout.splitlines()]
    ids = {e["id"] for e in entries}
    print(f"{os.path.basename(os.path.abspath(path))}: run exit {run.returncode}, "
          f"{points} points with {len(reported)} distinct IDs; list: {len(entries)} entries, "
          f"{len(ids)} IDs; listed not reported {len(ids - reported)}, "
          f"reported not listed {len(reported - ids)}")
    for i in sorted(ids - reported)[:5]:
        print("  listed, not reported:", i)
    for i in sorted(reported - ids)[:5]:
        print("  reported, not listed:", i)
