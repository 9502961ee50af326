#!/bin/sh
# Test 8 of the example suite: two points.
echo "1..2"
echo "ok 1 - file 8 starts"
echo "ok 2 - file 8 ends"
