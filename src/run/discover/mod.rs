//! Test discovery: which files `tapline run` runs, and the command that runs each.
//!
//! Each PATH argument is a file (run even if no rule would pick it in a walk), a directory
//! (walked recursively) or a glob matched against paths relative to the cwd. With no argument,
//! the run follows the project ([`walk`]): the `test_dirs` of `tapline.toml`, else the test
//! command `package.json` declares ([`project`]), else `test/`, `tests/` and `t/`, whichever
//! exist (a project a harness owns may say fewer: [`registry::owner`]). Walks honour
//! `.gitignore` (even outside a git repository) and skip hidden entries, every harness's
//! dependency folders ([`registry::dependency_folders`]) and fixture folders ([`naming`]).
//!
//! A file found by a walk or a glob is a test when a runner rule maps it — the `[[runner]]`
//! rules of `tapline.toml` first, then the harnesses' ([`registry::builtin_rules`]). A directory walk yields fewer
//! files than a rule's glob: a built-in rule may name the files it takes in a walk (the test
//! names of its language, not the helper modules beside them; each room's rules say which),
//! as the languages' own harnesses do; in a project or a folder a harness holds wholly
//! ([`folder`], [`registry::folder`]), a walk yields what that harness runs only. A walk never
//! takes a file for being executable: a project's maintenance script (`test/run`, which may
//! run `make install`) is no test. A file named explicitly or matched by a glob needs only a
//! rule, or to be executable.
//!
//! The command comes from the rule, shaped by the file's `#!` line as its own harness would
//! shape it (each harness's [`Harness::by_line`]: an interpreter that insists on its taint and
//! warning switches gets them, others the line's flags, a shell file asking for another shell
//! gets that shell). A file no rule maps runs by its `#!`
//! line (the interpreter started by tapline, the line's words split), else directly.
//!
//! With `--exec`, a walk yields the same files and each runs with that command, as written;
//! a file named explicitly or matched by a glob runs with it whatever it is.
use super::config::{Config, RunnerRule};
use crate::harness::api::{Candidate, Cx, Hosts, Id, Memo, Settings};
use crate::harness::shebang::Shebang;
use crate::harness::{registry, Harness};
use globset::{GlobBuilder, GlobSet, GlobSetBuilder};
use std::collections::{BTreeMap, HashMap};
use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};

use crate::util::paths::{normalize, relative};
use crate::util::which::{self, is_executable_file};
use words::{fill, program_path, split_words};
pub use words::{list_line, log_name};

mod collected;
mod folder;
mod naming;
mod passed_over;
mod project;
pub use passed_over::{passed_over_notes, PassedOver, PassedOverWhy, SHOWN_REASONS};
#[cfg(test)]
mod tests;
mod through;
mod walk;
mod words;
mod workspace;
use crate::protocol::InputFormat;

#[derive(Debug, Clone, PartialEq)]
pub struct TestFile {
    /// As given, or as found under an argument; relative paths are relative to the cwd, which
    /// is where the command must run.
    pub path: PathBuf,
    /// Relative to the project root, with '/' separators (`..` components if outside it).
    pub rel: String,
    pub command: Result<Vec<OsString>, MissingInterpreter>,
    pub input: Input,
}

/// How a test's output is read and where it runs: a file's is TAP from the cwd unless its
/// `[[runner]]` rule says otherwise; a `[[suite]]`'s is its own.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Input {
    pub format: InputFormat,
    /// JUnit report files (a glob relative to where it runs) read when the command ends.
    pub report: Option<String>,
    /// Where the command runs, when not the cwd (a suite's `dir`).
    pub cwd: Option<PathBuf>,
    /// A `[[suite]]`, not a file.
    pub suite: bool,
    /// Why it does not run and counts as skipped (an optional suite's missing program).
    pub skip: Option<String>,
    /// Why it cannot run and fails, never started (a workspace's package whose test script
    /// runs a harness tapline does not follow): said instead of its command's error.
    pub cannot_run: Option<String>,
    /// How it is judged when it prints no TAP.
    pub silent: Silent,
    /// What runs it: its command as a process, or a page in the run's browser.
    pub host: Host,
    /// Its `[[runner]]` rule's `merge`: whether its stdout and stderr are one pipe (`None`: by
    /// its program, see [`crate::run::runners::streams`]).
    pub merge: Option<bool>,
    /// A go suite's module and its folder: its failures' locations are then relative to the
    /// project root, not to their package's folder.
    pub go_packages: Option<crate::protocol::gojson::PackageDirs>,
    /// The folder's init module, loaded before the file in its process or bundle
    /// ([`crate::harness::Harness::init_of`]); absolute.
    pub init: Option<PathBuf>,
    /// How it may run beside other files, as the harness of the script the run follows says
    /// by the file's name ([`crate::harness::api::Lane`]).
    pub lane: crate::harness::api::Lane,
    /// Which of its points are tests, as the harness that runs it counts them.
    pub counting: crate::harness::api::Counting,
    /// The harness that runs it, when a built-in rule mapped it
    /// ([`crate::harness::registry::harness`]): what it runs with comes from there.
    pub harness: Option<Id>,
    /// Its `[[runner]]` rule's `warm`: whether it may run in a warm worker (`None`: as its
    /// harness's worker says, [`crate::run::worker`]).
    pub warm: Option<bool>,
    /// How its command narrows to named tests, for a retry of only its failed tests (set
    /// when the run retries or `-t` narrowed it; `None` for a framework without a filter).
    pub refilter: Option<crate::run::test_filter::Refilter>,
    /// `-t`'s patterns, for a file run whole because its framework has no filter: the tests
    /// they do not select are reported as not selected ([`crate::run::not_selected`]).
    pub selection: Option<crate::run::not_selected::Selection>,
}

pub use crate::harness::api::Host;

pub use crate::harness::api::{MissingInterpreter, Silent};

#[derive(Debug, thiserror::Error)]
pub enum DiscoverError {
    #[error("failed to find test files: no file matches `{0}`")]
    NoMatch(String),
    /// Names the places looked in.
    #[error(
        "failed to find test files in {0}: no file there is named as a test (by a runner rule, or as its language's harness names tests; a walk runs nothing for being executable)"
    )]
    NoTests(String),
    /// As `NoTests`, with `--exec`: a directory still yields only test files.
    #[error(
        "failed to find test files in {0}: with --exec a directory still yields only its test files (those named as tests by a runner rule or their language's harness); name the files, or a glob, to run others"
    )]
    NoExecTests(String),
    /// No PATH and none of the folders looked for exists (those a project's owner names, or
    /// `test/`, `tests/`, `t/`, or `test_dirs`).
    #[error(
        "failed to find test files: no test folder here (looked for {0}); name a folder or file, or set `test_dirs` in tapline.toml (`tapline init` writes one)"
    )]
    NoTestFolder(String),
    /// A harness's project with no test folder and no file its harness would take
    /// ([`crate::harness::Harness::project_files`]): why, as the harness words it.
    #[error("failed to find test files: {0}")]
    NoProjectFiles(&'static str),
    /// The folders exist and hold nothing at all.
    #[error("failed to find test files in {0}: the folder is empty")]
    EmptyFolder(String),
    /// The project's test command names places where nothing runs.
    #[error("failed to find test files: {0} names no file tapline can run; name a folder or file")]
    NoDeclaredTests(String),
    #[error("failed to find how to run {0}: no runner rule matches it and it is not executable")]
    NoRunner(PathBuf),
    /// The project's test script runs a harness tapline does not follow: named, with the
    /// entry that would run its files ([`project::Unfollowed::message`]).
    #[error("{0}")]
    Unfollowed(String),
    /// A monorepo's declaration of its packages could not be read.
    #[error("failed to read the workspace: {0}")]
    Workspace(String),
    /// The harness of the project's test command could not list the files it runs.
    #[error("failed to list the test files of `{command}`: {why}")]
    Listed { command: String, why: String },
    /// A harness whose own session decides its files cannot run them at all (the harness
    /// missing from the project's interpreter, a usage error in its configuration): one error.
    #[error("failed to run {harness}'s files: {why}")]
    Collects { harness: String, why: String },
    #[error("failed to parse glob `{pattern}`: {kind}")]
    Glob {
        pattern: String,
        kind: globset::ErrorKind,
    },
    #[error("failed to parse --exec `{exec}`: {reason}")]
    Exec { exec: String, reason: &'static str },
    #[error("failed to walk {path}: {source}")]
    Walk {
        path: PathBuf,
        source: ignore::Error,
    },
}

pub use crate::harness::api::file_rel;

/// The names of the two hosts a file may run in, as its entries carry them.
const PROCESS_HOST: &str = crate::harness::api::HOST_NAMES[0];
const PAGE_HOST: &str = crate::harness::api::HOST_NAMES[1];

/// What discovery found.
#[derive(Debug, Default)]
pub struct Found {
    /// Sorted by path, each once.
    pub files: Vec<TestFile>,
    /// Files a directory walk passed over as not tests (helpers, data), relative to the
    /// project root, sorted, each once, with why.
    pub passed_over: Vec<PassedOver>,
    /// The project's test command the run followed (`package.json scripts.test (…)`).
    pub declared: Option<String>,
    /// Why the files run one at a time, as the harness the run mirrors runs them
    /// ([`one_at_a_time`]); `None`: in parallel.
    pub one_at_a_time: Option<String>,
    /// `--list`'s notes on what discovery followed or skipped (a workspace's packages).
    pub notes: Vec<String>,
    /// What the followed harnesses run once before and after the run's files, each once.
    pub around: Vec<crate::harness::api::Around>,
}

/// Finds the test files named by `args` (or in `cfg.test_dirs`), sorted by path, each once.
/// `exec` is the `--exec` command template, used for every file instead of the runner rules.
pub fn discover(
    args: &[String],
    cwd: &Path,
    root: &Path,
    cfg: &Config,
    exec: Option<&str>,
) -> Result<Vec<TestFile>, DiscoverError> {
    find(args, cwd, root, cfg, exec).map(|found| found.files)
}

/// [`discover`], also telling which files the walks passed over.
pub fn find(
    args: &[String],
    cwd: &Path,
    root: &Path,
    cfg: &Config,
    exec: Option<&str>,
) -> Result<Found, DiscoverError> {
    let exec = exec.map(exec_words).transpose()?;
    let mut finder = Finder::new(cwd, root, cfg, exec);
    // A monorepo's root runs its packages, each as a run in its folder would.
    let workspace = (cfg.test_dirs.is_none() && finder.exec.is_none())
        .then(|| registry::workspace(cwd))
        .flatten();
    let bare =
        args.is_empty() && workspace.is_none() && cfg.test_dirs.is_none() && finder.exec.is_none();
    match workspace {
        Some(workspace) if args.is_empty() => finder.add_workspace(workspace, cfg)?,
        _ if args.is_empty() => finder.add_defaults(cfg.test_dirs.as_deref())?,
        _ if finder.exec.is_none() => finder.list_declared_through()?,
        _ => {}
    }
    for arg in args {
        let path = Path::new(arg);
        let abs = cwd.join(path);
        if finder.add_named_package(path, cfg)? {
            continue;
        }
        if abs.is_dir() {
            let count = finder.add_dir(path, true)?;
            if count.files == 0 {
                return Err(DiscoverError::EmptyFolder(format!("`{arg}`")));
            }
            if count.tests == 0 {
                return Err(finder.no_tests(format!("`{arg}`")));
            }
        } else if abs.exists() {
            if !finder.add(path.to_path_buf(), Origin::Named) {
                return Err(DiscoverError::NoRunner(path.to_path_buf()));
            }
        } else if !arg.contains(['*', '?', '[', '{']) || finder.add_glob(arg)? == 0 {
            return Err(DiscoverError::NoMatch(arg.clone()));
        }
    }
    finder.keep_collected(bare)?;
    let mut files: Vec<TestFile> = finder.found.into_values().collect();
    // A workspace's packages in their declared order (the root's own files first); within
    // one, by path.
    let package = |f: &TestFile| {
        let at = f.input.cwd.as_ref();
        at.and_then(|dir| finder.packages.iter().position(|p| p == dir))
            .map_or(0, |i| i + 1)
    };
    files.sort_by(|a, b| (package(a), &a.path).cmp(&(package(b), &b.path)));
    let mut passed_over = finder.passed_over;
    // The first reason given for a file stands (`sort_by` is stable).
    passed_over.sort_by(|a, b| a.rel.cmp(&b.rel));
    passed_over.dedup_by(|a, b| a.rel == b.rel);
    passed_over.retain(|p| !files.iter().any(|f| f.rel == p.rel));
    let declared = finder
        .declared
        .is_some()
        .then_some(finder.declared_one_at_a_time);
    let one_at_a_time = one_at_a_time(declared, cwd, &files).or_else(|| {
        finder
            .followed
            .filter(|_| declared.is_none())
            .map(str::to_owned)
    });
    let around = around_files(finder.around, cwd, &files);
    Ok(Found {
        files,
        passed_over,
        declared: finder.declared,
        one_at_a_time,
        notes: finder.notes,
        around,
    })
}

/// `around` and what the harness of each file runs around a run holding its files
/// ([`crate::harness::Harness::around_files`]), each once, in the files' order.
fn around_files(
    mut around: Vec<crate::harness::api::Around>,
    cwd: &Path,
    files: &[TestFile],
) -> Vec<crate::harness::api::Around> {
    let mut asked: Vec<crate::harness::api::Id> = Vec::new();
    for id in files.iter().filter_map(|f| f.input.harness) {
        if asked.contains(&id) {
            continue;
        }
        asked.push(id);
        let Some(harness) = crate::harness::registry::harness(id) else {
            continue;
        };
        let more = harness.around_files(cwd);
        if (more.before.is_some() || more.after.is_some()) && !around.contains(&more) {
            around.push(more);
        }
    }
    around
}

/// Why the files run one at a time (then `-j1` unless `-j`/`[run] jobs` say otherwise): the
/// project's test command does (`declared`: `Some` when a run followed one, holding its
/// reason), else a harness that runs such files, or the project in `cwd`, one after another
/// says so ([`crate::harness::Harness::one_at_a_time`]). `None`: as many as the cores.
fn one_at_a_time(
    declared: Option<Option<&'static str>>,
    cwd: &Path,
    files: &[TestFile],
) -> Option<String> {
    if let Some(reason) = declared {
        return reason.map(str::to_owned);
    }
    registry::one_at_a_time(cwd, &programs(files))
}

/// The base name of each file's program (`None`: a file with no command).
fn programs(files: &[TestFile]) -> Vec<Option<String>> {
    files
        .iter()
        .map(|f| {
            let argv = f.command.as_ref().ok()?;
            let name = Path::new(argv.first()?).file_name()?;
            Some(name.to_string_lossy().into_owned())
        })
        .collect()
}

/// `--list`'s notes on what the run in `cwd` takes from the harnesses it mirrors beyond which
/// files run: their notes ([`crate::harness::Harness::notes`]), why files run one at a time,
/// and what variables `files` get as their harness sets them.
pub fn harness_notes(cwd: &Path, one_at_a_time: Option<&str>, files: &[TestFile]) -> Vec<String> {
    let mut notes = registry::notes(cwd);
    if let Some(reason) = one_at_a_time {
        notes.push(format!("-j1: {reason}; -j N to change"));
    }
    let commands: Vec<(&[OsString], &str)> = files
        .iter()
        .filter_map(|f| Some((f.command.as_ref().ok()?.as_slice(), f.rel.as_str())))
        .collect();
    notes.extend(registry::file_env_notes(&commands));
    notes
}

/// `--exec`'s command line as words.
fn exec_words(exec: &str) -> Result<Vec<String>, DiscoverError> {
    match split_words(exec) {
        Ok(words) if words.is_empty() => Err("no command"),
        result => result,
    }
    .map_err(|reason| DiscoverError::Exec {
        exec: exec.to_owned(),
        reason,
    })
}

/// The runner rules in the order they are tried: `tapline.toml`'s, then the built-in ones.
fn rules(cfg: &Config) -> Vec<Rule> {
    let user = cfg.runners.iter().map(|rule| Rule {
        rule: rule.clone(),
        kind: RuleKind::User,
    });
    let builtins = registry::builtin_rules().map(|(harness, builtin)| Rule {
        rule: RunnerRule::new(
            builtin.glob,
            builtin
                .command
                .iter()
                .map(|&word| word.to_owned())
                .collect(),
        )
        .expect("built-in runner rules are valid"),
        kind: RuleKind::Builtin {
            walk: (!builtin.walk.is_empty()).then(|| glob_set(builtin.walk)),
            harness,
        },
    });
    user.chain(builtins).collect()
}

/// The test command the project in `dir` declares and a run with no PATH follows
/// (`package.json scripts.test (…)`), if tapline understands it.
pub fn declared_by_project(dir: &Path) -> Option<String> {
    project::declared(dir).map(|d| d.source)
}

/// What a directory yields, for `--list` and error messages: the built-in walk globs.
pub fn walk_globs() -> Vec<&'static str> {
    registry::builtin_rules()
        .flat_map(|(_, builtin)| {
            if builtin.walk.is_empty() {
                std::slice::from_ref(&builtin.glob)
            } else {
                builtin.walk
            }
        })
        .copied()
        .collect()
}

fn glob_set(globs: &[&str]) -> GlobSet {
    let mut set = GlobSetBuilder::new();
    for glob in globs {
        set.add(
            GlobBuilder::new(glob)
                .literal_separator(true)
                .build()
                .expect("built-in walk globs are valid"),
        );
    }
    set.build().expect("built-in walk globs are valid")
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Origin {
    /// Found walking a directory.
    Walk,
    /// Named by an argument or matched by a glob.
    Named,
}

/// A runner rule and where it comes from.
struct Rule {
    rule: RunnerRule,
    kind: RuleKind,
}

enum RuleKind {
    /// The user's `[[runner]]`: its command is used as written (but for the switches an
    /// interpreter insists on, see [`registry::user_command`]).
    User,
    Builtin {
        /// The names a walk takes, when fewer than the rule's glob.
        walk: Option<GlobSet>,
        harness: &'static dyn Harness,
    },
}

struct Finder<'a> {
    cwd: &'a Path,
    root: PathBuf,
    /// The user's rules, then the built-in ones.
    rules: Vec<Rule>,
    exec: Option<Vec<String>>,
    /// Whether each program is installed, so PATH is searched once per program.
    installed: HashMap<OsString, bool>,
    /// Keyed by normalized absolute path, so `./t/a.t` and `t/a.t` are one file.
    found: BTreeMap<PathBuf, TestFile>,
    /// What the followed harnesses run once around the run's files ([`Found::around`]).
    around: Vec<crate::harness::api::Around>,
    /// Files a walk found that are not tests (relative to the root).
    passed_over: Vec<PassedOver>,
    /// The harness that owns the project in the cwd ([`Harness::owns_project`]): a walk
    /// yields its files only.
    owner: Option<&'static dyn Harness>,
    /// The folder being walked, as the harness that took it over reads it.
    folder: Option<Box<dyn crate::harness::folder::Folder>>,
    /// A run with no PATH walks the default folders, following the harness (without its
    /// recursive switch), not a folder the user named (walked recursively).
    bare: bool,
    /// A run with no PATH walked a folder a harness took over: why it runs its files one at
    /// a time.
    followed: Option<&'static str>,
    /// The folder being walked was named as holding tests (every JavaScript file counts).
    test_folder: bool,
    /// The project's test command, when a run with no PATH followed it.
    declared: Option<String>,
    /// Why that command runs files one at a time, if it does.
    declared_one_at_a_time: Option<&'static str>,
    /// `CI` is set: `.nonci.` files are skipped, as the node room's TypeScript runner skips
    /// them ([`naming::is_nonci`]).
    ci: bool,
    /// How a file may run beside others, by its name, when the run follows a script whose
    /// harness says ([`crate::harness::follow::Follows::lane`]).
    lane: Option<fn(&str) -> crate::harness::api::Lane>,
    /// `[run]` settings the harnesses read.
    settings: Settings,
    /// What the harnesses looked up once for every file.
    memo: Memo,
    /// A run with PATHs: what the harness the project's test command runs through lists.
    through: Option<through::Listed>,
    /// A workspace's package folders that ran (absolute, in the declared order): its files'
    /// `Input::cwd`.
    packages: Vec<PathBuf>,
    /// `--list`'s notes on the packages.
    notes: Vec<String>,
}

impl<'a> Finder<'a> {
    /// A finder of the tests of the project in `cwd` (under `root`), with `cfg`'s rules.
    fn new(cwd: &'a Path, root: &Path, cfg: &Config, exec: Option<Vec<String>>) -> Self {
        Finder {
            cwd,
            root: normalize(root),
            rules: rules(cfg),
            exec,
            installed: HashMap::new(),
            found: BTreeMap::new(),
            around: Vec::new(),
            passed_over: Vec::new(),
            owner: registry::owner(cwd),
            folder: None,
            bare: false,
            followed: None,
            test_folder: false,
            declared: None,
            declared_one_at_a_time: None,
            ci: std::env::var_os("CI").is_some_and(|v| !v.is_empty() && v != "false" && v != "0"),
            lane: None,
            settings: Settings {
                ts_runner: cfg.ts_runner.clone(),
                browser: cfg.browser.clone(),
            },
            memo: Memo::default(),
            through: None,
            packages: Vec::new(),
            notes: Vec::new(),
        }
    }
}

impl Finder<'_> {
    /// Whether a `[[runner]]` of the user's maps the file at `abs`.
    fn user_rule_maps(&self, abs: &Path) -> bool {
        let rel = relative(abs, &self.root);
        (self.rules.iter().find(|r| r.rule.matches(&rel)))
            .is_some_and(|r| matches!(r.kind, RuleKind::User))
    }

    /// What a harness may ask of the run while it makes a file's command.
    fn cx(&mut self) -> Cx<'_> {
        Cx {
            cwd: self.cwd,
            root: &self.root,
            settings: &self.settings,
            memo: &mut self.memo,
        }
    }

    /// The error for places that hold files but no test.
    fn no_tests(&self, places: String) -> DiscoverError {
        if self.exec.is_some() {
            DiscoverError::NoExecTests(places)
        } else {
            DiscoverError::NoTests(places)
        }
    }

    /// Adds `path` if it is a test; returns whether it is.
    fn add(&mut self, path: PathBuf, origin: Origin) -> bool {
        let abs = normalize(&self.cwd.join(&path));
        if self.found.contains_key(&abs) {
            return true;
        }
        // A file its harness lists runs through it, unless a user's rule maps it.
        if self.exec.is_none() && !self.user_rule_maps(&abs) {
            if let Some(added) = self.add_listed(&abs, &path, origin) {
                return added;
            }
        }
        let Ok(meta) = fs::metadata(&abs) else {
            return false;
        };
        if !meta.is_file() {
            return false;
        }
        let rel = relative(&abs, &self.root);
        let Some(command) = self.command(&path, &rel, &meta, origin) else {
            return false;
        };
        // The harness of the built-in rule that maps it may make its command (`--exec`'s is
        // the user's).
        let builtin = self.builtin_of(&rel).filter(|_| self.exec.is_none());
        // A harness that runs a file by what it says, though another's rule maps its name.
        let builtin = builtin.map(|h| registry::claimant(&abs).unwrap_or(h));
        let made = builtin.and_then(|h| h.command(&path, &abs, &mut self.cx()));
        let (command, harness, runs_in) = match made {
            Some(made) => (made.command, Some(made.harness), made.cwd),
            None => (
                self.check_installed(command, &path),
                builtin.map(|h| h.id()),
                None,
            ),
        };
        // Only a user's rule can say its command prints something other than TAP.
        let user = match self.rules.iter().find(|r| r.rule.matches(&rel)) {
            Some(Rule {
                kind: RuleKind::User,
                rule,
            }) if self.exec.is_none() => Some(rule),
            _ => None,
        };
        let mut input = Input {
            format: user.map_or(InputFormat::Tap, |rule| rule.format),
            merge: user.and_then(|rule| rule.merge),
            silent: self.silent(&rel),
            harness,
            warm: user.and_then(|rule| rule.warm),
            cwd: runs_in,
            ..Input::default()
        };
        let name = rel.rsplit('/').next().unwrap_or(&rel);
        if self.ci && naming::is_nonci(name) {
            input.skip = Some("SKIP a .nonci. file does not run under CI".to_owned());
        }
        if self.exec.is_none() {
            input.init = registry::init_of(&abs);
        }
        if let Some(lane) = self.lane {
            input.lane = lane(name);
        }
        let runtimes = self.runtimes(&rel);
        if !runtimes.page {
            let file = TestFile {
                path,
                rel,
                command,
                input,
            };
            self.found.insert(abs, file);
            return true;
        }
        let in_browser = TestFile {
            command: self.page_command(&path),
            input: Input {
                host: Host::Page,
                ..input.clone()
            },
            rel: if runtimes.process {
                format!("{rel} ({PAGE_HOST})")
            } else {
                rel.clone()
            },
            path: path.clone(),
        };
        if runtimes.process {
            let in_node = TestFile {
                path,
                rel: format!("{rel} ({PROCESS_HOST})"),
                command,
                input,
            };
            self.found.insert(abs.clone(), in_node);
        }
        let mut key = abs.into_os_string();
        if runtimes.process {
            key.push(format!(" ({PAGE_HOST})"));
        }
        self.found.insert(key.into(), in_browser);
        true
    }

    /// Where `rel` runs: by its name's runtime segment when a built-in JavaScript or
    /// TypeScript rule maps it, as pages when the user's rule names the page host's runtime,
    /// else by its command. `--exec` runs every file by its command.
    fn runtimes(&self, rel: &str) -> Hosts {
        let command_only = Hosts {
            process: true,
            page: false,
        };
        if self.exec.is_some() {
            return command_only;
        }
        let name = rel.rsplit('/').next().unwrap_or(rel);
        match self.rules.iter().find(|r| r.rule.matches(rel)) {
            Some(Rule {
                kind: RuleKind::User,
                rule,
            }) if rule.host == Host::Page => Hosts {
                process: false,
                page: true,
            },
            Some(Rule {
                kind: RuleKind::Builtin { harness, .. },
                ..
            }) => harness
                .hosts(name)
                .filter(|h| h.process || h.page)
                .unwrap_or(command_only),
            _ => command_only,
        }
    }

    /// The command `--list` shows for a file that runs as a page, which names the browser it
    /// runs in; or why it cannot run ([`registry::page_command`]).
    fn page_command(&mut self, path: &Path) -> Result<Vec<OsString>, MissingInterpreter> {
        registry::page_command(path, &mut self.cx())
    }

    /// The command that runs `path`, or `None` if it is not a test (for `origin`).
    fn command(
        &mut self,
        path: &Path,
        rel: &str,
        meta: &fs::Metadata,
        origin: Origin,
    ) -> Option<Vec<OsString>> {
        if let (Some(exec), Origin::Named) = (&self.exec, origin) {
            return Some(fill(exec, path));
        }
        if origin == Origin::Walk && !self.folder_takes(path, rel) {
            return None;
        }
        let name = rel.rsplit('/').next().unwrap_or(rel);
        let line = || Shebang::read(&self.cwd.join(path));
        let command = match self.rules.iter().find(|rule| rule.rule.matches(rel)) {
            Some(Rule {
                kind: RuleKind::Builtin { walk, harness },
                rule,
            }) => {
                let harness = *harness;
                // A folder a harness took over names its own files (a configured pattern of its own).
                if origin == Origin::Walk
                    && !self.folder_owns(rel)
                    && !self.walk_takes(path, name, walk.as_ref(), harness)
                {
                    return None;
                }
                let template = rule.command.clone();
                let command = fill(&harness.template(&mut self.cx()).unwrap_or(template), path);
                match line().filter(|_| self.exec.is_none()) {
                    Some(line) => harness.by_line(command, &line),
                    None => command,
                }
            }
            Some(Rule {
                kind: RuleKind::User,
                rule,
            }) => {
                let command = fill(&rule.command, path);
                match line().filter(|_| self.exec.is_none()) {
                    Some(line) => registry::user_command(command, &line),
                    None => command,
                }
            }
            // A walk runs nothing for being executable: `test/run` may be a maintenance script.
            None if origin == Origin::Walk => return None,
            None => match line() {
                Some(line) if self.exec.is_none() => words::by_shebang(&line, path.into()),
                _ if is_executable_file(meta) => vec![program_path(path)],
                _ => return None,
            },
        };
        match &self.exec {
            Some(exec) => Some(fill(exec, path)),
            None => Some(command),
        }
    }

    /// Whether a walk takes a file a built-in rule maps: by the rule's walk names, and as its
    /// harness names tests (in a project a harness owns, that harness's files only).
    fn walk_takes(
        &self,
        path: &Path,
        name: &str,
        walk: Option<&GlobSet>,
        harness: &dyn Harness,
    ) -> bool {
        self.owner.is_none_or(|owner| owner.id() == harness.id())
            && self.named_test(path, name, walk, harness)
    }

    /// Whether a built-in rule's walk names and its harness name `path` a test.
    fn named_test(
        &self,
        path: &Path,
        name: &str,
        walk: Option<&GlobSet>,
        harness: &dyn Harness,
    ) -> bool {
        if walk.is_some_and(|w| !w.is_match(name)) {
            return false;
        }
        harness.takes(&Candidate {
            path,
            cwd: self.cwd,
            name,
            in_test_folder: self.test_folder,
        })
    }

    /// The harness of the built-in rule that maps `rel`, unless a user's rule maps it first.
    fn builtin_of(&self, rel: &str) -> Option<&'static dyn Harness> {
        match self.rules.iter().find(|r| r.rule.matches(rel))?.kind {
            RuleKind::Builtin { harness, .. } => Some(harness),
            RuleKind::User => None,
        }
    }

    /// How `rel` is judged when it prints no TAP: as the harness whose built-in rule matches
    /// its name judges it, whoever's rule runs it ([`Silent`]).
    fn silent(&self, rel: &str) -> Silent {
        self.rules
            .iter()
            .find_map(|r| match r.kind {
                RuleKind::Builtin { harness, .. } if r.rule.matches(rel) => Some(harness),
                _ => None,
            })
            .map_or(Silent::Fails, |h| {
                h.silent(rel.rsplit('/').next().unwrap_or(rel))
            })
    }

    fn check_installed(
        &mut self,
        command: Vec<OsString>,
        file: &Path,
    ) -> Result<Vec<OsString>, MissingInterpreter> {
        let program = command.first().cloned().unwrap_or_default();
        let cwd = self.cwd;
        if *self
            .installed
            .entry(program.clone())
            .or_insert_with(|| which::find(&program, cwd).is_some())
        {
            Ok(command)
        } else {
            Err(MissingInterpreter {
                program: program.to_string_lossy().into_owned(),
                file: file.to_path_buf(),
                hint: String::new(),
            })
        }
    }
}
