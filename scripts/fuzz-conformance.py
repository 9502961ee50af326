#!/usr/bin/env python3
"""Differential audit against the reference parser: generates random TAP-like streams
(subtests of every dialect, YAML blocks left open, buffered braces, plans, pragmas and bail
outs at every depth), has tapjs tap-parser and tapline read each, and compares them with the
rules of tests/integration/conformance.rs. Every difference is put in one of the deliberate
classes of protocol-spec/verdict.md or reported as unexplained (exit status 1).

Needs node, the reference installed by scripts/record-conformance.sh (in $CONFORMANCE_ENV,
default /tmp/tapline-conformance) and a release build (cargo build --release).
Usage: python3 scripts/fuzz-conformance.py [--count 1000] [--seed 1] [--keep DIR]
An unexplained stream is a candidate for test-data/conformance/ (then re-record).
"""
import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
ENV = os.environ.get("CONFORMANCE_ENV", "/tmp/tapline-conformance")
TAPLINE = os.path.join(ROOT, "target", "release", "tapline")

VOCABULARY = [
    "ok", "ok 1 - a", "not ok 2 - b", "not ok 3 # TODO t", "not ok 4 # SKIP s",
    "ok 5 - c # time=3ms", "ok 1 - b {", "not ok 1 - b {", "}", "{", "# Subtest: s",
    "# Subtest", "1..2", "1..1", "1..0", "  ---", "  a: 1", "  ...", "    ---", "    b: 2",
    "    ...", "      ---", "      x: 1", "      ...", "Bail out!", "Bail out! why",
    "pragma +strict", "pragma -strict", "TAP version 14", "# comment", "noise", "",
]


def generate(rng):
    lines = []
    for _ in range(rng.randint(1, 25)):
        line = rng.choice(VOCABULARY)
        depth = rng.choice([0, 0, 1, 1, 2])
        lines.append("    " * depth + line if line else "")
    return "\n".join(lines) + "\n"


def directive(v):
    if v is False or v is None:
        return None
    if v is True:
        return ""
    return str(v).strip()


def norm_name(s):
    s = (s or "").strip()
    return "" if s in ("(unnamed assert)", "(unnamed test)") else s


def ref_level(complete, asserts):
    complete = complete or {}
    plan = complete.get("plan") or {}
    bail = complete.get("bailout")
    return {
        "ok": bool(complete.get("ok")),
        "count": complete.get("count"),
        "plan": (plan.get("start"), plan.get("end"), bool(plan.get("skipAll")))
        if plan.get("start") is not None else None,
        # A reasonless bail out is `true` there and "" here (difference 2, a spelling): equal.
        "bailout": None if bail in (False, None) else "" if bail is True else str(bail).strip(),
        "asserts": [point(a, ref_level(a["subtest"]["complete"], a["subtest"].get("asserts", []))
                          if a.get("subtest") else None)
                    for a in asserts if "ok" in a],
    }


def our_level(doc):
    plan = doc.get("plan")
    bail = doc.get("bailout")
    return {
        "ok": bool(doc.get("ok")),
        "count": doc.get("count"),
        "plan": (plan["start"], plan["end"], bool(plan["skip_all"])) if plan else None,
        "bailout": None if bail is None else str(bail).strip(),
        "asserts": [point(a, our_level(a["subtest"]) if a.get("subtest") else None)
                    for a in doc.get("asserts", [])],
        "reasons": doc.get("reasons", []),
    }


def point(a, subtest):
    return {"id": a.get("id") or None, "ok": bool(a.get("ok")), "name": norm_name(a.get("name")),
            "todo": directive(a.get("todo")), "skip": directive(a.get("skip")),
            "subtest": subtest}


def first_difference(r, o, where="top"):
    """(where, key, ours) of the first difference, or None."""
    for key in ("ok", "count", "plan", "bailout"):
        if r[key] != o[key]:
            return where, key, o
    if len(r["asserts"]) != len(o["asserts"]):
        return where, "asserts", o
    for i, (rp, op) in enumerate(zip(r["asserts"], o["asserts"]), 1):
        for key in ("ok", "name", "id", "todo", "skip"):
            if rp[key] != op[key]:
                return f"{where} #{i}", key, o
        if (rp["subtest"] is None) != (op["subtest"] is None):
            return f"{where} #{i}", "subtest", o
        if rp["subtest"] is not None:
            d = first_difference(rp["subtest"], op["subtest"], f"{where} #{i} >")
            if d:
                return d
    return None


def classify(diff, ours_top):
    """The verdict.md difference that explains it, or None."""
    where, key, level = diff
    reasons = " | ".join(ours_top["reasons"])
    if where == "top" and key == "ok" and "no test point closed" in reasons:
        return "1: a stream that ends inside a subtest fails"
    if key == "ok" and "stream ended inside the YAML block" in json.dumps(ours_top):
        return "3: a stream that ends inside a YAML block fails"
    plan = level.get("plan")
    if key == "ok" and plan == (1, 0, True) and level["count"] == 0:
        return "8: a 1..0 plan does not excuse a bail out or a failing problem"
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--count", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--keep", help="write the streams and recordings here")
    args = ap.parse_args()
    if not os.path.isdir(os.path.join(ENV, "node_modules", "tap-parser")):
        sys.exit(f"fuzz-conformance: no tap-parser in {ENV}; run scripts/record-conformance.sh first")
    if not os.access(TAPLINE, os.X_OK):
        sys.exit("fuzz-conformance: no target/release/tapline; run cargo build --release first")
    work = args.keep or tempfile.mkdtemp(prefix="tapline-fuzz-")
    inputs, expected = os.path.join(work, "inputs"), os.path.join(work, "expected")
    os.makedirs(inputs, exist_ok=True)
    rng = random.Random(args.seed)
    paths = []
    for i in range(args.count):
        path = os.path.join(inputs, f"s{args.seed}-{i}.tap")
        with open(path, "w") as fh:
            fh.write(generate(rng))
        paths.append(path)
    env = dict(os.environ, NODE_PATH=os.path.join(ENV, "node_modules"))
    recorder = os.path.join(ROOT, "scripts", "conformance-record.js")
    for at in range(0, len(paths), 500):
        subprocess.run(["node", recorder, expected, *paths[at:at + 500]], check=True, env=env)
    classes, unexplained, unrecorded = {}, [], 0
    for path in paths:
        name = os.path.basename(path)[:-4]
        with open(os.path.join(expected, name + ".json")) as fh:
            exp = json.load(fh)
        if '"complete": null' in json.dumps(exp, indent=1):
            unrecorded += 1  # a subtest the reference never completed: nothing to compare
            continue
        out = subprocess.run([TAPLINE, "parse", "--format", "summary", path], capture_output=True)
        ours = our_level(json.loads(out.stdout))
        diff = first_difference(ref_level(exp["complete"], exp.get("asserts", [])), ours)
        if diff is None:
            classes["agree"] = classes.get("agree", 0) + 1
            continue
        why = classify(diff, ours)
        if why:
            classes[why] = classes.get(why, 0) + 1
        else:
            unexplained.append(f"{path}: {diff[0]}: {diff[1]}")
    for k, v in sorted(classes.items()):
        print(f"{v:6d}  {k}")
    print(f"{unrecorded:6d}  skipped: the reference left a subtest without a result")
    for u in unexplained:
        print(f"UNEXPLAINED {u}")
    kept = args.keep or unexplained
    print(f"fuzz-conformance: {args.count} streams, {len(unexplained)} unexplained differences"
          + (f" (streams in {work})" if kept else ""))
    if not kept:
        shutil.rmtree(work)
    sys.exit(1 if unexplained else 0)


if __name__ == "__main__":
    main()
