# tapline's dependency trace (found first on PYTHONPATH): at exit, appends the files of the
# modules this python loaded (sys.modules) to $TAPLINE_TRACE_OUT, one a line. It prints nothing
# and never raises: a trace it cannot write is simply missing. Then it hands over to the
# sitecustomize it shadows, if any, and leaves sys.path as it would be without it.
def _tapline_trace():
    import os
    import sys

    here = os.path.dirname(os.path.abspath(__file__))
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != here]
    out = os.environ.get("TAPLINE_TRACE_OUT")
    if out:
        import atexit

        root = not os.environ.get("TAPLINE_TRACE_NESTED")
        os.environ["TAPLINE_TRACE_NESTED"] = "1"
        pid = os.getpid()

        def dump():
            # A forked child writes what it loaded too, but only the test's first process
            # says the trace is whole.
            try:
                lines = []
                for m in list(sys.modules.values()):
                    f = getattr(m, "__file__", None)
                    if isinstance(f, str):
                        lines.append(f + "\n")
                if root and os.getpid() == pid:
                    lines.append("#done python\n")
                with open(out, "a") as fh:
                    fh.write("".join(lines))
            except Exception:
                pass

        atexit.register(dump)
    me = sys.modules.pop("sitecustomize", None)
    try:
        import sitecustomize  # noqa: F401  (the one this file shadows)
    except ModuleNotFoundError as e:
        if e.name != "sitecustomize":
            raise
        if me is not None:
            sys.modules["sitecustomize"] = me


_tapline_trace()
del _tapline_trace
