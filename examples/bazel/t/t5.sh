#!/bin/sh
# Test 5 of the example suite: two points.
echo "1..2"
echo "ok 1 - file 5 starts"
echo "ok 2 - file 5 ends"
