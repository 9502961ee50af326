#!/usr/bin/perl
# Test::More subtests, nested.
use strict;
use warnings;
use Test::More;

subtest 'strings' => sub {
    plan tests => 2;
    is(uc 'a', 'A', 'uppercases');
    subtest 'unicode' => sub {
        ok(length("\x{263A}") == 1, 'counts characters');
        done_testing();
    };
};
ok(1, 'after the subtest');
done_testing();
