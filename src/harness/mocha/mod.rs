//! mocha: a project whose test script runs `mocha` has its files listed and run by its own
//! mocha, through tapline's driver (`tapline-mocha.cjs`) and reporter, with the script's flags
//! and the project's configuration (`.mocharc.*`, package.json `mocha`).
//!
//! - which files: the ones mocha's own collector picks for the script's flags and config
//!   (`spec`, `extension`, `recursive`, `ignore`); the driver asks it ([`Harness::list_through`]).
//! - each file runs alone, `node tapline-mocha.cjs run FLAGS -- FILE`: the driver replaces the
//!   spec by FILE (mocha adds a named file to its config's `spec`), loads `--require`s, and
//!   prints TAP 14, a point per test (`describe > it`), a failing hook a point of its own.
//! - files run in a warm worker of this room's (its [`Driver`]): one node that loaded
//!   mocha and the requires runs the files one after another, as mocha's own serial run does.
//! - one after another unless the script says `--parallel`: a suite written for mocha's serial
//!   run may share a port or a database between files.
//! - `-t` narrows with mocha's `--grep`, over a test's titles joined by a space as mocha
//!   matches them.
use super::api::{Cx, Id, MissingInterpreter, Silent};
use super::driver::{before_the_file, titles_pattern, Driver};
use super::filter::{Filter, Narrow, Pattern, Probe};
use super::follow::{self, Follows, Through};
use super::Harness;
use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};

#[cfg(test)]
pub(crate) mod discovery_cases;

/// mocha, through tapline's driver.
pub(crate) struct Mocha;
pub(crate) static MOCHA: Mocha = Mocha;

const ID: Id = "mocha";
const DRIVER: &str = "tapline-mocha.cjs";

/// The driver first, then what it loads beside it.
const FILES: &[(&str, &str)] = &[
    (DRIVER, include_str!("tapline-mocha.cjs")),
    (
        "tapline-mocha-reporter.cjs",
        include_str!("tapline-mocha-reporter.cjs"),
    ),
    super::reporters::TAP_COMMON,
    super::reporters::WARM_POOL,
];

/// The driver and what it loads, written on first use.
static DRIVER_FILES: Driver = Driver::new(ID, FILES);

/// Whether the script's words say mocha's `--parallel` (`-p`).
fn parallel(args: &[String]) -> bool {
    args.iter()
        .any(|a| a == "--parallel" || a == "-p" || a == "--parallel=true")
}

impl Harness for Mocha {
    fn id(&self) -> Id {
        ID
    }

    fn follows(&self, words: &[String]) -> Option<Follows> {
        let (program, args) = follow::program(words)?;
        if !matches!(program, "mocha" | "_mocha") {
            return None;
        }
        Some(Follows {
            places: vec![Through::place(ID, words)],
            one_at_a_time: (!parallel(args))
                .then_some("mocha runs files one after another (no --parallel)"),
            ..Follows::default()
        })
    }

    fn list_through(&self, words: &[String], cwd: &Path) -> Option<Result<Vec<PathBuf>, String>> {
        let (program, _) = follow::program(words)?;
        if !matches!(program, "mocha" | "_mocha") {
            return None;
        }
        Some(list(&words[1..], cwd))
    }

    fn command_through(
        &self,
        words: &[String],
        path: &Path,
        _cx: &mut Cx<'_>,
    ) -> Result<Vec<OsString>, MissingInterpreter> {
        DRIVER_FILES.script_command(words, path)
    }

    fn silent(&self, _name: &str) -> Silent {
        Silent::Fails
    }

    fn dependency_folders(&self) -> &'static [&'static str] {
        &["node_modules"]
    }

    fn filter(&self, probe: &Probe<'_>) -> Option<Filter> {
        (probe.harness == Some(ID)).then_some(Filter::of(&Grep))
    }

    fn worker(&self) -> Option<&'static dyn super::worker::Worker> {
        Some(&DRIVER_FILES)
    }

    fn scanned_name(
        &self,
        file: &super::list::Listable<'_>,
        name: &[String],
    ) -> Option<Vec<String>> {
        // A run names a test by its titles joined, as one point: `tapline list` says the same.
        let ours = (file.command.unwrap_or_default().iter())
            .any(|w| Path::new(w).file_name().is_some_and(|n| n == DRIVER));
        ours.then(|| vec![name.join(" > ")])
    }
}

/// The files mocha would run for the script's flags `args`, from `cwd`.
fn list(args: &[String], cwd: &Path) -> Result<Vec<PathBuf>, String> {
    DRIVER_FILES.list(args.iter().map(OsStr::new), cwd)
}

/// mocha's `--grep`, put before the driver's `--`: mocha matches it against a test's titles
/// joined by a space.
struct Grep;

impl Narrow for Grep {
    fn said(&self) -> &'static str {
        "mocha --grep"
    }

    fn narrow(&self, command: &mut Vec<OsString>, patterns: &[Pattern], matching: &[Vec<String>]) {
        let grep = titles_pattern(patterns, matching);
        before_the_file(command, format!("--grep={grep}"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::driver::testing::{run_words, words};

    #[test]
    fn follows_mocha_with_its_flags_one_file_after_another() {
        let f = MOCHA
            .follows(&words(
                "mocha --require test/support/env --check-leaks test/",
            ))
            .expect("follows");
        assert_eq!(
            f.places,
            [Through::place(
                ID,
                &words("mocha --require test/support/env --check-leaks test/")
            )]
        );
        assert!(f.one_at_a_time.is_some());
        let p = MOCHA
            .follows(&words("mocha --parallel 'test/**/*.spec.js'"))
            .expect("follows");
        assert_eq!(p.one_at_a_time, None, "--parallel runs files side by side");
        assert!(MOCHA.follows(&words("node --test")).is_none());
    }

    #[test]
    fn a_file_runs_alone_through_the_driver_with_the_scripts_flags() {
        assert_eq!(
            run_words(&MOCHA, "mocha --check-leaks test/", "test/a.js", DRIVER),
            ["run", "--check-leaks", "test/", "--", "test/a.js"]
        );
    }

    #[test]
    fn grep_joins_titles_by_a_space_and_goes_before_the_file() {
        let p = Pattern::parse("math > adds").expect("pattern");
        let mut command: Vec<OsString> = ["node", "d.cjs", "run", "--", "t.js"]
            .map(OsString::from)
            .to_vec();
        Grep.narrow(&mut command, &[p], &[vec!["math > adds (x)".to_owned()]]);
        assert_eq!(command[3], "--grep=math adds|^(math adds \\(x\\))$");
        assert_eq!(command[4], "--");
    }
}
