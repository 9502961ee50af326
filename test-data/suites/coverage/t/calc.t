use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../lib";
use Test::More tests => 1;
use Calc;
is(Calc::used(1, 2), 3, 'used');
