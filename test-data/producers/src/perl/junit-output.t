# Failures whose test printed output first: ANSI colour and tab-indented lines, which a
# JUnit body keeps as printed (docs/reports.md, "Failure bodies"). The passing test between
# them keeps the tab-indented lines from reading as the first failure's trailing output.
use strict;
use warnings;
use Test::More tests => 3;

$| = 1;
print "\e[34mblue\e[0m and \e[4munderlined\e[0m\n";
is('got', 'want', 'ANSI colour in output');

pass('a pass between');

print "\tindented by a tab\n";
print "\t\ttwo tabs\tand one inside\n";
is(1 + 1, 3, 'tab-indented output');
