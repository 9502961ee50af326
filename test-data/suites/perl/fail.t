#!/usr/bin/perl
# Test::More: one failing comparison (Test::More reports it on stderr as comments).
use strict;
use warnings;
use Test::More tests => 2;

is(join(',', sort qw(b a c)), 'a,b,c', 'sorts words');
is_deeply([map { $_ * 2 } 1 .. 3], [2, 4, 7], 'doubles every number');
