#!/usr/bin/env python3
"""Checks tapline's failure explanations on a real project against its harness's own reporter
(#41's Done-when): three runs of the harness and three of `tapline run`, and each failure's
message, values, location, stack and output in the terminal, the log, JUnit and Markdown.

    python3 scripts/verify-explained.py PROJECT --harness 'prove -l t/x.t' -- t/x.t
    python3 scripts/verify-explained.py /tmp/p --harness 'pytest tests/test_x.py' -- tests/test_x.py
    python3 scripts/verify-explained.py /tmp/jwt --before 'dropdb --if-exists t; createdb t' \
        --harness 'pg_prove test.sql' -- test.sql          # PG* variables name the database

What follows `--` is given to `tapline run` (files, `-t`, options); the script adds `--color
never --format jsonl -o out.xml -o out.md` (the reports written outside the project). It
prints the harness's output (run 1), then tapline's explanation of each failure in the known
answer's format (protocol-spec/explanations.md) for reading side by side, then each
disagreement on one line:

- a report (terminal, JUnit, Markdown) that lacks a failure's location, message, diff, stack
  or output, as scripts/explain-conformance.py checks a recording;
- a failure whose name is in none of the file logs under .nogit/testlogs/, or whose location's
  line number the harness's own output never mentions (the location is the harness's);
- a run (harness or tapline) whose output differs from run 1's, timings and paths aside, and
  the order in which files run in parallel finished (each file's part is compared); with
  `--any-order`, its lines (its failures) compared sorted, for a project whose tests run in an
  order that varies (a go table test ranging over a map).

It exits 0 when nothing disagrees, 1 otherwise, 2 when it cannot run. The comparison of the
message and values with the harness's own words is by eye: the table of what was checked is
in docs/failures.md ("Checked on real projects").
"""
import argparse
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
RUNS = 3


def suite():
    """scripts/explain-conformance.py as a module: its answer text and sink checks."""
    sys.dont_write_bytecode = True  # no scripts/__pycache__ left in the repository
    spec = importlib.util.spec_from_file_location("explain_conformance", REPO / "scripts" / "explain-conformance.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


ADDRESS = re.compile(r"\b0x[0-9a-fA-F]{6,}\b")
# Numbers (`"duration_ms": 12.5`, go's `"Elapsed":0.01`) and timestamps (go's
# `"Time":"2026-11-30T00:45:02.29Z"`) of a run's records.
TIMES = re.compile(r'"(duration_ms|time|start|end|elapsed)":\s*(?:[0-9.e+-]+|"\d{4}-\d\d-\d\dT[^"]*")', re.I)
# node's timings: `duration_ms: 40.7` in its TAP (and so in a log or a failure's text),
# `ℹ duration_ms 41978.2` in its spec reporter's summary.
NODE_TIMES = re.compile(r"\b(duration_ms:?) [0-9.e+-]+")
# A harness's clock (vitest's `Start at  00:51:15`).
CLOCK = re.compile(r"\b\d\d:\d\d:\d\d\b")
MARKER_TIME = re.compile(r"⟦TSTEST:time:[0-9.]+⟧")
# `diff -u`'s headers (a shell library's `test_cmp` in verbose mode) carry the files' times
# (after a tab, which JUnit's <system-out> loses).
DIFF_HEADER_TIME = re.compile(r"^((?:---|\+\+\+) [^\t\n]*?)\t?\d{4}-\d\d-\d\d [0-9:.]+ [+-]\d{4}", re.M)
# A harness's timing with a space before its unit (tstest's `| 20 ms`).
SPACED_TIME = re.compile(r"(?<![\d.])\d+(\.\d+)? (ms|s)\b")


def stable_text(text, project, ec):
    """What may differ between two runs of the same code left out: timings, the project's path,
    and an object's address (pytest's `self = <… at 0x7f…>`)."""
    text = ec.DURATION.sub("<t>", text.replace(str(project), "<project>"))
    text = MARKER_TIME.sub("⟦TSTEST:time:<t>⟧", text)
    text = DIFF_HEADER_TIME.sub(r"\1 <t>", text)
    text = CLOCK.sub("<clock>", NODE_TIMES.sub(r"\1 <t>", text))
    text = SPACED_TIME.sub("<t>", text)
    # `1m 09s` in one run, `58s` in the next.
    text = text.replace("<t> <t>", "<t>")
    return TIMES.sub(r'"\1": <t>', ADDRESS.sub("0x…", text))


# The Markdown's "Slowest files" table and the terminal's `Slowest:` line are ordered and
# chosen by time, so files that take about as long swap places (or one is over the line in one
# run only): they are left out of the comparison.
SLOWEST_LINE = re.compile(r"^Slowest: .*\n?", re.M)


def without_timings(explained):
    return [{k: v for k, v in e.items() if k != "duration_ms"} for e in explained]


def any_order(x):
    """`--any-order`: a run's lines (an explanation's failures) sorted, test numbers (`point`,
    `id`) left out, for a project whose tests run in an order that varies from run to run (a
    go test that ranges over a map calls `t.Run` in the map's order)."""
    if isinstance(x, str):
        return "\n".join(sorted(x.splitlines()))
    if isinstance(x, dict):
        return {k: any_order(v) for k, v in x.items()}
    if isinstance(x, list):
        drop = lambda e: {k: v for k, v in e.items() if k not in ("point", "id")} if isinstance(e, dict) else e
        return sorted((drop(e) for e in x), key=lambda e: json.dumps(e, sort_keys=True, default=repr))
    return x


# Files run in parallel finish in any order, and the terminal and the jsonl stream say each
# when it finishes: the comparison is of each file's part, in the order of the files' ids
# (the jsonl) or names (the terminal), not of the order they finished in. Within a file the
# order is compared as it is.
FILE_LINE = re.compile(r"^[✓✗~!-] \S")
RUN_END = re.compile(r"^(Failures:|Slowest:|✗ FAIL|✓ PASS)")


def explained_by_file(jsonl):
    """The run's explanations (failures and each file's rest), grouped by file id."""
    out = {}
    for line in jsonl.splitlines():
        if line.startswith('{"type":"explained"'):
            event = json.loads(line)
            e = event["explained"]
            if e.get("kind") in ("failure", "rest"):
                out.setdefault(event.get("file"), []).append(e)
    return [without_timings(out[k]) for k in sorted(out, key=lambda k: (k is None, k or 0))]


def terminal_by_file(terminal):
    """The terminal's file blocks sorted by their first line, then the run's closing lines."""
    blocks, end, current = [], [], None
    for line in terminal.splitlines():
        if end or RUN_END.match(line):
            end.append(line)
        elif FILE_LINE.match(line):
            current = [line]
            blocks.append(current)
        elif current is not None:
            current.append(line)
        else:
            end.append(line)
    return "\n".join(l for b in sorted(blocks) for l in b) + "\n" + "\n".join(end)


def first_difference(a, b):
    """The first line where two runs' texts (or JSON) differ, for the disagreement's line."""
    def lines(x):
        if isinstance(x, dict):
            return [l for k in sorted(x) for l in [f"== {k}"] + lines(x[k])]
        return x.splitlines() if isinstance(x, str) else json.dumps(x, indent=1, default=repr).splitlines()
    a, b = lines(a), lines(b)
    for x, y in zip(a, b):
        if x != y:
            return f"{x.strip()[:120]!r} / {y.strip()[:120]!r}"
    return f"{len(a)} lines / {len(b)}"


def before(cmd, project):
    if cmd:
        subprocess.run(cmd, shell=True, cwd=project, capture_output=True, timeout=600, check=True)


def run_harness(cmd, project, ec):
    env = dict(os.environ, NO_COLOR="1", COLUMNS="100")
    env.pop("CI", None)
    done = subprocess.run(cmd, shell=True, cwd=project, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=600)
    text = done.stdout.decode("utf-8", "replace")
    # Harness timings (`Files=1, Tests=3, 0 wallclock secs ( 0.01 usr …`, `in 0.12s`) vary.
    text = re.sub(r"\d+ wallclock secs.*", "<timing>", text)
    text = re.sub(r"\b\d+\.\d+\s*(seconds|s)\b", "<t>", text)
    # ava prints a test's time only when it was slow (`✔ x (174ms)`).
    return re.sub(r" \(<t>\)$", "", stable_text(text, project, ec), flags=re.M), done.returncode


def run_tapline(tapline, project, args, out, ec):
    shutil.rmtree(project / ".nogit", ignore_errors=True)
    for name in ("out.xml", "out.md"):
        (out / name).unlink(missing_ok=True)
    env = dict(os.environ, COLUMNS="100", NO_COLOR="1")
    env.pop("CI", None)
    done = subprocess.run(
        [tapline, "run", *args, "--color", "never", "--format", "jsonl", "-o", str(out / "out.xml"), "-o", str(out / "out.md")],
        cwd=project, env=env, capture_output=True, timeout=600,
    )
    logs = {p.name: p.read_bytes() for p in sorted((project / ".nogit" / "testlogs").glob("*.log"))}
    read = lambda name: (out / name).read_text(encoding="utf-8") if (out / name).exists() else ""
    run = ec.Run(
        done.stdout.decode("utf-8", "replace"),
        done.stderr.decode("utf-8", "replace"),
        b"",
        read("out.xml"),
        read("out.md"),
        done.returncode,
    )
    return run, logs


def sink_disagreements(ec, run, scratch):
    """The suite's check of the terminal, JUnit and Markdown, file by file (the terminal says
    files as they finish, the reports in the files' order: within a file both keep the
    stream's order); its log check (a recording byte for byte) has no meaning here and is made
    to agree, the logs being checked below."""
    (scratch / "empty").write_bytes(b"")
    ec.PRODUCERS = scratch
    by_file = {}
    for line in run.jsonl.splitlines():
        if line.startswith('{"type":"explained"'):
            by_file.setdefault(json.loads(line).get("file"), []).append(line)
    said = []
    for lines in by_file.values():
        one = ec.Run("\n".join(lines), run.terminal, run.log, run.junit, run.markdown, run.code)
        # The JUnit's failures are the whole run's: counted once, below.
        said += [s for s in ec.sink_disagreements("empty", one) if s not in said and not s.startswith("JUnit has ")]
    failures = [e for e in run.explained() if e.get("kind") == "failure" and e.get("full") and not e.get("by_children")]
    if run.junit.count("<failure ") != len(failures):
        said.append(f"JUnit has {run.junit.count('<failure ')} failures, the explanation {len(failures)}")
    return said


def log_disagreements(failures, logs, harness, located):
    said = []
    text = "\n".join(b.decode("utf-8", "replace") for b in logs.values())
    for n, e in enumerate(failures, 1):
        path = list(e.get("path") or [])
        # A TAP name escapes `\` and `#` (`&\#39;`): the log holds the name as the stream wrote it.
        escaped = path[-1].replace("\\", "\\\\").replace("#", "\\#") if path else ""
        if path and path[-1] and path[-1] not in text and escaped not in text:
            said.append(f"no log names failure {n} ({path[-1]!r})")
        loc = e.get("location") or ""
        m = re.match(r"(.*?):(\d+)", loc)
        # A parent whose subtests failed, with lines of its own but no message (go's table
        # test logging its counts): its subtests' failures are placed, not it.
        parent = not e.get("message") and any(list(f.get("path") or [])[: len(path)] == path and len(f.get("path") or []) > len(path) for f in failures)
        if not m:
            if located and not parent:
                said.append(f"failure {n} has no location")
            continue
        base, line = Path(m.group(1)).name, m.group(2)
        # `t.js:12`, `t.js line 12`, `t.js @ 12`; node-tap's `at:` mapping names the file and
        # the line on two lines (`fileName: test/t.ts`, `lineNumber: 12`).
        near = rf"{re.escape(base)}\D{{1,8}}{line}\b"
        tap_at = rf"fileName: \S*{re.escape(base)}\s*\n\s*lineNumber: {line}\b"
        if not re.search(near, harness) and not re.search(tap_at, harness):
            said.append(f"the harness's output never places a failure at {base} line {line} (failure {n})")
    return said


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("project")
    ap.add_argument("--harness", required=True, help="the harness's own command, run by sh in the project")
    ap.add_argument("--before", help="run by sh in the project before every run (a fresh database)")
    ap.add_argument("--no-locations", action="store_true", help="the producer prints none (pgTAP): a failure without one agrees")
    ap.add_argument("--any-order", action="store_true", help="the project's tests run in an order that varies: runs compared line by line sorted")
    ap.add_argument("--tapline", default=str(REPO / "target" / "release" / "tapline"))
    argv = sys.argv[1:] if argv is None else argv
    rest = argv[argv.index("--") + 1:] if "--" in argv else []
    args = ap.parse_args(argv[: argv.index("--")] if "--" in argv else argv)
    args.args = rest  # tapline run's arguments, after --
    ec = suite()
    project = Path(args.project).resolve()
    tapline = str(Path(args.tapline).resolve())
    if not os.access(tapline, os.X_OK) or not project.is_dir():
        print(f"failed to find {tapline} or the project {project}", file=sys.stderr)
        return 2
    said = []
    harness = []
    for _ in range(RUNS):
        before(args.before, project)
        harness.append(run_harness(args.harness, project, ec))
    same = any_order if args.any_order else (lambda x: x)
    for i, h in enumerate(harness[1:], 2):
        if same(h[0]) != same(harness[0][0]) or h[1] != harness[0][1]:
            h, harness0 = h[0], harness[0][0]
            said.append(f"the harness's run {i} differs from its run 1: {first_difference(same(harness0), same(h))}")
    print(f"==== the harness: {args.harness} (exit {harness[0][1]})\n{harness[0][0]}")
    with tempfile.TemporaryDirectory(prefix="tapline-verify-") as scratch:
        scratch = Path(scratch)
        runs = []
        for _ in range(RUNS):
            before(args.before, project)
            runs.append(run_tapline(tapline, project, args.args, scratch, ec))
        first, logs = runs[0]
        print(f"==== tapline run {' '.join(args.args)} (exit {first.code})")
        answer = ec.answer_text(project.name + ".tap", first, [])
        print("\n".join(l for l in answer.splitlines() if not l.startswith("# ")))
        print(f"==== the terminal (run 1)\n{first.terminal}")
        def stable(run, logs):
            _, terminal, _, junit, markdown, code = run.stable(project)
            texts = {k: stable_text(v.decode("utf-8", "replace"), project, ec) for k, v in logs.items()}
            return (
                json.loads(stable_text(json.dumps(explained_by_file(run.jsonl)), project, ec)),
                stable_text(terminal_by_file(SLOWEST_LINE.sub("", terminal)), project, ec), stable_text(junit, project, ec),
                stable_text(markdown.split("<details><summary>Slowest files")[0], project, ec), code, texts,
            )
        first_stable = stable(first, logs)
        for i, (other, other_logs) in enumerate(runs[1:], 2):
            names = ("explanation", "terminal", "JUnit", "Markdown", "exit code", "log")
            for what, a, b in zip(names, first_stable, stable(other, other_logs)):
                if same(a) != same(b):
                    said.append(f"tapline's run {i}: its {what} differs from run 1's: {first_difference(same(a), same(b))}")
        failures = [e for e in first.explained() if e.get("kind") == "failure" and e.get("full") and not e.get("by_children")]
        said += sink_disagreements(ec, first, scratch)
        said += log_disagreements(failures, logs, harness[0][0], not args.no_locations)
    print("==== disagreements")
    for s in said:
        print(f"  {s}")
    print(f"{len(failures)} failures explained, {len(said)} disagreements, over {RUNS} runs each")
    return 1 if said else 0


if __name__ == "__main__":
    sys.exit(main())
