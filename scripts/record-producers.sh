#!/usr/bin/env bash
# Record raw TAP output from real third-party TAP producers.
#
# Installs the producers OUTSIDE the repository (default /tmp/tapline-producers,
# override with PRODUCERS_ENV), runs the example test programs under
# test-data/producers/src/ through each of them from the repo root (so printed
# paths are relative where the producer allows it), and writes:
#
#   test-data/producers/<producer>-<case>.tap     raw stdout, unmodified
#   test-data/producers/<producer>-<case>.stderr  raw stderr, only if non-empty
#   test-data/producers/go-<case>.jsonl           raw `go test -json` stdout
#   test-data/producers/pytest-<case>.junit.xml   pytest's --junitxml file
#   test-data/producers/VERSIONS.txt              tool versions + exit codes
#
# Needs: node (v20), npm, python3 (with venv or pip), perl (with JSON::PP),
# go, bash, and Test2::Suite for perl (Debian: libtest2-suite-perl) for the
# Test2 case.
# Usage (from anywhere): bash scripts/record-producers.sh
# Idempotent: re-running reinstalls nothing that is already at the pinned
# version and replaces all recordings.
set -euo pipefail

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$REPO_ROOT"

ENV_DIR="${PRODUCERS_ENV:-/tmp/tapline-producers}"
OUT=test-data/producers
SRC=$OUT/src

# Pinned producer versions.
TAPE_VERSION=5.10.2
TAP_VERSION=21.8.0        # node-tap
TAP16_VERSION=16.3.10     # node-tap 16, whose root trailer is `# failed N of M tests`
BATS_VERSION=1.13.0       # npm package "bats" (bats-core)
BATS_SUPPORT_VERSION=0.3.0
BATS_ASSERT_VERSION=2.2.4 # assert_equal & co., loaded by bats/failures.bats
# pytest-tap 3.5 does not work with pytest >= 8: pytest 9 refuses to load the
# plugin (option dest 'tap_stream' clash) and pytest 8.x crashes inside its
# assertion-comparison repr under --tap-stream (no terminal reporter). 7.4.4
# is the newest pytest that gives pytest-tap's real output.
PYTEST_VERSION=7.4.4
PYTEST_TAP_VERSION=3.5
TAPPY_VERSION=3.2.1       # pip package "tap.py"
TAPBUNDLE_VERSION=5.6.3   # npm package "@push.rocks/tapbundle" (tstest's test framework)
TSX_VERSION=4.23.15       # runs tapbundle's TypeScript tests

log() { printf '==> %s\n' "$*"; }

# ---------------------------------------------------------------- install --
mkdir -p "$ENV_DIR"
log "producer environment: $ENV_DIR"

NPM_DIR="$ENV_DIR/npm"
NODE_MODULES="$NPM_DIR/node_modules"

npm_pkg_version() { # npm_pkg_version NAME [NODE_MODULES] -> installed version or empty
  local pj="${2:-$NODE_MODULES}/$1/package.json"
  [ -f "$pj" ] && node -p "require(process.argv[1]).version" "$pj" 2>/dev/null || true
}

if [ "$(npm_pkg_version tape)" = "$TAPE_VERSION" ] &&
   [ "$(npm_pkg_version tap)" = "$TAP_VERSION" ] &&
   [ "$(npm_pkg_version bats)" = "$BATS_VERSION" ] &&
   [ "$(npm_pkg_version bats-support)" = "$BATS_SUPPORT_VERSION" ] &&
   [ "$(npm_pkg_version bats-assert)" = "$BATS_ASSERT_VERSION" ]; then
  log "npm: tape@$TAPE_VERSION tap@$TAP_VERSION bats@$BATS_VERSION (+ bats-support, bats-assert) already installed"
else
  log "npm: installing tape@$TAPE_VERSION tap@$TAP_VERSION bats@$BATS_VERSION bats-support@$BATS_SUPPORT_VERSION bats-assert@$BATS_ASSERT_VERSION into $NPM_DIR"
  mkdir -p "$NPM_DIR"
  npm install --prefix "$NPM_DIR" --no-audit --no-fund --save-exact \
    "tape@$TAPE_VERSION" "tap@$TAP_VERSION" "bats@$BATS_VERSION" \
    "bats-support@$BATS_SUPPORT_VERSION" "bats-assert@$BATS_ASSERT_VERSION"
fi
# bats-core's package.json uses directories.bin, which npm does not link as a
# dependency's .bin; call the script directly.
BATS="$NODE_MODULES/bats/bin/bats"

# node-tap 16 (libtap) in a prefix of its own: many suites still run it, and it ends its
# stream with `# failed N of M tests` where tap 21 prints `# { total: …, fail: … }`.
TAP16_MODULES="$ENV_DIR/tap16/node_modules"
if [ "$(npm_pkg_version tap "$TAP16_MODULES")" = "$TAP16_VERSION" ]; then
  log "npm: tap@$TAP16_VERSION already installed"
else
  log "npm: installing tap@$TAP16_VERSION into $ENV_DIR/tap16"
  mkdir -p "$ENV_DIR/tap16"
  npm install --prefix "$ENV_DIR/tap16" --no-audit --no-fund --save-exact "tap@$TAP16_VERSION"
fi
TAP_CLI="$NODE_MODULES/.bin/tap"

# tapbundle: an ESM project of its own (its tests are TypeScript modules run with tsx).
# The overrides pin transitive packages that tapbundle's dependency ranges ask for newer
# versions of than some registries hold; tapbundle's test API does not use them.
TB_DIR="$ENV_DIR/tapbundle"
if [ "$(npm_pkg_version @push.rocks/tapbundle "$TB_DIR/node_modules")" = "$TAPBUNDLE_VERSION" ] &&
   [ "$(npm_pkg_version tsx "$TB_DIR/node_modules")" = "$TSX_VERSION" ]; then
  log "npm: @push.rocks/tapbundle@$TAPBUNDLE_VERSION tsx@$TSX_VERSION already installed"
else
  log "npm: installing @push.rocks/tapbundle@$TAPBUNDLE_VERSION tsx@$TSX_VERSION into $TB_DIR"
  mkdir -p "$TB_DIR"
  # The registry here has only some versions of its dependencies: pinned (one list for
  # every recording script).
  cp "$REPO_ROOT/scripts/tapbundle-package.json" "$TB_DIR/package.json"
  npm install --prefix "$TB_DIR" --no-audit --no-fund --save-exact \
    "@push.rocks/tapbundle@$TAPBUNDLE_VERSION" "tsx@$TSX_VERSION"
fi

# Python: a venv under the env dir; fall back to pip --target if venv is
# unavailable (Debian without python3-venv).
PY_PKGS=("pytest==$PYTEST_VERSION" "pytest-tap==$PYTEST_TAP_VERSION" "tap.py==$TAPPY_VERSION")
PY_TARGET="$ENV_DIR/pylib"
PY=""
if [ -x "$ENV_DIR/venv/bin/python" ]; then
  PY="$ENV_DIR/venv/bin/python"
elif [ -d "$PY_TARGET" ]; then
  PY=python3
elif python3 -m venv "$ENV_DIR/venv" >/dev/null 2>&1 && [ -x "$ENV_DIR/venv/bin/python" ]; then
  PY="$ENV_DIR/venv/bin/python"
else
  rm -rf "$ENV_DIR/venv"
  PY=python3
fi
if [ "$PY" = python3 ]; then
  export PYTHONPATH="$PY_TARGET"
fi

py_have_pinned() {
  "$PY" - "${PY_PKGS[@]}" <<'EOF' >/dev/null 2>&1
import sys
from importlib.metadata import version
for spec in sys.argv[1:]:
    name, want = spec.split("==")
    if version(name) != want:
        sys.exit(1)
EOF
}

if py_have_pinned; then
  log "pip: ${PY_PKGS[*]} already installed"
elif [ "$PY" = python3 ]; then
  log "pip: installing ${PY_PKGS[*]} into $PY_TARGET (pip --target)"
  rm -rf "$PY_TARGET"
  python3 -m pip install --disable-pip-version-check --quiet --target "$PY_TARGET" "${PY_PKGS[@]}"
else
  log "pip: installing ${PY_PKGS[*]} into venv $ENV_DIR/venv"
  "$PY" -m pip install --disable-pip-version-check --quiet "${PY_PKGS[@]}"
fi

# ------------------------------------------------------ deterministic env --
export TZ=UTC LC_ALL=C.UTF-8 NO_COLOR=1 PYTHONDONTWRITEBYTECODE=1 PYTHONHASHSEED=0
unset CI NODE_OPTIONS FORCE_COLOR HARNESS_ACTIVE HARNESS_VERSION PERL5OPT \
  PYTEST_ADDOPTS TAP TAP_SNAPSHOT TAP_TIMEOUT GOFLAGS 2>/dev/null || true
export NODE_PATH="$NODE_MODULES"   # lets the CommonJS examples require('tape'/'tap')
export BATS_LIB_PATH="$NODE_MODULES" # where bats/failures.bats loads bats-support/-assert

# --------------------------------------------------------------- record --
mkdir -p "$OUT"
rm -f "$OUT"/*.tap "$OUT"/*.stderr "$OUT"/*.jsonl "$OUT"/*.junit.xml
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
EXITS="$TMP/exits"
: >"$EXITS"

# record_as FILE CMD...: run CMD (from the current dir), stdout -> FILE,
# stderr -> FILE's name up to its first dot + .stderr if non-empty; remember
# the exit code.
record_as() {
  local file=$1; shift
  local name=${file%%.*}
  local rc=0
  "$@" >"$REPO_ROOT/$OUT/$file" 2>"$TMP/$name.stderr" </dev/null || rc=$?
  local note=""
  if [ -s "$TMP/$name.stderr" ]; then
    cp "$TMP/$name.stderr" "$REPO_ROOT/$OUT/$name.stderr"
    note=" (+ $name.stderr)"
  fi
  echo "$file exit=$rc" >>"$EXITS"
  printf '    %-38s exit=%-3s %6s bytes%s\n' "$file" "$rc" \
    "$(wc -c <"$REPO_ROOT/$OUT/$file")" "$note"
}

# record NAME CMD...: record_as NAME.tap.
record() {
  local name=$1; shift
  record_as "$name.tap" "$@"
}

log "node:test (node --test --test-reporter=tap, and direct runs)"
for c in mixed throws empty; do
  record "node-test-$c" node --test --test-reporter=tap "$SRC/node-test/$c.test.mjs"
  # direct run: stdout is not a TTY, so node 20's default reporter is tap
  record "node-test-direct-$c" node "$SRC/node-test/$c.test.mjs"
done
for c in failures explain values; do
  record "node-test-$c" node --test --test-reporter=tap "$SRC/node-test/$c.test.mjs"
done
# nested describes, skips and todos in them, tests node cancels (issue 38): the suite's file
record "node-test-nested" node --test --test-reporter=tap \
  "$REPO_ROOT/test-data/suites/node-nested/test/nested.test.mjs"

log "tape (node FILE)"
for c in mixed plan-mismatch throws failures explain trailer values; do
  record "tape-$c" node "$SRC/tape/$c.js"
done

log "node-tap (node FILE, i.e. the tap library's own stream)"
for c in mixed bailout skip-all failures explain; do
  record "node-tap-$c" node "$SRC/node-tap/$c.js"
done

log "node-tap 16 (node FILE, tap@$TAP16_VERSION's own stream)"
record node-tap16-explain env NODE_PATH="$TAP16_MODULES" node "$SRC/node-tap/explain.js"
record node-tap16-trailer env NODE_PATH="$TAP16_MODULES" node "$SRC/node-tap16/trailer.js"

# The tap runner needs a project root where it can import 'tap' and writes a
# .tap/ state dir there, so it runs in a scratch project outside the repo
# (paths it prints are relative to that project).
log "node-tap runner (tap --reporter=tap), project in $ENV_DIR/node-tap-project"
TAP_PROJ="$ENV_DIR/node-tap-project"
rm -rf "$TAP_PROJ"
mkdir -p "$TAP_PROJ"
echo '{"name":"tapline-node-tap-project","private":true}' >"$TAP_PROJ/package.json"
ln -s "$NODE_MODULES" "$TAP_PROJ/node_modules"
cp "$SRC/node-tap/"*.js "$TAP_PROJ/"
cp "$SRC/tape/trailer.js" "$TAP_PROJ/tape-trailer.js"
cp "$SRC/node-test/trailer.test.mjs" "$TAP_PROJ/node-test-trailer.test.mjs"
(
  cd "$TAP_PROJ"
  record node-tap-runner "$TAP_CLI" --reporter=tap --disable-coverage --jobs=1 mixed.js skip-all.js
  record node-tap-runner-bailout "$TAP_CLI" --reporter=tap --disable-coverage --jobs=1 bailout.js mixed.js
  record node-tap-runner-trailer "$TAP_CLI" --reporter=tap --disable-coverage --jobs=1 \
    tape-trailer.js node-test-trailer.test.mjs
)

log "Perl Test::More (perl FILE.t, no prove)"
for c in mixed merged bailout skip-all plan-mismatch failures explain json-pp plan-first values \
  plan-short; do
  record "perl-$c" perl "$SRC/perl/$c.t"
done
# The same file with stderr joined to stdout by the shell (one pipe, as `prove --merge`).
record perl-explain-merged sh -c 'exec perl "$1" 2>&1' sh "$SRC/perl/explain.t"
# Output before a failure, tab-indented and in ANSI colour (the JUnit bodies, issue 41).
record perl-junit-output sh -c 'exec perl "$1" 2>&1' sh "$SRC/perl/junit-output.t"

log "Perl Test2::V0 (perl FILE.t, no prove)"
record perl-test2-failures perl "$SRC/perl/test2-failures.t"

log "pytest-tap (pytest --tap-stream)"
for c in mixed skip_all error failures explain values; do
  record "pytest-tap-${c//_/-}" "$PY" -m pytest -p no:cacheprovider \
    --rootdir="$SRC/pytest-tap" --tap-stream "$SRC/pytest-tap/test_$c.py"
done

log "pytest --junitxml (the explain case's file as JUnit XML; pytest's terminal output is dropped)"
rc=0
"$PY" -m pytest -p no:cacheprovider --rootdir="$SRC/pytest-tap" \
  --junitxml="$OUT/pytest-explain.junit.xml" "$SRC/pytest-tap/test_explain.py" \
  >/dev/null 2>&1 </dev/null || rc=$?
echo "pytest-explain.junit.xml exit=$rc" >>"$EXITS"
printf '    %-38s exit=%-3s %6s bytes\n' pytest-explain.junit.xml "$rc" \
  "$(wc -c <"$OUT/pytest-explain.junit.xml")"

# go prints test file locations relative to the package (`calc_test.go:10`); the module's
# root is src/go, its nested package src/go/inner. -count=1 keeps the run out of go's cache.
log "go test -json ./... (module example.com/calc in $SRC/go)"
(
  cd "$SRC/go"
  record_as go-explain.jsonl go test -count=1 -json ./...
)

log "tap.py (unittest + tap.TAPTestRunner, streaming)"
record tappy-mixed "$PY" "$SRC/tappy/mixed.py"

log "bats (bats --tap / --formatter tap13)"
record bats-mixed "$BATS" --tap "$SRC/bats/mixed.bats"
record bats-tap13-mixed "$BATS" --formatter tap13 "$SRC/bats/mixed.bats"
record bats-skip-all "$BATS" --tap "$SRC/bats/skip-all.bats"
record bats-abort "$BATS" --tap --abort "$SRC/bats/abort.bats"
record bats-failures "$BATS" --tap "$SRC/bats/failures.bats"

# tapbundle prints its plan, `ok`/`not ok N - name # time=Nms`, and a failing test's
# error (message and stack) on stdout after its `not ok`; the tests run in a copy of the
# sources inside the project, where `@push.rocks/tapbundle` resolves.
log "tapbundle (tsx FILE.ts), project in $TB_DIR"
mkdir -p "$TB_DIR/test"
cp "$SRC/tapbundle/"*.ts "$TB_DIR/test/"
(
  cd "$TB_DIR"
  for c in mixed assert parallel; do
    record "tapbundle-$c" node_modules/.bin/tsx "test/$c.ts"
  done
)

# --------------------------------------------------------------- versions --
pyver() { "$PY" -c 'import sys; from importlib.metadata import version; print(version(sys.argv[1]))' "$1"; }
{
  echo "# Versions of the TAP producers used for the recordings in this directory."
  echo "# Regenerate with: bash scripts/record-producers.sh (from the repo root)."
  echo "node $(node --version)"
  echo "npm $(npm --version 2>/dev/null)"
  echo "tape $(npm_pkg_version tape)"
  echo "tap (node-tap) $(npm_pkg_version tap) (@tapjs/core $(npm_pkg_version @tapjs/core))"
  echo "tap 16 (node-tap) $(npm_pkg_version tap "$TAP16_MODULES") (libtap $(npm_pkg_version libtap "$TAP16_MODULES"))"
  echo "bats $("$BATS" --version | sed 's/^Bats //')"
  echo "bats-support $(npm_pkg_version bats-support)"
  echo "bats-assert $(npm_pkg_version bats-assert)"
  echo "perl $(perl -e 'printf "%vd", $^V')"
  echo "JSON::PP $(perl -MJSON::PP -e 'print JSON::PP->VERSION')"
  echo "Test::More $(perl -MTest::More -e 'print Test::More->VERSION')"
  echo "Test2::Suite $(perl -MTest2::Suite -e 'print Test2::Suite->VERSION')"
  echo "python $("$PY" -c 'import platform; print(platform.python_version())')"
  echo "pytest $(pyver pytest)"
  echo "pytest-tap $(pyver pytest-tap)"
  echo "tap.py $(pyver tap.py)"
  echo "go $(go env GOVERSION | sed 's/^go//')"
  echo "@push.rocks/tapbundle $(npm_pkg_version @push.rocks/tapbundle "$TB_DIR/node_modules") (tsx $(npm_pkg_version tsx "$TB_DIR/node_modules"), @push.rocks/smartexpect $(npm_pkg_version @push.rocks/smartexpect "$TB_DIR/node_modules"))"
  echo
  echo "# Exit code of each recording (a .stderr file sits beside a recording"
  echo "# whose producer wrote to stderr)."
  cat "$EXITS"
} >"$OUT/VERSIONS.txt"

log "wrote $(wc -l <"$EXITS") recordings and $OUT/VERSIONS.txt:"
sed -n '3,20p' "$OUT/VERSIONS.txt" | sed 's/^/    /'
log "total size of recordings: $(cat "$OUT"/*.tap "$OUT"/*.stderr 2>/dev/null | wc -c) bytes"
