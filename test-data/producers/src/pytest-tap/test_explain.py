"""pytest-tap explain case: a plain assert whose message pytest builds by
introspection, a dict comparison, and a unittest.TestCase whose
assertEqual on strings fails; five leaf tests in two classes (the module's
functions and TestGreeting), three of them failing."""
import unittest


def add(a, b):
    return a + b


def test_add():
    assert add(1, 2) == 4


def test_config():
    assert {"host": "localhost", "port": 8080} == {"host": "localhost", "port": 8081}


def test_passes():
    assert add(2, 2) == 4


class TestGreeting(unittest.TestCase):
    def test_greeting(self):
        self.assertEqual("hello world", "hello, world")

    def test_upper(self):
        self.assertEqual("abc".upper(), "ABC")
