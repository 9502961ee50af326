"""pytest tests whose JUnit XML shows passes, a failure with a diff, an error, skips and xfail."""
import sys

import pytest


def test_adds():
    assert 1 + 1 == 2


def test_compares_lists():
    assert [1, 2, 3] == [1, 2, 4]


def test_prints():
    print("hello from stdout")
    print("hello from stderr", file=sys.stderr)


@pytest.mark.skip(reason="needs network")
def test_network():
    pass


@pytest.mark.xfail(reason="known rounding bug")
def test_rounding():
    assert round(2.675, 2) == 2.68


@pytest.mark.parametrize("n,square", [(2, 4), (3, 9), (4, 15)])
def test_squares(n, square):
    assert n * n == square


@pytest.fixture
def broken_fixture():
    raise RuntimeError("fixture could not connect")


def test_uses_broken_fixture(broken_fixture):
    pass


class TestStrings:
    def test_upper(self):
        assert "a".upper() == "A"

    def test_split(self):
        assert "a,b".split(",") == ["a", "b", "c"], "split lost a field"
