#!/usr/bin/env python3
"""Browser files against node (benches/README.md, "Browser tests"): builds throw-away projects
under $BENCH_DIR (default /tmp/tapline-bench-browser), then alternates the commands below for N
rounds after a warm-up round and prints each one's median wall time, its median time to the
first file's verdict (the `file_finished` line on stdout, from tapline's start), and its ratio
to the first command of its group.

Usage: TAPLINE=target/release/tapline ESBUILD=path/to/esbuild N=9 benches/browser.py

Groups:
- cold: one trivial file, the first (and only) file of a run: a `.browser.js` served as a
  native module, a `test.browser.ts` bundled by esbuild, and the same file under node.
- many: 100 trivial files with -j2: `.test.js` under node, `.browser.js` native, and
  `.browser.js` bundled by esbuild (the project's node_modules/.bin/esbuild).
"""
import os
import shutil
import statistics
import subprocess
import sys
import time

TAPLINE = os.path.abspath(os.environ.get("TAPLINE", "target/release/tapline"))
ESBUILD = os.environ.get("ESBUILD") or shutil.which("esbuild")
ROUNDS = int(os.environ.get("N", "9"))
BASE = os.environ.get("BENCH_DIR", "/tmp/tapline-bench-browser")
BODY = "console.log('1..1');\nconsole.log('ok 1 - trivial');\n"


def project(name, files, esbuild):
    root = os.path.join(BASE, name)
    shutil.rmtree(root, ignore_errors=True)
    os.makedirs(os.path.join(root, "test"))
    open(os.path.join(root, "tapline.toml"), "w").close()
    for rel in files:
        with open(os.path.join(root, rel), "w") as f:
            f.write(BODY)
    if esbuild:
        os.makedirs(os.path.join(root, "node_modules/.bin"))
        os.symlink(ESBUILD, os.path.join(root, "node_modules/.bin/esbuild"))
    return root


def env_without_esbuild():
    env = dict(os.environ)
    env["PATH"] = ":".join(
        d for d in env.get("PATH", "").split(":") if not os.path.exists(os.path.join(d, "esbuild"))
    )
    env.pop("CI", None)
    return env


def once(root, args):
    """Wall time and time to the first verdict, in ms."""
    start = time.perf_counter()
    child = subprocess.Popen(
        [TAPLINE, "run", "--format", "jsonl", "--no-logs", *args],
        cwd=root,
        env=env_without_esbuild(),
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    first = None
    for line in child.stdout:
        if first is None and '"type":"file_finished"' in line:
            first = time.perf_counter() - start
    code = child.wait()
    wall = time.perf_counter() - start
    if code != 0:
        sys.exit(f"failed ({code}): {args} in {root}")
    return wall * 1000, (first or wall) * 1000


def bench(title, specs):
    walls = {label: [] for label, _, _ in specs}
    firsts = {label: [] for label, _, _ in specs}
    for r in range(ROUNDS + 1):
        for label, root, args in specs:
            w, f = once(root, args)
            if r > 0:
                walls[label].append(w)
                firsts[label].append(f)
    print(f"{title} ({ROUNDS} rounds, medians)")
    base = statistics.median(walls[specs[0][0]])
    for label, _, _ in specs:
        w = statistics.median(walls[label])
        f = statistics.median(firsts[label])
        print(f"  {label:28s} wall {w:7.1f} ms ({w / base:4.2f}x)  first verdict {f:7.1f} ms")


def main():
    if not ESBUILD:
        sys.exit("esbuild not found: set ESBUILD")
    cold_node = project("cold-node", ["test/a.test.js"], False)
    cold_js = project("cold-js", ["test/a.browser.js"], False)
    cold_ts = project("cold-ts", ["test/test.browser.ts"], True)
    bench(
        "cold start, one file",
        [
            ("node test/a.test.js", cold_node, []),
            ("chromium, native .js", cold_js, []),
            ("chromium, esbuild .ts", cold_ts, []),
        ],
    )
    names = [f"test/t{i:03d}" for i in range(100)]
    many_node = project("many-node", [n + ".test.js" for n in names], False)
    many_js = project("many-js", [n + ".browser.js" for n in names], False)
    many_esb = project("many-esbuild", [n + ".browser.js" for n in names], True)
    bench(
        "100 trivial files, -j2",
        [
            ("node", many_node, ["-j2"]),
            ("chromium, native", many_js, ["-j2"]),
            ("chromium, esbuild bundles", many_esb, ["-j2"]),
        ],
    )


main()
