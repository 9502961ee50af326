#!/usr/bin/env python3
"""How evenly each --partition strategy splits a suite with skewed durations.

40 sh test files whose durations come from a fixed seed (a few long, many short: the shape of
real suites), one whole run for history, then for each strategy 4 shards side by side, each
running its files one at a time (-j1, as if each shard were a one-core machine). Reports each
shard's wall time from its record and the slowest against the lower bound
max(total / 4, longest file).

    cargo build --release && python3 benches/shard_balance.py [--tapline target/release/tapline]
"""
import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time

FILES = 40
SHARDS = 4


def durations(seed=17):
    rng = random.Random(seed)
    out = []
    for i in range(FILES):
        if i % 13 == 0:  # 4 long files: 2.5 to 4.5 s
            out.append(round(rng.uniform(2.5, 4.5), 2))
        else:  # many short ones: 0.05 to 0.6 s, skewed towards short
            out.append(round(0.05 + rng.random() ** 2 * 0.55, 2))
    return out


def make_suite(root, ds):
    os.makedirs(os.path.join(root, ".git"))
    os.makedirs(os.path.join(root, "test"))
    for i, d in enumerate(ds):
        with open(os.path.join(root, "test", f"f{i:02}.sh"), "w") as f:
            f.write(f"echo 1..1\nsleep {d}\necho 'ok 1 - slept {d}s'\n")


def shard_times(tapline, root, strategy):
    procs = []
    for m in range(1, SHARDS + 1):
        cmd = [tapline, "run", "-q", "-j1", "--partition", f"{strategy}:{m}/{SHARDS}",
               "-o", f"{strategy}-{m}.jsonl"]
        procs.append(subprocess.Popen(cmd, cwd=root, stdout=subprocess.DEVNULL,
                                      stderr=subprocess.DEVNULL))
    for p in procs:
        p.wait()
    times = []
    for m in range(1, SHARDS + 1):
        with open(os.path.join(root, f"{strategy}-{m}.jsonl")) as f:
            for line in f:
                ev = json.loads(line)
                if ev["type"] == "run_finished":
                    times.append(ev["summary"]["duration"] / 1000)
    return times


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tapline", default="target/release/tapline")
    args = ap.parse_args()
    tapline = os.path.abspath(args.tapline)
    ds = durations()
    total, longest = sum(ds), max(ds)
    bound = max(total / SHARDS, longest)
    with tempfile.TemporaryDirectory(prefix="shard-balance-") as root:
        make_suite(root, ds)
        t0 = time.time()
        subprocess.run([tapline, "run", "-q", "-j4"], cwd=root, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        print(f"history run: {time.time() - t0:.1f} s")
        print(f"{FILES} files, {total:.2f} s in all, longest {longest:.2f} s: "
              f"lower bound max(total/{SHARDS}, longest) = {bound:.2f} s")
        print("| strategy | shard wall times (s) | slowest | over the bound |")
        print("|---|---|---:|---:|")
        for strategy in ["time", "slice", "hash"]:
            times = shard_times(tapline, root, strategy)
            worst = max(times)
            shown = ", ".join(f"{t:.2f}" for t in times)
            print(f"| {strategy} | {shown} | {worst:.2f} | {100 * (worst / bound - 1):+.1f}% |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
