#!/usr/bin/env bash
# Record pytest's real failure stream through tapline's plugin (src/harness/python/
# tapline_pytest.py) for the explanation's known answers (tests/integration/issue41_pytest.rs).
#
# Writes test-data/producers/pytest/<case>.tap: `python3 -m pytest -p tapline_pytest
# src/<case>.py` as tapline runs a pytest file (the plugin first on PYTHONPATH, stderr joined
# to stdout), its timing markers taken out so a recording is the same each time (and reads as plain TAP to the reference parser); and
# test-data/producers/pytest/<case>.pytest.txt: pytest's own report of the same file
# (`-vv`, what the explanation must agree with); VERSIONS.txt (python, pytest, exit codes).
# Needs python3 with pytest (Debian: python3-pytest).
# Usage (from anywhere): bash scripts/record-pytest.sh
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root/test-data/producers/pytest"
versions=VERSIONS.txt
# The python that has pytest: $PYTHON, else python3, else the one Debian's pytest runs.
py=${PYTHON:-python3}
"$py" -c 'import pytest' 2>/dev/null || py=/usr/bin/python3
{
  echo "$("$py" --version)"
  echo "pytest $("$py" -m pytest --version 2>&1 | awk '{print $2}')"
} >"$versions"
for src in src/*.py; do
  case=$(basename "$src" .py)
  set +e
  (cd src && PYTHONPATH="$root/src/harness/python" PYTHONDONTWRITEBYTECODE=1 \
    "$py" -m pytest -p no:cacheprovider -p tapline_pytest "$case.py" 2>&1 |
    sed -E 's/ ⟦TSTEST:time:[0-9.]+⟧//' >"../$case.tap")
  code=${PIPESTATUS[0]}
  (cd src && PYTHONDONTWRITEBYTECODE=1 "$py" -m pytest -p no:cacheprovider -vv "$case.py" 2>&1 |
    sed -n '/= FAILURES =/,/short test summary/p' | sed -E 's/in [0-9.]+s/in 0.00s/' >"../$case.pytest.txt")
  set -e
  echo "$case.tap exit=$code" >>"$versions"
done
cat "$versions"
