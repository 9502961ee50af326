#!/bin/sh
# A passing protocol v2 stream: inline time markers and a META line with no failure.
cat <<'TAP'
⟦TSTEST:PROTOCOL:2.0.0⟧
TAP version 13
1..2
ok 1 - connects ⟦TSTEST:time:15⟧
⟦TSTEST:META:{"time":15,"file":"test/db.ts","line":7}⟧
ok 2 - disconnects ⟦TSTEST:time:2⟧
TAP
