#!/usr/bin/perl
# Test::More with failure and todo diagnostics sent to STDOUT, so the
# recorded stream carries them (like `prove --merge`), plus done_testing.
use strict;
use warnings;
use Test::More;

my $builder = Test::More->builder;
$builder->failure_output(\*STDOUT);
$builder->todo_output(\*STDOUT);

ok(1, 'passes');
is('actual', 'expected', 'fails # with a hash');
TODO: {
    local $TODO = 'later';
    ok(0, 'todo \\ with a backslash');
}
diag("multi-line diag\nsecond line");
done_testing();
