#!/usr/bin/perl
# Test::More mixed case: pass, fail with got/expected, skip, todo,
# subtests, notes and plain prints. Diagnostics (diag and failure
# details) go to STDERR, as Test::More does by default.
# Names contain '#' and '\' to exercise escaping.
use strict;
use warnings;
use Test::More tests => 9;

ok(1, 'passes');
is('actual', 'expected', 'fails with a comparison');
is_deeply({ a => 1, b => [1, 2] }, { a => 1, b => [1, 3] }, 'deep structures differ');
ok(1, 'name with # hash and \\ backslash');

SKIP: {
    skip 'not on this platform', 1;
    ok(0, 'never runs');
}

TODO: {
    local $TODO = 'not implemented yet';
    is(41, 42, 'todo test that fails');
}

note('note goes to STDOUT as a comment');
diag('diag goes to STDERR');
print "plain print to STDOUT\n";
print "# a print that looks like a comment\n";

subtest 'parent with subtests' => sub {
    plan tests => 3;
    ok(1, 'child passes');
    is(41, 42, 'child fails');
    subtest 'child # with \\ escapes' => sub {
        ok(1, 'grandchild passes');
        done_testing();
    };
};

subtest 'subtest that skips all' => sub {
    plan skip_all => 'nothing to do here';
};

ok(1, 'last test');
