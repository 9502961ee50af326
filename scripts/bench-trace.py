#!/usr/bin/env python3
"""Dependency traces on a real distribution (issue 19), measured for benches/README.md.

  scripts/bench-trace.py watch DIST_DIR FILE [ROUNDS]   edit-to-last-verdict in watch mode for
      one edit of FILE (a comment appended), traced selection against --no-trace (every file
      re-runs), rounds alternated; prints each round and the medians.
  scripts/bench-trace.py overhead DIST_DIR [ROUNDS]      a full run with and without tracing,
      rounds alternated: wall and CPU (tapline and its children, user + system), medians.

  scripts/bench-trace.py process DIST_DIR TEST [ROUNDS]  one test file run by perl with and
      without the Perl hook (PERL5OPT, as tapline sets it), alternated: CPU per process.

Environment: TAPLINE (default target/release/tapline of this repo), JOBS (default 2),
TESTS (default t). Runs with `-I lib`.
"""
import json
import os
import resource
import statistics
import subprocess
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TAPLINE = os.environ.get("TAPLINE", os.path.join(REPO, "target/release/tapline"))
JOBS = os.environ.get("JOBS", "2")
TESTS = os.environ.get("TESTS", "t").split()


def finished(path, run):
    """The run_finished event of `run` in a jsonl file, if it is there yet."""
    try:
        with open(path) as f:
            for line in f:
                try:
                    e = json.loads(line)
                except ValueError:
                    continue
                if e.get("type") == "run_finished" and e.get("run") == run:
                    return e
    except FileNotFoundError:
        pass
    return None


def started_files(path, run):
    n = 0
    with open(path) as f:
        for line in f:
            try:
                e = json.loads(line)
            except ValueError:
                continue
            if e.get("type") == "file_started" and e.get("run") == run:
                n += 1
    return n


def watch_round(dist, file, traced):
    out = os.path.join(dist, ".nogit", "bench-watch.jsonl")
    os.makedirs(os.path.dirname(out), exist_ok=True)
    args = [TAPLINE, "run", "-w", "--format", "jsonl", "-I", "lib", "-j", JOBS, "--color", "never"]
    if not traced:
        args.append("--no-trace")
    with open(out, "w") as stdout, open(os.devnull, "w") as devnull:
        child = subprocess.Popen(args + TESTS, cwd=dist, stdin=subprocess.PIPE, stdout=stdout,
                                 stderr=devnull, text=True)
        while not finished(out, 1):
            time.sleep(0.05)
        time.sleep(1)  # the watches settle
        path = os.path.join(dist, file)
        with open(path, "a") as f:
            f.write("# edited\n")
        t0 = time.monotonic()
        while not finished(out, 2):
            time.sleep(0.02)
        took = time.monotonic() - t0
        files = started_files(out, 2)
        child.stdin.write("q\n")
        child.stdin.flush()
        child.wait(timeout=120)
    with open(path) as f:
        text = f.read()
    with open(path, "w") as f:
        f.write(text.removesuffix("# edited\n"))
    return took, files


def overhead_round(dist, traced):
    args = [TAPLINE, "run", "-I", "lib", "-j", JOBS, "--format", "summary"]
    if not traced:
        args.append("--no-trace")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    subprocess.run(args + TESTS, cwd=dist, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.monotonic() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def main():
    mode, dist = sys.argv[1], os.path.abspath(sys.argv[2])
    if mode == "watch":
        file = sys.argv[3]
        rounds = int(sys.argv[4]) if len(sys.argv) > 4 else 2
        results = {True: [], False: []}
        for r in range(rounds):
            for traced in ([True, False] if r % 2 == 0 else [False, True]):
                took, files = watch_round(dist, file, traced)
                label = "traced" if traced else "--no-trace"
                print(f"round {r + 1} {label}: {files} files, edit to last verdict {took:.2f} s", flush=True)
                results[traced].append(took)
        for traced in (True, False):
            label = "traced" if traced else "--no-trace"
            print(f"median {label}: {statistics.median(results[traced]):.2f} s")
    elif mode == "overhead":
        rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 3
        results = {True: [], False: []}
        for r in range(rounds):
            for traced in ([False, True] if r % 2 == 0 else [True, False]):
                wall, cpu = overhead_round(dist, traced)
                label = "traced" if traced else "--no-trace"
                print(f"round {r + 1} {label}: wall {wall:.2f} s, cpu {cpu:.2f} s", flush=True)
                results[traced].append((wall, cpu))
        med = {t: [statistics.median(x[i] for x in results[t]) for i in (0, 1)] for t in results}
        for traced in (False, True):
            label = "traced" if traced else "--no-trace"
            print(f"median {label}: wall {med[traced][0]:.2f} s, cpu {med[traced][1]:.2f} s")
        print(f"traced / --no-trace: wall {med[True][0] / med[False][0]:.4f}, "
              f"cpu {med[True][1] / med[False][1]:.4f}")
    elif mode == "process":
        test = sys.argv[3]
        rounds = int(sys.argv[4]) if len(sys.argv) > 4 else 20
        hooks = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"tapline-trace-{os.getuid()}")
        out = os.path.join(hooks, "bench.trace")
        traced_env = dict(os.environ, PERL5OPT=f"-I{hooks} -MTaplineTrace", TAPLINE_TRACE_OUT=out)
        results = {True: [], False: []}
        for r in range(rounds):
            for traced in ([False, True] if r % 2 == 0 else [True, False]):
                env = traced_env if traced else os.environ
                before = resource.getrusage(resource.RUSAGE_CHILDREN)
                subprocess.run(["perl", "-Ilib", test], cwd=dist, env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                after = resource.getrusage(resource.RUSAGE_CHILDREN)
                results[traced].append((after.ru_utime - before.ru_utime)
                                       + (after.ru_stime - before.ru_stime))
                if traced and os.path.exists(out):
                    os.remove(out)
        plain, traced = (statistics.median(results[t]) for t in (False, True))
        print(f"{test}: median CPU {plain * 1000:.1f} ms plain, {traced * 1000:.1f} ms traced, "
              f"ratio {traced / plain:.4f} ({rounds} rounds each)")
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
