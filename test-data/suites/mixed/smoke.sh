#!/bin/sh
# sh: plain TAP printed by hand.
echo 'TAP version 14'
echo '1..2'
echo 'ok 1 - finds sh'
[ "$TAPLINE" = 1 ] && echo 'ok 2 - runs under tapline (TAPLINE=1)' || echo 'ok 2 - runs outside tapline # SKIP TAPLINE is not set'
