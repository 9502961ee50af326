import unittest


class TestCase(unittest.TestCase):
    def assertRenders(self, source, expected):
        from mypkg import render

        self.assertEqual(render(source), expected)
