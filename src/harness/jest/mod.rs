//! jest: a project whose test script runs `jest` has its files listed and run by its own jest,
//! through tapline's driver (`tapline-jest.cjs`) and reporter, with the script's flags and the
//! project's configuration (`jest.config.*`, package.json `jest`).
//!
//! - which files: the ones `jest --listTests` names for the script's flags and config
//!   (`testMatch`/`testRegex`, `roots`, `projects`, `--selectProjects`, path patterns); the
//!   driver asks jest's own `runCLI` ([`Harness::list_through`]).
//! - each file runs alone, `node tapline-jest.cjs run FLAGS -- FILE`: the script's flags read
//!   by jest's own parser, less what would run other files or print on stdout (its path
//!   patterns, `--watch`, `--coverage`, `--json`…), plus `--runTestsByPath FILE`, `--ci` (no
//!   snapshot written) and tapline's reporter alone; TAP 14, a point per test
//!   (`describe > test`), the failure's place as jest maps it (TypeScript through ts-jest's or
//!   babel's source maps).
//! - files run in a warm worker of this room's (its [`Driver`]): one node that loaded jest
//!   runs the files one after another through `runCLI`, instead of jest's start per file.
//! - side by side unless the script says `--runInBand` (`-i`): jest runs files in parallel
//!   workers.
//! - `-t` narrows with jest's `--testNamePattern`, over a test's titles joined by a space as
//!   jest matches them.
use super::api::{Cx, Id, MissingInterpreter, Silent};
use super::driver::{before_the_file, titles_pattern, Driver};
use super::filter::{Filter, Narrow, Pattern, Probe};
use super::follow::{self, Follows, Through};
use super::Harness;
use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};

/// jest, through tapline's driver.
pub(crate) struct Jest;
pub(crate) static JEST: Jest = Jest;

const ID: Id = "jest";
const DRIVER: &str = "tapline-jest.cjs";

/// The driver first, then what it loads beside it.
const FILES: &[(&str, &str)] = &[
    (DRIVER, include_str!("tapline-jest.cjs")),
    (
        "tapline-jest-reporter.cjs",
        include_str!("tapline-jest-reporter.cjs"),
    ),
    super::reporters::TAP_COMMON,
    super::reporters::WARM_POOL,
];

/// The driver and what it loads, written on first use.
static DRIVER_FILES: Driver = Driver::new(ID, FILES);

/// The script's words when its program is jest: `jest …`, `node_modules/.bin/jest …`
/// (`npx` is taken off before).
fn jest_words(words: &[String]) -> Option<&[String]> {
    let (program, _) = follow::program(words)?;
    (program == "jest").then_some(words)
}

/// Whether the script's words say jest's `--runInBand` (`-i`): its files one after another.
fn in_band(args: &[String]) -> bool {
    args.iter()
        .any(|a| matches!(a.as_str(), "--runInBand" | "-i" | "--runInBand=true"))
}

impl Harness for Jest {
    fn id(&self) -> Id {
        ID
    }

    fn follows(&self, words: &[String]) -> Option<Follows> {
        let words = jest_words(words)?;
        Some(Follows {
            places: vec![Through::place(ID, words)],
            one_at_a_time: in_band(&words[1..])
                .then_some("jest runs files one after another (--runInBand)"),
            ..Follows::default()
        })
    }

    fn list_through(&self, words: &[String], cwd: &Path) -> Option<Result<Vec<PathBuf>, String>> {
        let words = jest_words(words)?;
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
        (probe.harness == Some(ID)).then_some(Filter::of(&NamePattern))
    }

    fn worker(&self) -> Option<&'static dyn super::worker::Worker> {
        Some(&DRIVER_FILES)
    }
}

/// The files jest would run for the script's flags `args`, from `cwd`.
fn list(args: &[String], cwd: &Path) -> Result<Vec<PathBuf>, String> {
    DRIVER_FILES.list(args.iter().map(OsStr::new), cwd)
}

/// jest's `--testNamePattern`, put before the driver's `--`: jest matches it against a
/// test's titles joined by a space.
struct NamePattern;

impl Narrow for NamePattern {
    fn said(&self) -> &'static str {
        "jest --testNamePattern"
    }

    fn narrow(&self, command: &mut Vec<OsString>, patterns: &[Pattern], matching: &[Vec<String>]) {
        let pattern = titles_pattern(patterns, matching);
        before_the_file(command, format!("--testNamePattern={pattern}"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::driver::testing::{run_words, words};

    #[test]
    fn follows_jest_with_its_flags_side_by_side_unless_in_band() {
        let f = JEST
            .follows(&words("jest --coverage --selectProjects a"))
            .expect("follows");
        assert_eq!(
            f.places,
            [Through::place(
                ID,
                &words("jest --coverage --selectProjects a")
            )]
        );
        assert_eq!(f.one_at_a_time, None);
        let f = JEST
            .follows(&words("node_modules/.bin/jest -i"))
            .expect("follows");
        assert!(f.one_at_a_time.is_some(), "--runInBand: one at a time");
        assert!(JEST.follows(&words("mocha test/")).is_none());
        assert!(JEST.follows(&words("jest-junit")).is_none());
    }

    #[test]
    fn a_file_runs_alone_through_the_driver_with_the_scripts_flags() {
        assert_eq!(
            run_words(&JEST, "jest --ci src/", "src/a.spec.ts", DRIVER),
            ["run", "--ci", "src/", "--", "src/a.spec.ts"]
        );
    }

    #[test]
    fn the_name_pattern_joins_titles_by_a_space_and_goes_before_the_file() {
        let p = Pattern::parse("math > adds").expect("pattern");
        let mut command: Vec<OsString> = ["node", "d.cjs", "run", "--", "t.js"]
            .map(OsString::from)
            .to_vec();
        NamePattern.narrow(&mut command, &[p], &[vec!["math > adds (x)".to_owned()]]);
        assert_eq!(
            command[3],
            "--testNamePattern=math adds|^(math adds \\(x\\))$"
        );
        assert_eq!(command[4], "--");
    }
}
