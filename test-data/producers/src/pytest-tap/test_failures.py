"""pytest-tap failures case: comparisons of lists, nested structures,
infinity and NaN against numbers, and strings."""
import math


def test_lists_differ():
    assert [1, [2, 3], "x"] == [1, [2, 4], "x"]


def test_infinity_against_a_number():
    assert math.inf == 1


def test_a_number_against_nan():
    assert 0 == math.nan


def test_strings_differ():
    assert "got" == "wanted"
