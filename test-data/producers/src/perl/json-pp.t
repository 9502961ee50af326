#!/usr/bin/perl
# Test::More json-pp case: is() on JSON text, as JSON::PP's own tests
# compare encoder output, where the values themselves hold quotes,
# backslashes and \u escapes. Diagnostics go to STDERR.
use strict;
use warnings;
use Test::More;
use JSON::PP;

my $json = JSON::PP->new->ascii->canonical;

is($json->encode(["\x{b6}"]), '["\u00B6"]', 'ascii escapes the pilcrow');
is($json->encode({ path => 'C:\dir', say => 'a "quote"' }),
   '{"path":"C:\\dir","say":"a \"quote\""}', 'quotes and backslashes');
is(JSON::PP->new->allow_nonref->decode('"\u00b6"'), "\x{b6}", 'decodes the escape');

done_testing();
