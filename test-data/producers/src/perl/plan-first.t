#!/usr/bin/perl
# Test::More with the plan first (`tests => N`) and its diagnostics on
# STDOUT (like `prove --merge`): the closing `# Looks like you failed ...`
# line follows the last test point, with no plan in between, both at the
# top and inside a subtest that plans first too.
use strict;
use warnings;
use Test::More tests => 2;

my $builder = Test::More->builder;
$builder->failure_output(\*STDOUT);

subtest 'inner' => sub {
    plan tests => 2;
    ok(1, 'inner passes');
    is('got', 'wanted', 'inner fails');
};
is(3, 4, 'last fails');
