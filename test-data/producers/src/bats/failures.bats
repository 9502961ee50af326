#!/usr/bin/env bats
# bats failures case: bats-assert's assert_equal and assert_output (the
# idiomatic comparisons), and a plain failed command.

setup() {
  load "$BATS_LIB_PATH/bats-support/load"
  load "$BATS_LIB_PATH/bats-assert/load"
}

@test "assert_equal differs" {
  assert_equal "got" "wanted"
}

@test "assert_output differs" {
  run echo "hello world"
  assert_output "hello there"
}

@test "plain command fails" {
  [ 1 -eq 2 ]
}
