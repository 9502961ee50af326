BEGIN;
\i test/fixtures/schema.sql
SELECT plan(3);
SELECT has_table('pets');
SELECT is((SELECT legs FROM pets WHERE name = 'cat'), 4, 'a cat has four legs');
SELECT results_eq('SELECT name FROM pets ORDER BY name', ARRAY['bird', 'cat'], 'the pets');
SELECT * FROM finish();
ROLLBACK;
