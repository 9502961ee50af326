"""tap.py (tappy) mixed case via unittest + TAPTestRunner in streaming mode:
pass, fail with a comparison, skip, expected failure / unexpected success
(reported as TODO), subTest, console output, and names with '#' and '\\'."""
import unittest

from tap import TAPTestRunner


class TestMixed(unittest.TestCase):
    def test_passes(self):
        self.assertEqual(1 + 1, 2)

    def test_fails_with_a_comparison(self):
        self.assertEqual({"a": 1, "b": [1, 2]}, {"a": 1, "b": [1, 3]})

    @unittest.skip("not on this platform")
    def test_skipped(self):
        self.fail("never runs")

    @unittest.expectedFailure
    def test_expected_failure(self):
        self.assertEqual(41, 42)

    @unittest.expectedFailure
    def test_unexpected_success(self):
        pass

    def test_prints_to_the_console(self):
        print("print to stdout from a test")
        print("# a print that looks like a comment")

    def test_subtests(self):
        for value in ["ok", "with # hash", "with \\ backslash"]:
            with self.subTest(value=value):
                self.assertNotEqual(value, "with # hash")


class TestDocstrings(unittest.TestCase):
    def test_docstring_name(self):
        """Docstring name with # hash and \\ backslash."""

    def test_raises(self):
        raise RuntimeError("error, not a failure")


if __name__ == "__main__":
    runner = TAPTestRunner()
    runner.set_stream(True)
    unittest.main(testRunner=runner)
