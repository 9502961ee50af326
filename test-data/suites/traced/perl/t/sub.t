use strict;
use warnings;
# Shop::Name is loaded by a perl this test starts, never by the test itself.
my $status = system $^X, '-Ilib', '-MShop::Name', '-e', 'exit(Shop::Name::shout("b") eq "B" ? 0 : 1)';
print "1..1\n";
print $status == 0 ? "ok 1 - subprocess\n" : "not ok 1 - subprocess\n";
