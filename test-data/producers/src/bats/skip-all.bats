#!/usr/bin/env bats
# bats: every test skipped from setup_file.

setup_file() {
  skip "no database on this machine"
}

@test "first" {
  true
}

@test "second" {
  true
}
