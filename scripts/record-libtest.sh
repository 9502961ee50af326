#!/usr/bin/env bash
# Record libtest's real failure output (`cargo test`'s plain form) for the explanation's known
# answers (tests/integration/issue41_libtest.rs): `assert_eq!` of numbers, strings, a Debug
# struct, a multi-line string, one with a message, and an `assert!` with a message.
#
# Writes test-data/producers/libtest/lib.libtest.txt: `cargo test` in src/ (a crate of its own,
# no dependency, built in a scratch target folder), stdout and stderr joined as tapline reads
# a cargo run, RUST_BACKTRACE=0 as a plain run prints it, the crate's folder written `/w`; VERSIONS.txt (rustc, cargo, the exit
# code). Read with `tapline parse --input-format libtest`. Needs cargo.
# Usage (from anywhere): bash scripts/record-libtest.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../test-data/producers/libtest"
versions=VERSIONS.txt
{
  rustc --version
  cargo --version
} >"$versions"
target=$(mktemp -d)
trap 'rm -rf "$target"' EXIT
set +e
(cd src && RUST_BACKTRACE=0 CARGO_TARGET_DIR="$target" cargo test --offline 2>&1 |
  sed "s|$(pwd)|/w|g; s|$target|/w/target|g" >../lib.libtest.txt; exit "${PIPESTATUS[0]}")
code=$?
set -e
echo "lib.libtest.txt exit=$code" >>"$versions"
cat "$versions"
