#!/usr/bin/perl
# Test::More: plans 4 but runs 2, then dies.
use strict;
use warnings;
use Test::More tests => 4;

ok(1, 'first');
ok(1, 'second');
die "died after two tests\n";
