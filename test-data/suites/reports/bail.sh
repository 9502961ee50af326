#!/bin/sh
# A bail out with a reason after one point.
echo 'TAP version 14'
echo '1..3'
echo 'ok 1 - opens the pool'
echo 'Bail out! database unreachable: connection refused'
