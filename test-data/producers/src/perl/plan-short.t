# Plans 4, fails its second and ends after it: Test::More exits 1 (perl 5.36),
# prove says "Bad plan. You planned 4 tests but ran 2."
use strict;
use warnings;
use Test::More tests => 4;
ok(1, 'first');
is(1 + 1, 3, 'second');
exit;
