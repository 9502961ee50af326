"""pytest-tap values case: Python reprs in assertions (strings, bytes,
containers, None), an assertion message, a value from a call, an error
raised in a helper, unittest's assertEqual and pytest.raises."""
import unittest

import pytest


def test_strings():
    assert "abc" == "it's"


def test_bytes():
    assert b"x" == b"y"


def test_containers():
    assert {"a": [1, (2, None)]} == {"a": [1, (3, None)]}


def test_none():
    assert None == "None"


def test_message():
    x = 3
    assert x == 4, "x should be four"


def five():
    return 5


def test_where():
    assert five() == 6


def check(x):
    if x != 4:
        raise ValueError(f"x is {x}")


def test_raised_in_a_helper():
    print("captured out")
    check(3)


def test_does_not_raise():
    with pytest.raises(ValueError):
        pass


class TestUnittest(unittest.TestCase):
    def test_lists(self):
        self.assertEqual([1, 2, 3], [1, 2, 4])
