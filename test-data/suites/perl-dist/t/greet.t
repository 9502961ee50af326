use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../lib", "$FindBin::Bin/lib";
use Greet;
use TestHelper;
print "1..2\n";
print Greet::hello('world') eq TestHelper::expected() ? "ok 1 - hello\n" : "not ok 1 - hello\n";
print defined $Greet::VERSION ? "ok 2 - has a version\n" : "not ok 2 - has a version\n";
