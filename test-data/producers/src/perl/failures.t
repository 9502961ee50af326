#!/usr/bin/perl
# Test::More failures case, diagnostics sent to STDOUT (like
# `prove --merge`) so the stream carries them: is() of strings, numbers,
# a multi-line string and undef, is_deeply's "Structures begin differing
# at", and a failure nested two subtests deep.
use strict;
use warnings;
use Test::More;

my $builder = Test::More->builder;
$builder->failure_output(\*STDOUT);
$builder->todo_output(\*STDOUT);

is('got', 'wanted', 'strings differ');
is(41, 42, 'numbers differ');
is("line one\nline two\n", "line one\nline 2\n", 'multi-line strings differ');
is(undef, 'defined', 'undef against a string');
is_deeply([1, [2, 3], 'x'], [1, [2, 4], 'x'], 'arrays differ');
is_deeply({ a => 1, b => { c => 2 } }, { a => 1, b => { d => 2 } }, 'hashes differ');

subtest 'outer' => sub {
    subtest 'middle' => sub {
        ok(1, 'inner passes');
        is('got', 'wanted', 'inner fails');
    };
};

done_testing();
