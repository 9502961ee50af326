#!/usr/bin/env python3
"""Edit-to-verdict of a tape test under `tapline run --watch` (issue 26), warm against
`--isolate`, in one session.

Usage: watch_tape.py TAPLINE CHECKOUT FILE ROUNDS [extra tapline args...]

For each round, for each variant (the bare session, then `--isolate`), in turn: a watch
session on FILE (`--format jsonl`) waits for its first run, then FILE gets a comment appended,
and the time from just before the write to the `run_finished` line is the latency; the file
is restored after each edit (its restoring run is waited for, not timed). Sessions are
alternated round by round so load drifts reach both. The suite is not in this repository:
pass its checkout (`npm install --ignore-scripts` done there).
"""
import os
import statistics
import subprocess
import sys
import time


def until_finished(proc):
    for line in proc.stdout:
        if '"type":"run_finished"' in line:
            return time.perf_counter()
    raise SystemExit("failed to see a run finish: the session ended")


def one_edit(tapline, path, rel, extra, n):
    proc = subprocess.Popen(
        [tapline, "run", "--watch", "--format", "jsonl", *extra, rel],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        until_finished(proc)
        # The ready worker (if any) is started at the run's end: an editor's pause.
        time.sleep(1.0)
        original = open(path).read()
        try:
            start = time.perf_counter()
            with open(path, "a") as fh:
                fh.write(f"\n// edit {n}\n")
            took = (until_finished(proc) - start) * 1000
        finally:
            with open(path, "w") as fh:
                fh.write(original)
        until_finished(proc)
        return took
    finally:
        proc.terminate()
        proc.wait()


def main():
    if len(sys.argv) < 5:
        raise SystemExit(__doc__)
    tapline, checkout, rel, rounds = sys.argv[1:5]
    extra = sys.argv[5:]
    tapline = os.path.abspath(tapline)
    os.chdir(checkout)
    variants = {"warm": extra, "--isolate": [*extra, "--isolate"]}
    got = {name: [] for name in variants}
    for n in range(int(rounds)):
        for name, args in variants.items():
            got[name].append(one_edit(tapline, rel, rel, args, n))
    for name, times in got.items():
        shown = " ".join(f"{t:.0f}" for t in times)
        print(f"{name:10s} median {statistics.median(times):6.0f} ms  ({shown})")


if __name__ == "__main__":
    main()
