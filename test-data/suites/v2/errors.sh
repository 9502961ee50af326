#!/bin/sh
# The protocol v2 stream node/v2.js prints, from sh so it runs without node: the header, inline
# time markers, a META line and an ERROR block (protocol-spec/v2.md).
cat <<'TAP'
⟦TSTEST:PROTOCOL:2.0.0⟧
TAP version 13
1..3
ok 1 - adds numbers ⟦TSTEST:time:3⟧
ok 2 - reads the cache ⟦TSTEST:SKIP:no cache configured⟧
not ok 3 - builds a config ⟦TSTEST:time:12⟧
⟦TSTEST:META:{"time":12,"file":"test/config.ts","line":42}⟧
⟦TSTEST:ERROR⟧
{
  "error": {
    "message": "Expected values to be strictly deep-equal",
    "expected": {"host": "localhost", "port": 8080, "tls": false},
    "actual": {"host": "localhost", "port": 8080, "tls": true},
    "stack": "AssertionError: Expected values to be strictly deep-equal\n    at test/config.ts:42:10\n    at run (test/config.ts:50:3)"
  }
}
⟦TSTEST:/ERROR⟧
TAP
exit 1
