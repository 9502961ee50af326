//! ava: a project whose test script runs `ava` has its files listed and run by its own ava,
//! through tapline's driver (`tapline-ava.mjs`), with the script's flags and the project's
//! configuration (package.json `ava`, `ava.config.{js,cjs,mjs}`).
//!
//! - which files: ava has no list command, so the driver asks ava's own modules for the globs
//!   its CLI would glob (`files` with its `!` negations, or ava's defaults; `extensions`; the
//!   TypeScript provider's) and globs them as ava does, helpers, fixtures and `_` files left
//!   out; the script's own patterns (`ava test/a.js`) narrow them as ava's CLI does
//!   ([`Harness::list_through`]); an ava that keeps those modules elsewhere is listed by its
//!   documented defaults. Only listed files are ever named: ava runs a named file even when
//!   its configuration leaves it out.
//! - each file runs alone, `node tapline-ava.mjs run FILE FLAGS`: ava's own CLI with `--tap`,
//!   so its title has no file prefix; the driver writes the TAP reporter's points itself so
//!   that a failure carries the test file's line (ava 6's `at:` names ava's own assert.js) and
//!   ava's diff as a `diff:` tapline paints.
//! - files run side by side, as ava runs them, unless the script says `--serial` or
//!   `--concurrency=1`, in warm workers of this room's (its [`Driver`]): one node runs
//!   ava's CLI again for each of its files, saving ava's start per file; the tests of each
//!   file still run in a worker thread or process ava starts for it.
//! - `-t` narrows with ava's `--match`: a title glob, so a `/regex/` pattern runs the file
//!   whole.
use super::api::{Cx, Id, MissingInterpreter, Silent};
use super::driver::Driver;
use super::filter::{Filter, Narrow, Pattern, Probe};
use super::follow::{self, Follows, Through};
use super::Harness;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// ava, through tapline's driver.
pub(crate) struct Ava;
pub(crate) static AVA: Ava = Ava;

const ID: Id = "ava";
const DRIVER: &str = "tapline-ava.mjs";

/// The driver first, then what it loads beside it.
const FILES: &[(&str, &str)] = &[
    (DRIVER, include_str!("tapline-ava.mjs")),
    super::reporters::TAP_COMMON,
    super::reporters::WARM_POOL,
];

/// ava's options that take a value (the next word unless written `--x=v`).
const WITH_VALUE: &[&str] = &[
    "-c",
    "--concurrency",
    "-m",
    "--match",
    "--node-arguments",
    "-T",
    "--timeout",
    "--config",
    "--host",
    "--port",
];

/// Options a run of one file drops: tapline's run watches, and says `--tap` itself.
const DROPPED: &[&str] = &["--watch", "-w", "--tap", "-t", "--no-tap"];

/// The driver and what it loads, written on first use.
static DRIVER_FILES: Driver = Driver::new(ID, FILES);

/// The script's words after `ava`, when the command is ava's test run (not `ava debug`,
/// `ava reset-cache`).
fn ava_args(words: &[String]) -> Option<&[String]> {
    let (program, args) = follow::program(words)?;
    if program != "ava" {
        return None;
    }
    let sub = args.first().map(String::as_str);
    (!matches!(sub, Some("debug" | "reset-cache"))).then_some(args)
}

/// The script's words split: its options (with their values, and ava's own `--` tail of
/// worker arguments) and its file patterns.
fn split(args: &[String]) -> (Vec<String>, Vec<String>) {
    let mut options = Vec::new();
    let mut patterns = Vec::new();
    let mut words = args.iter();
    while let Some(word) = words.next() {
        if word == "--" {
            options.push(word.clone());
            options.extend(words.by_ref().cloned());
        } else if WITH_VALUE.contains(&word.as_str()) {
            options.push(word.clone());
            options.extend(words.next().cloned());
        } else if word.starts_with('-') {
            options.push(word.clone());
        } else {
            patterns.push(word.clone());
        }
    }
    (options, patterns)
}

/// Whether the script's options run ava's files one at a time (`--serial`, `--concurrency=1`).
fn serial(options: &[String]) -> bool {
    let one = |v: Option<&String>| v.is_some_and(|v| v.trim() == "1");
    options.iter().enumerate().any(|(i, w)| {
        matches!(
            w.as_str(),
            "--serial" | "-s" | "--concurrency=1" | "-c=1" | "-c1"
        ) || (matches!(w.as_str(), "--concurrency" | "-c") && one(options.get(i + 1)))
    })
}

impl Harness for Ava {
    fn id(&self) -> Id {
        ID
    }

    fn follows(&self, words: &[String]) -> Option<Follows> {
        let (options, _) = split(ava_args(words)?);
        Some(Follows {
            places: vec![Through::place(ID, words)],
            one_at_a_time: serial(&options)
                .then_some("ava runs files one after another (--serial or --concurrency=1)"),
            one_at_a_time_by_config: Some(serial_by_config),
            ..Follows::default()
        })
    }

    fn list_through(&self, words: &[String], cwd: &Path) -> Option<Result<Vec<PathBuf>, String>> {
        let (options, patterns) = split(ava_args(words)?);
        Some(list(&options, &patterns, cwd))
    }

    fn command_through(
        &self,
        words: &[String],
        path: &Path,
        _cx: &mut Cx<'_>,
    ) -> Result<Vec<OsString>, MissingInterpreter> {
        let (options, _) = split(ava_args(words).unwrap_or_default());
        let options = (options.iter())
            .filter(|w| !DROPPED.contains(&w.as_str()))
            .map(OsString::from);
        DRIVER_FILES.run_command(options, path)
    }

    fn silent(&self, _name: &str) -> Silent {
        Silent::Fails
    }

    fn dependency_folders(&self) -> &'static [&'static str] {
        &["node_modules"]
    }

    fn filter(&self, probe: &Probe<'_>) -> Option<Filter> {
        (probe.harness == Some(ID)).then_some(Filter::of(&Match))
    }

    fn worker(&self) -> Option<&'static dyn super::worker::Worker> {
        Some(&DRIVER_FILES)
    }
}

/// Why the project's ava runs files one after another by its configuration (package.json
/// `ava`, `ava.config.*`, or the one `--config` names), as ava's own loader reads it.
fn serial_by_config(words: &[String], cwd: &Path) -> Option<&'static str> {
    let (options, _) = split(ava_args(words)?);
    let said = DRIVER_FILES.ask(
        "serial",
        &config_word(&options).into_iter().collect::<Vec<_>>(),
        cwd,
    )?;
    Some(match said.as_str() {
        "serial" => "ava's configuration runs files one after another (serial: true)",
        "concurrency" => "ava's configuration runs files one after another (concurrency: 1)",
        _ => return None,
    })
}

/// `--config=FILE` when the script's options name ava's configuration file.
fn config_word(options: &[String]) -> Option<String> {
    options.iter().enumerate().find_map(|(i, w)| {
        if w == "--config" {
            options.get(i + 1).map(|v| format!("--config={v}"))
        } else {
            w.starts_with("--config=").then(|| w.clone())
        }
    })
}

/// The files ava would run for the script's `options` and `patterns`, from `cwd`.
fn list(options: &[String], patterns: &[String], cwd: &Path) -> Result<Vec<PathBuf>, String> {
    let config = config_word(options);
    let args = config
        .into_iter()
        .chain(["--".to_owned()])
        .chain(patterns.iter().cloned());
    let args: Vec<String> = args.collect();
    DRIVER_FILES.list(args.iter().map(std::ffi::OsStr::new), cwd)
}

/// ava's `--match`, a title glob (`*` any text), repeated: one for each known matching test
/// and one `*TEXT*` for each plain pattern (tests known only at run time). A `/regex/` has no
/// glob: then no `--match` at all, the file runs whole.
struct Match;

impl Narrow for Match {
    fn said(&self) -> &'static str {
        "ava --match"
    }

    fn narrow(&self, command: &mut Vec<OsString>, patterns: &[Pattern], matching: &[Vec<String>]) {
        // Before ava's own `--` (what follows it goes to the test workers), else before the
        // file, the last word.
        let at = command
            .iter()
            .position(|w| w == "--")
            .unwrap_or(command.len().saturating_sub(1));
        let words = matches(patterns, matching).into_iter().map(OsString::from);
        command.splice(at..at, words);
    }
}

/// The `--match=` words for `patterns` and the known `matching` tests (an ava test's name is
/// its title: one level).
fn matches(patterns: &[Pattern], matching: &[Vec<String>]) -> Vec<String> {
    if patterns.iter().any(|p| !p.plain) {
        return Vec::new();
    }
    let known = matching.iter().map(|n| n.join(" > "));
    let plain = patterns.iter().map(|p| format!("*{}*", p.text));
    plain
        .chain(known)
        .map(|glob| format!("--match={glob}"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::driver::testing::{run_words, words};

    #[test]
    fn follows_ava_with_its_flags_side_by_side_unless_serial() {
        let f = AVA.follows(&words("ava --verbose")).expect("follows");
        assert_eq!(f.places, [Through::place(ID, &words("ava --verbose"))]);
        assert_eq!(f.one_at_a_time, None);
        for serial in ["ava --serial", "ava -c 1", "ava --concurrency=1", "ava -s"] {
            let f = AVA.follows(&words(serial)).expect("follows");
            assert!(f.one_at_a_time.is_some(), "{serial}");
        }
        assert!(AVA
            .follows(&words("ava -c 2"))
            .expect("follows")
            .one_at_a_time
            .is_none());
        assert!(AVA.follows(&words("ava reset-cache")).is_none());
        assert!(AVA.follows(&words("tsd")).is_none());
    }

    #[test]
    fn the_scripts_patterns_are_not_its_options() {
        let (options, patterns) = split(&words(
            "--timeout 2m test/a.js -m foo --verbose test/b.js -- --x y",
        ));
        assert_eq!(
            options,
            words("--timeout 2m -m foo --verbose -- --x y"),
            "values and the worker arguments stay with the options"
        );
        assert_eq!(patterns, words("test/a.js test/b.js"));
    }

    #[test]
    fn a_file_runs_alone_through_the_driver_with_the_scripts_options() {
        assert_eq!(
            run_words(
                &AVA,
                "ava --watch --timeout=1m test/ --verbose",
                "test/a.js",
                DRIVER
            ),
            ["run", "--timeout=1m", "--verbose", "test/a.js"]
        );
    }

    #[test]
    fn match_globs_plain_patterns_and_known_titles_and_not_a_regex() {
        let plain = Pattern::parse("range").expect("pattern");
        let got = matches(
            std::slice::from_ref(&plain),
            &[vec!["range counts up".to_owned()]],
        );
        assert_eq!(got, ["--match=*range*", "--match=range counts up"]);
        let mut command: Vec<OsString> = ["node", "d.mjs", "run", "--verbose", "t.js"]
            .map(OsString::from)
            .to_vec();
        Match.narrow(&mut command, std::slice::from_ref(&plain), &[]);
        assert_eq!(
            command[4], "--match=*range*",
            "before the file, the last word"
        );
        assert_eq!(command[5], "t.js");
        let re = Pattern::parse("/^r/").expect("pattern");
        assert!(matches(&[plain, re], &[]).is_empty());
    }
}
