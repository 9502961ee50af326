//! The pgTAP room seen through discovery ([`crate::harness::discovery_cases`]): a project's
//! pgTAP files among its other SQL, and pg_prove in a test script.
use crate::harness::discovery_cases::{place, Case, Expect, Run, ScriptCase};
use crate::harness::follow::Only;

pub(crate) static PROJECTS: &[Case] = &[Case {
    why: "pgTAP files are the SQL that declares a plan",
    files: &[
        ("Makefile", "test:\n\tpg_prove test/sql/*.sql\n"),
        (
            "test/sql/base.sql",
            "BEGIN;\n\\i test/pgtap-core.sql\nSELECT plan(2);\nSELECT ok(true);\n",
        ),
        (
            "test/sql/more.pg",
            "SELECT * FROM no_plan();\nSELECT ok(true);\n",
        ),
        (
            "test/pgtap-core.sql",
            "CREATE OR REPLACE FUNCTION plan( integer ) RETURNS TEXT AS $$ $$;\n",
        ),
        ("test/fixtures/schema.sql", "CREATE TABLE t (x int);\n"),
    ],
    runs: &[Run {
        why: "pgTAP's own source and a schema are no tests; pg_prove runs one file at a time",
        expect: &[
            Expect::Files(&["test/sql/base.sql", "test/sql/more.pg"]),
            Expect::OneAtATime(Some(
                "pg_prove runs pgTAP files one at a time (they share a database)",
            )),
        ],
        ..Run::BARE
    }],
}];

pub(crate) fn scripts() -> Vec<ScriptCase> {
    vec![
        ScriptCase {
            why: "pg_prove's folder, recursively with -r, its database options skipped",
            test: "pg_prove -d mydb -U postgres -r test",
            others: &[],
            places: vec![place("test", true, Only::Names(&["*.pg"]))],
        },
        ScriptCase {
            why: "pg_prove's --ext says which files a folder holds",
            test: "pg_prove -U postgres --ext .sql --recurse test/",
            others: &[],
            places: vec![place("test/", true, Only::Names(&["*.sql"]))],
        },
    ]
}
