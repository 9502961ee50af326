#!/bin/sh
# Test 2 of the example suite: two points.
echo "1..2"
echo "ok 1 - file 2 starts"
echo "ok 2 - file 2 ends"
