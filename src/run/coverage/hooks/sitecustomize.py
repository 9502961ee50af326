# tapline's coverage hook (found on PYTHONPATH, like its trace hook): when TAPLINE_COVERAGE_OUT
# is set, measures this python with coverage.py, only the files under TAPLINE_COVERAGE_ROOT,
# and at exit appends one JSON line per measured file to TAPLINE_COVERAGE_OUT: its path and
# each statement line with 1 (ran) or 0 (never ran), as coverage.py's own analysis says.
# Without coverage.py it appends `#missing` once. It prints nothing and never raises. Then
# it hands over to the sitecustomize it shadows, if any, and leaves sys.path as it was.
def _tapline_coverage():
    import os
    import sys

    here = os.path.dirname(os.path.abspath(__file__))
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != here]
    out = os.environ.get("TAPLINE_COVERAGE_OUT")
    root = os.environ.get("TAPLINE_COVERAGE_ROOT")
    if out and root:
        try:
            _start(out, root)
        except Exception:
            pass
    me = sys.modules.pop("sitecustomize", None)
    try:
        import sitecustomize  # noqa: F401  (the one this file shadows)
    except ModuleNotFoundError as e:
        if e.name != "sitecustomize":
            raise
        if me is not None:
            sys.modules["sitecustomize"] = me


def _start(out, root):
    import atexit
    import json
    import os

    try:
        import coverage
    except ImportError:
        with open(out, "a") as fh:
            fh.write("#missing\n")
        return
    cov = coverage.Coverage(
        data_file=None, include=[os.path.join(root, "*")], config_file=False
    )
    cov.start()

    def dump():
        try:
            cov.stop()
            lines = []
            for path in sorted(cov.get_data().measured_files()):
                _, statements, _, missing, _ = cov.analysis2(path)
                missed = set(missing)
                hits = [[n, 0 if n in missed else 1] for n in statements]
                lines.append(json.dumps({"file": path, "lines": hits}) + "\n")
            with open(out, "a") as fh:
                fh.write("".join(lines))
        except Exception:
            pass

    atexit.register(dump)


_tapline_coverage()
del _tapline_coverage
