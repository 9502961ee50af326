#!/bin/sh
# Test 4 of the example suite: two points.
echo "1..2"
echo "ok 1 - file 4 starts"
echo "ok 2 - file 4 ends"
