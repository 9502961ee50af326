#!/bin/sh
# Test 7 of the example suite: two points.
echo "1..2"
echo "ok 1 - file 7 starts"
echo "ok 2 - file 7 ends"
