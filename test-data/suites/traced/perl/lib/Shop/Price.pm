package Shop::Price;
use strict;
use warnings;
sub total { my $sum = 0; $sum += $_ for @_; return $sum }
1;
