import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from shop.cart import cart_total  # noqa: E402

print("1..1")
print("ok 1 - cart total" if cart_total([2, 3]) == 5 else "not ok 1 - cart total")
