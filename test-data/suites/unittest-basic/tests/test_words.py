import unittest


class TestWords(unittest.TestCase):
    def test_upper(self):
        self.assertEqual("a".upper(), "A")
