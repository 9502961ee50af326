#!/usr/bin/perl
# Test2::V0 failures case: is() of strings and numbers, is() of
# structures, and a failure nested two subtests deep. STDERR is joined to
# STDOUT before Test2 loads (it copies both handles then), so the stream
# carries the diagnostics, as `prove --merge` would.
use strict;
use warnings;
BEGIN { open(STDERR, '>&', \*STDOUT) or die "failed to join STDERR to STDOUT: $!" }
use Test2::V0 -no_srand => 1;  # no "Seeded srand … from local date" line

is('got', 'wanted', 'strings differ');
is(41, 42, 'numbers differ');
is([1, [2, 3], 'x'], [1, [2, 4], 'x'], 'arrays differ');
is({ a => 1, b => { c => 2 } }, { a => 1, b => { c => 3 } }, 'hashes differ');

subtest 'outer' => sub {
    subtest 'middle' => sub {
        ok(1, 'inner passes');
        is('got', 'wanted', 'inner fails');
    };
};

done_testing();
