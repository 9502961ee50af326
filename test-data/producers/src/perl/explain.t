#!/usr/bin/perl
# Test::More explain case: three failing is() whose values differ in length
# ('100' against '1.0', '1000 kB' against '1.0 MB') and undef, an unnamed
# failure, and two failures with the same name. Diagnostics go to STDERR,
# as Test::More sends them by default.
use strict;
use warnings;
use Test::More;

is('100', '1.0', 'percent');
is('1000 kB', '1.0 MB', 'size');
is(undef, 'x', 'undefined');
ok(0);
ok(1, 'passes');
is('left', 'right', 'same name');
is(3, 4, 'same name');

done_testing();
