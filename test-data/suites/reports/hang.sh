#!/bin/sh
# One point, then it hangs: stopped by `--timeout`.
echo 'TAP version 14'
echo '1..2'
echo 'ok 1 - first'
echo 'waiting for a server that never answers'
exec sleep 60
