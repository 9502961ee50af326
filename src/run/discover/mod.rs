//! Test discovery: which files `tapline run` runs, and the command that runs each.
//!
//! Each PATH argument is a file (run even if no rule would pick it in a walk), a directory
//! (walked recursively) or a glob matched against paths relative to the cwd. With no argument,
//! the `test_dirs` of `tapline.toml` (default `test/`) are walked. Walks honour `.gitignore`
//! (even outside a git repository) and skip hidden entries and `node_modules`.
//!
//! A file found by a walk or a glob is a test when a runner rule maps it — the `[[runner]]`
//! rules of `tapline.toml` first, then [`BUILTIN_RUNNERS`] — or, failing that, when it is
//! executable. A directory walk yields fewer files than a rule's glob: a built-in rule may
//! name the files it takes in a walk (`*.t` but not the `*.pl` helpers beside them; `test*.py`
//! and `*_test.py` but not other modules), as the languages' own harnesses do; a file named
//! explicitly or matched by a glob needs only a rule.
//!
//! The command comes from the rule, shaped by the file's `#!` line as its own harness would
//! shape it (see [`super::runners`]): perl gets `-T`/`-t`/`-w`/`-W`/`-X`, python and node the
//! line's flags, a `*.sh` file asking for bash gets bash. A file no rule maps runs by its `#!`
//! line (the interpreter started by tapline, the line's words split), else directly.
//!
//! With `--exec`, a walk yields the same files and each runs with that command, as written;
//! a file named explicitly or matched by a glob runs with it whatever it is.
use super::config::{Config, RunnerRule};
use super::runners::{self, Family};
use super::shebang::Shebang;
use globset::{GlobBuilder, GlobSet, GlobSetBuilder};
use ignore::WalkBuilder;
use std::collections::{BTreeMap, HashMap};
use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};

pub use super::runners::BUILTIN_RUNNERS;
pub(crate) use paths::installed;
use paths::{is_executable, normalize, relative};
use words::{fill, program_path, split_words};
pub use words::{list_line, log_name};

mod paths;
#[cfg(test)]
mod tests;
mod words;
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
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{program}` is not installed (needed to run {file})")]
pub struct MissingInterpreter {
    pub program: String,
    pub file: PathBuf,
}

#[derive(Debug, thiserror::Error)]
pub enum DiscoverError {
    #[error("failed to find test files: no file matches `{0}`")]
    NoMatch(String),
    /// Names the places looked in.
    #[error(
        "failed to find test files in {0}: no file there matches a runner rule or is executable"
    )]
    NoTests(String),
    /// As `NoTests`, with `--exec`: a directory still yields only test files.
    #[error(
        "failed to find test files in {0}: with --exec a directory still yields only its test files (those a runner rule picks, and executables); name the files, or a glob, to run others"
    )]
    NoExecTests(String),
    #[error("failed to find how to run {0}: no runner rule matches it and it is not executable")]
    NoRunner(PathBuf),
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

/// What discovery found.
#[derive(Debug, Default)]
pub struct Found {
    /// Sorted by path, each once.
    pub files: Vec<TestFile>,
    /// Files a directory walk passed over as not tests (helpers, data), relative to the
    /// project root, sorted.
    pub passed_over: Vec<String>,
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
    let exec = exec
        .map(|exec| {
            match split_words(exec) {
                Ok(words) if words.is_empty() => Err("no command"),
                result => result,
            }
            .map_err(|reason| DiscoverError::Exec {
                exec: exec.to_owned(),
                reason,
            })
        })
        .transpose()?;
    let user = cfg.runners.iter().map(|rule| Rule {
        rule: rule.clone(),
        kind: RuleKind::User,
    });
    let builtins = BUILTIN_RUNNERS.iter().map(|builtin| Rule {
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
            family: builtin.family,
        },
    });
    let no_tests = if exec.is_some() {
        DiscoverError::NoExecTests
    } else {
        DiscoverError::NoTests
    };
    let mut finder = Finder {
        cwd,
        root: normalize(root),
        rules: user.chain(builtins).collect(),
        exec,
        installed: HashMap::new(),
        found: BTreeMap::new(),
        passed_over: Vec::new(),
    };
    if args.is_empty() {
        for dir in cfg.test_dirs.iter().filter(|dir| cwd.join(dir).is_dir()) {
            finder.add_dir(dir)?;
        }
        if finder.found.is_empty() {
            let places: Vec<String> = cfg
                .test_dirs
                .iter()
                .map(|dir| format!("`{}`", dir.display()))
                .collect();
            return Err(no_tests(places.join(", ")));
        }
    }
    for arg in args {
        let path = Path::new(arg);
        let abs = cwd.join(path);
        if abs.is_dir() {
            if finder.add_dir(path)? == 0 {
                return Err(no_tests(format!("`{arg}`")));
            }
        } else if abs.exists() {
            if !finder.add(path.to_path_buf(), Origin::Named) {
                return Err(DiscoverError::NoRunner(path.to_path_buf()));
            }
        } else if !arg.contains(['*', '?', '[', '{']) || finder.add_glob(arg)? == 0 {
            return Err(DiscoverError::NoMatch(arg.clone()));
        }
    }
    let mut files: Vec<TestFile> = finder.found.into_values().collect();
    files.sort_by(|a, b| a.path.cmp(&b.path));
    let mut passed_over = finder.passed_over;
    passed_over.sort();
    passed_over.dedup();
    passed_over.retain(|rel| !files.iter().any(|f| &f.rel == rel));
    Ok(Found { files, passed_over })
}

/// What a directory yields, for `--list` and error messages: the built-in walk globs.
pub fn walk_globs() -> Vec<&'static str> {
    BUILTIN_RUNNERS
        .iter()
        .flat_map(|builtin| {
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
    /// The user's `[[runner]]`: its command is used as written (perl excepted, see
    /// [`runners::apply_perl_switches`]).
    User,
    Builtin {
        /// The names a walk takes, when fewer than the rule's glob.
        walk: Option<GlobSet>,
        family: Family,
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
    /// Files a walk found that are not tests (relative to the root).
    passed_over: Vec<String>,
}

impl Finder<'_> {
    /// Adds the tests under `dir`; returns how many it holds.
    fn add_dir(&mut self, dir: &Path) -> Result<usize, DiscoverError> {
        let files = self.walk(dir)?;
        let mut tests = 0;
        for path in files {
            if self.add(path.clone(), Origin::Walk) {
                tests += 1;
            } else {
                self.passed_over
                    .push(relative(&normalize(&self.cwd.join(&path)), &self.root));
            }
        }
        Ok(tests)
    }

    /// Adds the tests matching `pattern`; returns how many match.
    fn add_glob(&mut self, pattern: &str) -> Result<usize, DiscoverError> {
        let matcher = GlobBuilder::new(pattern)
            .literal_separator(true)
            .build()
            .map_err(|e| DiscoverError::Glob {
                pattern: pattern.to_owned(),
                kind: e.kind().clone(),
            })?
            .compile_matcher();
        // Walk only the literal directories the pattern starts with: cheaper, and it lets
        // `../other/*.t` or an absolute pattern match at all.
        let first_meta = pattern.find(['*', '?', '[', '{']).unwrap_or(pattern.len());
        let base = Path::new(
            pattern[..first_meta]
                .rfind('/')
                .map_or("", |slash| &pattern[..=slash]),
        );
        if !self.cwd.join(base).is_dir() {
            return Ok(0);
        }
        let files = self.walk(base)?;
        Ok(files
            .into_iter()
            .filter(|path| matcher.is_match(path) && self.add(path.clone(), Origin::Named))
            .count())
    }

    /// Every non-directory under `dir`, as `dir` joined with its path inside.
    fn walk(&self, dir: &Path) -> Result<Vec<PathBuf>, DiscoverError> {
        let start = self.cwd.join(dir);
        let walker = WalkBuilder::new(&start)
            // A fresh project's .gitignore counts before `git init` too.
            .require_git(false)
            .filter_entry(|entry| entry.file_name() != "node_modules")
            .build();
        let mut files = Vec::new();
        for entry in walker {
            let entry = entry.map_err(|source| DiscoverError::Walk {
                path: dir.to_path_buf(),
                source,
            })?;
            if entry.file_type().is_some_and(|kind| !kind.is_dir()) {
                if let Ok(inside) = entry.path().strip_prefix(&start) {
                    files.push(dir.join(inside));
                }
            }
        }
        Ok(files)
    }

    /// Adds `path` if it is a test; returns whether it is.
    fn add(&mut self, path: PathBuf, origin: Origin) -> bool {
        let abs = normalize(&self.cwd.join(&path));
        if self.found.contains_key(&abs) {
            return true;
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
        let command = self.check_installed(command, &path);
        // Only a user's rule can say its command prints something other than TAP.
        let format = match self.rules.iter().find(|r| r.rule.matches(&rel)) {
            Some(Rule {
                kind: RuleKind::User,
                rule,
            }) if self.exec.is_none() => rule.format,
            _ => InputFormat::Tap,
        };
        let input = Input {
            format,
            ..Input::default()
        };
        self.found.insert(
            abs,
            TestFile {
                path,
                rel,
                command,
                input,
            },
        );
        true
    }

    /// The command that runs `path`, or `None` if it is not a test (for `origin`).
    fn command(
        &self,
        path: &Path,
        rel: &str,
        meta: &fs::Metadata,
        origin: Origin,
    ) -> Option<Vec<OsString>> {
        if let (Some(exec), Origin::Named) = (&self.exec, origin) {
            return Some(fill(exec, path));
        }
        let name = rel.rsplit('/').next().unwrap_or(rel);
        let line = || Shebang::read(&self.cwd.join(path));
        let command = match self.rules.iter().find(|rule| rule.rule.matches(rel)) {
            Some(Rule {
                kind: RuleKind::Builtin { walk, family },
                rule,
            }) => {
                if origin == Origin::Walk && walk.as_ref().is_some_and(|w| !w.is_match(name)) {
                    return None;
                }
                let command = fill(&rule.command, path);
                match (family, self.exec.is_some()) {
                    (Family::Opaque, _) | (_, true) => command,
                    _ => match line() {
                        Some(line) => runners::apply_shebang(*family, command, &line),
                        None => command,
                    },
                }
            }
            Some(Rule {
                kind: RuleKind::User,
                rule,
            }) => {
                let command = fill(&rule.command, path);
                match line().filter(|_| self.exec.is_none()) {
                    Some(line) => runners::apply_perl_switches(command, &line),
                    None => command,
                }
            }
            None if origin == Origin::Walk && !is_executable(meta) => return None,
            None => match line() {
                Some(line) if self.exec.is_none() => runners::by_shebang(&line, path.into()),
                _ if is_executable(meta) => vec![program_path(path)],
                _ => return None,
            },
        };
        match &self.exec {
            Some(exec) => Some(fill(exec, path)),
            None => Some(command),
        }
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
            .or_insert_with(|| installed(&program, cwd))
        {
            Ok(command)
        } else {
            Err(MissingInterpreter {
                program: program.to_string_lossy().into_owned(),
                file: file.to_path_buf(),
            })
        }
    }
}
