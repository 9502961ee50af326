use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../lib", "$FindBin::Bin/lib";
use Helper;
print "1..1\n";
print Helper::greeting() eq 'HELLO' ? "ok 1 - greeting\n" : "not ok 1 - greeting\n";
