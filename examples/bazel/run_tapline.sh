#!/bin/sh
# Runs in the test's runfiles folder, where Bazel put t/ and tapline.toml. Bazel's variables
# say which shard this is and where JUnit (test.xml), the logs and tapline.jsonl go.
exec "${TAPLINE_BIN:-tapline}" run
