#!/usr/bin/env python3
"""Paired timing of two commands on a shared machine: a warm-up of each, then N pairs, each
pair's order alternating (AB, BA, AB, ...) so that neither always runs first; prints each
command's median wall and CPU (user + system of the whole process tree), and the median, the
quartiles and the range of the pairs' wall ratios B / A, which is the figure to quote on a
noisy machine (the load a pair sees is nearly the same for both of its runs).
benches/README.md, "mocha through its adapter".

Usage: N=21 benches/paired.py "label|command" "label|command"   (A, the baseline, first)
"""
import os
import shlex
import statistics
import subprocess
import sys
import time


def run(command):
    start = time.perf_counter()
    child = subprocess.Popen(
        shlex.split(command), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    _, status, usage = os.wait4(child.pid, 0)
    wall = (time.perf_counter() - start) * 1000
    return wall, (usage.ru_utime + usage.ru_stime) * 1000, os.waitstatus_to_exitcode(status)


def main():
    pairs = int(os.environ.get("N", "21"))
    specs = [arg.split("|", 1) for arg in sys.argv[1:]]
    if len(specs) != 2 or any(len(s) != 2 for s in specs):
        sys.exit(__doc__)
    (a_label, a), (b_label, b) = specs
    codes = {a_label: run(a)[2], b_label: run(b)[2]}
    walls = {a_label: [], b_label: []}
    cpus = {a_label: [], b_label: []}
    ratios = []
    cpu_ratios = []
    for i in range(pairs):
        order = [(a_label, a), (b_label, b)]
        if i % 2:
            order.reverse()
        got = {}
        for label, command in order:
            wall, cpu, _ = run(command)
            got[label] = wall
            walls[label].append(wall)
            cpus[label].append(cpu)
        ratios.append(got[b_label] / got[a_label])
        cpu_ratios.append(cpus[b_label][-1] / cpus[a_label][-1])
    for label in (a_label, b_label):
        print(
            f"{label:10s} exit {codes[label]}  median wall {statistics.median(walls[label]):8.1f} ms"
            f"  median cpu {statistics.median(cpus[label]):8.1f} ms"
        )
    q = statistics.quantiles(ratios, n=4)
    print(
        f"paired wall ratio {b_label}/{a_label}: median {statistics.median(ratios):.3f}"
        f"  quartiles {q[0]:.3f}–{q[2]:.3f}  range {min(ratios):.3f}–{max(ratios):.3f}  (N={pairs})"
    )
    # The CPU of a pair's two runs is less at the mercy of the load than their wall time,
    # but not free of it (caches, frequency): its ratio's spread says how much.
    q = statistics.quantiles(cpu_ratios, n=4)
    print(
        f"paired cpu ratio {b_label}/{a_label}: median {statistics.median(cpu_ratios):.3f}"
        f"  quartiles {q[0]:.3f}–{q[2]:.3f}  range {min(cpu_ratios):.3f}–{max(cpu_ratios):.3f}"
    )


main()
