#!/bin/sh
# Test 6 of the example suite: two points.
echo "1..2"
echo "ok 1 - file 6 starts"
echo "ok 2 - file 6 ends"
