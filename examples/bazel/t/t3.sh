#!/bin/sh
# Test 3 of the example suite: two points.
echo "1..2"
echo "ok 1 - file 3 starts"
echo "ok 2 - file 3 ends"
