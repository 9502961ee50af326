import unittest

# Imported to build on, not to run again: load_tests says what this module runs.
from tests.test_calc import TestAdd


class TestMore(TestAdd):
    def test_negative(self):
        self.assertEqual(-1 + -1, -2)


def load_tests(loader, tests, pattern):
    return loader.loadTestsFromTestCase(TestMore)
