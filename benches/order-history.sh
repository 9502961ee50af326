#!/bin/sh
# Issue 9's benchmarks, reproducible: slowest-first ordering from history, and what the
# history store costs a 500-file run. Needs hyperfine and a release build:
#
#     cargo build --release && sh benches/order-history.sh
#
# Projects are made under ${BENCH_DIR:-/tmp/tapline-bench-history}.
set -eu
TAPLINE=${TAPLINE:-$(pwd)/target/release/tapline}
DIR=${BENCH_DIR:-/tmp/tapline-bench-history}
rm -rf "$DIR" && mkdir -p "$DIR/six/.git" "$DIR/six/test" "$DIR/big/.git" "$DIR/big/test"

# Six files: five take 0.3 s, one 1.5 s and sorts last in declared order.
for n in a b c d e; do
  printf '#!/bin/sh\nsleep 0.3\necho 1..1\necho ok 1 - %s\n' "$n" > "$DIR/six/test/$n.sh"
done
printf '#!/bin/sh\nsleep 1.5\necho 1..1\necho ok 1 - slow\n' > "$DIR/six/test/z_slow.sh"
# 500 trivial files.
i=1
while [ "$i" -le 500 ]; do
  printf '#!/bin/sh\necho 1..2\necho ok 1 - one\necho ok 2 - two\n' > "$DIR/big/test/t$(printf %03d "$i").sh"
  i=$((i + 1))
done
chmod +x "$DIR"/six/test/*.sh "$DIR"/big/test/*.sh

cd "$DIR/six"
# First run: no history, declared order (the 1.5 s file starts last).
hyperfine -N -r 10 --prepare 'rm -rf .nogit' "$TAPLINE run -j2 -q"
# Second run: history exists, slowest-first (the 1.5 s file starts first).
"$TAPLINE" run -j2 -q
hyperfine -N -r 10 "$TAPLINE run -j2 -q" "$TAPLINE run -j2 -q --order declared"

cd "$DIR/big"
"$TAPLINE" run -j2 -q
hyperfine -N -w 2 -r 20 "$TAPLINE run -j2 -q --no-history" "$TAPLINE run -j2 -q"
# Instructions, which a shared machine does not blur: tapline's own, with and without history.
if command -v valgrind > /dev/null; then
  for mode in --no-history --order=declared; do
    valgrind --tool=callgrind --callgrind-out-file="$DIR/cg$mode.out" "$TAPLINE" run -j2 -q "$mode" 2>&1 | grep Collected
  done
  callgrind_annotate --inclusive=yes "$DIR/cg--order=declared.out" | grep -E 'Store::(recent|append)'
fi
