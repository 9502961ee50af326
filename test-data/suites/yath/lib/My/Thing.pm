package My::Thing;
sub answer { 42 }
sub config { +{ name => 'thing', tags => ['a', 'b'], size => 3 } }
1;
