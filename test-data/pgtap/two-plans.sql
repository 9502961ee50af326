\set QUIET 1
\pset format unaligned
\pset tuples_only true
\pset pager off
BEGIN;
SELECT plan(2);
SELECT ok(true, 'first block one');
SELECT is(1 + 1, 2, 'first block two');
SELECT * FROM finish();
ROLLBACK;
BEGIN;
SELECT plan(2);
SELECT ok(true, 'second block one');
SELECT is(6 * 7, 41, 'second block answer');
SELECT * FROM finish();
ROLLBACK;
