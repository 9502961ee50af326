#!/usr/bin/perl
# Test::More values case, diagnostics sent to STDOUT: strings holding
# quotes and backslashes (JSON text, as JSON::PP's own tests compare it),
# undef against the string 'undef', a trailing tab, a control character.
use strict;
use warnings;
use Test::More tests => 6;

my $builder = Test::More->builder;
$builder->failure_output(\*STDOUT);
$builder->todo_output(\*STDOUT);

is('"\u00b6"', '"\u00b7"', 'JSON text');
is(undef, 'undef', 'undef against a string');
is("tab\t ", 'tab', 'a trailing tab');
is(q{it's "x"}, q{it's}, 'both quotes');
is('a\b', 'a/b', 'a backslash');
is("a\x{1b}b", 'ab', 'a control character');
