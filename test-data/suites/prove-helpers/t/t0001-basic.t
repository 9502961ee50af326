#!/bin/sh
. "$(dirname "$0")/lib.sh"
test_expect_success 'adds' '[ $((1 + 1)) -eq 2 ]'
test_expect_success 'concatenates' '[ "a""b" = ab ]'
test_done
