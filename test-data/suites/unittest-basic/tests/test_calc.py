import unittest


def add(a, b):
    return a + b


class TestAdd(unittest.TestCase):
    def test_adds(self):
        self.assertEqual(add(2, 2), 4)

    def test_sum_of_three(self):
        self.assertEqual(add(add(1, 2), 3), 7)

    @unittest.skip("not on this platform")
    def test_skipped(self):
        pass

    @unittest.expectedFailure
    def test_known_bug(self):
        self.assertEqual(add(0.1, 0.2), 0.3)
