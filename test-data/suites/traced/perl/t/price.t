use strict;
use warnings;
use lib 'lib';
use Shop::Price;
print "1..1\n";
print Shop::Price::total(1, 2, 3) == 6 ? "ok 1 - total\n" : "not ok 1 - total\n";
