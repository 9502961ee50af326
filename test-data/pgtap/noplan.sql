\set QUIET 1
\pset format unaligned
\pset tuples_only true
\pset pager off
BEGIN;
SELECT * FROM no_plan();
SELECT ok(true, 'first block one');
SELECT is(1 + 1, 2, 'first block two');
SELECT * FROM finish();
ROLLBACK;
BEGIN;
SELECT * FROM no_plan();
SELECT ok(true, 'second block one');
SELECT is(6 * 7, 42, 'second block answer');
SELECT * FROM finish();
ROLLBACK;
