//! The words every harness room and the generic layers share: what a room says about a file
//! (its built-in rules, how it may run beside others, how it is judged when silent), and the
//! little a room may ask of the run while it makes a file's command.
use std::any::Any;
use std::collections::HashMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// A harness's name, as the registry knows it: `"prove"`, `"pytest"`, `"bats"`…
pub type Id = &'static str;

/// A built-in runner rule of a harness, tried after the user's `[[runner]]` rules.
#[derive(Debug)]
pub struct Builtin {
    /// The files it runs when named or matched by a glob (a file-name glob).
    pub glob: &'static str,
    /// The ones of those a directory walk yields, when fewer: the rest are helpers. Empty
    /// means every file `glob` matches.
    pub walk: &'static [&'static str],
    /// `{}` stands for the file.
    pub command: &'static [&'static str],
}

/// A file a directory walk found that one of a harness's rules maps, as [`super::Harness::takes`]
/// sees it.
pub struct Candidate<'a> {
    /// As found (relative to the cwd, or absolute).
    pub path: &'a Path,
    /// The cwd `path` is relative to, for a harness that reads the file (pgTAP's plan).
    pub cwd: &'a Path,
    /// Its file name.
    pub name: &'a str,
    /// The folder walked was named as holding tests (by the project or the user).
    pub in_test_folder: bool,
}

/// What a run knows while it makes the commands of its files, and what a room looked up once
/// for all of them.
pub struct Cx<'a> {
    pub cwd: &'a Path,
    pub root: &'a Path,
    /// `[run]` keys of `tapline.toml` a room reads (`ts_runner`).
    pub settings: &'a Settings,
    pub memo: &'a mut Memo,
}

/// The `[run]` settings the rooms own, as `tapline.toml` gave them.
#[derive(Debug, Default, Clone)]
pub struct Settings {
    /// `ts_runner`: the command TypeScript files run with.
    pub ts_runner: Option<Vec<String>>,
    /// `chromium`: the browser pages run in.
    pub browser: Option<PathBuf>,
}

/// What rooms looked up once per discovery (the test runner found, the project's kind), by
/// harness and name.
#[derive(Default)]
pub struct Memo(HashMap<(Id, &'static str), Box<dyn Any + Send>>);

impl Memo {
    /// The value stored under `key`, made by `make` the first time.
    pub fn get_or_insert_with<T: Clone + Send + 'static>(
        &mut self,
        key: (Id, &'static str),
        make: impl FnOnce() -> T,
    ) -> T {
        if let Some(value) = self.0.get(&key).and_then(|v| v.downcast_ref::<T>()) {
            return value.clone();
        }
        // One key holds one type: a value of another type under it is replaced.
        let value = make();
        self.0.insert(key, Box::new(value.clone()));
        value
    }
}

/// A file's command made by its harness, and the harness that then runs it (a Python file
/// may run under pytest, or as a plain program).
#[derive(Debug)]
pub struct Made {
    pub command: Result<Vec<OsString>, MissingInterpreter>,
    pub harness: Id,
    /// Where the file runs when not from the run's folder (a shell test library's `t/`, as its
    /// `cd t && make` runs it); absolute. The command's words are then from there.
    pub cwd: Option<PathBuf>,
}

/// What a test file runs in: the host a harness gives it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Host {
    /// Its command, as a child process.
    #[default]
    Process,
    /// A page in the run's browser (the page host's rule or file names); its command is the
    /// browser's, as `--list` shows it.
    Page,
}

/// Where a file runs, as its name asks (`a.browser.js`: a page; `a.both.ts`: both).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hosts {
    /// As a process, by its command.
    pub process: bool,
    /// As a page in the run's browser.
    pub page: bool,
}

/// The names a file run in more than one host carries after its path, `FILE (HOST)`: the
/// process host (node) and the page host (the browser), as `--list`, logs and reports show them.
pub const HOST_NAMES: [&str; 2] = ["node", "chromium"];

/// The file a run entry stands for: a file that runs in two hosts runs twice, as
/// `FILE (HOST)` each ([`HOST_NAMES`]).
pub fn file_rel(rel: &str) -> &str {
    host_of(rel).map_or(rel, |(file, _)| file)
}

/// `FILE (HOST)` as the file and its host, when `rel` names one of [`HOST_NAMES`].
pub fn host_of(rel: &str) -> Option<(&str, &str)> {
    let (file, host) = rel.rsplit_once(" (")?;
    let host = host.strip_suffix(')')?;
    HOST_NAMES.contains(&host).then_some((file, host))
}

/// The words `line` puts on a command line, right after its program.
pub(crate) fn insert_after_program(command: &mut Vec<OsString>, words: Vec<String>) {
    let at = 1.min(command.len());
    command.splice(at..at, words.into_iter().map(OsString::from));
}

/// How a file that prints no TAP is judged: as its own harness would judge it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Silent {
    /// It fails, `no TAP output` (a shell script, an executable: no harness says otherwise).
    #[default]
    Fails,
    /// It fails with the reason `No subtests run`, as its harness words it.
    NoSubtests,
    /// Its harness counts it as a file with no tests, not as a failure: when it exits 0 it is
    /// `no tests`, neither passed nor failed.
    NoTests,
}

/// Which of a TAP file's points are its tests, as its harness counts them (per-file line,
/// summary, jsonl, history).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Counting {
    /// Its top-level points: a subtest is one test, as prove counts (node:test's streams are
    /// told apart and counted as node counts them).
    #[default]
    TopLevel,
    /// Every assertion at every depth, a subtest's point only where it says more than its
    /// inside does: as node-tap counts (event/leaves.rs's `AssertTally`).
    Asserts,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{program}` is not installed (needed to run {file}){hint}")]
pub struct MissingInterpreter {
    pub program: String,
    pub file: PathBuf,
    /// How to get it, as `: …` (empty when the name says enough).
    pub hint: String,
}

/// How a file may run beside others.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, PartialOrd, Ord, Hash)]
pub enum Lane {
    /// With any other free file, up to `-j` (a run whose harness runs files side by side).
    #[default]
    Free,
    /// Alone: its harness runs files one at a time.
    Alone,
    /// With the other files of its group only (its harness's parallel group `N`).
    Group(u32),
}

impl Lane {
    /// Whether a file of this lane may start while one of `other` runs.
    pub(crate) fn fits_beside(self, other: Lane) -> bool {
        match (self, other) {
            (Lane::Free, Lane::Free) => true,
            (Lane::Group(a), Lane::Group(b)) => a == b,
            _ => false,
        }
    }
}

/// A program a harness runs once around a run's files (node-tap's `before`/`after`).
#[derive(Debug, Clone, PartialEq)]
pub struct Script {
    /// What it is, as said in the run's report (`tap's before test/setup.js`).
    pub what: String,
    /// Its command, run from the project's folder.
    pub argv: Vec<OsString>,
    /// Its file, from the project's folder: never a test of its own.
    pub file: PathBuf,
}

/// What a harness runs once before a run's files and once after them.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Around {
    pub before: Option<Script>,
    pub after: Option<Script>,
}
