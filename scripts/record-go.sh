#!/usr/bin/env bash
# Record `go test -json`'s real failure stream for the explanation's known answers
# (tests/integration/issue41_go.rs): a t.Errorf after a t.Log, a t.Fatalf after a t.Error, a
# subtest's failure (calc), a package that does not compile (broken), a test that panics
# (crash).
#
# Writes test-data/producers/go/<pkg>.jsonl: `go test -json ./<pkg>` from src/, stderr joined
# to stdout (go before 1.24 prints the compiler's lines there), the folder's absolute path
# written `/w` so a recording is the same wherever it is made; <pkg>.go.txt: `go test ./<pkg>`,
# go's own report of the same package (what the explanation must agree with); VERSIONS.txt
# (go, exit codes). Needs go (Debian: golang-go); offline (the module has no dependency).
# Usage (from anywhere): bash scripts/record-go.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../test-data/producers/go"
versions=VERSIONS.txt
go version >"$versions"
export GOFLAGS=-mod=mod GOPROXY=off GOTOOLCHAIN=local
here="$(pwd)/src"
for pkg in calc broken crash; do
  set +e
  (cd src && go test -count=1 -json "./$pkg" 2>&1 | sed "s|$here|/w|g" >"../$pkg.jsonl")
  code=${PIPESTATUS[0]}
  (cd src && go test -count=1 "./$pkg" 2>&1 | sed -E "s|$here|/w|g; s/[0-9]+\.[0-9]+s/0.00s/" >"../$pkg.go.txt")
  set -e
  echo "$pkg.jsonl exit=$code" >>"$versions"
done
cat "$versions"
