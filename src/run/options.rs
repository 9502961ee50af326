//! A run's options, resolved once: the command line's flags over `tapline.toml` over the
//! defaults, as nextest's profile accessors and `TestRunnerBuilder` overrides do. `tapline
//! run`, watch mode, `tapline history`, `history import`, `report merge --history` and the
//! daemon all read the project through [`Project`] (the root and its `tapline.toml`, read
//! once), and ask it where the log folder is and whether history is on, so each answer is
//! given in one place. [`Options::resolve`] is pure (the environment is passed in as [`Env`]),
//! and tested without processes; the planning pipeline (run/plan) and the scheduler
//! ([`super::Settings`]) take their answers from it. The command line's own module only maps
//! its arguments onto [`Flags`] and the outcome onto an exit code.
use super::child_env::{self, ChildEnv};
use super::config::{self, Config, ConfigError, Order, PartitionArg, PartitionError};
use crate::state::history;
use crate::supervise;
use crate::supervise::limits::{self, Limits};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The log folder (and history's and the cache's) under the project root, unless told.
pub const DEFAULT_LOG_DIR: &str = ".nogit/testlogs";
/// A file's time limit unless told (`0` turns it off).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(120);

/// Why the options could not be resolved: each a usage error (exit 2), one line.
#[derive(Debug, thiserror::Error)]
pub enum OptionsError {
    #[error("failed to read the current directory: {0}")]
    Cwd(std::io::Error),
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// A flag's value does not parse, or is out of range.
    #[error("invalid --{flag}: {message}")]
    Invalid { flag: &'static str, message: String },
    /// `--order`'s value names no order.
    #[error("invalid --order {0}")]
    Order(String),
    #[error(transparent)]
    Partition(#[from] PartitionError),
    /// Flags that do not go together.
    #[error("{0}")]
    Conflict(&'static str),
}

/// Prints each of the configuration's warnings on stderr, once per process: a command that
/// reads the project again (watch, the daemon) would otherwise repeat them every run.
fn warn_once(warnings: &[String]) {
    static SAID: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());
    let mut said = SAID
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    for warning in warnings {
        if !said.contains(warning) {
            crate::say!("tapline: {warning}");
            said.push(warning.clone());
        }
    }
}

/// The project a command works in: where it was started, its root, and its `tapline.toml`.
#[derive(Debug, Clone)]
pub struct Project {
    pub cwd: PathBuf,
    /// The nearest ancestor holding `tapline.toml` or `.git` ([`config::find_project_root`]).
    pub root: PathBuf,
    pub config: Config,
}

impl Project {
    /// The project around `cwd`, its `tapline.toml` read (the defaults without one).
    pub fn open(cwd: PathBuf) -> Result<Project, OptionsError> {
        let root = config::find_project_root(&cwd);
        let config = config::load(&root)?;
        warn_once(&config.warnings);
        Ok(Project { cwd, root, config })
    }

    /// The project around the current directory.
    pub fn current() -> Result<Project, OptionsError> {
        Project::open(std::env::current_dir().map_err(OptionsError::Cwd)?)
    }

    /// The log folder: `--log-dir` over `[run] log_dir` over [`DEFAULT_LOG_DIR`], relative to
    /// the root. History and the cache live there even with `--no-logs`.
    pub fn log_dir(&self, flag: Option<&Path>) -> PathBuf {
        let dir = flag
            .map(Path::to_owned)
            .or(self.config.log_dir.clone())
            .unwrap_or_else(|| DEFAULT_LOG_DIR.into());
        self.root.join(dir)
    }

    /// The daemon's log folder: `--log-dir` itself, else `serve/` in the log folder.
    pub fn serve_log_dir(&self, flag: Option<&Path>) -> PathBuf {
        match flag {
            Some(dir) => self.root.join(dir),
            None => self.log_dir(None).join("serve"),
        }
    }

    /// Whether runs read and append history: on unless `--no-history` or `[run] history = false`.
    pub fn history_on(&self, no_history: bool) -> bool {
        !no_history && self.config.history != Some(false)
    }

    /// The history store in the log folder `flag` names, when history is on.
    pub fn history(&self, flag: Option<&Path>, no_history: bool) -> Option<history::Store> {
        self.history_on(no_history)
            .then(|| history::Store::in_dir(&self.log_dir(flag)))
    }
}

/// `tapline run`'s flags as given: text where the options parse it, so that every value's
/// error reads the same wherever it came from.
#[derive(Debug, Clone, Default)]
pub struct Flags {
    pub jobs: Option<usize>,
    pub timeout: Option<String>,
    pub grace: Option<String>,
    /// `--env KEY=VALUE`.
    pub env: Vec<String>,
    pub lib: Vec<PathBuf>,
    pub merge: bool,
    pub no_merge: bool,
    pub no_logs: bool,
    pub log_dir: Option<PathBuf>,
    pub verbose: bool,
    pub watch: bool,
    pub retries: Option<u32>,
    pub flaky_fails: bool,
    pub runs: Option<u64>,
    pub partition: Option<String>,
    pub time_default: Option<String>,
    pub order: Option<String>,
    pub cache: bool,
    pub no_cache: bool,
    pub fail_fast: bool,
    pub max_fail: Option<u64>,
    pub stop_running: bool,
    pub keep_going: bool,
    pub no_history: bool,
    /// `--no-trace`.
    pub no_trace: bool,
    /// `--isolate`.
    pub isolate: bool,
    pub max_memory: Option<String>,
    pub max_cpu_time: Option<String>,
    pub max_open_files: Option<u64>,
    pub max_processes: Option<u64>,
    pub max_output: Option<String>,
    pub sandbox: bool,
    pub no_sandbox: bool,
    pub sandbox_write: Vec<PathBuf>,
}

/// What of tapline's own surroundings the options depend on.
pub struct Env<'a> {
    /// tapline's environment (`CI`, what children inherit).
    pub var: &'a dyn Fn(&str) -> Option<OsString>,
    /// `-j 0` and the default.
    pub cores: usize,
    /// stderr is a terminal (the live region).
    pub stderr_terminal: bool,
}

impl Env<'_> {
    /// tapline's own process.
    pub fn current() -> Env<'static> {
        Env {
            var: &|key| std::env::var_os(key),
            cores: std::thread::available_parallelism().map_or(2, usize::from),
            stderr_terminal: std::io::IsTerminal::is_terminal(&std::io::stderr()),
        }
    }

    /// `CI` is set (and not `false` or `0`): no live region.
    pub fn ci(&self) -> bool {
        (self.var)("CI").is_some_and(|v| !v.is_empty() && v != "false" && v != "0")
    }

    /// A live region on stderr: a terminal, not CI, and not `--verbose`.
    pub fn live(&self, verbose: bool) -> bool {
        self.stderr_terminal && !self.ci() && !verbose
    }
}

/// How the result cache takes part (`--cache`, `[run] cache`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CacheUse {
    Off,
    /// Unchanged files that passed are reported from the cache, not run.
    On,
    /// `--no-cache` over `[run] cache = true`: everything runs, and the cache learns from it.
    Refresh,
}

/// The sandbox a run asks for (built at the run's start: it needs bwrap).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SandboxWanted {
    /// `[run] sandbox_write`, then `--sandbox-write`.
    pub writable: Vec<PathBuf>,
    pub env_drop: Vec<String>,
}

/// Everything a run is told, decided once.
#[derive(Debug, Clone)]
pub struct Options {
    /// `None`: no limit (`--timeout 0`).
    pub timeout: Option<Duration>,
    pub grace: Duration,
    pub limits: Limits,
    pub sandbox: Option<SandboxWanted>,
    /// What every child gets, after `TAPLINE=1`.
    pub env: ChildEnv,
    pub jobs: usize,
    pub retries: u32,
    pub flaky_fails: bool,
    /// `--max-fail N`, `--fail-fast` being 1.
    pub max_fail: Option<usize>,
    pub stop_running: bool,
    pub keep_going: bool,
    /// Record what each file loads (`--no-trace`, `[run] trace = false` turn it off).
    pub trace: bool,
    /// Every file in a process of its own (`--isolate`, `[run] isolate = true`): no warm
    /// worker ([`super::warm`]).
    pub isolate: bool,
    /// The order asked for; `None`: the plan decides from history.
    pub order: Option<Order>,
    pub cache: CacheUse,
    /// Logs are written there (`None` with `--no-logs`).
    pub log_dir: Option<PathBuf>,
    /// History and the cache live there, even with `--no-logs`.
    pub history_dir: PathBuf,
    pub history: bool,
    pub partition: Option<PartitionArg>,
    pub time_default: Option<Duration>,
    /// `--runs N`.
    pub runs: u64,
    /// `--merge` (`Some(true)`) or `--no-merge`; `None`: each file as its rule or program
    /// says (`runners::streams`).
    pub merge: Option<bool>,
    pub watch: bool,
    pub live: bool,
}

/// `flag`'s duration, if given.
fn duration(flag: &Option<String>, name: &'static str) -> Result<Option<Duration>, OptionsError> {
    flag.as_deref()
        .map(config::parse_duration)
        .transpose()
        .map_err(|e| OptionsError::Invalid {
            flag: name,
            message: e.to_string(),
        })
}

/// `flag`'s size, if given.
fn size(flag: &Option<String>, name: &'static str) -> Result<Option<u64>, OptionsError> {
    flag.as_deref()
        .map(limits::parse_size)
        .transpose()
        .map_err(|e| OptionsError::Invalid {
            flag: name,
            message: e.to_string(),
        })
}

impl Options {
    /// `flags` over `project`'s `tapline.toml` over the defaults.
    pub fn resolve(
        flags: &Flags,
        project: &Project,
        env: &Env<'_>,
    ) -> Result<Options, OptionsError> {
        let cfg = &project.config;
        let timeout = duration(&flags.timeout, "timeout")?
            .or(cfg.timeout)
            .unwrap_or(DEFAULT_TIMEOUT);
        let grace = duration(&flags.grace, "grace")?
            .or(cfg.grace)
            .unwrap_or(supervise::DEFAULT_GRACE);
        let partition = match flags.partition.as_deref() {
            Some(text) => Some(text.parse::<PartitionArg>()?),
            None => cfg.partition,
        };
        if partition.is_some() && (flags.watch || flags.runs.is_some_and(|r| r > 1)) {
            return Err(OptionsError::Conflict(
                "--partition runs one shard once: not with --watch or --runs",
            ));
        }
        let runs = flags.runs.unwrap_or(1);
        Ok(Options {
            timeout: (!timeout.is_zero()).then_some(timeout),
            grace,
            limits: resolve_limits(flags, cfg)?,
            sandbox: sandbox(flags, cfg)?,
            env: child_env(flags, project, env)?,
            jobs: match flags.jobs {
                // `-j 0` is the number of cores, as in make, nextest and xargs.
                Some(0) => env.cores,
                Some(n) => n,
                None => cfg.jobs.unwrap_or(env.cores),
            },
            retries: flags.retries.or(cfg.retries).unwrap_or(0),
            flaky_fails: flags.flaky_fails,
            max_fail: if flags.fail_fast {
                Some(1)
            } else {
                flags
                    .max_fail
                    .map(|n| usize::try_from(n).unwrap_or(usize::MAX))
            },
            stop_running: flags.stop_running,
            keep_going: flags.keep_going,
            trace: !flags.no_trace && cfg.trace != Some(false),
            isolate: flags.isolate || cfg.isolate == Some(true),
            order: order(flags, cfg)?,
            cache: cache_use(flags, cfg, runs),
            log_dir: (!flags.no_logs).then(|| project.log_dir(flags.log_dir.as_deref())),
            history_dir: project.log_dir(flags.log_dir.as_deref()),
            history: project.history_on(flags.no_history),
            partition,
            time_default: duration(&flags.time_default, "time-default")?,
            runs,
            merge: match (flags.merge, flags.no_merge) {
                (true, _) => Some(true),
                (_, true) => Some(false),
                _ => None,
            },
            watch: flags.watch,
            live: env.live(flags.verbose),
        })
    }
}

/// `--order` over `[run] order`; watch mode keeps failing files first (its selection puts
/// them there; history agrees).
fn order(flags: &Flags, cfg: &Config) -> Result<Option<Order>, OptionsError> {
    let asked = flags
        .order
        .as_deref()
        .map(str::parse::<Order>)
        .transpose()
        .map_err(OptionsError::Order)?
        .or(cfg.order);
    Ok(asked.or(flags.watch.then_some(Order::FailedFirst)))
}

/// A series re-runs on purpose, and watch mode re-runs what changed: neither skips files.
fn cache_use(flags: &Flags, cfg: &Config, runs: u64) -> CacheUse {
    let wanted = (flags.cache || cfg.cache == Some(true)) && !flags.watch && runs == 1;
    if wanted && !flags.no_cache {
        CacheUse::On
    } else if wanted || (flags.no_cache && cfg.cache == Some(true)) {
        CacheUse::Refresh
    } else {
        CacheUse::Off
    }
}

/// `--max-*` over `[run] max_*`, limit by limit.
fn resolve_limits(flags: &Flags, cfg: &Config) -> Result<Limits, OptionsError> {
    let limits = Limits {
        memory: size(&flags.max_memory, "max-memory")?.or(cfg.limits.memory),
        cpu_time: duration(&flags.max_cpu_time, "max-cpu-time")?.or(cfg.limits.cpu_time),
        open_files: flags.max_open_files.or(cfg.limits.open_files),
        processes: flags.max_processes.or(cfg.limits.processes),
        output: size(&flags.max_output, "max-output")?.or(cfg.limits.output),
    };
    if limits.cpu_time.is_some_and(|t| t.is_zero()) {
        return Err(OptionsError::Invalid {
            flag: "max-cpu-time",
            message: "it must be more than 0".into(),
        });
    }
    if limits.open_files == Some(0) || limits.processes == Some(0) {
        return Err(OptionsError::Invalid {
            flag: "max-open-files/--max-processes",
            message: "it must be at least 1".into(),
        });
    }
    Ok(limits)
}

/// The sandbox `--sandbox` or `[run] sandbox = true` asks for.
fn sandbox(flags: &Flags, cfg: &Config) -> Result<Option<SandboxWanted>, OptionsError> {
    let wanted = flags.sandbox || (cfg.sandbox == Some(true) && !flags.no_sandbox);
    if !wanted {
        if !flags.sandbox_write.is_empty() {
            return Err(OptionsError::Conflict("--sandbox-write needs --sandbox"));
        }
        return Ok(None);
    }
    let mut writable = cfg.sandbox_write.clone();
    writable.extend(flags.sandbox_write.iter().cloned());
    Ok(Some(SandboxWanted {
        writable,
        env_drop: cfg.sandbox_env_drop.clone(),
    }))
}

/// `[run] env`, `--env` over it key by key, and the libraries (`--lib`, then `[run] lib`,
/// then the project's own, as its harness puts them on its include variable).
fn child_env(flags: &Flags, project: &Project, env: &Env<'_>) -> Result<ChildEnv, OptionsError> {
    let cli_env = flags
        .env
        .iter()
        .map(|text| config::parse_assignment(text))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| OptionsError::Invalid {
            flag: "env",
            message: e.to_string(),
        })?;
    let mut libs = child_env::resolve_libs(&flags.lib, &project.root);
    libs.extend(project.config.lib.iter().cloned());
    Ok(ChildEnv::build(
        &project.config.env,
        &cli_env,
        &libs,
        &child_env::dist_libs(&project.cwd),
        env.var,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn project(toml: &str) -> (tempfile::TempDir, Project) {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::write(dir.path().join("tapline.toml"), toml).expect("write");
        let project = Project::open(dir.path().to_owned()).expect("opens");
        (dir, project)
    }

    fn env(vars: &'static [(&'static str, &'static str)]) -> Env<'static> {
        let var: &'static dyn Fn(&str) -> Option<OsString> =
            Box::leak(Box::new(move |key: &str| {
                vars.iter()
                    .find(|(k, _)| *k == key)
                    .map(|(_, v)| OsString::from(v))
            }));
        Env {
            var,
            cores: 3,
            stderr_terminal: true,
        }
    }

    fn resolve(flags: &Flags, toml: &str) -> Result<Options, OptionsError> {
        let (_dir, project) = project(toml);
        Options::resolve(flags, &project, &env(&[]))
    }

    #[test]
    fn flags_win_over_the_file_over_the_defaults() {
        let o = resolve(&Flags::default(), "").expect("defaults");
        assert_eq!(o.timeout, Some(DEFAULT_TIMEOUT));
        assert_eq!(o.grace, supervise::DEFAULT_GRACE);
        assert_eq!((o.jobs, o.retries, o.runs), (3, 0, 1));
        let toml = "[run]\ntimeout = \"30s\"\njobs = 7\nretries = 2\n";
        let o = resolve(&Flags::default(), toml).expect("file");
        assert_eq!(
            (o.timeout, o.jobs, o.retries),
            (Some(Duration::from_secs(30)), 7, 2)
        );
        let flags = Flags {
            timeout: Some("0".into()),
            jobs: Some(0),
            retries: Some(1),
            ..Flags::default()
        };
        let o = resolve(&flags, toml).expect("flags");
        assert_eq!(
            (o.timeout, o.jobs, o.retries),
            (None, 3, 1),
            "0: no limit, all cores"
        );
    }

    #[test]
    fn the_log_folder_is_decided_in_one_place() {
        let (_dir, p) = project("");
        assert_eq!(p.log_dir(None), p.root.join(".nogit/testlogs"));
        assert_eq!(p.serve_log_dir(None), p.root.join(".nogit/testlogs/serve"));
        assert_eq!(p.log_dir(Some(Path::new("/abs"))), Path::new("/abs"));
        assert_eq!(p.serve_log_dir(Some(Path::new("l"))), p.root.join("l"));
        let (_dir, p) = project("[run]\nlog_dir = \"logs\"\n");
        assert_eq!(p.log_dir(None), p.root.join("logs"));
        assert_eq!(p.serve_log_dir(None), p.root.join("logs/serve"));
        let flags = Flags {
            no_logs: true,
            ..Flags::default()
        };
        let o = Options::resolve(&flags, &p, &env(&[])).expect("resolves");
        assert_eq!(o.log_dir, None);
        assert_eq!(
            o.history_dir,
            p.root.join("logs"),
            "history stays with --no-logs"
        );
    }

    #[test]
    fn history_is_on_unless_turned_off() {
        let (_dir, p) = project("");
        assert!(p.history_on(false) && !p.history_on(true));
        assert!(p.history(None, false).is_some());
        let (_dir, p) = project("[run]\nhistory = false\n");
        assert!(!p.history_on(false));
        assert!(p.history(None, false).is_none());
    }

    #[test]
    fn watch_mode_runs_failing_files_first_and_never_from_the_cache() {
        let flags = Flags {
            watch: true,
            cache: true,
            ..Flags::default()
        };
        let o = resolve(&flags, "").expect("resolves");
        assert_eq!(o.order, Some(Order::FailedFirst));
        assert_eq!(o.cache, CacheUse::Off);
        let asked = Flags {
            order: Some("declared".into()),
            ..flags
        };
        assert_eq!(
            resolve(&asked, "").expect("resolves").order,
            Some(Order::Declared)
        );
        assert_eq!(resolve(&Flags::default(), "").expect("plain").order, None);
    }

    #[test]
    fn the_cache_is_used_refreshed_or_off() {
        let cache = |flags: Flags, toml: &str| resolve(&flags, toml).expect("resolves").cache;
        assert_eq!(cache(Flags::default(), ""), CacheUse::Off);
        let on = Flags {
            cache: true,
            ..Flags::default()
        };
        assert_eq!(cache(on.clone(), ""), CacheUse::On);
        assert_eq!(
            cache(Flags::default(), "[run]\ncache = true\n"),
            CacheUse::On
        );
        let no = Flags {
            no_cache: true,
            ..Flags::default()
        };
        assert_eq!(cache(no, "[run]\ncache = true\n"), CacheUse::Refresh);
        let series = Flags {
            runs: Some(3),
            ..on
        };
        assert_eq!(
            cache(series, ""),
            CacheUse::Off,
            "a series re-runs on purpose"
        );
    }

    #[test]
    fn bad_values_are_one_line_usage_errors() {
        let bad = |flags: Flags| resolve(&flags, "").expect_err("refused").to_string();
        let e = bad(Flags {
            timeout: Some("soon".into()),
            ..Flags::default()
        });
        assert!(
            e.starts_with("invalid --timeout: failed to parse duration `soon`"),
            "{e}"
        );
        let e = bad(Flags {
            max_cpu_time: Some("0s".into()),
            ..Flags::default()
        });
        assert_eq!(e, "invalid --max-cpu-time: it must be more than 0");
        let e = bad(Flags {
            env: vec!["NOEQUALS".into()],
            ..Flags::default()
        });
        assert!(e.starts_with("invalid --env: "), "{e}");
        let e = bad(Flags {
            sandbox_write: vec!["x".into()],
            ..Flags::default()
        });
        assert_eq!(e, "--sandbox-write needs --sandbox");
        let e = bad(Flags {
            partition: Some("slice:1/2".into()),
            watch: true,
            ..Flags::default()
        });
        assert_eq!(
            e,
            "--partition runs one shard once: not with --watch or --runs"
        );
        let e = bad(Flags {
            order: Some("fastest".into()),
            ..Flags::default()
        });
        assert!(e.starts_with("invalid --order "), "{e}");
        assert!(!e.contains('\n'), "{e}");
    }

    #[test]
    fn the_live_region_needs_a_terminal_outside_ci() {
        assert!(env(&[]).live(false));
        assert!(!env(&[]).live(true), "--verbose");
        assert!(!env(&[("CI", "true")]).live(false));
        assert!(env(&[("CI", "false")]).live(false));
        assert!(env(&[("CI", "0")]).live(false));
    }

    #[test]
    fn the_childrens_environment_takes_the_flags_over_the_file() {
        let flags = Flags {
            env: vec!["A=flag".into()],
            ..Flags::default()
        };
        let o = resolve(&flags, "[run]\nenv = { A = \"file\", B = \"file\" }\n").expect("ok");
        let get = |key: &str| {
            o.env
                .vars
                .iter()
                .find(|(k, _)| k == key)
                .map(|(_, v)| v.to_string_lossy().into_owned())
        };
        assert_eq!(get("A").as_deref(), Some("flag"));
        assert_eq!(get("B").as_deref(), Some("file"));
    }
}
