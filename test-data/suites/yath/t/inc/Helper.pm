package Helper;
# On @INC through .yath.rc's `-I t/inc` only.
sub greet { "hello $_[0]" }
1;
