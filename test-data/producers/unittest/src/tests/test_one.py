from mypkg.test_tools import TestCase
from tests.base import Common


class TestOne(Common, TestCase):
    pass


class TestOwn(TestCase):
    def test_own(self):
        self.assertRenders("y", "<p>y</p>")
