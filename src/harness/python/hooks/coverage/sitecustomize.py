# tapline's coverage hook (found on PYTHONPATH, like its trace hook): when TAPLINE_COVERAGE_OUT
# is set, measures this python with coverage.py as `coverage run` started in the project root
# (TAPLINE_COVERAGE_ROOT) would: the project's own coverage.py config (.coveragerc, setup.cfg,
# tox.ini, pyproject.toml) where it has one, only files under the root where the config does
# not choose, and never a virtualenv, site-packages or the standard library. At exit it only
# saves what ran (a data file beside TAPLINE_COVERAGE_OUT) and appends one JSON line naming
# this python and that file: the analysis is tapline's, once the test has ended, so that it
# never counts against the test's timeout. Without coverage.py it appends `#missing` once; where coverage.py fails, `#error <why>`.
# It prints nothing and never raises. Then it hands over to the sitecustomize it shadows, if
# any, and leaves sys.path as it was.
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
        except Exception as e:
            _say(out, e)
    me = sys.modules.pop("sitecustomize", None)
    try:
        import sitecustomize  # noqa: F401  (the one this file shadows)
    except ModuleNotFoundError as e:
        if e.name != "sitecustomize":
            raise
        if me is not None:
            sys.modules["sitecustomize"] = me


def _say(out, error):
    """Appends `#error <why>`: coverage.py did not start or save (a config it rejects, a
    plugin it cannot load), which tapline says once instead of measuring nothing silently."""
    try:
        why = (str(error).strip().splitlines() or [type(error).__name__])[0]
        with open(out, "a") as fh:
            fh.write("#error " + why + "\n")
    except Exception:
        pass


def _never_measured(root):
    """Patterns for what is never the project's own code: this python's prefixes and library
    folders, any site-packages, and each virtualenv (a folder holding `pyvenv.cfg`) in the
    root's first two levels."""
    import os
    import sys
    import sysconfig

    places = {sys.prefix, sys.base_prefix, sys.exec_prefix}
    for name in ("stdlib", "platstdlib", "purelib", "platlib"):
        try:
            places.add(sysconfig.get_paths()[name])
        except Exception:
            pass
    level = [root]
    for _ in range(2):
        below = []
        for folder in level:
            try:
                entries = list(os.scandir(folder))
            except OSError:
                continue
            for entry in entries:
                if entry.is_dir(follow_symlinks=False) and entry.name != ".git":
                    if os.path.isfile(os.path.join(entry.path, "pyvenv.cfg")):
                        places.add(entry.path)
                    else:
                        below.append(entry.path)
        level = below
    # A place holding the root (a project under /usr/src with /usr's python) stays measured.
    top = os.path.abspath(root)
    places = {os.path.abspath(p) for p in places if p}
    places = {p for p in places if top != p and not top.startswith(p.rstrip("/") + "/")}
    patterns = ["*/site-packages/*", "*/dist-packages/*", "*/node_modules/*"]
    patterns += [os.path.join(p, "*") for p in places]
    return sorted(set(patterns))


def _start(out, root):
    import atexit
    import json
    import os
    import sys

    try:
        import coverage
    except ImportError:
        with open(out, "a") as fh:
            fh.write("#missing\n")
        return
    # The config is found, and its relative paths read, from the root, as `coverage run`
    # there would; the test's own folder is back before anything else runs.
    cwd = os.getcwd()
    os.chdir(root)
    try:
        cov = coverage.Coverage(data_file=out + ".data", data_suffix=True)
        chosen = any(
            cov.get_option(o) for o in ("run:source", "run:include", "run:source_pkgs")
        )
        if not chosen:
            cov.set_option("run:include", [os.path.join(os.path.abspath(root), "*")])
        omit = list(cov.get_option("run:omit") or [])
        cov.set_option("run:omit", omit + _never_measured(root))
        cov.start()
    finally:
        os.chdir(cwd)

    def save():
        try:
            cov.stop()
            cov.save()
            name = cov.get_data().data_filename()
            line = json.dumps({"python": sys.executable, "data": name})
            with open(out, "a") as fh:
                fh.write(line + "\n")
        except Exception as e:
            _say(out, e)

    atexit.register(save)


_tapline_coverage()
del _tapline_coverage
