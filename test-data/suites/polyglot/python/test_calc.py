"""pytest tests reported to tapline as JUnit XML."""
import pytest


def test_adds():
    assert 2 + 2 == 4


@pytest.mark.parametrize("word", ["tap", "line"])
def test_lengths(word):
    assert len(word) == 3 or len(word) == 4


@pytest.mark.skip(reason="not on this platform")
def test_platform():
    pass
