#!/bin/sh
# A TAP 14 subtest: the indented block belongs to the point after it.
cat <<'TAP'
TAP version 14
1..2
# Subtest: strings
    1..2
    ok 1 - trims
    ok 2 - splits
ok 1 - strings
ok 2 - numbers
TAP
