use strict;
use warnings;
use lib 'lib';
# Shop::Price is loaded in a forked child only; the child's exit status is the check.
my $pid = fork // die "fork: $!";
if (!$pid) {
    require Shop::Price;
    exit(Shop::Price::total(2, 2) == 4 ? 0 : 1);
}
waitpid $pid, 0;
print "1..1\n";
print $? == 0 ? "ok 1 - forked child\n" : "not ok 1 - forked child\n";
