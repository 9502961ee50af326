package Shop::Cart;
use strict;
use warnings;
use Shop::Price;
sub new { my ($class, @items) = @_; return bless [@items], $class }
sub total { my $self = shift; return Shop::Price::total(@$self) }
1;
