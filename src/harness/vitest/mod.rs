//! vitest: a project whose test script runs `vitest` has its files listed and run by its own
//! vitest, through tapline's driver (`tapline-vitest.mjs`) and reporter, with the script's
//! flags and the project's configuration (vitest.config.*, vite.config.*, `projects`).
//!
//! - which files: `vitest list --filesOnly --json` with the script's flags, as the project's
//!   own vitest answers ([`Harness::list_through`]); a file several projects include once.
//! - each file runs alone, `node tapline-vitest.mjs run FLAGS -- FILE`: vitest reads a file on
//!   its command line as a substring filter (`math` runs `mathx.test.ts` too), so the driver
//!   runs the test specifications of exactly FILE, in every project that includes it.
//! - a bare `vitest` (watch mode) runs as `vitest run`; coverage is off (one file's coverage
//!   is no project's coverage, and tapline reads none of vitest's).
//! - files run in a warm worker of this room's (its [`Driver`]): one vitest (its vite
//!   server, its config) runs the files one after another.
//! - `-t` narrows with vitest's `--testNamePattern`, over a test's names joined by a space as
//!   vitest matches them.
use super::api::{Cx, Id, MissingInterpreter, Silent};
use super::driver::{before_the_file, titles_pattern, Driver};
use super::filter::{Filter, Narrow, Pattern, Probe};
use super::follow::{self, Follows, Through};
use super::Harness;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// vitest, through tapline's driver.
pub(crate) struct Vitest;
pub(crate) static VITEST: Vitest = Vitest;

const ID: Id = "vitest";
const DRIVER: &str = "tapline-vitest.mjs";

/// The driver first, then what it loads beside it.
const FILES: &[(&str, &str)] = &[
    (DRIVER, include_str!("tapline-vitest.mjs")),
    (
        "tapline-vitest-reporter.mjs",
        include_str!("tapline-vitest-reporter.mjs"),
    ),
    super::reporters::TAP_COMMON,
    super::reporters::WARM_POOL,
];

/// The driver and what it loads, written on first use.
static DRIVER_FILES: Driver = Driver::new(ID, FILES);

/// The script's words after `vitest` when they run tests: no subcommand (watch mode, run
/// here as `vitest run`), `run`, `watch` or `dev`; `None` for `bench`, `list`, `related`, `init`.
fn test_args(words: &[String]) -> Option<&[String]> {
    let (program, args) = follow::program(words)?;
    if program != "vitest" {
        return None;
    }
    match args
        .iter()
        .find(|w| !w.starts_with('-'))
        .map(String::as_str)
    {
        None | Some("run" | "watch" | "dev") => Some(args),
        // A positional word that is no subcommand is a file filter of a bare `vitest`.
        Some(word) if !matches!(word, "bench" | "list" | "related" | "init" | "typecheck") => {
            Some(args)
        }
        Some(_) => None,
    }
}

/// Whether the script's flags run files one after another.
fn serial(args: &[String]) -> bool {
    args.iter().any(|a| {
        matches!(
            a.as_str(),
            "--no-file-parallelism" | "--fileParallelism=false" | "--maxWorkers=1"
        )
    })
}

/// Why the project's vitest, as its configuration resolves (vitest.config.*, vite.config.*,
/// its projects'), runs files one after another: the driver asks vitest itself.
fn serial_by_config(words: &[String], cwd: &Path) -> Option<&'static str> {
    let args: Vec<String> = words.iter().skip(1).cloned().collect();
    let said = DRIVER_FILES.ask("serial", &args, cwd)?;
    Some(match said.as_str() {
        "fileParallelism" => {
            "vitest's configuration runs files one after another (fileParallelism: false)"
        }
        "maxWorkers" => "vitest's configuration runs files one after another (maxWorkers: 1)",
        "singleFork" => {
            "vitest's configuration runs files one after another (poolOptions.forks.singleFork)"
        }
        "singleThread" => {
            "vitest's configuration runs files one after another (poolOptions.threads.singleThread)"
        }
        _ => return None,
    })
}

impl Harness for Vitest {
    fn id(&self) -> Id {
        ID
    }

    fn follows(&self, words: &[String]) -> Option<Follows> {
        let args = test_args(words)?;
        Some(Follows {
            places: vec![Through::place(ID, words)],
            one_at_a_time: serial(args)
                .then_some("vitest runs files one after another (--no-file-parallelism)"),
            one_at_a_time_by_config: Some(serial_by_config),
            ..Follows::default()
        })
    }

    fn list_through(&self, words: &[String], cwd: &Path) -> Option<Result<Vec<PathBuf>, String>> {
        let args = test_args(words)?;
        Some(list(args, cwd))
    }

    fn command_through(
        &self,
        words: &[String],
        path: &Path,
        _cx: &mut Cx<'_>,
    ) -> Result<Vec<OsString>, MissingInterpreter> {
        // The script's file filters stay: the driver reads its options only.
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

/// vitest's subcommands that run tests.
fn is_subcommand(word: &str) -> bool {
    matches!(word, "run" | "watch" | "dev")
}

/// The project's own vitest: its package folder, found as node finds a package from `cwd`.
fn vitest_home(cwd: &Path) -> Option<PathBuf> {
    cwd.ancestors()
        .map(|d| d.join("node_modules").join("vitest"))
        .find(|home| home.join("package.json").is_file())
}

/// vitest's command line program in its package folder (`bin.vitest`).
fn vitest_bin(home: &Path) -> PathBuf {
    let bin = std::fs::read_to_string(home.join("package.json"))
        .ok()
        .and_then(|text| serde_json::from_str::<serde_json::Value>(&text).ok())
        .and_then(|json| match json.get("bin")? {
            serde_json::Value::String(s) => Some(s.clone()),
            serde_json::Value::Object(map) => map.get("vitest")?.as_str().map(str::to_owned),
            _ => None,
        });
    home.join(bin.as_deref().unwrap_or("vitest.mjs"))
}

/// The files vitest would run for the script's flags `args`, from `cwd`.
fn list(args: &[String], cwd: &Path) -> Result<Vec<PathBuf>, String> {
    let home = vitest_home(cwd)
        .ok_or_else(|| format!("vitest is not installed in {} (npm install)", cwd.display()))?;
    let node = crate::util::which::find("node".as_ref(), cwd)
        .ok_or("node is not installed (vitest runs under node)")?;
    // `vitest list` takes the run's flags and filters; its subcommand replaces `run`.
    let mut rest: Vec<&String> = args.iter().collect();
    if let Some(at) = rest.iter().position(|w| !w.starts_with('-')) {
        if is_subcommand(rest[at]) {
            rest.remove(at);
        }
    }
    let out = std::process::Command::new(node)
        .arg(vitest_bin(&home))
        .args(["list", "--filesOnly", "--json"])
        .args(rest)
        .current_dir(cwd)
        .env("TAPLINE", "1")
        .env("NO_COLOR", "1")
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| format!("failed to start node: {e}"))?;
    let text = String::from_utf8_lossy(&out.stdout);
    let listed = parse_list(&text, cwd);
    match listed {
        Some(files) if out.status.success() || !files.is_empty() => Ok(files),
        _ => {
            let said = String::from_utf8_lossy(&out.stderr);
            let line = said
                .lines()
                .map(str::trim)
                .find(|l| !l.is_empty() && !l.starts_with('⎯'))
                .unwrap_or("vitest's listing failed");
            Err(format!("vitest list: {line}"))
        }
    }
}

/// The files of `vitest list --filesOnly --json`'s output, relative to `cwd`, each once, in
/// vitest's order; `None` when it holds no such list.
fn parse_list(text: &str, cwd: &Path) -> Option<Vec<PathBuf>> {
    let json: serde_json::Value = serde_json::from_str(&text[text.find('[')?..]).ok()?;
    let mut files: Vec<PathBuf> = Vec::new();
    for entry in json.as_array()? {
        let Some(file) = entry.get("file").and_then(|f| f.as_str()) else {
            continue;
        };
        let path = Path::new(file);
        let rel = path.strip_prefix(cwd).unwrap_or(path).to_path_buf();
        if !files.contains(&rel) {
            files.push(rel);
        }
    }
    Some(files)
}

/// vitest's `--testNamePattern`, put before the driver's `--`: vitest matches it against a
/// test's names joined by a space.
struct NamePattern;

impl Narrow for NamePattern {
    fn said(&self) -> &'static str {
        "vitest --testNamePattern"
    }

    fn narrow(&self, command: &mut Vec<OsString>, patterns: &[Pattern], matching: &[Vec<String>]) {
        let pattern = titles_pattern(patterns, matching);
        before_the_file(command, format!("--testNamePattern={pattern}"));
    }
}

#[cfg(test)]
mod tests;
