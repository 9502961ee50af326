#!/bin/sh
# Test 1 of the example suite: two points.
echo "1..2"
echo "ok 1 - file 1 starts"
echo "ok 2 - file 1 ends"
