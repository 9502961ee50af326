#!/usr/bin/env bash
# Record unittest's real failure stream through tapline's runner (src/harness/python/
# tapline_unittest.py) for the explanation's known answers (tests/integration/
# issue41_unittest.rs): an inherited test (its method in a base class of another module,
# tests/base.py) and a test of its own, both failing in an assertion helper a package
# defines (mypkg/test_tools.py).
#
# Writes test-data/producers/unittest/<case>.tap: `python3 -m tapline_unittest tests/<case>.py`
# as tapline runs a unittest file (the runner on PYTHONPATH, stderr joined to stdout), its
# timing markers and test:started events taken out so a recording is the same each time (and
# reads as plain TAP to the reference parser); <case>.unittest.txt: unittest's own report of
# the same module (`python3 -m unittest`, what the explanation must agree with), its paths
# from src/; VERSIONS.txt (python, exit codes). Needs python3.
# Usage (from anywhere): bash scripts/record-unittest.sh
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root/test-data/producers/unittest"
versions=VERSIONS.txt
py=${PYTHON:-python3}
"$py" --version >"$versions"
for src in src/tests/test_*.py; do
  case=$(basename "$src" .py)
  set +e
  (cd src && PYTHONPATH="$root/src/harness/python" PYTHONDONTWRITEBYTECODE=1 \
    "$py" -m tapline_unittest "tests/$case.py" 2>&1 |
    sed -E 's/ ⟦TSTEST:time:[0-9.]+⟧//; /^⟦TSTEST:EVENT:/d' >"../$case.tap")
  code=${PIPESTATUS[0]}
  (cd src && PYTHONDONTWRITEBYTECODE=1 "$py" -m unittest "tests.$case" 2>&1 |
    sed -E "s|$PWD/||; s/in [0-9.]+s/in 0.000s/" >"../$case.unittest.txt")
  set -e
  echo "$case.tap exit=$code" >>"$versions"
done
cat "$versions"
