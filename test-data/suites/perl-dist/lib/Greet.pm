package Greet;
our $VERSION = '0.01';
sub hello { "hello, $_[0]" }
1;
