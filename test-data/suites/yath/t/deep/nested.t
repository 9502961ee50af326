use Test2::V0;
# yath searches t/ recursively: make test (t/*.t) would not run this.
subtest 'buffered' => sub {
    ok(1, 'inside');
    is([1, 2], [1, 2], 'arrays');
};
done_testing;
