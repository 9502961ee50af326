"""pytest-tap mixed case: pass, fail with a comparison, skip, xfail/xpass
(todo), parametrized names with '#' and '\\', and console output."""
import sys

import pytest


def test_passes():
    assert 1 + 1 == 2


def test_fails_with_a_comparison():
    expected = {"a": 1, "b": [1, 3]}
    actual = {"a": 1, "b": [1, 2]}
    assert actual == expected


@pytest.mark.parametrize("name", ["plain", "with # hash", "with \\ backslash"])
def test_parametrized(name):
    assert name


@pytest.mark.skip(reason="not on this platform")
def test_skipped():
    assert False


def test_skipped_at_runtime():
    pytest.skip("decided # at runtime")


@pytest.mark.xfail(reason="not implemented yet")
def test_expected_failure():
    assert 41 == 42


@pytest.mark.xfail(reason="unexpectedly passes")
def test_unexpected_pass():
    assert True


def test_prints_to_the_console():
    print("print to stdout from a test")
    print("# a print that looks like a comment")
    print("print to stderr from a test", file=sys.stderr)


class TestGrouped:
    def __repr__(self):
        # pytest prints `self = <repr>` in failure tracebacks; keep it free of
        # memory addresses so the recording is reproducible.
        return "<TestGrouped>"

    def test_method_passes(self):
        assert True

    def test_method_fails(self):
        assert "actual" == "expected", "strings differ"
