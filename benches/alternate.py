#!/usr/bin/env python3
"""Alternates commands on a shared machine so that each sees the same load: a warm-up round,
then N rounds running each command once; prints each command's median wall time (and how much
more than the first command's, in %), its median CPU time (user + system of the whole process
tree) and its fastest wall time. benches/README.md, "Reports".

Usage: N=11 benches/alternate.py "label|command" ...   (the first command is the baseline)
"""
import os
import shlex
import statistics
import subprocess
import sys
import time

rounds = int(os.environ.get("N", "9"))
specs = [arg.split("|", 1) for arg in sys.argv[1:]]
if not specs or any(len(s) != 2 for s in specs):
    sys.exit(__doc__)
wall = {label: [] for label, _ in specs}
cpu = {label: [] for label, _ in specs}
for r in range(rounds + 1):
    for label, command in specs:
        start = time.perf_counter()
        child = subprocess.Popen(
            shlex.split(command), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        _, _, usage = os.wait4(child.pid, 0)
        elapsed = time.perf_counter() - start
        if r > 0:
            wall[label].append(elapsed * 1000)
            cpu[label].append((usage.ru_utime + usage.ru_stime) * 1000)
base = statistics.median(wall[specs[0][0]])
for label, _ in specs:
    w = statistics.median(wall[label])
    print(
        f"{label:10s} wall {w:7.1f} ms ({(w / base - 1) * 100:+5.1f}%)"
        f"  cpu {statistics.median(cpu[label]):7.1f} ms  fastest {min(wall[label]):7.1f} ms"
    )
