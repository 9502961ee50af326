class Common:
    def test_shared(self):
        self.assertRenders("x", "<p>x</p>")
