#!/bin/sh
# sharness in verbose mode (-v): each test's script and output before its point, test_cmp's
# diff among them; recorded by scripts/record-shell-tap.sh.
test_description='test_cmp in verbose mode'
. ./sharness.sh

test_expect_success 'passes' 'true'

test_expect_success 'compares lines' '
	printf "a\nb\n" >expect &&
	printf "a\nc\n" >actual &&
	echo "printed by the test" &&
	test_cmp expect actual
'

test_expect_success 'compares comments' '
	printf "a\n#\tb\nz\n" >expect &&
	printf "a\n#\tb\ny\n" >out &&
	test_cmp expect out
'

test_expect_success 'fails last' 'false'

test_done
