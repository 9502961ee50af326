#!/usr/bin/env python3
"""Lists the functions in src/ longer than a limit (default 80 lines), longest first.

The code is rustfmt-formatted, so a function's body ends at the first `}` line indented as
its `fn` line. Test code (a `tests.rs` file, or what follows `#[cfg(test)]` + `mod` at the
top level) is listed apart with --tests. Usage: scripts/long-fns.py [LIMIT] [--tests]
"""
import os
import re
import sys

FN = re.compile(r"^(\s*)(pub(\([a-z:]+\))?\s+)?(const\s+)?(async\s+)?(unsafe\s+)?fn\s+(\w+)")


def functions(path):
    lines = open(path, encoding="utf-8").read().split("\n")
    in_tests = os.path.basename(path) == "tests.rs"
    for i, line in enumerate(lines):
        if line.startswith("#[cfg(test)]") and i + 1 < len(lines) and lines[i + 1].startswith("mod ") and lines[i + 1].rstrip().endswith("{"):
            in_tests = True
        m = FN.match(line)
        if not m:
            continue
        indent = m.group(1)
        # The signature may span lines: find the body's `{` (or a `;` for a declaration).
        j = i
        while j < len(lines) and not lines[j].rstrip().endswith("{") and not lines[j].rstrip().endswith(";") and not lines[j].rstrip().endswith("}"):
            j += 1
        if j >= len(lines) or not lines[j].rstrip().endswith("{"):
            continue
        end = j + 1
        while end < len(lines) and lines[end] != indent + "}":
            end += 1
        yield m.group(7), i + 1, end - i + 1, in_tests


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    limit = int(args[0]) if args else 80
    tests = "--tests" in sys.argv
    found = []
    for dirpath, _, names in os.walk("src"):
        for name in names:
            if name.endswith(".rs"):
                path = os.path.join(dirpath, name)
                for fn, line, length, in_tests in functions(path):
                    if length > limit and in_tests == tests:
                        found.append((length, f"{path}:{line}", fn))
    for length, where, fn in sorted(found, reverse=True):
        print(f"{length:5} {where} {fn}")
    print(f"{len(found)} {'test ' if tests else ''}functions over {limit} lines", file=sys.stderr)


main()
