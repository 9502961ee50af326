#!/usr/bin/env python3
"""Writes test-data/conformance/matrix/: one small stream per combination of
  directive on the inner point (none/ok, none/not ok, SKIP on not ok, TODO on not ok)
  x plan position (leading, trailing, none), at both levels
  x subtest dialect (streamed `# Subtest:`, indented heading, unnamed indented, buffered `{`).
The closing point says `ok` exactly when the inner point does not fail, so each stream
checks that a directive, a plan position and a dialect combine as the reference says.
The outputs are committed; scripts/record-conformance.sh records them like every stream.
Usage: python3 scripts/gen-conformance-matrix.py (from anywhere)
"""
import os

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
OUT = os.path.join(ROOT, "test-data", "conformance", "matrix")

DIRECTIVES = {
    "pass": ("ok", ""),
    "fail": ("not ok", ""),
    "skip": ("not ok", " # SKIP not here"),
    "todo": ("not ok", " # TODO later"),
}
PLANS = ("lead", "trail", "none")
DIALECTS = ("streamed", "heading", "unnamed", "buffered")


def document(lines, count, plan, indent):
    """A document's lines with the plan for its `count` points placed as asked."""
    lines = [indent + line for line in lines]
    n = f"{indent}1..{count}"
    if plan == "lead":
        return [n] + lines
    if plan == "trail":
        return lines + [n]
    return lines


def stream(directive, plan, dialect):
    status, suffix = DIRECTIVES[directive]
    inner = [f"ok 1 - first", f"{status} 2 - second{suffix}"]
    closer_ok = directive != "fail"
    closer = f"{'ok' if closer_ok else 'not ok'} 1 - group"
    child = document(inner, 2, plan, "    ")
    if dialect == "streamed":
        body = ["# Subtest: group"] + child + [closer]
    elif dialect == "heading":
        body = ["    # Subtest: group"] + child + [closer]
    elif dialect == "unnamed":
        body = child + [closer]
    else:
        body = [closer + " {"] + child + ["}"]
    top = body + ["ok 2 - after the group"]
    return "\n".join(["TAP version 14"] + document(top, 2, plan, "")) + "\n"


def main():
    os.makedirs(OUT, exist_ok=True)
    for old in os.listdir(OUT):
        if old.endswith(".tap"):
            os.remove(os.path.join(OUT, old))
    n = 0
    for d in DIRECTIVES:
        for p in PLANS:
            for s in DIALECTS:
                with open(os.path.join(OUT, f"{s}-{d}-plan-{p}.tap"), "w") as fh:
                    fh.write(stream(d, p, s))
                n += 1
    print(f"wrote {n} streams to {os.path.relpath(OUT, ROOT)}")


if __name__ == "__main__":
    main()
