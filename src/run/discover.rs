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
use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};
use std::ffi::{OsStr, OsString};
use std::path::{Component, Path, PathBuf};
use std::{env, fs, iter};

pub use super::runners::BUILTIN_RUNNERS;
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

/// `test/tapbundle/test.ts` → `test__tapbundle__test.log`: a flat file name that can't leave
/// the log folder (`..` becomes `up`, empty and `.` components go, `\` and NUL become `_`).
pub fn log_name(rel: &str) -> String {
    let mut parts: Vec<String> = rel
        .split('/')
        .filter(|part| !part.is_empty() && *part != ".")
        .map(|part| {
            if part == ".." {
                "up".to_owned()
            } else {
                part.replace(|c: char| c == '\\' || c.is_control(), "_")
            }
        })
        .collect();
    if let Some(last) = parts.last_mut() {
        // A leading dot starts a hidden name, not an extension.
        if let Some(dot) = last.rfind('.').filter(|&dot| dot > 0) {
            last.truncate(dot);
        }
    }
    let mut stem = parts.join("__");
    if stem.len() > MAX_LOG_STEM {
        // Names longer than a file name may be (255 bytes) keep their start and a hash of the
        // whole, so two long names sharing a start still get two logs.
        let mut cut = MAX_LOG_STEM - 17;
        while !stem.is_char_boundary(cut) {
            cut -= 1;
        }
        let hash = fnv1a(rel.as_bytes());
        stem.truncate(cut);
        stem.push_str(&format!("-{hash:016x}"));
    }
    format!("{}.log", if stem.is_empty() { "_" } else { &stem })
}

/// Longest log name stem: room for `.attempt-NN.log`/`.N.log` within a 255-byte file name.
const MAX_LOG_STEM: usize = 200;

fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// A line of `tapline run --list`: the file and its command, or why it can't run.
pub fn list_line(f: &TestFile) -> String {
    match &f.command {
        Ok(words) => {
            let words: Vec<Cow<str>> = words.iter().map(|word| shell_quote(word)).collect();
            format!("{}\t{}", f.rel, words.join(" "))
        }
        Err(missing) => format!("{}\t{missing}", f.rel),
    }
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

/// The command `template` makes for `path`: `{}` within a word stands for it, and it is
/// appended when no word has `{}`.
fn fill(template: &[String], path: &Path) -> Vec<OsString> {
    let mut used = false;
    let mut command: Vec<OsString> = template
        .iter()
        .enumerate()
        .map(|(i, word)| {
            let file = if i == 0 {
                program_path(path)
            } else {
                path.into()
            };
            let mut pieces = word.split("{}");
            let mut out = OsString::from(pieces.next().unwrap_or_default());
            for piece in pieces {
                used = true;
                out.push(&file);
                out.push(piece);
            }
            out
        })
        .collect();
    if !used {
        command.push(path.into());
    }
    command
}

/// `path` as a program to run: a bare name would be looked up on PATH instead of in the cwd.
fn program_path(path: &Path) -> OsString {
    if path.as_os_str().as_encoded_bytes().contains(&b'/') {
        path.into()
    } else {
        Path::new(".").join(path).into()
    }
}

/// Whether `program` can be run: a path with '/' is checked (relative to `cwd`), a bare name
/// searched on PATH.
pub(crate) fn installed(program: &OsStr, cwd: &Path) -> bool {
    let runnable = |path: &Path| fs::metadata(path).is_ok_and(|meta| is_executable(&meta));
    if program.as_encoded_bytes().contains(&b'/') {
        return runnable(&cwd.join(program));
    }
    !program.is_empty()
        && env::var_os("PATH").is_some_and(|paths| {
            env::split_paths(&paths)
                .any(|dir| !dir.as_os_str().is_empty() && runnable(&dir.join(program)))
        })
}

#[cfg(unix)]
fn is_executable(meta: &fs::Metadata) -> bool {
    use std::os::unix::fs::PermissionsExt;
    meta.is_file() && meta.permissions().mode() & 0o111 != 0
}

#[cfg(not(unix))]
fn is_executable(_meta: &fs::Metadata) -> bool {
    false
}

/// `path` with `.` and `..` resolved without touching the file system.
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            component => out.push(component),
        }
    }
    out
}

/// `abs` relative to `root` (both normalized), with '/' separators.
fn relative(abs: &Path, root: &Path) -> String {
    let common = abs
        .components()
        .zip(root.components())
        .take_while(|(a, b)| a == b)
        .count();
    let ups = root.components().count() - common;
    let rest = abs
        .components()
        .skip(common)
        .map(|part| part.as_os_str().to_string_lossy());
    iter::repeat_n(Cow::Borrowed(".."), ups)
        .chain(rest)
        .collect::<Vec<_>>()
        .join("/")
}

/// Splits a command line into words like a POSIX shell, without expanding anything:
/// whitespace separates words, single quotes keep everything, double quotes keep everything
/// but `\"`, `\\`, `\$` and `` \` ``, and elsewhere a backslash keeps the next character.
fn split_words(line: &str) -> Result<Vec<String>, &'static str> {
    let mut words = Vec::new();
    // None between words; Some("") after an empty quoted word like ''.
    let mut word: Option<String> = None;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            c if c.is_whitespace() => words.extend(word.take()),
            '\'' => {
                let word = word.get_or_insert_default();
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => word.push(c),
                        None => return Err("unterminated single quote"),
                    }
                }
            }
            '"' => {
                let word = word.get_or_insert_default();
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(c @ ('"' | '\\' | '$' | '`')) => word.push(c),
                            Some(c) => word.extend(['\\', c]),
                            None => return Err("unterminated double quote"),
                        },
                        Some(c) => word.push(c),
                        None => return Err("unterminated double quote"),
                    }
                }
            }
            '\\' => match chars.next() {
                Some(c) => word.get_or_insert_default().push(c),
                None => return Err("trailing backslash"),
            },
            c => word.get_or_insert_default().push(c),
        }
    }
    words.extend(word);
    Ok(words)
}

/// `word` as a shell would need it written, single-quoted unless it is plainly safe.
fn shell_quote(word: &OsStr) -> Cow<'_, str> {
    let word = word.to_string_lossy();
    if !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_-./=:,+@%".contains(c))
    {
        word
    } else {
        format!("'{}'", word.replace('\'', r"'\''")).into()
    }
}

#[cfg(test)]
mod tests {
    use super::super::config::find_project_root;
    use super::*;
    use tempfile::TempDir;

    /// A project: `.git`, `.gitignore`, and the given files (a trailing `*` marks executables).
    fn project(files: &[&str]) -> TempDir {
        let dir = TempDir::new().expect("temp dir");
        fs::create_dir(dir.path().join(".git")).expect("mkdir .git");
        fs::write(dir.path().join(".gitignore"), "ignored/\n").expect("write .gitignore");
        for file in files {
            let (name, executable) = file
                .strip_suffix('*')
                .map_or((*file, false), |name| (name, true));
            let path = dir.path().join(name);
            fs::create_dir_all(path.parent().expect("files are inside the project"))
                .expect("mkdir");
            fs::write(&path, "").expect("write file");
            #[cfg(unix)]
            if executable {
                use std::os::unix::fs::PermissionsExt;
                fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).expect("chmod");
            }
        }
        dir
    }

    fn run(
        cwd: &Path,
        args: &[&str],
        cfg: &Config,
        exec: Option<&str>,
    ) -> Result<Vec<TestFile>, DiscoverError> {
        let args: Vec<String> = args.iter().map(|&arg| arg.to_owned()).collect();
        discover(&args, cwd, &find_project_root(cwd), cfg, exec)
    }

    fn rels(files: &[TestFile]) -> Vec<&str> {
        files.iter().map(|f| f.rel.as_str()).collect()
    }

    /// The program, installed or not.
    fn program(f: &TestFile) -> String {
        match &f.command {
            Ok(words) => words[0].to_string_lossy().into_owned(),
            Err(missing) => missing.program.clone(),
        }
    }

    fn command(f: &TestFile) -> Vec<&str> {
        f.command
            .as_ref()
            .expect("installed")
            .iter()
            .map(|word| word.to_str().expect("UTF-8"))
            .collect()
    }

    fn rule(glob: &str, command: &[&str]) -> RunnerRule {
        RunnerRule::new(glob, command.iter().map(|&word| word.to_owned()).collect())
            .expect("valid rule")
    }

    const TREE: &[&str] = &[
        "test/a.t",
        "test/b.ts",
        "test/c.sh",
        "test/sub/d.pl",
        "test/sub/e.mjs",
        "test/helper.py",
        "test/test_x.py",
        "test/y_test.py",
        "test/README.md",
        "test/run-me*",
        "test/node_modules/m.js",
        "test/.hidden/h.t",
        "test/ignored/i.t",
        "other/o.t",
    ];

    #[test]
    fn walks_test_dirs_by_default() {
        let dir = project(TREE);
        let files = run(dir.path(), &[], &Config::default(), None).expect("tests found");
        assert_eq!(
            rels(&files),
            [
                "test/a.t",
                "test/b.ts",
                "test/c.sh",
                "test/run-me",
                "test/sub/e.mjs",
                "test/test_x.py",
                "test/y_test.py"
            ],
            "no helper: test/sub/d.pl, test/helper.py"
        );
        assert_eq!(files[0].path, Path::new("test/a.t"));
        assert_eq!(command(&files[0]), ["perl", "test/a.t"]);
        assert_eq!(command(&files[2]), ["sh", "test/c.sh"]);
        assert_eq!(command(&files[3]), ["test/run-me"]);
        assert_eq!(command(&files[5]), ["python3", "test/test_x.py"]);
        let found = find(&[], dir.path(), dir.path(), &Config::default(), None).expect("found");
        assert_eq!(
            found.passed_over,
            ["test/README.md", "test/helper.py", "test/sub/d.pl"]
        );
    }

    #[test]
    fn configured_test_dirs() {
        let dir = project(TREE);
        let cfg = Config {
            test_dirs: vec!["other".into(), "missing".into()],
            ..Config::default()
        };
        assert_eq!(
            rels(&run(dir.path(), &[], &cfg, None).expect("tests found")),
            ["other/o.t"]
        );
    }

    #[test]
    fn no_tests_names_where_it_looked() {
        let dir = project(&["test/README.md"]);
        let err = run(dir.path(), &[], &Config::default(), None).expect_err("nothing to run");
        assert!(matches!(err, DiscoverError::NoTests(_)));
        assert_eq!(err.to_string(), "failed to find test files in `test`: no file there matches a runner rule or is executable");
        let cfg = Config {
            test_dirs: vec!["t".into(), "spec".into()],
            ..Config::default()
        };
        let err = run(dir.path(), &[], &cfg, None).expect_err("nothing to run");
        assert!(
            err.to_string()
                .starts_with("failed to find test files in `t`, `spec`: "),
            "{err}"
        );
        let err = run(dir.path(), &["test"], &Config::default(), None).expect_err("nothing to run");
        assert!(
            err.to_string()
                .starts_with("failed to find test files in `test`: "),
            "{err}"
        );
    }

    #[test]
    fn named_files_need_only_a_runner() {
        let dir = project(TREE);
        let cfg = Config::default();
        let files = run(
            dir.path(),
            &["test/helper.py", "test/ignored/i.t", "test/.hidden/h.t"],
            &cfg,
            None,
        )
        .expect("named");
        assert_eq!(
            rels(&files),
            ["test/.hidden/h.t", "test/helper.py", "test/ignored/i.t"]
        );
        let err = run(dir.path(), &["test/README.md"], &cfg, None).expect_err("no runner");
        assert!(matches!(err, DiscoverError::NoRunner(_)));
        assert_eq!(
            err.to_string(),
            "failed to find how to run test/README.md: no runner rule matches it and it is not executable"
        );
    }

    #[test]
    fn globs_match_paths_relative_to_the_cwd() {
        let dir = project(TREE);
        let cfg = Config::default();
        assert_eq!(
            rels(&run(dir.path(), &["test/*.t"], &cfg, None).expect("match")),
            ["test/a.t"]
        );
        assert_eq!(
            rels(&run(dir.path(), &["**/*.t"], &cfg, None).expect("match")),
            ["other/o.t", "test/a.t"],
            "the walk skips hidden and ignored files"
        );
        // Globs pick runnable files, including helpers a walk would skip.
        assert_eq!(
            rels(&run(dir.path(), &["test/*.py"], &cfg, None).expect("match")),
            ["test/helper.py", "test/test_x.py", "test/y_test.py"]
        );
        assert_eq!(
            rels(&run(dir.path(), &["./test/sub/*"], &cfg, None).expect("match")),
            ["test/sub/d.pl", "test/sub/e.mjs"]
        );
        assert_eq!(
            rels(&run(&dir.path().join("test"), &["../other/*.t"], &cfg, None).expect("match")),
            ["other/o.t"]
        );

        for pattern in ["foo/*.t", "test/*.md", "nothing.t"] {
            let err = run(dir.path(), &[pattern], &cfg, None).expect_err("no match");
            assert_eq!(
                err.to_string(),
                format!("failed to find test files: no file matches `{pattern}`")
            );
        }
        let err = run(dir.path(), &["test/[.t"], &cfg, None).expect_err("bad glob");
        assert!(
            err.to_string()
                .starts_with("failed to parse glob `test/[.t`: "),
            "{err}"
        );
    }

    #[test]
    fn results_are_sorted_and_deduplicated() {
        let dir = project(TREE);
        let files = run(
            dir.path(),
            &[
                "test/sub/e.mjs",
                "test/sub",
                "./test/sub/d.pl",
                "test/sub/*.pl",
            ],
            &Config::default(),
            None,
        )
        .expect("tests found");
        assert_eq!(rels(&files), ["test/sub/d.pl", "test/sub/e.mjs"]);
        assert_eq!(
            files[0].path,
            Path::new("./test/sub/d.pl"),
            "the first spelling is kept (the walk of test/sub passes over the helper)"
        );
    }

    #[test]
    fn paths_from_a_subdirectory() {
        let dir = project(TREE);
        let cwd = dir.path().join("test");
        let files = run(
            &cwd,
            &["a.t", "run-me", "../other/o.t"],
            &Config::default(),
            None,
        )
        .expect("tests found");
        let found: Vec<(&Path, &str)> = files
            .iter()
            .map(|f| (f.path.as_path(), f.rel.as_str()))
            .collect();
        assert_eq!(
            found,
            [
                (Path::new("../other/o.t"), "other/o.t"),
                (Path::new("a.t"), "test/a.t"),
                (Path::new("run-me"), "test/run-me")
            ]
        );
        assert_eq!(
            command(&files[2]),
            ["./run-me"],
            "a bare name would be searched on PATH"
        );
    }

    #[test]
    fn files_outside_the_root_get_relative_names() {
        let outer = TempDir::new().expect("temp dir");
        fs::create_dir_all(outer.path().join("proj/.git")).expect("mkdir");
        fs::create_dir_all(outer.path().join("elsewhere")).expect("mkdir");
        fs::write(outer.path().join("elsewhere/x.t"), "").expect("write");
        let cwd = outer.path().join("proj");
        let files = run(&cwd, &["../elsewhere/x.t"], &Config::default(), None).expect("found");
        assert_eq!(files[0].rel, "../elsewhere/x.t");
        assert_eq!(log_name(&files[0].rel), "up__elsewhere__x.log");
    }

    #[test]
    fn user_rules_come_first() {
        let dir = project(TREE);
        let cfg = Config {
            runners: vec![
                rule("*.t", &["sh", "-c", "cat \"$1\"", "--", "{}"]),
                rule("test/sub/*", &["sh", "--file={}"]),
                rule("*.md", &["cat"]),
            ],
            ..Config::default()
        };
        let files = run(dir.path(), &["test"], &cfg, None).expect("tests found");
        let by_rel = |rel: &str| {
            files
                .iter()
                .find(|f| f.rel == rel)
                .unwrap_or_else(|| panic!("{rel} missing"))
        };
        assert_eq!(
            command(by_rel("test/a.t")),
            ["sh", "-c", "cat \"$1\"", "--", "test/a.t"]
        );
        assert_eq!(
            command(by_rel("test/sub/d.pl")),
            ["sh", "--file=test/sub/d.pl"]
        );
        assert_eq!(
            command(by_rel("test/README.md")),
            ["cat", "test/README.md"],
            "without {{}} the path is appended"
        );
        assert_eq!(
            program(by_rel("test/b.ts")),
            "tsx",
            "other files fall through to the built-in rules"
        );
    }

    #[test]
    fn missing_interpreters_are_per_file() {
        let dir = project(TREE);
        let cfg = Config {
            runners: vec![rule("*.t", &["tapline-no-such-interpreter", "{}"])],
            ..Config::default()
        };
        let files = run(dir.path(), &["test/a.t", "test/c.sh"], &cfg, None).expect("tests found");
        let missing = files[0].command.as_ref().expect_err("not installed");
        assert_eq!(
            missing,
            &MissingInterpreter {
                program: "tapline-no-such-interpreter".into(),
                file: "test/a.t".into()
            }
        );
        assert_eq!(
            missing.to_string(),
            "`tapline-no-such-interpreter` is not installed (needed to run test/a.t)"
        );
        assert_eq!(
            list_line(&files[0]),
            "test/a.t\t`tapline-no-such-interpreter` is not installed (needed to run test/a.t)"
        );
        assert_eq!(command(&files[1]), ["sh", "test/c.sh"]);
    }

    #[test]
    fn exec_runs_named_files_and_the_tests_of_directories() {
        let dir = project(TREE);
        let files = run(
            dir.path(),
            &["test/sub", "test/README.md", "test/helper.py"],
            &Config::default(),
            Some("sh -c 'echo \"$0\"' {}"),
        )
        .expect("tests found");
        assert_eq!(
            rels(&files),
            ["test/README.md", "test/helper.py", "test/sub/e.mjs"],
            "a directory yields its tests only, not test/sub/d.pl"
        );
        let all = run(dir.path(), &["test"], &Config::default(), Some("cat")).expect("tests found");
        assert_eq!(
            rels(&all),
            rels(&run(dir.path(), &["test"], &Config::default(), None).expect("tests found")),
            "--exec runs what discovery picks"
        );
        assert_eq!(command(&all[0]), ["cat", "test/a.t"]);
        let err = run(
            dir.path(),
            &["test/sub/*.pl"],
            &Config::default(),
            Some("cat"),
        )
        .map(|files| rels(&files).join(" "));
        assert_eq!(
            err.ok().as_deref(),
            Some("test/sub/d.pl"),
            "a glob is the user's own pick"
        );
        fs::create_dir(dir.path().join("rb")).expect("mkdir");
        fs::write(dir.path().join("rb/a.rb"), "").expect("write");
        let err = run(dir.path(), &["rb"], &Config::default(), Some("ruby {}"))
            .expect_err("no test file in rb/");
        assert!(matches!(err, DiscoverError::NoExecTests(_)), "{err}");
        assert_eq!(
            err.to_string(),
            "failed to find test files in `rb`: with --exec a directory still yields only its test files (those a runner rule picks, and executables); name the files, or a glob, to run others"
        );
        assert_eq!(
            command(&files[0]),
            ["sh", "-c", "echo \"$0\"", "test/README.md"]
        );

        let files = run(
            dir.path(),
            &["test/sub/d.pl"],
            &Config::default(),
            Some("./test/run-me --verbose"),
        )
        .expect("found");
        assert_eq!(
            command(&files[0]),
            ["./test/run-me", "--verbose", "test/sub/d.pl"],
            "a program path is checked against the cwd"
        );
        let files = run(
            dir.path(),
            &["test/sub/d.pl"],
            &Config::default(),
            Some("./test/nope"),
        )
        .expect("found");
        assert!(files[0].command.is_err());

        for (exec, reason) in [
            ("", "no command"),
            ("  ", "no command"),
            ("sh 'x", "unterminated single quote"),
        ] {
            let err = run(dir.path(), &["test/a.t"], &Config::default(), Some(exec))
                .expect_err("bad --exec");
            assert_eq!(
                err.to_string(),
                format!("failed to parse --exec `{exec}`: {reason}")
            );
        }
    }

    #[test]
    fn word_splitting() {
        let split = |line: &str| split_words(line).unwrap_or_else(|e| panic!("{line:?}: {e}"));
        assert_eq!(split("perl -Ilib {}"), ["perl", "-Ilib", "{}"]);
        assert_eq!(split("  a\t b  "), ["a", "b"]);
        assert_eq!(
            split(r#"a 'b c' "d \"e\" \$x \n" f\ g"#),
            ["a", "b c", r#"d "e" $x \n"#, "f g"]
        );
        assert_eq!(split(r#"'' "" x'y'"z""#), ["", "", "xyz"]);
        assert_eq!(split(r"'a\b'"), [r"a\b"]);
        assert_eq!(split(""), Vec::<String>::new());
        assert_eq!(split_words("a 'b"), Err("unterminated single quote"));
        assert_eq!(split_words("a \"b"), Err("unterminated double quote"));
        assert_eq!(split_words("a \"b\\"), Err("unterminated double quote"));
        assert_eq!(split_words("a\\"), Err("trailing backslash"));
    }

    #[test]
    fn fill_places_the_file() {
        let fill = |template: &[&str], path: &str| {
            let template: Vec<String> = template.iter().map(|&word| word.to_owned()).collect();
            fill(&template, Path::new(path))
        };
        assert_eq!(fill(&["perl"], "t/a.t"), ["perl", "t/a.t"]);
        assert_eq!(
            fill(&["perl", "{}", "--", "{}"], "t/a.t"),
            ["perl", "t/a.t", "--", "t/a.t"]
        );
        assert_eq!(fill(&["x", "--in={}.json"], "a"), ["x", "--in=a.json"]);
        assert_eq!(fill(&["{}", "-v"], "a.t"), ["./a.t", "-v"]);
    }

    #[test]
    fn finds_programs() {
        let dir = project(&["bin/tool*", "bin/plain"]);
        assert!(installed(OsStr::new("sh"), dir.path()));
        assert!(!installed(
            OsStr::new("tapline-no-such-interpreter"),
            dir.path()
        ));
        assert!(!installed(OsStr::new(""), dir.path()));
        assert!(installed(OsStr::new("./bin/tool"), dir.path()));
        assert!(installed(OsStr::new("bin/tool"), dir.path()));
        assert!(
            !installed(OsStr::new("bin/plain"), dir.path()),
            "not executable"
        );
        assert!(!installed(OsStr::new("bin"), dir.path()));
    }

    #[test]
    fn log_names() {
        assert_eq!(
            log_name("test/tapbundle/test.ts"),
            "test__tapbundle__test.log"
        );
        assert_eq!(log_name("a.t"), "a.log");
        assert_eq!(log_name("test/a.test.ts"), "test__a.test.log");
        assert_eq!(log_name("test/noext"), "test__noext.log");
        assert_eq!(log_name("test/.hidden"), "test__.hidden.log");
        assert_eq!(log_name("../x.t"), "up__x.log");
        assert_eq!(log_name("../../a/../b.t"), "up__up__a__up__b.log");
        assert_eq!(log_name("/abs/x.t"), "abs__x.log");
        assert_eq!(log_name("./a//b.t"), "a__b.log");
        assert_eq!(log_name("a\\..\\b\0c.t"), "a_.._b_c.log");
        assert_eq!(log_name(".."), "up.log");
        assert_eq!(log_name("..."), "...log");
        assert_eq!(log_name(""), "_.log");
        assert_eq!(log_name("/"), "_.log");
        for rel in [
            "../x.t",
            "/etc/passwd",
            "..",
            ".",
            "",
            "a/../../..",
            "\\..\\x",
            "x\0/..",
            "...",
        ] {
            let name = log_name(rel);
            assert!(
                name.ends_with(".log") && !name.contains(['/', '\\', '\0']),
                "{rel:?} → {name:?}"
            );
            assert_eq!(
                Path::new(&name).components().count(),
                1,
                "{rel:?} → {name:?}"
            );
            assert!(
                matches!(
                    Path::new(&name).components().next(),
                    Some(Component::Normal(_))
                ),
                "{rel:?} → {name:?}"
            );
        }
    }

    #[test]
    fn list_lines_quote_when_needed() {
        let file = |path: &str, command: &[&str]| TestFile {
            path: path.into(),
            rel: path.into(),
            command: Ok(command.iter().map(OsString::from).collect()),
            input: Default::default(),
        };
        assert_eq!(
            list_line(&file("test/a.t", &["perl", "test/a.t"])),
            "test/a.t\tperl test/a.t"
        );
        assert_eq!(
            list_line(&file("t/my test.t", &["perl", "t/my test.t"])),
            "t/my test.t\tperl 't/my test.t'"
        );
        assert_eq!(
            list_line(&file("t/it's.t", &["perl", "-e", "", "t/it's.t"])),
            "t/it's.t\tperl -e '' 't/it'\\''s.t'"
        );
    }

    #[test]
    fn builtin_rules() {
        let dir = project(&[
            "t/a.t",
            "t/a.pl",
            "t/test_a.py",
            "t/a.js",
            "t/a.mjs",
            "t/a.cjs",
            "t/a.ts",
            "t/a.sh",
            "t/a.bats",
            "t/a.rb",
        ]);
        let files = run(dir.path(), &["t"], &Config::default(), None).expect("tests found");
        let programs: Vec<(&str, String)> =
            files.iter().map(|f| (f.rel.as_str(), program(f))).collect();
        let expected = [
            ("t/a.bats", "bats"),
            ("t/a.cjs", "node"),
            ("t/a.js", "node"),
            ("t/a.mjs", "node"),
            ("t/a.sh", "sh"),
            ("t/a.t", "perl"),
            ("t/a.ts", "tsx"),
            ("t/test_a.py", "python3"),
        ];
        assert_eq!(
            programs,
            expected.map(|(rel, program)| (rel, program.to_owned()))
        );
        if let Ok(words) = &files[0].command {
            assert_eq!(words, &["bats", "--tap", "t/a.bats"]);
        }
        let named = run(dir.path(), &["t/a.pl"], &Config::default(), None).expect("named");
        assert_eq!(program(&named[0]), "perl", "a helper named explicitly runs");
        assert_eq!(
            walk_globs().join(" "),
            "*.t test*.py *_test.py *.{js,mjs,cjs} *.ts *.sh *.bats"
        );
    }

    /// A project whose files have the given contents (a trailing `*` on the name marks
    /// executables).
    fn project_with(files: &[(&str, &str)]) -> TempDir {
        let dir = project(&[]);
        for (file, text) in files {
            let (name, executable) = file
                .strip_suffix('*')
                .map_or((*file, false), |name| (name, true));
            let path = dir.path().join(name);
            fs::create_dir_all(path.parent().expect("inside")).expect("mkdir");
            fs::write(&path, text).expect("write");
            if executable {
                use std::os::unix::fs::PermissionsExt;
                fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).expect("chmod");
            }
        }
        dir
    }

    #[test]
    fn shebang_lines_shape_commands() {
        let dir = project_with(&[
            ("t/taint.t", "#!/usr/bin/env perl -T\n"),
            ("t/warn.t", "#!perl -wT\n"),
            ("t/plain.t", "#!/usr/bin/perl\n"),
            ("t/none.t", "use strict;\n"),
            ("t/test_u.py", "#!/usr/bin/env python3 -u -W error\n"),
            ("t/gc.mjs", "#!/usr/bin/env -S node --expose-gc\n"),
            ("t/b.sh", "#!/bin/bash -eu\n"),
            ("t/p.sh", "#!/bin/sh\n"),
            ("t/env-perl*", "#!/usr/bin/env perl -T -w\n"),
            ("t/binary*", "\x7fELF"),
            ("t/script", "#!/bin/sh\n"),
            ("t/b.bats", "#!/usr/bin/env bats -x\n"),
        ]);
        let files = run(dir.path(), &["t"], &Config::default(), None).expect("tests found");
        let commands: Vec<(&str, String)> = files
            .iter()
            .map(|f| match &f.command {
                Ok(words) => (
                    f.rel.as_str(),
                    words
                        .iter()
                        .map(|w| w.to_string_lossy())
                        .collect::<Vec<_>>()
                        .join(" "),
                ),
                Err(missing) => (f.rel.as_str(), format!("missing {}", missing.program)),
            })
            .collect();
        let expected = [
            ("t/b.bats", "bats --tap t/b.bats"),
            ("t/b.sh", "/bin/bash -eu t/b.sh"),
            ("t/binary", "t/binary"),
            ("t/env-perl", "perl -T -w t/env-perl"),
            ("t/gc.mjs", "node --expose-gc t/gc.mjs"),
            ("t/none.t", "perl t/none.t"),
            ("t/p.sh", "/bin/sh t/p.sh"),
            ("t/plain.t", "perl t/plain.t"),
            ("t/taint.t", "perl -T t/taint.t"),
            ("t/test_u.py", "python3 -u -W error t/test_u.py"),
            ("t/warn.t", "perl -w -T t/warn.t"),
        ];
        let expected: Vec<(&str, String)> = expected
            .iter()
            .map(|&(rel, command)| {
                let program = command.split(' ').next().unwrap_or_default();
                let shown = if program.contains('/') || installed(OsStr::new(program), dir.path()) {
                    command.to_owned()
                } else {
                    format!("missing {program}")
                };
                (rel, shown)
            })
            .collect();
        assert_eq!(
            commands, expected,
            "t/script is neither executable nor named"
        );

        let named = run(dir.path(), &["t/script"], &Config::default(), None).expect("named");
        assert_eq!(
            command(&named[0]),
            ["/bin/sh", "t/script"],
            "named, it runs by its #! line"
        );

        let cfg = Config {
            runners: vec![
                rule("*.t", &["perl", "-Ilib", "{}"]),
                rule("*.py", &["python3", "-m", "pytest", "{}"]),
            ],
            ..Config::default()
        };
        let files = run(dir.path(), &["t/taint.t", "t/test_u.py"], &cfg, None).expect("named");
        assert_eq!(
            command(&files[0]),
            ["perl", "-T", "-Ilib", "t/taint.t"],
            "perl insists on -T, even in the user's own rule"
        );
        assert_eq!(
            command(&files[1]),
            ["python3", "-m", "pytest", "t/test_u.py"],
            "other commands of the user's stay as written"
        );
        let files = run(dir.path(), &["t/taint.t"], &cfg, Some("perl {}")).expect("named");
        assert_eq!(
            command(&files[0]),
            ["perl", "t/taint.t"],
            "--exec is used as written"
        );
    }
}
