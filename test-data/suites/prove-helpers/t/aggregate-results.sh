#!/bin/sh
# Sums test-results/*.counts after a run without a harness: no test.
echo "not ok 1 - aggregate-results.sh is a helper, not a test"
echo "1..1"
exit 1
