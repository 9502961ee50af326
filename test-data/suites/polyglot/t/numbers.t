#!/usr/bin/perl
# Perl: a subtest.
use strict;
use warnings;
use Test::More;

subtest 'arithmetic' => sub {
    plan tests => 2;
    is(2 + 2, 4, 'adds');
    is(6 / 3, 2, 'divides');
};
ok(10 > 9, 'compares');
done_testing;
