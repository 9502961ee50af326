#!/bin/sh
# A pytest project of N files of 2 trivial tests each (default 20), for the bench "pytest
# through its own session" of benches/README.md: `benches/gen-pytest-files.sh DIR [N]`.
set -eu
dir=$1
n=${2:-20}
mkdir -p "$dir/tests"
printf '[pytest]\n' > "$dir/pytest.ini"
i=1
while [ "$i" -le "$n" ]; do
    printf 'def test_a():\n    assert 1\n\n\ndef test_b():\n    assert 2\n' > "$dir/tests/test_f$i.py"
    i=$((i + 1))
done
