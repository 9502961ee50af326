#!/usr/bin/perl
# Test::More: bail out in the middle of a run.
use strict;
use warnings;
use Test::More tests => 3;

ok(1, 'before the bail out');
BAIL_OUT('database # not \\ reachable');
ok(1, 'never reached');
