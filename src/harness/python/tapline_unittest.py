# tapline's unittest runner, run by `tapline run` as `python tapline_unittest.py FILE` for one
# test file of a project with no pytest (docs/discovery.md#unittest). It loads the file as
# `python -m unittest discover` would (module named from the current folder through its
# packages, else from the file's own folder as `discover -s DIR` does; `load_tests` honoured,
# so a TestCase a module imports from another runs where it is defined only) and prints TAP 14
# with protocol v2 markers, one point per test, live: `Class.test_method`, skips `# SKIP`,
# expected failures and unexpected successes `# TODO`, failures and errors `not ok` with an
# ERROR block (message, place in the test file, assertEqual's values as Python reprs, the
# traceback). A subTest that fails is a failing point of its own. stdout is the TAP stream:
# what a test prints there is held and shown as `#` lines after its failure, and anything
# else written to fd 1 goes to stderr. Exit status: 0 when unittest's result is successful,
# 1 otherwise.
import io
import os
import sys
import time
import traceback
import unittest

from tapline_python_common import EQUAL_METHODS
from tapline_python_common import code_file
from tapline_python_common import equal_locals, error_block
from tapline_python_common import escape as _escape
from tapline_python_common import place as _place_in
from tapline_python_common import rel as _rel
from tapline_python_common import stack as _stack
from tapline_python_common import started as _started

# assertCountEqual's two values too: their diff shows what differs.
_EQUAL_METHODS = dict(EQUAL_METHODS, assertCountEqual=("first", "second"))
_out = sys.stdout


def _take_stdout():
    # The TAP stream gets a copy of fd 1; fd 1 itself (prints at import, child processes) then
    # points at stderr, where no line is read as TAP.
    global _out
    try:
        _out = os.fdopen(os.dup(1), "w", encoding="utf-8", errors="replace", buffering=1)
        sys.stdout.flush()
        os.dup2(2, 1)
    except OSError:
        _out = sys.__stdout__


def _emit(text):
    try:
        _out.write(text + "\n")
        _out.flush()
    except (OSError, ValueError):
        pass


def _name(test):
    # As unittest's verbose output names it, less the module: `Class.test_method`.
    test_id = test.id()
    module = type(test).__module__
    if test_id.startswith(module + "."):
        return test_id[len(module) + 1 :]
    return test_id


class TapResult(unittest.TestResult):
    def __init__(self, test_file):
        super().__init__()
        self.test_file = os.path.abspath(test_file)
        self.number = 0
        self.started_at = None
        self.outcome = None
        self.held = io.StringIO()
        self.stdout = sys.stdout
        self.current = None

    def startTest(self, test):
        super().startTest(test)
        self.current = test
        _started(_emit, _name(test))
        self.started_at = time.perf_counter()
        self.outcome = None
        self.held = io.StringIO()
        self.stdout = sys.stdout
        sys.stdout = self.held

    def _timing(self):
        started = self.started_at or time.perf_counter()
        return " \u27e6TSTEST:time:%.3f\u27e7" % ((time.perf_counter() - started) * 1000.0)

    def _point(self, ok, name, directive=""):
        self.number += 1
        line = "%s %d - %s" % ("ok" if ok else "not ok", self.number, _escape(name))
        if directive:
            line += " # " + directive
        _emit(line + self._timing())

    def stopTest(self, test):
        super().stopTest(test)
        sys.stdout = self.stdout
        if self.outcome is None:
            self._point(True, _name(test))
        printed = self.held.getvalue()
        if self.outcome == "failed" and printed.strip():
            _emit("# --- captured stdout ---")
            for line in printed.rstrip("\n").splitlines():
                _emit("# " + line)

    def addSuccess(self, test):
        super().addSuccess(test)

    # Explained before unittest's own record: that cuts unittest's frames off the traceback
    # in place, assertEqual's among them.
    def addFailure(self, test, err):
        self._failed(test, err, "")
        super().addFailure(test, err)

    def addError(self, test, err):
        # A class or module fixture (`setUpClass`, `setUpModule`) that raised is no TestCase.
        self._failed(test, err, "" if isinstance(test, unittest.TestCase) else "error in ")
        super().addError(test, err)

    def _failed(self, test, err, prefix, suffix=""):
        self.outcome = "failed"
        name = _name(test) if isinstance(test, unittest.TestCase) else str(test)
        if not isinstance(test, unittest.TestCase):
            self.started_at = time.perf_counter()
        self._point(False, prefix + name + suffix)
        try:
            error = self._explain(err)
        except Exception as e:  # the explanation never fails the run
            error = {"error": {"message": "%s (tapline: %r)" % (err[1], e)}}
        error_block(_emit, error)

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        if not isinstance(test, unittest.TestCase):
            self.started_at = time.perf_counter()
        self.outcome = "skipped"
        name = _name(test) if isinstance(test, unittest.TestCase) else str(test)
        self._point(True, name, "SKIP " + _escape(reason or "skipped"))

    def addExpectedFailure(self, test, err):
        super().addExpectedFailure(test, err)
        self.outcome = "xfail"
        reason = "expected failure: %s" % (traceback.format_exception_only(err[0], err[1])[-1].strip())
        self._point(False, _name(test), "TODO " + _escape(reason))

    def addUnexpectedSuccess(self, test):
        super().addUnexpectedSuccess(test)
        self.outcome = "xpass"
        # unittest fails the run for it (wasSuccessful is False): so does the point.
        self._point(False, _name(test), "")
        error_block(_emit, {"error": {"message": "unexpected success of an expectedFailure test"}})

    def addSubTest(self, test, subtest, err):
        if err is not None:
            self._failed(test, err, "", " " + subtest._subDescription())
        super().addSubTest(test, subtest, err)

    def _explain(self, err):
        kind, value, tb = err
        message = traceback.format_exception_only(kind, value)[-1].strip()
        error = {"message": message}
        if issubclass(kind, AssertionError):
            values = _equal_values(tb)
            if values is not None:
                error["operator"] = "=="
                error["actual"], error["expected"] = values
                error["repr"] = "python"
                error["message"] = _without_ndiff(message)
        own = self._own_file()
        frames = self._frames(tb, own)
        error["stack"] = _stack(frames)
        out = {"error": error}
        place = _place_in(frames, self.test_file, own)
        if place:
            out["file"], out["line"] = place
        return out

    def _own_file(self):
        # The file that defines the running test's method (a base class's, for an inherited
        # test).
        test = self.current
        name = getattr(test, "_testMethodName", None)
        return code_file(getattr(test, name, None)) if name else None

    def _frames(self, tb, own=None):
        # From the test's first frame (in the file of its method, or the test file) on, less
        # unittest's own (its `__unittest` modules).
        entries = []
        while tb is not None:
            entries.append(tb)
            tb = tb.tb_next
        ours = {self.test_file, own}
        start = next(
            (i for i, t in enumerate(entries) if os.path.abspath(t.tb_frame.f_code.co_filename) in ours),
            0,
        )
        frames = []
        for t in entries[start:]:
            if t.tb_frame.f_globals.get("__unittest", False):
                continue
            code = t.tb_frame.f_code
            frames.append((code.co_filename, t.tb_lineno, code.co_name))
        return frames


def _without_ndiff(message):
    # assertEqual's message less the ndiff it prints of its two values (`- first`, `? ^`
    # marks, `+ second`, lines both share): the diff tapline draws from the values replaces
    # it, as the tap.py reader drops it (src/explain/failure/comments.rs). The rest stays:
    # `Lists differ: …`, `First differing element 0:`, a test's own ` : msg`.
    lines = message.split("\n")
    kept, i = lines[:1], 1
    while i < len(lines):
        j, end, minus, plus = i, i, False, False
        while j < len(lines) and (not lines[j].strip() or lines[j][:2] in ("- ", "+ ", "? ", "  ")):
            minus |= lines[j].startswith("- ")
            plus |= lines[j].startswith("+ ")
            end = j + 1 if lines[j].strip() else end
            j += 1
        if minus and plus:
            i = end
            continue
        kept.append(lines[i])
        i += 1
    while len(kept) > 1 and not kept[-1].strip():
        kept.pop()
    return "\n".join(kept)


def _equal_values(tb):
    # assertEqual and kin: the two arguments of its outermost frame in unittest/case.py.
    found = equal_locals(tb, _EQUAL_METHODS)
    return None if found is None else found[:2]


def _module_name(path):
    # As `discover` from the current folder names it: through packages (folders with an
    # `__init__.py`) up to the cwd. A file outside that is loaded from its own folder, as
    # `discover -s ITS_FOLDER` would.
    here = os.getcwd()
    absolute = os.path.abspath(path)
    folder, base = os.path.split(absolute)
    parts = [os.path.splitext(base)[0]]
    while folder != here:
        if not os.path.isfile(os.path.join(folder, "__init__.py")):
            return os.path.dirname(absolute), parts[0]
        folder, name = os.path.split(folder)
        if not name:
            return os.path.dirname(absolute), parts[0]
        parts.insert(0, name)
    return here, ".".join(parts)


def _count(suite):
    if isinstance(suite, unittest.TestCase):
        return 1
    return sum(_count(t) for t in suite)


def _load(path):
    import importlib

    top, name = _module_name(path)
    if top not in sys.path:
        sys.path.insert(0, top)
    loader = unittest.TestLoader()
    module = importlib.import_module(name)
    # `pattern` is what discovery hands `load_tests`.
    return loader.loadTestsFromModule(module, pattern="test*.py")


def main(argv):
    if len(argv) != 2:
        sys.stderr.write("usage: tapline_unittest.py FILE\n")
        return 2
    path = argv[1]
    _take_stdout()
    _emit("\u27e6TSTEST:PROTOCOL:2.0.0\u27e7")
    _emit("TAP version 14")
    try:
        suite = _load(path)
    except unittest.SkipTest as e:
        _emit("1..0 # SKIP %s" % _escape(e))
        return 0
    except BaseException:
        err = sys.exc_info()
        if isinstance(err[1], KeyboardInterrupt):
            raise
        result = TapResult(path)
        result.number = 0
        _emit("1..1")
        result.started_at = time.perf_counter()
        result._failed("importing " + _rel(path), err, "")
        return 1
    count = _count(suite)
    if count == 0:
        _emit("1..0 # SKIP unittest found no tests in this file")
        return 0
    result = TapResult(path)
    suite(result)
    # Fixture errors and failing subtests add points: the plan comes last.
    _emit("1..%d" % result.number)
    return 0 if result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
