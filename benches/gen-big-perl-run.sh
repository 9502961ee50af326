#!/bin/sh
# Writes the run of benches/gen-big-run.sh as real Perl test files: FILES Test::More scripts
# of POINTS test points each (default 200 x 1000 = 200,000 points), every 100th a skip, and in
# files 7, 57, 107 and 157 a failing is_deeply every 250 points. Here the producers cost what
# a real suite's do (perl starting, Test::More), for the report figures in benches/README.md.
# Usage: benches/gen-big-perl-run.sh DIR [FILES] [POINTS]
set -eu
dir=$1
files=${2:-200}
points=${3:-1000}
mkdir -p "$dir/t" "$dir/.git"
i=0
while [ "$i" -lt "$files" ]; do
  cat > "$dir/t/$(printf 'file_%03d.t' "$i")" <<PERL
use strict;
use warnings;
use Test::More tests => $points;
my \$f = $i;
for my \$k (1 .. $points) {
    if (\$f % 50 == 7 && \$k % 250 == 0) {
        is_deeply({ id => \$k, name => 'alicia', tags => ['a'] },
            { id => \$k, name => 'alice', tags => ['a', 'b'] },
            "point \$k of file \$f compares a record");
    } elsif (\$k % 100 == 0) {
        SKIP: { skip 'not on this platform', 1; }
    } else {
        ok(1, "point \$k of file \$f does its job");
    }
}
PERL
  i=$((i + 1))
done
