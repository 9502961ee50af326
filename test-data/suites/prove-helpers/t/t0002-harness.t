# prove runs every file with HARNESS_ACTIVE=1 and HARNESS_VERSION set.
use strict;
use warnings;
print "1..2\n";
print +($ENV{HARNESS_ACTIVE} || '') eq '1' ? "ok 1" : "not ok 1", " - HARNESS_ACTIVE is 1\n";
print +($ENV{HARNESS_VERSION} || '') =~ /^\d/ ? "ok 2" : "not ok 2",
    " - HARNESS_VERSION is a version\n";
