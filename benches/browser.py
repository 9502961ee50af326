#!/usr/bin/env python3
"""Browser files against node (benches/README.md, "Browser tests"): builds throw-away projects
under $BENCH_DIR (default /tmp/tapline-bench-browser), then alternates the commands below for N
rounds after a warm-up round and prints each one's median wall time, its median time to the
first file's verdict (the `file_finished` line on stdout, from tapline's start), and its ratio
to the first command of its group.

Usage: TAPLINE=target/release/tapline ESBUILD=path/to/esbuild N=9 benches/browser.py [GROUP…]

Groups (all by default):
- cold: one trivial file, the first (and only) file of a run: a `.browser.js` served as a
  native module, a `test.browser.ts` bundled by esbuild, and the same file under node.
- thirty: 30 trivial files with -j2, as the many group (issue 26's case, where Chromium's
  start weighs more).
- many: 100 trivial files with -j2: `.test.js` under node, `.browser.js` native, and
  `.browser.js` bundled by esbuild (the project's node_modules/.bin/esbuild).

With BASE=path/to/another/tapline, each Chromium command also runs with that binary, in the
same rounds (a change against its parent, paired).
"""
import os
import shutil
import statistics
import subprocess
import sys
import time

TAPLINE = os.path.abspath(os.environ.get("TAPLINE", "target/release/tapline"))
BASE_TAPLINE = os.environ.get("BASE") and os.path.abspath(os.environ["BASE"])
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


def once(root, args, tapline=TAPLINE):
    """Wall time and time to the first verdict, in ms."""
    start = time.perf_counter()
    child = subprocess.Popen(
        [tapline, "run", "--format", "jsonl", "--no-logs", *args],
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


def with_base(specs):
    """The Chromium commands (all but the first, node) once more with BASE, after the others."""
    if not BASE_TAPLINE:
        return specs
    based = [(f"{label} [base]", root, args, BASE_TAPLINE) for label, root, args, *_ in specs[1:]]
    return specs + based


def bench(title, specs):
    specs = [(*s, TAPLINE) if len(s) == 3 else s for s in with_base(specs)]
    walls = {label: [] for label, *_ in specs}
    firsts = {label: [] for label, *_ in specs}
    for r in range(ROUNDS + 1):
        for label, root, args, tapline in specs:
            w, f = once(root, args, tapline)
            if r > 0:
                walls[label].append(w)
                firsts[label].append(f)
    print(f"{title} ({ROUNDS} rounds, medians)")
    base = statistics.median(walls[specs[0][0]])
    for label, *_ in specs:
        w = statistics.median(walls[label])
        f = statistics.median(firsts[label])
        print(f"  {label:28s} wall {w:7.1f} ms ({w / base:4.2f}x)  first verdict {f:7.1f} ms")


def trivial(title, count):
    names = [f"test/t{i:03d}" for i in range(count)]
    node = project(f"{count}-node", [n + ".test.js" for n in names], False)
    js = project(f"{count}-js", [n + ".browser.js" for n in names], False)
    esb = project(f"{count}-esbuild", [n + ".browser.js" for n in names], True)
    bench(
        title,
        [
            ("node", node, ["-j2"]),
            ("chromium, native", js, ["-j2"]),
            ("chromium, esbuild bundles", esb, ["-j2"]),
        ],
    )


def main():
    if not ESBUILD:
        sys.exit("esbuild not found: set ESBUILD")
    groups = sys.argv[1:] or ["cold", "thirty", "many"]
    if "cold" in groups:
        cold()
    if "thirty" in groups:
        trivial("30 trivial files, -j2", 30)
    if "many" in groups:
        trivial("100 trivial files, -j2", 100)


def cold():
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


main()
