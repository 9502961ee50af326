#!/usr/bin/env bats
# bats: run with --abort, so the suite stops at the first failure.

@test "passes first" {
  true
}

@test "fails and aborts" {
  [ 1 -eq 2 ]
}

@test "never runs" {
  true
}
