import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from shop.price import total  # noqa: E402

print("1..1")
print("ok 1 - total" if total(1, 2, 3) == 6 else "not ok 1 - total")
