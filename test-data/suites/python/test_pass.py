"""Passing tests, printed through the taplib helper next to this file."""
import sys

sys.dont_write_bytecode = True  # keep __pycache__ out of the suite
from taplib import Tap  # noqa: E402

t = Tap(3)
t.equal(sorted([3, 1, 2]), [1, 2, 3], "sorts a list")
t.equal({**{"a": 1}, **{"b": 2}}, {"a": 1, "b": 2}, "merges dicts")
t.skip("reads a config file", "no config in this suite")
t.done()
