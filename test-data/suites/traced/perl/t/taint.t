#!perl -T
use strict;
use warnings;
use lib 'lib';
use Shop::Name;
print "1..1\n";
print Shop::Name::shout('a') eq 'A' ? "ok 1 - shout under taint\n" : "not ok 1\n";
