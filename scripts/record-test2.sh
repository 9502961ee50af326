#!/usr/bin/env bash
# Record Test2::V0's real failure output (its Test2::Tools::Compare tables, a buffered
# subtest) for the explanation's known answers (tests/integration/issue41_test2.rs).
#
# Writes test-data/producers/test2/<case>.tap: `perl src/<case>.t` as a harness runs it
# (HARNESS_ACTIVE=1, so Test2 prints no `# Seeded srand` note), stderr joined to stdout on one
# pipe as tapline runs a perl file, byte for byte (perl's hash order fixed, PERL_HASH_SEED=0,
# so a table's rows come in the same order each time); and VERSIONS.txt (perl, Test2::Suite, the
# exit codes). Needs perl with Test2::Suite (Debian: libtest2-suite-perl).
# Usage (from anywhere): bash scripts/record-test2.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../test-data/producers/test2"
versions=VERSIONS.txt
{
  echo "perl $(perl -e 'print $^V')"
  echo "Test2::API $(perl -MTest2::API -e 'print $Test2::API::VERSION')"
  echo "Test2::Suite $(perl -MTest2::Suite -e 'print $Test2::Suite::VERSION')"
} >"$versions"
for src in src/*.t; do
  case=$(basename "$src" .t)
  set +e
  (cd src && HARNESS_ACTIVE=1 PERL_HASH_SEED=0 PERL_PERTURB_KEYS=0 perl "$case.t" >"../$case.tap" 2>&1)
  code=$?
  set -e
  echo "$case.tap exit=$code" >>"$versions"
done
cat "$versions"
