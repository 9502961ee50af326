"""pytest-tap: an error in a fixture (setup error) and a collection-time
exception in a parametrize id."""
import pytest


@pytest.fixture
def broken():
    raise RuntimeError("fixture setup failed")


def test_uses_broken_fixture(broken):
    assert broken


def test_passes():
    assert True
