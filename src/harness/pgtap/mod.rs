//! pgTAP: SQL test files run through `psql` as pg_prove runs them
//! (TAP::Parser::SourceHandler::pgTAP: `psql --no-psqlrc --no-align --quiet --pset pager=off
//! --pset tuples_only=true --set ON_ERROR_STOP=1 --file FILE`), against the database the
//! project's `PG*` variables name: the database is the project's to provide. A `.sql` or
//! `.pg` file is a pgTAP test when it declares a plan (`SELECT plan(N)`, `no_plan()`, or runs
//! `runtests()`), as every pgTAP test must: the pgTAP sources, fixtures and schema files
//! beside them are not. Before the files run, one `psql` asks the database `SELECT 1`: when it
//! cannot connect, the run stops with psql's own words once, not once per file.
use super::api::{Around, Builtin, Candidate, Id, Script, Silent};
use super::follow::{self, Follows};
use super::Harness;
use std::io::Read;
use std::path::{Path, PathBuf};

#[cfg(test)]
pub(crate) mod discovery_cases;

pub(crate) struct PgTap;
pub(crate) static PGTAP: PgTap = PgTap;

/// The program pg_prove runs each file with.
const PSQL: &str = "psql";

/// How much of a file is read for its plan: a test declares it near its start.
const HEAD: u64 = 64 * 1024;

impl Harness for PgTap {
    fn id(&self) -> Id {
        "pgtap"
    }

    fn rules(&self) -> &'static [Builtin] {
        &[Builtin {
            glob: "*.{pg,sql}",
            walk: &[],
            command: &[
                PSQL,
                "--no-psqlrc",
                "--no-align",
                "--quiet",
                "--pset",
                "pager=off",
                "--pset",
                "tuples_only=true",
                "--set",
                "ON_ERROR_STOP=1",
                "--file",
                "{}",
            ],
        }]
    }

    fn takes(&self, file: &Candidate<'_>) -> bool {
        declares_plan(&file.cwd.join(file.path))
    }

    fn silent(&self, _name: &str) -> Silent {
        // pg_prove (TAP::Harness) words a file that printed no TAP so.
        Silent::NoSubtests
    }

    fn one_at_a_time(&self, _cwd: &Path, programs: &[Option<String>]) -> Option<String> {
        // The files share one database: pg_prove runs them one after another unless `-j`.
        let psql = |p: &Option<String>| p.as_deref() == Some(PSQL);
        (!programs.is_empty() && programs.iter().all(psql))
            .then(|| "pg_prove runs pgTAP files one at a time (they share a database)".to_owned())
    }

    fn follows(&self, words: &[String]) -> Option<Follows> {
        let ("pg_prove", args) = follow::program(words)? else {
            return None;
        };
        let recursive = args.iter().any(|a| a == "-r" || a == "--recurse");
        let with_value = [
            "-d",
            "--dbname",
            "-U",
            "--username",
            "-h",
            "--host",
            "-p",
            "--port",
            "-P",
            "--pset",
            "-S",
            "--set",
            "-e",
            "--ext",
            "-j",
            "--jobs",
            "-s",
            "--schema",
            "-x",
            "--match",
            "--runtests",
            "--psql-bin",
            "-b",
        ];
        Some(Follows {
            places: follow::folders_or_files(args, &with_value, "test", recursive, names(args)),
            one_at_a_time: (!follow::jobs_given(args))
                .then_some("pg_prove runs files one at a time"),
            ..Follows::default()
        })
    }

    fn around_files(&self, _cwd: &Path) -> Around {
        Around {
            before: Some(Script {
                what: "the database check of the pgTAP files (`psql --command 'SELECT 1'` with the PG* variables: PGHOST, PGPORT, PGDATABASE, PGUSER)".to_owned(),
                argv: [
                    PSQL,
                    "--no-psqlrc",
                    "--quiet",
                    "--set",
                    "ON_ERROR_STOP=1",
                    "--command",
                    "SELECT 1",
                ]
                .iter()
                .map(Into::into)
                .collect(),
                file: PathBuf::new(),
            }),
            after: None,
        }
    }
}

/// The names pg_prove takes from a folder: `*.pg` unless `--ext` says (`--ext .sql`, `--ext
/// sql`); both for another extension, of which the walk still takes only a file that plans.
fn names(args: &[String]) -> &'static [&'static str] {
    let ext = args
        .iter()
        .enumerate()
        .find_map(|(k, a)| match a.strip_prefix("--ext") {
            Some("") => args.get(k + 1).map(String::as_str),
            Some(rest) => rest.strip_prefix('='),
            None => None,
        });
    match ext.map(|e| e.trim_start_matches('.')) {
        None | Some("pg") => &["*.pg"],
        Some("sql") => &["*.sql"],
        Some(_) => &["*.pg", "*.sql"],
    }
}

/// Whether the SQL at `path` declares a pgTAP plan: a `plan(`, `no_plan(` or `runtests(` call
/// in a statement of its own, outside comments (`SELECT plan(3);`, `SELECT * FROM no_plan();`).
/// pgTAP's own source (which defines those functions) is no test.
pub(crate) fn declares_plan(path: &Path) -> bool {
    let mut text = String::new();
    let read = std::fs::File::open(path).and_then(|f| f.take(HEAD).read_to_string(&mut text));
    read.is_ok() && text.lines().any(plans)
}

/// Whether one line of SQL calls a plan.
fn plans(line: &str) -> bool {
    let code = line.split("--").next().unwrap_or("").to_ascii_lowercase();
    let code = code.trim();
    let Some(rest) = code.strip_prefix("select") else {
        return false;
    };
    let rest = rest.trim_start();
    let rest = rest
        .strip_prefix('*')
        .map(|r| r.trim_start().strip_prefix("from").unwrap_or(r))
        .unwrap_or(rest)
        .trim_start();
    let rest = rest.strip_prefix("tap.").unwrap_or(rest);
    ["plan", "no_plan", "runtests"].iter().any(|f| {
        rest.strip_prefix(f)
            .is_some_and(|r| r.trim_start().starts_with('('))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_plan_makes_a_pgtap_test() {
        for yes in [
            "SELECT plan(3);",
            "select plan( 334 );",
            "SELECT * FROM no_plan();",
            "  SELECT no_plan();",
            "SELECT * FROM runtests();",
            "SELECT tap.plan(2);",
            "SELECT * FROM runtests('test'::name);",
        ] {
            assert!(plans(yes), "{yes}");
        }
        for no in [
            "-- SELECT plan(3);",
            "CREATE OR REPLACE FUNCTION plan( integer )",
            "SELECT planets();",
            "SELECT ok(true);",
            "RETURN plan;",
        ] {
            assert!(!plans(no), "{no}");
        }
    }
}
