#!/usr/bin/env bats
# bats mixed case: pass, fail with an expected/actual comparison, skip,
# output to fd 3 (TAP comments), and names with '#' and '\'.

@test "passes" {
  [ $((1 + 1)) -eq 2 ]
}

@test "fails with a comparison" {
  expected="expected"
  actual="actual"
  echo "expected: $expected"
  echo "actual:   $actual"
  [ "$actual" = "$expected" ]
}

@test "name with # hash and \\ backslash" {
  true
}

@test "skipped test" {
  skip "not on this platform"
  false
}

@test "skipped without a reason" {
  skip
}

@test "prints to the console" {
  echo "stdout of a passing test is hidden"
  echo "# message written to fd 3" >&3
  echo "plain line written to fd 3" >&3
}

@test "run helper with a status check" {
  run printf 'line one\nline two\n'
  [ "$status" -eq 0 ]
  [ "${lines[1]}" = "line three" ]
}
