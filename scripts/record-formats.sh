#!/usr/bin/env bash
# Record go test -json streams and JUnit XML reports from real tools, for the non-TAP readers
# (crates/tapline-protocol/src/gojson.rs, crates/tapline-protocol/src/junit.rs), and their known-answer summaries.
#
# Sources: test-data/formats/src/{go,python,java,js}. Writes test-data/formats/:
#   go-test.jsonl               go test -json ./... (stdout): subtests, skips, a failing table
#                               test, parallel subtests, a package without tests, a build failure
#   go-build-failure.jsonl      go test -json ./broken 2>&1: the build failure, compiler output merged
#   go-nested.jsonl             go test -json ./... of src/go-nested: a module with a nested package
#                               (locations are package-relative), a passing subtest's and test's log
#                               after a failure, a TestMain line after the last (failing) test
#   go-crash.jsonl              go test -json ./... of src/go-crash: a test that dereferences nil,
#                               one that sends itself SIGSEGV, one that calls os.Exit(3), one
#                               whose goroutine panics (each beside a paused t.Parallel test),
#                               a package without test files, one with test files but no tests
#   go-timeout.jsonl            go test -json -timeout 1s ./timeout of src/go-crash: a subtest
#                               sleeping past the timeout while a t.Parallel test is paused
#   libtest-empty.xml           cargo +nightly test -- -Z unstable-options --format junit of a
#                               crate without tests (libtest's JUnit; the crate is written here)
#   pytest.xml                  pytest --junitxml (Debian's python3-pytest)
#   junit5-console.xml          the JUnit 5 console launcher's XML report (Debian's junit5)
#   jest-junit.xml              jest with the jest-junit reporter
#   *.summary.json              `tapline parse --format summary` of each, reviewed by hand
#   VERSIONS.txt                tool versions and exit codes
# Needs: go, a nightly Rust toolchain (rustup's `+nightly`: libtest's JUnit is unstable),
# python3 with pytest, javac + junit5, node + npm (jest installed outside the repo,
# in JS_ENV, default /tmp/tapline-formats-js), and a built tapline (cargo build).
# Usage: bash scripts/record-formats.sh
set -uo pipefail

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$REPO_ROOT"
OUT=test-data/formats
SRC=$OUT/src
JS_ENV="${JS_ENV:-/tmp/tapline-formats-js}"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
TAPLINE="$REPO_ROOT/target/debug/tapline"
versions=$OUT/VERSIONS.txt
: > "$versions"

log() { printf '==> %s\n' "$*"; }

# go: no network, no module cache of the user's touched.
log "go test -json"
export GOPATH="$WORK/gopath" GOCACHE="$WORK/gocache" GOFLAGS=-mod=mod GOPROXY=off GOTOOLCHAIN=local
(cd $SRC/go && go test -json ./...) > $OUT/go-test.jsonl 2> "$WORK/go.err"
rc=$?
echo "go: $(go version) (go test -json ./... exit $rc)" >> "$versions"
(cd $SRC/go && go test -json ./broken 2>&1) > $OUT/go-build-failure.jsonl
echo "go: go test -json ./broken 2>&1 exit $?" >> "$versions"
(cd $SRC/go-nested && go test -json ./...) > $OUT/go-nested.jsonl 2> "$WORK/go-nested.err"
echo "go: go test -json ./... of src/go-nested exit $?" >> "$versions"
# Stack traces name the checkout: kept relative to the repository, the same on every machine.
unroot() { sed "s#$REPO_ROOT/##g"; }
(cd $SRC/go-crash && go test -json ./...) 2> "$WORK/go-crash.err" | unroot > $OUT/go-crash.jsonl
echo "go: go test -json ./... of src/go-crash exit ${PIPESTATUS[0]}" >> "$versions"
(cd $SRC/go-crash && GO_CRASH_TIMEOUT=1 go test -json -timeout 1s ./timeout) 2> "$WORK/go-timeout.err" \
  | unroot > $OUT/go-timeout.jsonl
echo "go: GO_CRASH_TIMEOUT=1 go test -json -timeout 1s ./timeout of src/go-crash exit ${PIPESTATUS[0]}" >> "$versions"

log "libtest --format junit (empty)"
# A library crate without a test: libtest's JUnit of an empty suite. Built outside the
# repository (a Cargo.toml in it would belong to tapline's workspace).
mkdir -p "$WORK/rust-empty/src"
printf '[package]\nname = "empty"\nversion = "0.1.0"\nedition = "2021"\n' > "$WORK/rust-empty/Cargo.toml"
printf 'pub fn one() -> u8 {\n    1\n}\n' > "$WORK/rust-empty/src/lib.rs"
(cd "$WORK/rust-empty" && CARGO_TARGET_DIR="$WORK/rust-target" cargo +nightly test --lib -q -- -Z unstable-options --format junit) \
  > $OUT/libtest-empty.xml 2> "$WORK/libtest.err"
rc=$?
echo "libtest: $(cargo +nightly --version) (exit $rc)" >> "$versions"

log "pytest --junitxml"
# Debian's pytest (python3-pytest), as .ci/run installs it.
PYTEST="${PYTEST:-pytest}"
(cd $SRC/python && "$PYTEST" -p no:cacheprovider -q --junitxml="$WORK/pytest.xml" test_sample.py > "$WORK/pytest.out")
rc=$?
echo "pytest: $("$PYTEST" --version 2>&1 | head -1) (exit $rc)" >> "$versions"
# The report names the machine and the time; neither is what the reader reads.
sed -E 's/ hostname="[^"]*"/ hostname="recorder"/; s/ timestamp="[^"]*"/ timestamp="2026-01-01T00:00:00"/' \
  "$WORK/pytest.xml" > $OUT/pytest.xml

log "JUnit 5 console launcher"
CP=/usr/share/java/junit-jupiter-api.jar:/usr/share/java/junit-jupiter-params.jar:/usr/share/java/apiguardian-api.jar:/usr/share/java/opentest4j.jar
mkdir -p "$WORK/classes"
javac -d "$WORK/classes" -cp "$CP" $SRC/java/CalculatorTest.java
java -jar /usr/share/java/junit-platform-console-standalone.jar --disable-banner \
  --class-path "$WORK/classes" --select-class CalculatorTest --reports-dir "$WORK/junit5" > "$WORK/junit5.out"
rc=$?
echo "junit5: console launcher $(dpkg-query -W -f '${Version}' junit5 2>/dev/null), $(java -version 2>&1 | head -1) (exit $rc)" >> "$versions"
# The JVM's properties name the machine and its paths: only the report's own content is kept.
sed -E 's/ hostname="[^"]*"/ hostname="recorder"/; s/ timestamp="[^"]*"/ timestamp="2026-01-01T00:00:00"/' \
  "$WORK/junit5/TEST-junit-jupiter.xml" | python3 -c 'import re,sys; sys.stdout.write(re.sub(r"<properties>.*?</properties>\n?", "", sys.stdin.read(), flags=re.S))' \
  > $OUT/junit5-console.xml

log "jest + jest-junit"
if [ ! -x "$JS_ENV/node_modules/.bin/jest" ]; then
  mkdir -p "$JS_ENV" && (cd "$JS_ENV" && npm init -y > /dev/null && npm install --no-audit --no-fund jest@30 jest-junit@17 > /dev/null)
fi
mkdir -p "$WORK/js" && cp $SRC/js/calc.test.js "$WORK/js/"
(cd "$WORK/js" && JEST_JUNIT_OUTPUT_DIR="$WORK/js" JEST_JUNIT_OUTPUT_NAME=junit.xml \
  "$JS_ENV/node_modules/.bin/jest" --ci --config '{}' --reporters=default --reporters="$JS_ENV/node_modules/jest-junit" > /dev/null 2>&1)
rc=$?
echo "jest: $("$JS_ENV/node_modules/.bin/jest" --version), jest-junit $(node -p "require('$JS_ENV/node_modules/jest-junit/package.json').version") (exit $rc)" >> "$versions"
# Stack frames name the recording's temporary folders.
sed -E 's/ timestamp="[^"]*"/ timestamp="2026-01-01T00:00:00"/; s#'"$WORK"'/js#/work/js#g; s#'"$JS_ENV"'#/work/js-env#g' "$WORK/js/junit.xml" > $OUT/jest-junit.xml

log "known-answer summaries"
for f in go-test.jsonl go-build-failure.jsonl go-crash.jsonl go-timeout.jsonl libtest-empty.xml pytest.xml junit5-console.xml jest-junit.xml; do
  "$TAPLINE" parse --format summary $OUT/$f > $OUT/${f%.*}.summary.json
done
cat "$versions"
