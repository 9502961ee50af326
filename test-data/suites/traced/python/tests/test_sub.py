# shop.name is loaded by a python this test starts, never by the test itself.
import os
import subprocess
import sys

here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
code = "import sys; sys.path.insert(0, %r); from shop.name import shout; sys.exit(0 if shout('b') == 'B' else 1)" % here
status = subprocess.call([sys.executable, "-c", code])
print("1..1")
print("ok 1 - subprocess" if status == 0 else "not ok 1 - subprocess")
