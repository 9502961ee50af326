#!/bin/sh
# Protocol v2 (protocol-spec/v2.md): time and META markers, an ERROR block with a stack.
cat <<'TAP'
⟦TSTEST:PROTOCOL:2.0.0⟧
TAP version 13
1..2
ok 1 - adds numbers ⟦TSTEST:time:3⟧
not ok 2 - builds a config ⟦TSTEST:time:12⟧
⟦TSTEST:META:{"time":12,"file":"test/config.ts","line":42}⟧
⟦TSTEST:ERROR⟧
{"error": {"message": "Expected values to be strictly deep-equal",
  "expected": {"host": "localhost", "port": 8080, "tls": false},
  "actual": {"host": "localhost", "port": 8080, "tls": true},
  "stack": "AssertionError: Expected values to be strictly deep-equal\n    at test/config.ts:42:10"}}
⟦TSTEST:/ERROR⟧
TAP
exit 1
