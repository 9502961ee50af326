# tapline's coverage analysis, run once a test file has ended, in the project root, by the
# python that ran the test: combines the data files named on the command line and prints, as
# `coverage report` from the root would count them (the project's config, its [report]
# include/omit and exclusions), one JSON line per source: its path and each statement line
# with 1 (ran) or 0. A source that cannot be analysed is left out alone, with a `note` line
# naming it; a file that is not Python source is left out silently, as `coverage report` does.
# A first line says which config file was read (`null`: none).
import sys

# `python -c` puts the current folder (the project root) first on sys.path: a project module
# named like one of these must not stand in for it.
if sys.path and sys.path[0] == "":
    del sys.path[0]

import contextlib  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402

import coverage  # noqa: E402


def _matcher(patterns, name):
    from coverage import files

    prepared = files.prep_patterns(patterns)
    kind = getattr(files, "GlobMatcher", None) or getattr(files, "FnmatchMatcher")
    return kind(prepared, name)


def _is_python(path):
    # coverage.py's own rule (FileReporter.should_be_python): `.py…` or no extension.
    ext = os.path.splitext(path)[1]
    return ext.startswith(".py") or not ext


def _rel(path):
    try:
        return os.path.relpath(path)
    except ValueError:
        return path


def main(paths):
    cov = coverage.Coverage(data_file=None)
    with contextlib.redirect_stdout(sys.stderr):
        cov.combine(data_paths=paths, keep=True)
    print(json.dumps({"config": cov.config.config_file}))
    measured = sorted(cov.get_data().measured_files())
    include = cov.get_option("report:include")
    omit = cov.get_option("report:omit")
    if include:
        keep = _matcher(include, "report_include")
        measured = [m for m in measured if keep.match(m)]
    if omit:
        drop = _matcher(omit, "report_omit")
        measured = [m for m in measured if not drop.match(m)]
    for path in measured:
        try:
            _, statements, _, missing, _ = cov.analysis2(path)
        except Exception as e:
            if _is_python(path) or type(e).__name__ != "NotPython":
                why = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
                print(json.dumps({"note": _rel(path), "why": why}))
            continue
        missed = set(missing)
        hits = [[n, 0 if n in missed else 1] for n in statements]
        print(json.dumps({"file": path, "lines": hits}))


main(sys.argv[1:])
