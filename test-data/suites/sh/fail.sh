#!/bin/sh
# A failing file: the second point carries YAML diagnostics with wanted/found, which the
# report turns into an Expected/Received diff.
echo 'TAP version 14'
echo '1..2'
echo 'ok 1 - parses the header'
echo 'not ok 2 - greets the user'
echo '  ---'
echo '  message: should be equal'
echo '  wanted: Hello, world!'
echo '  found: Hello, World!'
echo '  at:'
echo '    file: test-data/suites/sh/fail.sh'
echo '    line: 8'
echo '  ...'
