#!/usr/bin/perl
# Test::More: a pass, a skip and a todo (a failing todo does not fail the file).
use strict;
use warnings;
use Test::More tests => 4;

ok(1 + 1 == 2, 'adds numbers');
is(lc 'TAP', 'tap', 'lowercases');

SKIP: {
    skip 'no network in this sandbox', 1;
    ok(0, 'fetches a page');
}

TODO: {
    local $TODO = 'rounding is not implemented yet';
    is(sprintf('%d', 2.7), 3, 'rounds half up');
}
