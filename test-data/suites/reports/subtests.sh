#!/bin/sh
# A failing point inside a TAP 14 subtest: reports name it `parent > child`.
cat <<'TAP'
TAP version 14
1..2
# Subtest: parser
    1..2
    ok 1 - reads numbers
    not ok 2 - reads strings
      ---
      message: should be equal
      wanted: "a\"b"
      found: "a\\\"b"
      ...
not ok 1 - parser
ok 2 - printer
TAP
