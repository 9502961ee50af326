package Shop::Name;
use strict;
use warnings;
sub shout { return uc shift }
1;
