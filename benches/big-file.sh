#!/bin/sh
# Issue 42's one-file benchmark (figures in benches/README.md): a Perl file printing POINTS
# test points (benches/gen-big-file.sh, default 1,000,000, three failing `is()`s), its stream
# recorded once; then, in a project replaying that recording (a shell test file that cats
# it: the producer costs next to nothing, so the CPU is tapline's), the peak memory and CPU
# of `run -q`, `-o junit.xml`, `--format jsonl` and `--format summary`, against `parse --format summary` of the
# same stream, and the size of `.nogit/` after 13 runs against the file's log.
# Usage: benches/big-file.sh TAPLINE DIR [POINTS]
set -eu
tapline=$(realpath "$1")
dir=$2
points=${3:-1000000}
here=$(dirname "$(realpath "$0")")
"$here/gen-big-file.sh" "$dir/perl" "$points"
(cd "$dir/perl" && perl t/big.t > ../big.tap 2> ../big.err || true)
mkdir -p "$dir/replay/test" "$dir/replay/.git"
printf 'cat %s/big.tap\ncat %s/big.err >&2\n' "$(realpath "$dir")" "$(realpath "$dir")" \
  > "$dir/replay/test/big.sh"
cd "$dir/replay"
for args in "" "-o r.xml" "--format jsonl" "--format summary"; do
  rm -rf .nogit r.xml
  # shellcheck disable=SC2086
  /usr/bin/time -f "run -q $args: %M KiB peak, %U+%S s CPU" "$tapline" run -q $args test/big.sh \
    > /dev/null 2> time.txt || true
  tail -n 1 time.txt
done
/usr/bin/time -f "parse --format summary: %M KiB peak, %U+%S s CPU" \
  "$tapline" parse --format summary ../big.tap > /dev/null 2> time.txt || true
tail -n 1 time.txt
rm -rf .nogit
i=0
while [ "$i" -lt 13 ]; do
  "$tapline" run -q test/big.sh > /dev/null 2>&1 || true
  i=$((i + 1))
done
echo "after 13 runs: .nogit $(du -sb .nogit | cut -f1) B, the file's log $(stat -c %s .nogit/testlogs/test__big.log) B"
