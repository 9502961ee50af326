# tapline's pytest plugin, loaded by `tapline run` with `-p tapline_pytest` (its folder first
# on PYTHONPATH) for one test file at a time. It prints TAP 14 on the stdout pytest started
# with, live, one point per test (setup, call and teardown together), with protocol v2
# markers: the time on the point's line, and a failure's explanation in an ERROR block (the
# message with pytest's assertion introspection, the place in the test file, the values of
# an `==` comparison or a unittest assertEqual as Python reprs, a traceback). pytest's own
# terminal report is turned off: stdout is the TAP stream. Skips are `# SKIP`, xfail and
# xpass `# TODO`. A collection error is a failing point; a file with no tests is `1..0` with
# the reason, and pytest's exit status 5 (no tests collected) then becomes 0: in a run of the
# whole suite such a file adds nothing and fails nothing.
import json
import os
import sys
import textwrap
import time

import pytest
from tapline_python_common import EQUAL_METHODS as _EQUAL_METHODS
from tapline_python_common import code_file as _code_file
from tapline_python_common import equal_locals as _equal_locals
from tapline_python_common import error_block
from tapline_python_common import escape as _escape
from tapline_python_common import place as _place_in
from tapline_python_common import rel as _rel
from tapline_python_common import safe_repr as _repr
from tapline_python_common import stack as _stack
from tapline_python_common import started as _started

# Set by tapline's warm pool (src/run/worker): this pytest serves file after file. Taken out
# of the environment so that a test and what it starts never see them.
_SERVE = os.environ.pop("TAPLINE_WARM_NONCE", None)
_MERGED = os.environ.pop("TAPLINE_WARM_MERGED", "0") == "1"
_TRACE = os.environ.get("TAPLINE_WARM_TRACE") == "1"
for _name in ("TAPLINE_WARM_TRACE", "TAPLINE_WARM_PRELOAD", "TAPLINE_WARM_MEMO"):
    os.environ.pop(_name, None)
_FILES = os.environ.pop("TAPLINE_PYTEST_FILES", None)



def _open_stdout():
    # A copy of the stdout pytest started with: pytest's capture moves fd 1 while tests run.
    try:
        return os.fdopen(os.dup(1), "w", encoding="utf-8", errors="replace", buffering=1)
    except OSError:
        return sys.__stdout__


def _open_fd(fd, mode):
    # A copy of a stream pytest started with, taken before its capture moves the fd (a warm
    # worker's stdin is /dev/null while capture is on).
    try:
        if "b" in mode:
            return os.fdopen(os.dup(fd), mode)
        return os.fdopen(os.dup(fd), mode, encoding="utf-8", errors="replace", buffering=1)
    except OSError:
        return None


_out = _open_stdout()
_err = _open_fd(2, "w") if _SERVE else None
_in = _open_fd(0, "rb") if _SERVE else None
_state = {
    "started": False,
    "errors": [],
    "number": 0,
    "planned": None,
    "compare": None,
    "reports": [],
    "deselected": 0,
}


def _emit(text):
    try:
        _out.write(text + "\n")
        _out.flush()
    except (OSError, ValueError):
        pass


def _start():
    if not _state["started"]:
        _state["started"] = True
        _emit("\u27e6TSTEST:PROTOCOL:2.0.0\u27e7")
        _emit("TAP version 14")


@pytest.hookimpl(trylast=True)
def pytest_configure(config):
    # stdout is the TAP stream: pytest's own report would be read as output among it.
    reporter = config.pluginmanager.getplugin("terminalreporter")
    if reporter is not None:
        config.pluginmanager.unregister(reporter)
    if not (_SERVE or _FILES):
        _start()


def pytest_deselected(items):
    _state["deselected"] += len(items)
    for item in items:
        path = _item_path(item)
        _session["deselected"][path] = _session["deselected"].get(path, 0) + 1


def _none_reason():
    if _state.get("module_skip"):
        return _state["module_skip"]
    if _state["deselected"]:
        return "pytest deselected all %d tests of this file" % _state["deselected"]
    return "pytest collected no tests in this file"


def pytest_collectreport(report):
    if report.failed:
        _state["errors"].append(report)
    elif report.skipped and "::" not in report.nodeid:
        # A module that skips itself (`pytest.skip(allow_module_level=True)`, importorskip):
        # its reason is the file's.
        reason = _skip_reason(report)
        if reason in ("Skipped", "skipped"):
            reason = "the module skips itself (pytest.skip at module level), no reason given"
        _state["module_skip"] = reason
        if _SERVE or _FILES:
            _session["module_skip"][report.nodeid] = _state["module_skip"]
    elif (_SERVE or _FILES) and "::" not in report.nodeid and report.nodeid.endswith(".py"):
        # A test module pytest collected, with tests or none (a file of no tests, or all of
        # them deselected, still runs, as `1..0 # SKIP`).
        if os.path.basename(report.nodeid) not in ("__init__.py", "conftest.py"):
            _session["modules"].append(report.nodeid)


def pytest_collection_finish(session):
    if _SERVE or _FILES:
        return _session_collected(session)
    errors = _state["errors"]
    run_tests = not errors or session.config.getoption("continue_on_collection_errors", False)
    planned = len(errors) + (len(session.items) if run_tests else 0)
    _state["planned"] = planned
    if planned == 0:
        _emit("1..0 # SKIP " + _none_reason())
        return
    _emit("1..%d" % planned)
    for report in errors:
        _collection_error(report)


def _collection_error(report):
    _state["number"] += 1
    text = str(report.longreprtext or "")
    # pytest's `E` lines are the error; the lines above them, where it was raised.
    lines = text.splitlines()
    said = textwrap.dedent("\n".join(l[1:] for l in lines if l.startswith("E "))).strip()
    message = said or _last_line(text) or "collection failed"
    stack = "\n".join(l for l in lines if not l.startswith("E ")).strip()
    error = {"error": {"message": message}}
    if stack:
        error["error"]["stack"] = stack
    place = _file_line_in(text)
    if place:
        error["file"], error["line"] = place
    _emit("not ok %d - %s" % (_state["number"], _escape("collecting " + report.nodeid)))
    _error_block(error)


def _last_line(text):
    lines = [l.strip() for l in text.splitlines() if l.strip()]
    return lines[-1] if lines else ""


def _file_line_in(text):
    # The last `File "path", line N` a traceback names (a syntax error's place).
    found = None
    for line in text.splitlines():
        at = line.find('File "')
        if at < 0:
            continue
        rest = line[at + 6 :]
        path, sep, tail = rest.partition('", line ')
        digits = ""
        for c in tail:
            if not c.isdigit():
                break
            digits += c
        if sep and digits:
            found = (_rel(path), int(digits))
    return found


def _error_block(error):
    error_block(_emit, error)


def pytest_assertrepr_compare(config, op, left, right):
    # Called when a rewritten `assert` comparison fails: the values, kept for the failure's
    # diff; pytest's own explanation is left to its other implementations.
    _state["compare"] = (op, left, right)
    return None


def pytest_runtest_logstart(nodeid, location):
    _state["reports"] = []
    _state["compare"] = None
    _started(_emit, nodeid.split("::", 1)[1] if "::" in nodeid else nodeid)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.failed and call.excinfo is not None:
        try:
            report._tapline_error = _explain(item, call.excinfo, report.when)
        except Exception as e:  # the explanation never fails the test run
            report._tapline_error = {"error": {"message": "%s (tapline: %r)" % (report.longreprtext, e)}}
        _state["compare"] = None


def pytest_runtest_logreport(report):
    _state["reports"].append(report)


def pytest_runtest_logfinish(nodeid, location):
    reports = _state["reports"]
    _state["reports"] = []
    if not reports:
        return
    _state["number"] += 1
    n = _state["number"]
    name = _escape(nodeid.split("::", 1)[1] if "::" in nodeid else nodeid)
    ms = sum(getattr(r, "duration", 0.0) or 0.0 for r in reports) * 1000.0
    timing = " \u27e6TSTEST:time:%.3f\u27e7" % ms
    failed = [r for r in reports if r.failed]
    skipped = [r for r in reports if r.skipped]
    call = next((r for r in reports if r.when == "call"), None)
    if failed:
        r = failed[0]
        # A strict xfail that passed has no error: its longrepr says `[XPASS(strict)] reason`.
        _emit("not ok %d - %s%s" % (n, name, timing))
        error = getattr(r, "_tapline_error", None) or {"error": {"message": str(r.longreprtext)}}
        if r.when != "call":
            message = error["error"].get("message") or ""
            error["error"]["message"] = ("error at %s: %s" % (r.when, message)).rstrip()
        _error_block(error)
        _captured(failed[0])
        return
    if skipped:
        r = skipped[0]
        if hasattr(r, "wasxfail"):
            _emit("not ok %d - %s # TODO %s%s" % (n, name, _escape(_xfail_reason(r)), timing))
            return
        _emit("ok %d - %s # SKIP %s%s" % (n, name, _escape(_skip_reason(r)), timing))
        return
    if call is not None and hasattr(call, "wasxfail"):
        reason = "unexpectedly passed: %s" % (call.wasxfail or "xfail")
        _emit("ok %d - %s # TODO %s%s" % (n, name, _escape(reason), timing))
        return
    _emit("ok %d - %s%s" % (n, name, timing))


def _xfail_reason(report):
    reason = getattr(report, "wasxfail", "") or ""
    if reason.startswith("reason: "):
        reason = reason[len("reason: ") :]
    return reason or "expected to fail"


def _skip_reason(report):
    longrepr = report.longrepr
    reason = longrepr[2] if isinstance(longrepr, tuple) and len(longrepr) == 3 else str(longrepr)
    reason = str(reason)
    return reason[len("Skipped: ") :] if reason.startswith("Skipped: ") else reason or "skipped"


def _captured(report):
    # What pytest captured while the test ran, as comments after its explanation.
    for title, content in getattr(report, "sections", []):
        if not content.strip():
            continue
        _emit("# --- %s ---" % title)
        for line in content.rstrip("\n").splitlines():
            _emit("# " + line)


def _explain(item, excinfo, when):
    error = {}
    message = excinfo.exconly(tryshort=True)
    values = None
    if excinfo.errisinstance(AssertionError):
        values = _compared(message, _notes(excinfo)) or _unittest_values(excinfo)
    if values is not None:
        actual, expected, message = values
        error["operator"] = "=="
        error["actual"] = actual
        error["expected"] = expected
        error["repr"] = "python"
    error["message"] = message
    frames = _frames(item, excinfo.tb)
    error["stack"] = _stack(frames)
    out = {"error": error}
    place = _place(item, frames)
    if place:
        out["file"], out["line"] = place
    return out


def _notes(excinfo):
    # The exception's notes (PEP 678: hypothesis's `Failing test case: …` and its arguments),
    # which exconly() writes after pytest's explanation: the test's words, never dropped.
    notes = getattr(excinfo.value, "__notes__", None)
    if not isinstance(notes, (list, tuple)):
        return ""
    return "\n".join(str(n) for n in notes)


def _compared(message, notes=""):
    # The values of the failed `==` a rewritten assert compared, when the failure is that
    # comparison's (pytest's summary line says `assert … == …`).
    compare = _state["compare"]
    if notes and message.endswith("\n" + notes):
        message = message[: -len(notes) - 1]
    else:
        notes = ""
    # pytest writes `AssertionError: assert …` when it explains more than one line.
    if message.startswith("AssertionError: assert "):
        message = message[len("AssertionError: ") :]
    first = next((l for l in message.splitlines() if l.lstrip().startswith("assert ")), "")
    if compare is None or compare[0] != "==" or " == " not in first:
        return None
    actual, expected = _repr(compare[1]), _repr(compare[2])
    if actual is None or expected is None:
        return None
    # pytest's explanation of the two values goes: the diff of them says it. Its `where`
    # lines stay, saying where a value came from.
    kept = []
    for line in message.splitlines():
        body = line.strip()
        if line[:1] not in (" ", "\t") or body.startswith("+  where ") or body.startswith("+  and "):
            kept.append(line)
    if notes:
        kept.append(notes)
    return actual, expected, "\n".join(kept)


def _unittest_values(excinfo):
    # unittest's assertEqual and kin: the two arguments of its outermost frame.
    found = _equal_locals(excinfo.tb, _EQUAL_METHODS)
    if found is None:
        return None
    actual, expected, local = found
    message = excinfo.exconly(tryshort=True).splitlines()[0]
    msg = local.get("msg")
    if msg is not None:
        message += "\n" + str(msg)
    return actual, expected, message


def _frames(item, tb):
    # The traceback from the test's own file on (pytest's and pluggy's frames before it
    # go), less the frames that ask to be hidden (pytest's `__tracebackhide__`, unittest's own
    # `__unittest` module).
    test_file = os.path.abspath(str(getattr(item, "path", None) or item.fspath))
    ours = {test_file, _own_file(item)}
    entries = []
    while tb is not None:
        entries.append(tb)
        tb = tb.tb_next
    start = next(
        (i for i, t in enumerate(entries) if os.path.abspath(t.tb_frame.f_code.co_filename) in ours),
        0,
    )
    frames = []
    for t in entries[start:]:
        f_locals = t.tb_frame.f_locals
        try:
            hidden = bool(f_locals.get("__tracebackhide__", False)) or bool(
                t.tb_frame.f_globals.get("__unittest", False)
            )
        except Exception:
            hidden = False
        if hidden:
            continue
        code = t.tb_frame.f_code
        frames.append((code.co_filename, t.tb_lineno, code.co_name))
    return frames


def _own_file(item):
    # The file that defines the test's function: an inherited test's base class's module.
    try:
        return _code_file(getattr(item, "obj", None) or getattr(item, "function", None))
    except Exception:  # an item's object that cannot be had names no file
        return None


def _place(item, frames):
    # The deepest frame in the file of the test's function (an inherited test's base class),
    # else in the test's own file, else the deepest one under the cwd, else the last.
    test_file = os.path.abspath(str(getattr(item, "path", None) or item.fspath))
    found = _place_in(frames, test_file, _own_file(item))
    if found is None and frames:
        return _rel(frames[-1][0]), frames[-1][1]
    return found


def pytest_internalerror(excrepr, excinfo):
    _start()
    sys.stderr.write("INTERNALERROR> %s\n" % excrepr)
    _emit("Bail out! pytest internal error: %s" % _escape(_last_line(str(excrepr))))


def pytest_keyboard_interrupt(excinfo):
    _start()
    if excinfo.typename == "Interrupted":
        # pytest stopping on its own: after collection errors their points said why.
        if not _state["errors"]:
            _emit("# %s" % _escape(excinfo.exconly()))
        return
    # A KeyboardInterrupt a test raised (tapline's own Ctrl-C stops the run by itself): it
    # ends this file's pytest, which fails this file alone (its plan unmet, exit 2), not the run.
    _emit("# pytest stopped: %s" % _escape(excinfo.exconly()))


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session, exitstatus):
    if _FILES:
        return
    if int(exitstatus) == 5 and not _state["errors"]:
        # No tests collected (or all deselected) in this one file: a skip, not a failure.
        if _state["planned"] is None:
            _start()
            _emit("1..0 # SKIP " + _none_reason())
        session.exitstatus = 0


# --- the session's files: the listing and the warm worker ---

# What the session collected, by file (absolute path): its items, its collection errors, how
# many of its tests were deselected.
_session = {"items": {}, "errors": {}, "deselected": {}, "order": [], "modules": [], "modules_of": {}, "module_skip": {}}


def _item_path(item):
    return os.path.abspath(str(getattr(item, "path", None) or item.fspath))


def _report_path(session, report):
    return os.path.abspath(os.path.join(str(session.config.rootpath), report.nodeid.split("::")[0]))


def _session_collected(session):
    for nodeid in list(_session["module_skip"]):
        path = os.path.abspath(os.path.join(str(session.config.rootpath), nodeid))
        _session["module_skip"][path] = _session["module_skip"].pop(nodeid)
        _session["modules"].append(nodeid)
    for nodeid in _session["modules"]:
        path = os.path.abspath(os.path.join(str(session.config.rootpath), nodeid))
        if path not in _session["items"]:
            _session["items"][path] = []
            _session["order"].append(path)
    for item in session.items:
        path = _item_path(item)
        if path not in _session["items"]:
            _session["items"][path] = []
            _session["order"].append(path)
        _session["items"][path].append(item)
        _session["modules_of"].setdefault(path, set()).add(getattr(getattr(item, "module", None), "__name__", None))
    for report in _state["errors"]:
        path = _report_path(session, report)
        if path not in _session["errors"]:
            _session["errors"][path] = []
            if path not in _session["items"]:
                _session["order"].append(path)
        _session["errors"][path].append(report)
    _state["errors"] = []
    if _FILES:
        for path in _session["order"]:
            _emit("\u27e6tapline-file\u27e7 " + path)
        _emit("\u27e6tapline-files-end\u27e7")


@pytest.hookimpl(tryfirst=True)
def pytest_runtestloop(session):
    if not _SERVE:
        return None
    while True:
        line = _in.readline() if _in is not None else b""
        if not line:
            return True
        try:
            command = json.loads(line.decode("utf-8", "replace"))
        except ValueError:
            continue
        started = time.monotonic()
        path = os.path.abspath(str(command.get("file") or ""))
        code = _serve_file(session, path)
        _write_trace(command.get("trace"), path)
        micros = int((time.monotonic() - started) * 1_000_000)
        marker = "\u27e6tapline-warm %s end %d %d\u27e7" % (_SERVE, code, micros)
        _emit(marker)
        if not _MERGED and _err is not None:
            try:
                _err.write(marker + "\n")
                _err.flush()
            except (OSError, ValueError):
                pass


def _serve_file(session, path):
    # One file's run, as `pytest FILE` prints it: its TAP stream; its exit code.
    _state.update(started=False, number=0, planned=None, compare=None, reports=[])
    _state["deselected"] = _session["deselected"].get(path, 0)
    _state["module_skip"] = _session["module_skip"].get(path)
    _start()
    items = _session["items"].get(path, [])
    errors = _session["errors"].get(path, [])
    if errors and not session.config.getoption("continue_on_collection_errors", False):
        items = []
    planned = len(errors) + len(items)
    _state["planned"] = planned
    if planned == 0:
        if path in _session["items"] or path in _session["errors"] or _state["deselected"]:
            _emit("1..0 # SKIP " + _none_reason())
        else:
            _emit(
                "1..0 # SKIP pytest does not collect this file (its session leaves it out: "
                "testpaths, collect_ignore, --ignore or python_files)"
            )
        return 0
    _emit("1..%d" % planned)
    for report in errors:
        _collection_error(report)
    session.testsfailed = 0
    session.shouldstop = False
    session.shouldfail = False
    hook = session.config.hook
    for i, item in enumerate(items):
        # The file's last test tears everything down, session fixtures too, as its own
        # pytest would at its end: the next file may come from another worker's start.
        nextitem = items[i + 1] if i + 1 < len(items) else None
        hook.pytest_runtest_protocol(item=item, nextitem=nextitem)
        if session.shouldfail or session.shouldstop:
            break
    return 1 if (errors or session.testsfailed) else 0


# A warm file's trace (TAPLINE_WARM_TRACE): the worker imported every test module when it
# collected the session, so what sys.modules holds is no one file's. Every import statement
# that runs is recorded instead, cached or not (importer -> imported), and a file's trace is
# what its test modules and the conftests reach through those edges, the file itself too.
_edges = {}


def _record_imports():
    import builtins
    import importlib.util

    real = builtins.__import__

    def tracking(name, globals=None, locals=None, fromlist=(), level=0):
        module = real(name, globals, locals, fromlist, level)
        try:
            importer = globals.get("__name__") if globals else None
            if importer:
                full = name
                if level:
                    package = globals.get("__package__") or ""
                    full = importlib.util.resolve_name("." * level + name, package)
                found = _edges.setdefault(importer, set())
                parts = full.split(".")
                for i in range(1, len(parts) + 1):
                    found.add(".".join(parts[:i]))
                for item in fromlist or ():
                    if isinstance(item, str) and (full + "." + item) in sys.modules:
                        found.add(full + "." + item)
        except Exception:
            pass
        return module

    builtins.__import__ = tracking


if _SERVE and _TRACE:
    _record_imports()


def _reached(roots):
    seen, todo = set(), [r for r in roots if r]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        todo.extend(_edges.get(name, ()))
    return seen


def _write_trace(out, path=None):
    # The file's trace, as tapline's trace hook writes it: the files of the modules it reached.
    if not out:
        return
    try:
        roots = set(_session["modules_of"].get(path, ()))
        roots.update(
            name for name, m in list(sys.modules.items())
            if os.path.basename(str(getattr(m, "__file__", "") or "")) == "conftest.py"
        )
        lines = [path + "\n"] if path else []
        for name in _reached(roots):
            f = getattr(sys.modules.get(name), "__file__", None)
            if isinstance(f, str):
                lines.append(f + "\n")
        lines.append("#done python\n")
        with open(out, "a") as fh:
            fh.write("".join(lines))
    except Exception:
        pass
