#!/usr/bin/env bats

load test_helper

@test "greets" {
  run greet world
  [ "$status" -eq 0 ]
  [ "$output" = "hello, world" ]
}

@test "greets nobody" {
  run greet
  [ "$output" = "hello, " ]
}
