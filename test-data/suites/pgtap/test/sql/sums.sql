BEGIN;
SELECT plan(5);
SELECT is(1 + 1, 2, 'one and one');
SELECT is(2 + 2, 5, 'two and two');
SELECT is(E'first\nsecond'::text, E'first\nthird'::text, 'two lines');
SELECT set_eq('VALUES (1), (2)', 'VALUES (1), (3)', 'the set');
SELECT tables_are('public', ARRAY['owners'], 'the tables');
SELECT * FROM finish();
ROLLBACK;
