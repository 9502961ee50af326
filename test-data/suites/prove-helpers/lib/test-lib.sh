#!/bin/sh
# A shell test library in the manner of sharness and git's test-lib.sh: a test file sources
# it (`. ./lib.sh`), calls test_expect_success, then test_done. Without a harness
# (HARNESS_ACTIVE unset) test_done writes its counts into test-results/, as sharness does.
case "$0" in
*/lib.sh | */test-lib.sh)
	echo "not ok 1 - $0 is the test library, not a test"
	echo "1..1"
	exit 1
	;;
esac
test_count=0
test_failure=0
test_expect_success() {
	test_count=$((test_count + 1))
	if (eval "$2") >/dev/null 2>&1; then
		echo "ok $test_count - $1"
	else
		test_failure=$((test_failure + 1))
		echo "not ok $test_count - $1"
	fi
}
test_done() {
	if [ -z "$HARNESS_ACTIVE" ]; then
		mkdir -p test-results
		echo "total $test_count failed $test_failure" >"test-results/$(basename "$0" .t).counts"
	fi
	echo "1..$test_count"
	[ "$test_failure" -eq 0 ]
	exit $?
}
