use strict;
use warnings;
use lib 'lib';
use Shop::Cart;
print "1..1\n";
print Shop::Cart->new(2, 3)->total == 5 ? "ok 1 - cart total\n" : "not ok 1 - cart total\n";
