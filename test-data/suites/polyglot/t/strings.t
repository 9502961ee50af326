#!/usr/bin/perl
# Perl: Test::More, with a skip.
use strict;
use warnings;
use Test::More tests => 3;

is(join('-', qw(a b c)), 'a-b-c', 'joins words');
is(lc 'HELLO', 'hello', 'lowercases');
SKIP: {
    skip 'needs a network', 1;
    ok(0, 'downloads a file');
}
