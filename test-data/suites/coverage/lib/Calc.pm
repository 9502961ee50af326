package Calc;
use strict;
use warnings;

sub used {
    my ($a, $b) = @_;
    return $a + $b;
}

sub unused {
    my ($a) = @_;
    my $doubled = $a * 2;
    return $doubled;
}

1;
