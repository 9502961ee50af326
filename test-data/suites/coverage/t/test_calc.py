import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import calc  # noqa: E402

print("1..1")
print("ok 1 - used" if calc.used(1, 2) == 3 else "not ok 1 - used")
