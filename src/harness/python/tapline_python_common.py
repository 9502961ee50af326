# What tapline's pytest plugin (tapline_pytest.py) and unittest runner (tapline_unittest.py)
# share: how a failure's explanation is written (the ERROR block of protocol v2), its values as
# Python reprs, its traceback and place. Written beside each of them in tapline's temp folder
# (src/harness/python/mod.rs), found on the same PYTHONPATH entry.
import json
import os

# unittest's assertEqual and kin: the names of the two values each compares.
EQUAL_METHODS = {
    "assertEqual": ("first", "second"),
    "assertMultiLineEqual": ("first", "second"),
    "assertListEqual": ("list1", "list2"),
    "assertTupleEqual": ("tuple1", "tuple2"),
    "assertDictEqual": ("d1", "d2"),
    "assertSetEqual": ("set1", "set2"),
    "assertSequenceEqual": ("seq1", "seq2"),
}
# A value whose repr is longer than this is left to the harness's words.
MAX_REPR = 100_000


def escape(text):
    # One line, with TAP's `\` and `#` escaped.
    one_line = " ".join(str(text).split("\n"))
    return one_line.replace("\\", "\\\\").replace("#", "\\#")


def rel(path):
    # From the cwd when the path lies under it, else as given.
    path = str(path)
    try:
        found = os.path.relpath(path)
    except ValueError:
        return path
    return path if found.startswith("..") else found


def safe_repr(value):
    # A value's repr, or None when it cannot be had or is too long.
    try:
        text = repr(value)
    except Exception:
        return None
    return text if len(text) <= MAX_REPR else None


def equal_locals(tb, methods=EQUAL_METHODS):
    # The outermost frame of an assertEqual (or kin) in unittest/case.py: its two values as
    # reprs and its locals, or None.
    while tb is not None:
        code = tb.tb_frame.f_code
        names = methods.get(code.co_name)
        if names and code.co_filename.replace("\\", "/").endswith("unittest/case.py"):
            local = tb.tb_frame.f_locals
            if names[0] in local and names[1] in local:
                actual, expected = safe_repr(local[names[0]]), safe_repr(local[names[1]])
                if actual is None or expected is None:
                    return None
                return actual, expected, local
        tb = tb.tb_next
    return None


def stack(frames):
    # Python's traceback text of `frames` ((path, line, function) each), paths from the cwd.
    import linecache

    lines = ["Traceback (most recent call last):"]
    for path, line, name in frames:
        lines.append('  File "%s", line %d, in %s' % (rel(path), line, name))
        source = linecache.getline(path, line).strip()
        if source:
            lines.append("    " + source)
    return "\n".join(lines)


def place(frames, test_file, own_file=None):
    # The deepest frame in the file that defines the test's function (`own_file`: an
    # inherited test's base class, in another module), else in the test file, else the
    # deepest under the cwd outside installed packages; None when none is there. An assertion
    # helper a library defines (a package's `test_tools.py`) is deeper, and not the test's.
    here = os.getcwd()
    wants = [lambda p: os.path.abspath(p) == test_file]
    if own_file and own_file != test_file:
        wants.insert(0, lambda p: os.path.abspath(p) == own_file)
    wants.append(lambda p: os.path.abspath(p).startswith(here + os.sep) and "site-packages" not in p)
    for want in wants:
        for path, line, _ in reversed(frames):
            if want(path):
                return rel(path), line
    return None


def code_file(function):
    # The absolute path of the file that defines `function` (a method, a decorated
    # function), or None.
    try:
        import inspect

        function = inspect.unwrap(getattr(function, "__func__", function))
        return os.path.abspath(function.__code__.co_filename)
    except Exception:
        return None


def started(emit, name):
    # Protocol v2's `test:started` as a test's body begins: a file that dies in it (a
    # segfault, os._exit, a hang tapline kills) names it (docs/failures.md, process deaths).
    emit("\u27e6TSTEST:EVENT:%s\u27e7" % json.dumps({"type": "test:started", "name": name}, ensure_ascii=False))


def error_block(emit, error):
    # A failure's explanation after its point: protocol v2's ERROR block.
    emit("\u27e6TSTEST:ERROR\u27e7")
    emit(json.dumps(error, ensure_ascii=False, default=str))
    emit("\u27e6TSTEST:/ERROR\u27e7")
