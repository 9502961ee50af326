//! `tapline.toml`: the project's run settings, read from the project root.
//!
//! The project root is the nearest ancestor of the working directory holding `tapline.toml`
//! or `.git` (else the working directory itself). Every key is optional; a missing file means
//! the defaults. Unknown keys are errors, so a typo never silently does nothing.
//!
//! ```toml
//! [run]
//! jobs = 4                     # files run at once (0: the number of cores, the default)
//! timeout = "120s"             # per file: "500ms", "5s", "2m", "1h", or a number of seconds
//! grace = "5s"                 # how long a timed-out file gets to exit before it is killed
//! log_dir = ".nogit/testlogs"  # relative to the project root
//! test_dirs = ["test"]         # where to look when no PATH is given (relative to the cwd;
//!                              # default: what package.json's test script runs, else
//!                              # test/, tests/ and t/, whichever exist)
//! ts_runner = ["ts-run"]       # runs *.ts (default: the project's own TypeScript runner, then
//!                              # one on PATH, docs/discovery.md); a path is from the project root
//! env = { LANG = "C" }         # set for every test (`--env KEY=VALUE` wins, key by key)
//! lib = ["lib"]                # prepended to every include variable a harness names (like
//!                              # -I DIR; relative to the project root; docs/configuration.md)
//! retries = 2                  # run a failed file up to 2 more times (a later pass: flaky)
//! order = "slowest-first"      # slowest-first, failed-first, declared, random, random:SEED
//! history = true               # record every run in <log_dir>/history.jsonl
//! trace = true                 # record what each file loaded (watch and --changed use it)
//! cache = false                # skip files unchanged since they passed (see cache_inputs)
//! cache_inputs = ["src/**"]    # files (globs from the project root) every test depends on
//! max_memory = "256M"          # per process: heap and private writable memory (RLIMIT_DATA)
//! max_cpu_time = "30s"         # per process: CPU time (RLIMIT_CPU; SIGXCPU, then SIGKILL 1s on)
//! max_open_files = 256         # per process: file descriptors (RLIMIT_NOFILE)
//! max_processes = 512          # per user, as the kernel counts it (RLIMIT_NPROC; not for root)
//! max_output = "10M"           # stdout + stderr of a file; past it the file is stopped
//! sandbox = true               # run each file inside bubblewrap (docs/sandbox.md: its threat model)
//! sandbox_write = ["target"]   # writable inside the sandbox (relative to the project root)
//! sandbox_env_drop = ["AWS_SECRET_ACCESS_KEY"]  # variables a sandboxed test does not get
//! browser = "/usr/bin/browser"  # the browser for browser tests (default: the variable, then
//!                              # the binaries on PATH that docs/browser.md names; the key
//!                              # was first named after that browser, a name still read)
//! isolate = false              # true: one process per file, even for the files that
//!                              # otherwise share a warm worker per job (docs/run.md)
//!
//! [[runner]]                   # tried in order, before the built-in rules; first match wins
//! glob = "*.ts"                # matched against the file name, or against the path relative
//!                              # to the project root when the glob contains '/'
//! command = ["ts-run", "{}"]   # {} = the test file; with no {} the file is appended; or one
//!                              # string split as a shell would: "ts-run --test {}"
//! format = "tap"               # what the command prints: tap (default), go-json, junit,
//!                              # exit-status (no TAP: its exit status is its one test),
//!                              # json-result (ends with one JSON result line)
//! runtime = "command"          # or the page host's word: run the matched files in the
//!                              # headless browser instead (no command needed; docs/browser.md)
//! merge = false                # stdout and stderr on one pipe, parsed as TAP, in the order
//!                              # written (default: the harness's choice; --no-merge wins)
//! warm = true                  # files that run one after another in a warm worker per job,
//!                              # as a warm harness's files do (false: one process each)
//!
//! [[suite]]                    # a whole command run once per run, one entry beside the files
//! name = "unit"                # its name in reports and logs (unique)
//! dir = "unit"                 # where it runs, relative to the project root (default ".")
//! command = ["make", "test-json"]
//! format = "go-json"           # tap (default), go-json, junit, exit-status, json-result, … (docs/suites.md)
//! report = "reports/*.xml"     # junit only: read these files (relative to dir) when the
//!                              # command ends, instead of its output
//! optional = true              # a missing program skips the suite (default: it fails)
//! ```
pub mod coverage;
mod env;
mod kinds;
mod renamed;

pub use env::{check_var, parse_assignment, EnvError};
pub use kinds::{Order, Partition, PartitionArg, PartitionError, Strategy};

use crate::harness::api::Host;
use crate::harness::registry;
use crate::protocol::InputFormat;
use globset::{GlobBuilder, GlobMatcher};
use serde::de::{self, Deserializer, Unexpected, Visitor};
use serde::Deserialize;
use std::path::{Path, PathBuf};
use std::time::Duration;
use std::{fmt, fs, io};

/// The file name looked for at the project root.
pub const FILE_NAME: &str = "tapline.toml";

#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    pub jobs: Option<usize>,
    pub timeout: Option<Duration>,
    pub grace: Option<Duration>,
    /// Already joined to the project root.
    pub log_dir: Option<PathBuf>,
    /// As written: relative to the cwd, like PATH arguments. `None`: the project decides
    /// (see `discover`).
    pub test_dirs: Option<Vec<PathBuf>>,
    /// The command `*.ts` files run with (a program with '/' already joined to the project
    /// root); `None`: the project's own runner (see `runners::ts_runner`).
    pub ts_runner: Option<Vec<String>>,
    /// The user's rules only; discovery puts the built-in ones after them.
    pub runners: Vec<RunnerRule>,
    /// `[run] env`, sorted by key.
    pub env: Vec<(String, String)>,
    /// `[run] lib`, already joined to the project root.
    pub lib: Vec<PathBuf>,
    pub retries: Option<u32>,
    pub order: Option<Order>,
    /// `[run] partition`: usually `"auto"` (the CI engine says which shard this is).
    pub partition: Option<PartitionArg>,
    /// `false` turns the history store off.
    pub history: Option<bool>,
    /// `false` records no dependency traces (`--no-trace`).
    pub trace: Option<bool>,
    /// `true`: one process per file, no warm worker (`--isolate`).
    pub isolate: Option<bool>,
    pub cache: Option<bool>,
    /// Globs relative to the project root.
    pub cache_inputs: Vec<String>,
    /// `max_memory`, `max_cpu_time`, `max_open_files`, `max_processes`, `max_output`.
    pub limits: crate::supervise::limits::Limits,
    pub sandbox: Option<bool>,
    /// Already joined to the project root.
    pub sandbox_write: Vec<PathBuf>,
    pub sandbox_env_drop: Vec<String>,
    /// `[run] browser`: the browser for browser tests, already joined to the project root
    /// when it names a path.
    pub browser: Option<PathBuf>,
    /// `[[suite]]` entries, in the order written.
    pub suites: Vec<Suite>,
    /// `[coverage]` (`tapline run --coverage`).
    pub coverage: coverage::Config,
    /// What the file said that still works but should change (an old key's name), one line
    /// each, for the command to print once ([`renamed`]).
    pub warnings: Vec<String>,
}

/// A `[[suite]]`: a command run once per run as one entry, whose output (or JUnit report
/// files) holds many tests.
#[derive(Debug, Clone, PartialEq)]
pub struct Suite {
    pub name: String,
    /// Already joined to the project root.
    pub dir: PathBuf,
    pub command: Vec<String>,
    pub format: InputFormat,
    /// JUnit report files (a glob relative to `dir`) read when the command ends.
    pub report: Option<String>,
    /// A missing program skips the suite instead of failing it.
    pub optional: bool,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            jobs: None,
            timeout: None,
            grace: None,
            log_dir: None,
            test_dirs: None,
            ts_runner: None,
            runners: Vec::new(),
            env: Vec::new(),
            lib: Vec::new(),
            retries: None,
            order: None,
            partition: None,
            history: None,
            trace: None,
            isolate: None,
            cache: None,
            cache_inputs: Vec::new(),
            limits: crate::supervise::limits::Limits::default(),
            sandbox: None,
            sandbox_write: Vec::new(),
            sandbox_env_drop: Vec::new(),
            browser: None,
            suites: Vec::new(),
            coverage: coverage::Config::default(),
            warnings: Vec::new(),
        }
    }
}

/// Maps the files a glob matches to the command that runs them.
#[derive(Debug, Clone, Deserialize)]
#[serde(try_from = "RawRunner")]
pub struct RunnerRule {
    pub glob: String,
    /// Words of the command; `{}` within a word stands for the test file.
    pub command: Vec<String>,
    /// What the command prints.
    pub format: InputFormat,
    /// Where its files run: as processes by `command`, or as pages in the run's browser when
    /// `runtime` names the page host ([`registry::page_runtime`]).
    pub host: Host,
    /// Whether stdout and stderr are one pipe, parsed as TAP (`None`: by the program, see
    /// `runners::streams`).
    pub merge: Option<bool>,
    /// Whether its files may share a warm worker (`None`: as their harness's room decides;
    /// docs/run.md says which do).
    pub warm: Option<bool>,
    matcher: GlobMatcher,
}

impl PartialEq for RunnerRule {
    fn eq(&self, other: &Self) -> bool {
        // The matcher is derived from the glob.
        self.glob == other.glob
            && self.command == other.command
            && self.format == other.format
            && self.host == other.host
            && self.merge == other.merge
            && self.warm == other.warm
    }
}

impl RunnerRule {
    pub fn new(glob: &str, command: Vec<String>) -> Result<Self, RuleError> {
        if command.is_empty() {
            return Err(RuleError::EmptyCommand(glob.to_owned()));
        }
        // `*` stays within one path component, so `test/*.t` doesn't reach into test/sub/.
        let matcher = GlobBuilder::new(glob)
            .literal_separator(true)
            .build()
            .map_err(|e| RuleError::Glob {
                glob: glob.to_owned(),
                kind: e.kind().clone(),
            })?
            .compile_matcher();
        Ok(RunnerRule {
            glob: glob.to_owned(),
            command,
            format: InputFormat::Tap,
            host: Host::Process,
            merge: None,
            warm: None,
            matcher,
        })
    }

    /// Whether the rule applies to `rel`, a path relative to the project root with '/' separators.
    pub fn matches(&self, rel: &str) -> bool {
        if self.glob.contains('/') {
            self.matcher.is_match(rel)
        } else {
            self.matcher.is_match(rel.rsplit('/').next().unwrap_or(rel))
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRunner {
    glob: String,
    #[serde(default, deserialize_with = "command")]
    command: Vec<String>,
    #[serde(default, deserialize_with = "input_format")]
    format: Option<InputFormat>,
    runtime: Option<String>,
    merge: Option<bool>,
    warm: Option<bool>,
}

impl TryFrom<RawRunner> for RunnerRule {
    type Error = RuleError;

    fn try_from(raw: RawRunner) -> Result<Self, RuleError> {
        let host = match raw.runtime.as_deref() {
            None | Some("command") => Host::Process,
            Some(page) if page == registry::page_runtime() => Host::Page,
            Some(other) => return Err(RuleError::Runtime(other.to_owned())),
        };
        let command = match (host, raw.command.is_empty()) {
            // The browser runs the file; the word only keeps the rule's shape.
            (Host::Page, true) => vec![registry::page_runtime().to_owned()],
            _ => raw.command,
        };
        let mut rule = RunnerRule::new(&raw.glob, command)?;
        rule.format = raw.format.unwrap_or_default();
        rule.host = host;
        rule.merge = raw.merge;
        rule.warm = raw.warm;
        Ok(rule)
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSuite {
    name: String,
    #[serde(default)]
    dir: Option<PathBuf>,
    #[serde(deserialize_with = "command")]
    command: Vec<String>,
    #[serde(default, deserialize_with = "input_format")]
    format: Option<InputFormat>,
    report: Option<String>,
    #[serde(default)]
    optional: bool,
}

fn input_format<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<InputFormat>, D::Error> {
    let text = String::deserialize(deserializer)?;
    text.parse().map(Some).map_err(de::Error::custom)
}

/// Checks the `[[suite]]` entries and places them at the project root.
fn suites(raw: Vec<RawSuite>, root: &Path) -> Result<Vec<Suite>, String> {
    let mut out: Vec<Suite> = Vec::new();
    for s in raw {
        let name = s.name.trim();
        if name.is_empty() {
            return Err("a [[suite]] has an empty name".to_owned());
        }
        if out.iter().any(|o| o.name == name) {
            return Err(format!("two [[suite]] entries are named `{name}`"));
        }
        if s.command.is_empty() {
            return Err(format!("[[suite]] `{name}` has an empty command"));
        }
        let format = s.format.unwrap_or_default();
        if s.report.is_some() && format != InputFormat::Junit {
            return Err(format!(
                "[[suite]] `{name}` has a report but its format is {format}: reports are JUnit XML (format = \"junit\")"
            ));
        }
        if let Some(glob) = &s.report {
            globset::Glob::new(glob).map_err(|e| {
                format!(
                    "[[suite]] `{name}`: failed to parse report glob `{glob}`: {}",
                    e.kind()
                )
            })?;
        }
        out.push(Suite {
            name: name.to_owned(),
            dir: root.join(s.dir.unwrap_or_default()),
            command: s.command,
            format,
            report: s.report,
            optional: s.optional,
        });
    }
    Ok(out)
}

#[derive(Debug, thiserror::Error)]
pub enum RuleError {
    #[error("failed to parse runner glob `{glob}`: {kind}")]
    Glob {
        glob: String,
        kind: globset::ErrorKind,
    },
    #[error("failed to use the runner for `{0}`: its command is empty")]
    EmptyCommand(String),
    #[error("failed to read a runner's runtime `{0}`: it is \"{page}\" or \"command\"", page = registry::page_runtime())]
    Runtime(String),
}

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("failed to read {path}: {source}")]
    Read { path: PathBuf, source: io::Error },
    /// `location` is `path:line:column` when the position is known, else the path.
    #[error("failed to parse {location}: {message}")]
    Parse { location: String, message: String },
}

#[derive(Debug, thiserror::Error)]
#[error("failed to parse duration `{0}`: expected a number with an optional unit ms, s, m or h, like `500ms`, `5s` or `2m`")]
pub struct DurationError(String);

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFile {
    #[serde(default)]
    run: RawRun,
    #[serde(default)]
    runner: Vec<RunnerRule>,
    #[serde(default)]
    suite: Vec<RawSuite>,
    #[serde(default)]
    coverage: coverage::Config,
}

#[derive(Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRun {
    /// `0` means the number of cores, as `-j 0` does.
    jobs: Option<usize>,
    #[serde(default, deserialize_with = "duration")]
    timeout: Option<Duration>,
    #[serde(default, deserialize_with = "duration")]
    grace: Option<Duration>,
    log_dir: Option<PathBuf>,
    test_dirs: Option<Vec<PathBuf>>,
    #[serde(default, deserialize_with = "words")]
    ts_runner: Option<Vec<String>>,
    #[serde(default, deserialize_with = "env_table")]
    env: Vec<(String, String)>,
    #[serde(default)]
    lib: Vec<PathBuf>,
    retries: Option<u32>,
    #[serde(default, deserialize_with = "order")]
    order: Option<Order>,
    #[serde(default, deserialize_with = "partition")]
    partition: Option<PartitionArg>,
    history: Option<bool>,
    trace: Option<bool>,
    isolate: Option<bool>,
    cache: Option<bool>,
    cache_inputs: Option<Vec<String>>,
    #[serde(default, deserialize_with = "size")]
    max_memory: Option<u64>,
    #[serde(default, deserialize_with = "duration")]
    max_cpu_time: Option<Duration>,
    max_open_files: Option<u64>,
    max_processes: Option<u64>,
    #[serde(default, deserialize_with = "size")]
    max_output: Option<u64>,
    sandbox: Option<bool>,
    #[serde(default)]
    sandbox_write: Vec<PathBuf>,
    #[serde(default)]
    sandbox_env_drop: Vec<String>,
    browser: Option<PathBuf>,
}

/// Reads a size written as a string with its unit (`"256M"`, [`crate::supervise::limits::parse_size`]).
/// A bare number is refused as on the command line: `max_memory = 256` would be 256 bytes.
fn size<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<u64>, D::Error> {
    struct SizeVisitor;

    impl Visitor<'_> for SizeVisitor {
        type Value = u64;

        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a size with its unit, like \"256M\" (K, M, G, T or B for bytes)")
        }

        fn visit_str<E: de::Error>(self, s: &str) -> Result<u64, E> {
            crate::supervise::limits::parse_size(s).map_err(E::custom)
        }
    }

    deserializer.deserialize_any(SizeVisitor).map(Some)
}

fn partition<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<PartitionArg>, D::Error> {
    let text = String::deserialize(deserializer)?;
    text.parse().map(Some).map_err(de::Error::custom)
}

fn order<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<Order>, D::Error> {
    let text = String::deserialize(deserializer)?;
    text.parse().map(Some).map_err(de::Error::custom)
}

/// The nearest ancestor of `cwd` (itself included) holding `tapline.toml` or `.git`, else `cwd`.
pub fn find_project_root(cwd: &Path) -> PathBuf {
    cwd.ancestors()
        .find(|dir| dir.join(FILE_NAME).exists() || dir.join(".git").exists())
        .unwrap_or(cwd)
        .to_path_buf()
}

/// Reads `<root>/tapline.toml`; a missing file gives the defaults.
pub fn load(root: &Path) -> Result<Config, ConfigError> {
    let path = root.join(FILE_NAME);
    let text = match fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Config::default()),
        Err(source) => return Err(ConfigError::Read { path, source }),
    };
    let (raw, warnings) = parse(&text, &path)?;
    let suites = suites(raw.suite, root).map_err(|message| ConfigError::Parse {
        location: path.display().to_string(),
        message,
    })?;
    Ok(Config {
        jobs: raw.run.jobs.filter(|&n| n > 0),
        timeout: raw.run.timeout,
        grace: raw.run.grace,
        log_dir: raw.run.log_dir.map(|dir| root.join(dir)),
        test_dirs: raw.run.test_dirs,
        ts_runner: raw.run.ts_runner.map(|words| rooted_program(words, root)),
        runners: raw.runner,
        env: raw.run.env,
        lib: raw.run.lib.iter().map(|dir| root.join(dir)).collect(),
        retries: raw.run.retries,
        order: raw.run.order,
        partition: raw.run.partition,
        history: raw.run.history,
        trace: raw.run.trace,
        isolate: raw.run.isolate,
        cache: raw.run.cache,
        cache_inputs: raw.run.cache_inputs.unwrap_or_default(),
        limits: crate::supervise::limits::Limits {
            memory: raw.run.max_memory,
            cpu_time: raw.run.max_cpu_time,
            open_files: raw.run.max_open_files,
            processes: raw.run.max_processes,
            output: raw.run.max_output,
        },
        sandbox: raw.run.sandbox,
        sandbox_write: raw.run.sandbox_write.iter().map(|p| root.join(p)).collect(),
        sandbox_env_drop: raw.run.sandbox_env_drop,
        browser: raw.run.browser.map(|p| {
            if p.components().count() > 1 {
                root.join(p)
            } else {
                p
            }
        }),
        suites,
        coverage: raw.coverage,
        warnings,
    })
}

/// Reads the file's text, its renamed keys ([`renamed`]) under their new names, with the
/// warnings they give.
fn parse(text: &str, path: &Path) -> Result<(RawFile, Vec<String>), ConfigError> {
    let error = |e: toml::de::Error, located: bool| {
        let mut location = path.display().to_string();
        if let Some(before) = (e.span().filter(|_| located)).and_then(|span| text.get(..span.start))
        {
            let line = before.matches('\n').count() + 1;
            let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
            location = format!("{location}:{line}:{column}");
        }
        // Keep the error on one line: the message of a custom error may span several.
        ConfigError::Parse {
            location,
            message: e.message().trim().replace('\n', " "),
        }
    };
    // A file that is not even TOML gets its error, with its position, from the read below.
    if let Ok(mut file) = toml::from_str::<toml::Table>(text) {
        let warnings = renamed::apply(&mut file, registry::renamed_keys()).map_err(|message| {
            ConfigError::Parse {
                location: path.display().to_string(),
                message,
            }
        })?;
        if !warnings.is_empty() {
            // Read from the moved table, an error has no position in the text to give.
            let raw = RawFile::deserialize(file).map_err(|e| error(e, false))?;
            return Ok((raw, warnings));
        }
    }
    let raw = toml::from_str(text).map_err(|e| error(e, true))?;
    Ok((raw, Vec::new()))
}

/// A command whose program is a relative path (a project's own runner under its dependency
/// folder, `tools/bin/ts-run`), placed at the
/// project root; a bare name is looked up on PATH.
fn rooted_program(mut words: Vec<String>, root: &Path) -> Vec<String> {
    if let Some(program) = words.first_mut() {
        if program.contains('/') && Path::new(program.as_str()).is_relative() {
            *program = root.join(&*program).to_string_lossy().into_owned();
        }
    }
    words
}

/// Reads a command: an array of words, or one string split as a POSIX shell splits it
/// (quotes and backslashes honoured, nothing expanded).
fn words<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<Vec<String>>, D::Error> {
    let words = command(deserializer)?;
    if words.is_empty() {
        return Err(de::Error::custom("the command is empty"));
    }
    Ok(Some(words))
}

/// A command: an array of words, or one string split as a shell would ([`words`]). An empty
/// one is its entry's to refuse, naming the entry.
fn command<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<String>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Words {
        One(String),
        Many(Vec<String>),
    }
    let words = match Words::deserialize(deserializer)? {
        Words::Many(words) => words,
        Words::One(line) => crate::util::shell::split_words(&line)
            .map_err(|e| de::Error::custom(format!("failed to split `{line}`: {e}")))?,
    };
    Ok(words)
}

/// Parses a humane duration: `500ms`, `5s`, `2m`, `1h`, `1.5s`; a plain number is seconds.
pub fn parse_duration(s: &str) -> Result<Duration, DurationError> {
    let err = || DurationError(s.to_owned());
    let text = s.trim();
    let (number, unit) = text.split_at(
        text.find(|c: char| !c.is_ascii_digit() && c != '.')
            .unwrap_or(text.len()),
    );
    let nanos_per_unit = match unit.trim_start() {
        "ms" => 1e6,
        "" | "s" => 1e9,
        "m" => 60e9,
        "h" => 3600e9,
        _ => return Err(err()),
    };
    // Only digits and dots reach the parse, so the number is finite and not negative.
    let nanos = (number.parse::<f64>().map_err(|_| err())? * nanos_per_unit).round();
    if nanos < u64::MAX as f64 {
        Ok(Duration::from_nanos(nanos as u64))
    } else {
        Err(err())
    }
}

/// Reads `[run] env`: a table of variables whose values are strings, numbers or booleans
/// (`DEBUG = 1` means `DEBUG=1`).
fn env_table<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Vec<(String, String)>, D::Error> {
    struct Value(String);

    impl<'de> Deserialize<'de> for Value {
        fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            struct ValueVisitor;

            impl Visitor<'_> for ValueVisitor {
                type Value = Value;

                fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                    f.write_str("a string, number or boolean")
                }

                fn visit_str<E: de::Error>(self, s: &str) -> Result<Value, E> {
                    Ok(Value(s.to_owned()))
                }

                fn visit_i64<E: de::Error>(self, n: i64) -> Result<Value, E> {
                    Ok(Value(n.to_string()))
                }

                fn visit_u64<E: de::Error>(self, n: u64) -> Result<Value, E> {
                    Ok(Value(n.to_string()))
                }

                fn visit_f64<E: de::Error>(self, n: f64) -> Result<Value, E> {
                    Ok(Value(n.to_string()))
                }

                fn visit_bool<E: de::Error>(self, b: bool) -> Result<Value, E> {
                    Ok(Value(b.to_string()))
                }
            }

            deserializer.deserialize_any(ValueVisitor)
        }
    }

    let table = std::collections::BTreeMap::<String, Value>::deserialize(deserializer)?;
    table
        .into_iter()
        .map(|(key, Value(value))| {
            check_var(&key, &value)
                .map(|()| (key, value))
                .map_err(|e| de::Error::custom(format!("invalid env: {e}")))
        })
        .collect()
}

/// Reads a duration written as a string ([`parse_duration`]) or as a number of seconds.
fn duration<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<Duration>, D::Error> {
    struct DurationVisitor;

    impl Visitor<'_> for DurationVisitor {
        type Value = Duration;

        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a duration like \"5s\" or a number of seconds")
        }

        fn visit_str<E: de::Error>(self, s: &str) -> Result<Duration, E> {
            parse_duration(s).map_err(E::custom)
        }

        fn visit_u64<E: de::Error>(self, n: u64) -> Result<Duration, E> {
            Ok(Duration::from_secs(n))
        }

        fn visit_i64<E: de::Error>(self, n: i64) -> Result<Duration, E> {
            u64::try_from(n)
                .map(Duration::from_secs)
                .map_err(|_| E::invalid_value(Unexpected::Signed(n), &self))
        }

        fn visit_f64<E: de::Error>(self, n: f64) -> Result<Duration, E> {
            Duration::try_from_secs_f64(n)
                .map_err(|_| E::invalid_value(Unexpected::Float(n), &self))
        }
    }

    deserializer.deserialize_any(DurationVisitor).map(Some)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A complete `tapline.toml`, every key set (the module documentation explains each).
    const EXAMPLE: &str = r#"[run]
jobs = 4
timeout = "120s"
grace = "5s"
log_dir = ".nogit/testlogs"
test_dirs = ["test"]
ts_runner = ["tools/bin/ts-run"]
env = { LANG = "C", DEBUG = 1 }
lib = ["lib"]
retries = 2
order = "slowest-first"
history = true
trace = true
cache = false
cache_inputs = ["src/**", "lib/**"]
max_memory = "2G"
max_cpu_time = "60s"
max_open_files = 1024
max_processes = 4096
max_output = "50M"
sandbox = false
sandbox_write = ["target"]
sandbox_env_drop = ["AWS_SECRET_ACCESS_KEY"]

[[runner]]
glob = "*.ts"
command = ["ts-run", "{}"]

[[runner]]
glob = "test/slow/*.t"
command = ["interpreter", "-Ilib", "{}"]
merge = false

[[runner]]
glob = "*.json-test.sh"
command = ["sh", "{}"]
format = "go-json"

[[suite]]
name = "unit"
dir = "unit"
command = ["tool", "test", "-json", "./..."]
format = "go-json"
optional = true

[[suite]]
name = "xml"
command = ["tool", "--junitxml=.nogit/report.xml"]
format = "junit"
report = ".nogit/report.xml"
"#;
    use tempfile::TempDir;

    fn load_text(text: &str) -> Result<Config, ConfigError> {
        let dir = TempDir::new().expect("temp dir");
        fs::write(dir.path().join(FILE_NAME), text).expect("write config");
        load(dir.path())
    }

    fn parse_error(text: &str) -> String {
        match load_text(text) {
            Err(e @ ConfigError::Parse { .. }) => e.to_string(),
            other => panic!("expected a parse error, got {other:?}"),
        }
    }

    #[test]
    fn a_rules_runtime_names_the_page_host_or_the_command() {
        // The page host's word is its room's (the registry's), as the user writes it.
        let word = registry::page_runtime();
        let page = load_text(&format!(
            "[[runner]]\nglob = \"*.web.js\"\nruntime = \"{word}\"\n"
        ))
        .expect("a page rule");
        assert_eq!(page.runners[0].host, Host::Page);
        // With no command of its own, the rule keeps the host's word, as before the rooms.
        assert_eq!(page.runners[0].command, [word]);
        let process =
            load_text("[[runner]]\nglob = \"*.x\"\nruntime = \"command\"\ncommand = \"sh\"\n")
                .expect("a process rule");
        assert_eq!(process.runners[0].host, Host::Process);
        let e = parse_error("[[runner]]\nglob = \"*.x\"\nruntime = \"firefox\"\n");
        assert!(
            e.contains(&format!(
                "failed to read a runner's runtime `firefox`: it is \"{word}\" or \"command\""
            )),
            "{e}"
        );
    }

    #[test]
    fn issue39_a_command_is_an_array_or_a_string_split_as_a_shell_would() {
        let text = "[[runner]]\nglob = \"*.spec.ts\"\ncommand = \"npx ts-run --test --test-name-pattern 'a b' {}\"\n\
                    [[runner]]\nglob = \"*.t\"\ncommand = [\"interpreter\", \"-Ilib\"]\n\
                    [[suite]]\nname = \"unit\"\ncommand = 'tool test -json \"./...\"'\nformat = \"go-json\"\n";
        let config = load_text(text).unwrap_or_else(|e| panic!("{e}"));
        let words = |w: &[&str]| w.iter().map(|w| (*w).to_owned()).collect::<Vec<_>>();
        assert_eq!(
            config.runners[0].command,
            words(&[
                "npx",
                "ts-run",
                "--test",
                "--test-name-pattern",
                "a b",
                "{}"
            ])
        );
        assert_eq!(config.runners[1].command, words(&["interpreter", "-Ilib"]));
        assert_eq!(
            config.suites[0].command,
            words(&["tool", "test", "-json", "./..."])
        );
        let e = parse_error("[[runner]]\nglob = \"*.t\"\ncommand = \"interpreter 'lib\"\n");
        assert!(e.contains("unterminated single quote"), "{e}");
        let e = load_text("[[runner]]\nglob = \"*.t\"\ncommand = \"  \"\n").expect_err("empty");
        assert!(e.to_string().contains("its command is empty"), "{e}");
    }

    #[test]
    fn durations() {
        let ok = |s: &str| parse_duration(s).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(ok("500ms"), Duration::from_millis(500));
        assert_eq!(ok("1234ms"), Duration::from_millis(1234));
        assert_eq!(ok("5s"), Duration::from_secs(5));
        assert_eq!(ok("2m"), Duration::from_secs(120));
        assert_eq!(ok("1h"), Duration::from_secs(3600));
        assert_eq!(ok("90"), Duration::from_secs(90));
        assert_eq!(ok("1.5s"), Duration::from_millis(1500));
        assert_eq!(ok(" 0.25 m "), Duration::from_secs(15));
        assert_eq!(ok("0"), Duration::ZERO);
        for bad in [
            "",
            "s",
            "5x",
            "-5s",
            "1.2.3s",
            "5 sec",
            "inf",
            "nan",
            "99999999999999h",
        ] {
            assert!(parse_duration(bad).is_err(), "{bad:?} parsed");
        }
        let message = parse_duration("5x")
            .expect_err("5x is not a duration")
            .to_string();
        assert!(
            message.starts_with("failed to parse duration `5x`: expected"),
            "{message}"
        );
    }

    #[test]
    fn missing_file_gives_defaults() {
        let dir = TempDir::new().expect("temp dir");
        let cfg = load(dir.path()).expect("defaults");
        assert_eq!(cfg, Config::default());
        assert_eq!(cfg.test_dirs, None, "the project decides");
    }

    #[test]
    fn example_loads() {
        let dir = TempDir::new().expect("temp dir");
        fs::write(dir.path().join(FILE_NAME), EXAMPLE).expect("write config");
        let cfg = load(dir.path()).expect("example is valid");
        assert_eq!(cfg.jobs, Some(4));
        assert_eq!(cfg.timeout, Some(Duration::from_secs(120)));
        assert_eq!(cfg.grace, Some(Duration::from_secs(5)));
        assert_eq!(cfg.log_dir, Some(dir.path().join(".nogit/testlogs")));
        assert_eq!(cfg.test_dirs, Some(vec![PathBuf::from("test")]));
        assert_eq!(
            cfg.ts_runner,
            Some(vec![dir
                .path()
                .join("tools/bin/ts-run")
                .to_string_lossy()
                .into_owned()])
        );
        assert_eq!(
            load_text("[run]\nts_runner = \"ts-node --esm\"\n")
                .expect("valid")
                .ts_runner,
            Some(vec!["ts-node".to_owned(), "--esm".to_owned()])
        );
        assert!(parse_error("[run]\nts_runner = []\n").contains("the command is empty"));
        assert_eq!(cfg.runners.len(), 3);
        assert_eq!(cfg.runners[2].format, InputFormat::GoJson);
        assert_eq!(
            cfg.runners.iter().map(|r| r.merge).collect::<Vec<_>>(),
            [None, Some(false), None]
        );
        assert_eq!(cfg.suites.len(), 2);
        assert_eq!(cfg.suites[0].dir, dir.path().join("unit"));
        assert_eq!(cfg.suites[0].format, InputFormat::GoJson);
        assert!(cfg.suites[0].optional);
        assert_eq!(cfg.suites[1].report.as_deref(), Some(".nogit/report.xml"));
        assert_eq!(cfg.suites[1].dir, dir.path().join(""));
        assert_eq!(cfg.retries, Some(2));
        assert_eq!(cfg.order, Some(Order::SlowestFirst));
        assert_eq!((cfg.history, cfg.cache), (Some(true), Some(false)));
        assert_eq!(cfg.cache_inputs, ["src/**", "lib/**"]);
        assert!(load_text("[run]\norder = \"fastest\"\n").is_err());
        assert_eq!(cfg.runners[0].glob, "*.ts");
        assert_eq!(cfg.runners[0].command, ["ts-run", "{}"]);
        assert_eq!(
            cfg.env,
            [("DEBUG".into(), "1".into()), ("LANG".into(), "C".into())]
        );
        assert_eq!(cfg.lib, [dir.path().join("lib")]);
        assert_eq!(cfg.limits.memory, Some(2 << 30));
        assert_eq!(cfg.limits.cpu_time, Some(Duration::from_secs(60)));
        assert_eq!(cfg.limits.open_files, Some(1024));
        assert_eq!(cfg.limits.processes, Some(4096));
        assert_eq!(cfg.limits.output, Some(50 << 20));
        assert_eq!(cfg.sandbox, Some(false));
        assert_eq!(cfg.sandbox_write, [dir.path().join("target")]);
        assert_eq!(cfg.sandbox_env_drop, ["AWS_SECRET_ACCESS_KEY"]);
    }

    #[test]
    fn limits_as_numbers_and_bad_sizes() {
        let cfg = load_text(
            "[run]
max_memory = \"1048576B\"
max_cpu_time = 2
",
        )
        .expect("valid");
        assert_eq!(cfg.limits.memory, Some(1 << 20));
        assert_eq!(cfg.limits.cpu_time, Some(Duration::from_secs(2)));
        let message = parse_error(
            "[run]
max_output = \"lots\"\n",
        );
        assert!(message.contains("failed to parse size `lots`"), "{message}");
        assert!(message.contains("tapline.toml:2:"), "{message}");
        // A number alone would be bytes: refused, as on the command line.
        let message = parse_error("[run]\nmax_memory = 256\n");
        assert!(message.contains("a size with its unit"), "{message}");
    }

    #[test]
    fn env_values_and_bad_names() {
        let cfg = load_text("[run]\nenv = { S = \"x y\", N = 3, F = 1.5, B = true, E = \"\" }\n")
            .expect("valid");
        assert_eq!(
            cfg.env,
            [
                ("B".into(), "true".into()),
                ("E".into(), String::new()),
                ("F".into(), "1.5".into()),
                ("N".into(), "3".into()),
                ("S".into(), "x y".into()),
            ]
        );
        let message = parse_error("[run]\nenv = { \"\" = \"x\" }\n");
        assert!(message.contains("tapline.toml:2:"), "{message}");
        assert!(
            message.contains("invalid env: the variable name is empty"),
            "{message}"
        );
        let message = parse_error("[run]\nenv = { \"A=B\" = \"x\" }\n");
        assert!(
            message.contains("invalid env: expected KEY=VALUE"),
            "{message}"
        );
        let message = parse_error("[run]\nenv = { A = [1] }\n");
        assert!(message.contains("a string, number or boolean"), "{message}");
        let message = parse_error("[run]\nenv = \"A=1\"\n");
        assert!(message.contains("tapline.toml:2:"), "{message}");
        let message = parse_error("[run]\nlib = \"lib\"\n");
        assert!(message.contains("tapline.toml:2:"), "{message}");
    }

    #[test]
    fn numbers_are_seconds() {
        let cfg = load_text("[run]\ntimeout = 30\ngrace = 0.5\n").expect("valid");
        assert_eq!(cfg.timeout, Some(Duration::from_secs(30)));
        assert_eq!(cfg.grace, Some(Duration::from_millis(500)));
    }

    #[test]
    fn errors_name_file_and_position_on_one_line() {
        let message = parse_error("[run]\njbos = 4\n");
        assert!(message.starts_with("failed to parse "), "{message}");
        assert!(
            message.contains("tapline.toml:2:1: unknown field `jbos`"),
            "{message}"
        );
        assert!(!message.contains('\n'), "{message}");

        let message = parse_error("[run]\ntimeout = \"soon\"\n");
        assert!(
            message.contains("tapline.toml:2:11: failed to parse duration `soon`"),
            "{message}"
        );

        for text in [
            "[run\n",
            "[run]\ntimeout = -3\n",
            "[run]\ntimeout = true\n",
            "[[runner]]\nglob = \"*.[\"\ncommand = [\"x\"]\n",
            "[[runner]]\nglob = \"*.t\"\ncommand = []\n",
            "[[runner]]\nglob = \"*.t\"\n",
            "[[runner]]\nglob = \"*.t\"\ncommand = [\"x\"]\nshell = true\n",
            "[tests]\n",
        ] {
            let message = parse_error(text);
            assert!(message.contains("tapline.toml"), "{message}");
            assert!(!message.contains('\n'), "{text:?}: {message}");
        }
        assert!(
            parse_error("[[runner]]\nglob = \"*.[\"\ncommand = [\"x\"]\n")
                .contains("failed to parse runner glob `*.[`")
        );
    }

    #[test]
    fn unreadable_file_is_a_read_error() {
        let dir = TempDir::new().expect("temp dir");
        fs::create_dir(dir.path().join(FILE_NAME)).expect("dir in the way");
        let err = load(dir.path()).expect_err("a directory is not a config file");
        assert!(matches!(err, ConfigError::Read { .. }), "{err:?}");
        assert!(err.to_string().starts_with("failed to read "), "{err}");
    }

    #[test]
    fn rules_match_name_or_relative_path() {
        let rule = |glob: &str| RunnerRule::new(glob, vec!["x".into()]).expect("valid glob");
        assert!(rule("*.ts").matches("test/deep/a.ts"));
        assert!(rule("*.ts").matches("a.ts"));
        assert!(!rule("*.ts").matches("test/a.tsv"), "a longer extension");
        assert!(rule("test/*.t").matches("test/a.t"));
        assert!(!rule("test/*.t").matches("test/sub/a.t"));
        assert!(rule("test/**/*.t").matches("test/sub/a.t"));
        assert!(!rule("test/*.t").matches("other/test/a.t"));
        assert!(matches!(
            RunnerRule::new("*.t", Vec::new()),
            Err(RuleError::EmptyCommand(_))
        ));
    }

    #[test]
    fn project_root() {
        let dir = TempDir::new().expect("temp dir");
        let deep = dir.path().join("a/b/c");
        fs::create_dir_all(&deep).expect("mkdir");
        assert_eq!(find_project_root(&deep), deep);
        fs::create_dir(dir.path().join(".git")).expect("mkdir .git");
        assert_eq!(find_project_root(&deep), dir.path());
        fs::write(dir.path().join("a/tapline.toml"), "").expect("write config");
        assert_eq!(find_project_root(&deep), dir.path().join("a"));
        assert_eq!(
            find_project_root(&dir.path().join("a")),
            dir.path().join("a")
        );
    }
}
