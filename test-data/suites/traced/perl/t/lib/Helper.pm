package Helper;
use strict;
use warnings;
use Shop::Name;
sub greeting { return Shop::Name::shout('hello') }
1;
