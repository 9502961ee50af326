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
//! - files run in a warm worker of this room's ([`worker::Worker`]): one node that loaded jest
//!   runs the files one after another through `runCLI`, instead of jest's start per file.
//! - side by side unless the script says `--runInBand` (`-i`): jest runs files in parallel
//!   workers.
//! - `-t` narrows with jest's `--testNamePattern`, over a test's titles joined by a space as
//!   jest matches them.
use super::api::{Cx, Id, MissingInterpreter, Silent};
use super::filter::{Filter, Narrow, Pattern, Probe};
use super::follow::{self, Follows, Through};
use super::Harness;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

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
];

/// The driver's path, written once per process into the hooks' folder.
fn driver() -> Result<PathBuf, String> {
    static DIR: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    DIR.get_or_init(|| {
        super::hooks::versioned_hooks("jest", FILES)
            .map(|dir| dir.join(DRIVER))
            .map_err(|e| format!("failed to write tapline's jest driver: {e}"))
    })
    .clone()
}

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
        let driver = driver().map_err(|hint| MissingInterpreter {
            program: "jest".to_owned(),
            file: path.to_path_buf(),
            hint: format!(": {hint}"),
        })?;
        let mut argv: Vec<OsString> = vec!["node".into(), driver.into(), "run".into()];
        argv.extend(words.iter().skip(1).map(OsString::from));
        argv.push("--".into());
        argv.push(path.as_os_str().to_owned());
        Ok(argv)
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
        Some(&WORKER)
    }
}

/// The files jest would run for the script's flags `args`, from `cwd`.
fn list(args: &[String], cwd: &Path) -> Result<Vec<PathBuf>, String> {
    let driver = driver()?;
    let node = crate::util::which::find("node".as_ref(), cwd)
        .ok_or("node is not installed (jest runs under node)")?;
    let out = std::process::Command::new(node)
        .arg(&driver)
        .arg("list")
        .args(args)
        .current_dir(cwd)
        .env("TAPLINE", "1")
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| format!("failed to start node: {e}"))?;
    if !out.status.success() {
        let said = String::from_utf8_lossy(&out.stderr);
        let line = said
            .lines()
            .find(|l| l.starts_with("tapline: "))
            .or_else(|| said.lines().find(|l| !l.trim().is_empty()))
            .unwrap_or("jest's listing failed");
        return Err(line.trim_start_matches("tapline: ").to_owned());
    }
    Ok(String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| !l.is_empty())
        .map(PathBuf::from)
        .collect())
}

/// jest's `--testNamePattern`, put before the driver's `--`.
struct NamePattern;

impl Narrow for NamePattern {
    fn said(&self) -> &'static str {
        "jest --testNamePattern"
    }

    fn narrow(&self, command: &mut Vec<OsString>, patterns: &[Pattern], matching: &[Vec<String>]) {
        let pattern = name_pattern(patterns, matching);
        let at = command
            .iter()
            .rposition(|w| w == "--")
            .unwrap_or(command.len());
        command.insert(at, format!("--testNamePattern={pattern}").into());
    }
}

/// jest matches `--testNamePattern` against a test's titles joined by a space; a point's name
/// here joins them by ` > `. The patterns' substrings, the known matching tests anchored, and
/// the regular expressions for tests known only at run time.
fn name_pattern(patterns: &[Pattern], matching: &[Vec<String>]) -> String {
    let titles = |name: &str| name.replace(" > ", " ");
    let mut all: Vec<String> = patterns
        .iter()
        .filter(|p| p.plain)
        .map(|p| regex::escape(&titles(&p.text)))
        .collect();
    let own: Vec<String> = matching
        .iter()
        .map(|n| regex::escape(&titles(&n.join(" > "))))
        .collect();
    if !own.is_empty() {
        all.push(format!("^({})$", own.join("|")));
    }
    all.extend(
        patterns
            .iter()
            .filter(|p| !p.plain)
            .map(|p| p.source().to_owned()),
    );
    all.join("|")
}

/// The warm worker: the driver serves files from stdin when the pool starts it.
struct Worker;
static WORKER: Worker = Worker;

impl super::worker::Worker for Worker {
    fn runs(&self, program: &str) -> bool {
        matches!(program, "node" | "nodejs")
    }

    fn files(&self) -> &'static [(&'static str, &'static str)] {
        FILES
    }

    fn key_extra(&self, _path: &Path, _asked: bool) -> Option<bool> {
        Some(false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Vec<String> {
        line.split_whitespace().map(str::to_owned).collect()
    }

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
        let mut memo = super::super::api::Memo::default();
        let settings = super::super::api::Settings::default();
        let mut cx = Cx {
            cwd: Path::new("/p"),
            root: Path::new("/p"),
            settings: &settings,
            memo: &mut memo,
        };
        let argv = JEST
            .command_through(
                &words("jest --ci src/"),
                Path::new("src/a.spec.ts"),
                &mut cx,
            )
            .expect("command");
        let shown: Vec<String> = argv.iter().map(|w| w.to_string_lossy().into()).collect();
        assert_eq!(shown[0], "node");
        assert!(shown[1].ends_with(DRIVER), "{shown:?}");
        assert_eq!(shown[2..], ["run", "--ci", "src/", "--", "src/a.spec.ts"]);
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
