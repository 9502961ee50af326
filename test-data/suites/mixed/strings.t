#!/usr/bin/perl
# Perl: Test::More, with a skip and a todo.
use strict;
use warnings;
use Test::More tests => 4;

is(join('-', qw(a b c)), 'a-b-c', 'joins words');
like('tapline 0.1.0', qr/^tapline \d+\.\d+/, 'matches a version');
SKIP: {
    skip 'needs a network', 1;
    ok(0, 'downloads a file');
}
TODO: {
    local $TODO = 'title case is not implemented';
    is(ucfirst lc 'hELLO wORLD', 'Hello World', 'title-cases');
}
