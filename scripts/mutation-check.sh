#!/usr/bin/env bash
# The "never miss" check of dependency traces (issue 19) on a real Perl distribution: for each
# FILE:SUB, break that library function (it dies when called), run every test file, and check
# that every file that then fails is among those `--affected-by FILE` selects by the traces of
# a clean run. Prints one line per mutation and exits 1 on any miss.
#
#   scripts/mutation-check.sh DIST_DIR FILE:SUB...        e.g. lib/Mojo/Home.pm:rel_file
#
# Environment: TAPLINE (default target/release/tapline of this repo), JOBS (default 2),
# TESTS (default t). The clean run first records the traces; the mutated runs use --no-trace,
# so the traces stay those of the clean code.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
tapline=${TAPLINE:-$repo/target/release/tapline}
jobs=${JOBS:-2}
tests=${TESTS:-t}
if [ $# -lt 2 ]; then
  echo "usage: $0 DIST_DIR FILE:SUB..." >&2
  exit 2
fi
cd "$1"
shift
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The files a `--format summary` document ran, and those that failed, one a line.
ran() { perl -MJSON::PP -0777 -e 'local $/; my $d = decode_json(<STDIN>); print "$_->{path}\n" for @{$d->{files}}' <"$1"; }
failed() { perl -MJSON::PP -0777 -e 'local $/; my $d = decode_json(<STDIN>); print "$_->{path}\n" for grep { !$_->{ok} } @{$d->{files}}' <"$1"; }

"$tapline" run -I lib -j"$jobs" --format summary $tests >"$work/clean.json" 2>/dev/null || {
  echo "mutation-check: the clean run fails; fix it first" >&2
  exit 2
}
total=$(ran "$work/clean.json" | wc -l)
misses=0
for spec in "$@"; do
  file=${spec%%:*}
  sub=${spec##*:}
  cp "$file" "$work/backup"
  MUT_SUB=$sub perl -0777 -i -pe 's/^(sub \Q$ENV{MUT_SUB}\E\b[^{]*\{)/$1 die "mutated $ENV{MUT_SUB}\\n";/m' "$file"
  if cmp -s "$file" "$work/backup"; then
    echo "mutation-check: no 'sub $sub' in $file" >&2
    exit 2
  fi
  "$tapline" run -I lib -j"$jobs" --no-trace --format summary $tests >"$work/all.json" 2>/dev/null || true
  "$tapline" run -I lib -j"$jobs" --no-trace --format summary --affected-by "$file" -- $tests \
    >"$work/picked.json" 2>/dev/null || true
  cp "$work/backup" "$file"
  failed "$work/all.json" | sort >"$work/failed"
  ran "$work/picked.json" | sort >"$work/picked"
  missed=$(comm -23 "$work/failed" "$work/picked")
  printf '%s:%s  selected %d of %d, failed %d, missed %d\n' "$file" "$sub" \
    "$(wc -l <"$work/picked")" "$total" "$(wc -l <"$work/failed")" "$(printf '%s' "$missed" | grep -c . || true)"
  if [ -n "$missed" ]; then
    misses=1
    printf '  missed: %s\n' $missed
  fi
done
exit $misses
