#!/bin/sh
# Failing points with YAML diagnostics: a JSON object, a multi-line string, and a location.
cat <<'TAP'
TAP version 14
1..3
ok 1 - connects
not ok 2 - returns the user
  ---
  message: should be deeply equal
  wanted: {"name": "ada", "roles": ["admin", "dev"], "active": true}
  found: {"name": "bob", "roles": ["dev"], "active": true}
  at: test/diffs.sh:12:3
  ...
not ok 3 - greets
  ---
  message: should be equal
  wanted: "Hello, world!\nHow are you?\nBye."
  found: "Hello, World!\nHow are you?\nBye."
  ...
TAP
