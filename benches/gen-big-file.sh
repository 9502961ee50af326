#!/bin/sh
# Writes one Perl Test::More file of POINTS test points (default 1,000,000) as DIR/t/big.t,
# three of them failing `is()`s with got/expected diagnostics (at a quarter, half and three
# quarters of the way), every 1000th a skip: the one-file run of issue 42 (memory, CPU and
# disk of a file that prints a million points; figures in benches/README.md).
# Usage: benches/gen-big-file.sh DIR [POINTS]
set -eu
dir=$1
points=${2:-1000000}
mkdir -p "$dir/t" "$dir/.git"
cat > "$dir/t/big.t" <<PERL
use strict;
use warnings;
use Test::More tests => $points;
my \$n = $points;
my %fails = map { int(\$n * \$_ / 4) => 1 } 1 .. 3;
for my \$k (1 .. \$n) {
    if (\$fails{\$k}) {
        is("value \$k", "wanted \$k", "point \$k compares a value");
    } elsif (\$k % 1000 == 0) {
        SKIP: { skip 'not on this platform', 1; }
    } else {
        ok(1, "point \$k does its job");
    }
}
PERL
