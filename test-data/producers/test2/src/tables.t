# Test2::Tools::Compare's failure tables, one kind per test (recorded by
# scripts/record-test2.sh; the explanation's known answers: tests/integration/issue41_test2.rs).
use Test2::V0;

is(1, 2, 'scalar eq');
is("a\nb", "a\nc", 'multi-line string');
is('a|b', 'a|c', 'a pipe in a value');
is('  ', ' ', 'leading space kept, trailing escaped');
like('abc', qr/z/, 'like');
is({a => 1, b => [1, 2, 3], c => 'x'}, {a => 2, b => [1, 2], d => 'y'}, 'deep, absent on both sides');
is({x => 0}, {x => T()}, 'TRUE check');
is({x => 1, y => undef}, {x => F(), y => D()}, 'FALSE and DEFINED checks');
is([1], [1, 2], 'short array');
is({a => {b => [{c => 1}]}}, {a => {b => [{c => 2}]}}, 'one nested difference');
is({a => 1}, hash { field a => 1; field b => 2; end }, 'hash builder');
is(undef, 1, 'undef got');
is(
    {a => "x\ny", b => 1, 'a_long_key_' x 3 => 'k' x 50},
    {a => "x\nz", b => 2, 'a_long_key_' x 3 => 'j' x 50},
    'rows of many lines, blank lines between them',
);
isnt('a', 'a', 'isnt');
subtest 'buffered outer' => sub {
    ok(1, 'inner passes');
    is(3, 4, 'inner is');
};
done_testing;
