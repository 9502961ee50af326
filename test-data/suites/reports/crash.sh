#!/bin/sh
# One point, a message on stderr, then a segfault: a failed file without a failing point.
echo 'TAP version 14'
echo '1..3'
echo 'ok 1 - starts'
echo 'Segmentation fault <core dumped> in parse()' >&2
kill -SEGV $$
