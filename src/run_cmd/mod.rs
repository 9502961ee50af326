//! `tapline run`: turns the command line and `tapline.toml` into a run, and its outcome into an
//! exit code (0 passed, 1 failed, 2 usage/configuration, 3 internal, 130 interrupted).
use crate::cli::{ColorChoice, RunArgs, RunFormat};
use crate::{EXIT_INTERNAL, EXIT_USAGE};
use std::io::{self, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;
use tapline::event::run::{FileInfo, RunEvent};
use tapline::event::stability::Stability;
use tapline::report::output;
use tapline::report::sink::{Fanout, JsonlRun, RunSink, SummaryRun};
use tapline::report::terminal::{TerminalOptions, TerminalReporter, Verbosity};
use tapline::report::threaded::ReportsThread;
use tapline::run::cache::Cache;
use tapline::run::child_env::{self, ChildEnv};
use tapline::run::history::{self, Index};
use tapline::run::limits::{self, Limits};
use tapline::run::order::Order;
use tapline::run::sandbox::Sandbox;
use tapline::run::{config, discover, logs, supervise, Planned, Settings};
use tapline::watch;

mod affected;
mod shard;
use shard::shard_files;

const DEFAULT_TIMEOUT: Duration = Duration::from_secs(120);
const NO_FILE_SELECTED: &str = "no test file selected";

pub fn run(args: &RunArgs) -> u8 {
    // Under `bazel test`, Bazel's test protocol decides the shard, reports and outputs.
    let env = |key: &str| std::env::var(key).ok();
    let (bazel, test_filter) = match crate::bazel::adapt(args, &env) {
        Ok(Some((adapted, filter))) => (Some(adapted), filter),
        Ok(None) => (None, None),
        Err(msg) => {
            eprintln!("tapline: {msg}");
            return EXIT_USAGE;
        }
    };
    let args = bazel.as_ref().unwrap_or(args);
    // Report paths are checked before anything runs or is touched.
    let targets = match output::targets(&args.output) {
        Ok(t) => t,
        Err(msg) => {
            eprintln!("tapline: {msg}");
            return EXIT_USAGE;
        }
    };
    let machine_on_stdout = args.format != RunFormat::Human;
    let reports = crate::reports::build(targets, args.annotations, machine_on_stdout);
    if args.watch {
        return watch(args, reports);
    }
    let affected = match affected::Affected::from_args(args) {
        Ok(a) => a,
        Err(msg) => {
            eprintln!("tapline: {msg}");
            return EXIT_USAGE;
        }
    };
    let mut select = |files: Vec<discover::TestFile>| {
        let files: Vec<discover::TestFile> = match &test_filter {
            Some(f) => files
                .into_iter()
                .filter(|t| crate::bazel::selects(f, &t.rel))
                .collect(),
            None => files,
        };
        match &affected {
            Some(a) => a.select(files),
            None => files,
        }
    };
    match prepare(args, &mut select) {
        Ok(Prepared::Listed) => 0,
        // Nothing the changes affect: nothing to run, which is no failure.
        Err(Usage(msg)) if affected.is_some() && msg == NO_FILE_SELECTED => 0,
        Ok(Prepared::Run(files, settings, extras)) => {
            execute(args, files, *settings, extras, reports)
        }
        Err(Usage(msg)) => {
            eprintln!("tapline: {msg}");
            EXIT_USAGE
        }
    }
}

struct Usage(String);

enum Prepared {
    Listed,
    Run(Vec<Planned>, Box<Settings>, Extras),
}

/// What a plain run needs beyond the scheduler's settings.
struct Extras {
    /// `--partition`: the shard's header, the first event of its record.
    shard: Option<tapline::event::run::ShardHeader>,
    /// The result cache and each planned file's key (by index), with `--cache`.
    cache: Option<(Cache, Vec<Option<String>>)>,
    /// `--runs N`.
    runs: u64,
}

/// `select` picks (and orders) the discovered files to run; watch mode runs subsets. When it
/// picks none, nothing is touched and the answer is a `Usage` error.
fn prepare(
    args: &RunArgs,
    select: &mut dyn FnMut(Vec<discover::TestFile>) -> Vec<discover::TestFile>,
) -> Result<Prepared, Usage> {
    let cwd = std::env::current_dir()
        .map_err(|e| Usage(format!("failed to read the current directory: {e}")))?;
    let root = config::find_project_root(&cwd);
    let cfg = config::load(&root).map_err(|e| Usage(e.to_string()))?;
    let duration = |flag: &Option<String>, name: &str| -> Result<Option<Duration>, Usage> {
        flag.as_deref()
            .map(config::parse_duration)
            .transpose()
            .map_err(|e| Usage(format!("invalid --{name}: {e}")))
    };
    let timeout = duration(&args.timeout, "timeout")?
        .or(cfg.timeout)
        .unwrap_or(DEFAULT_TIMEOUT);
    let grace = duration(&args.grace, "grace")?
        .or(cfg.grace)
        .unwrap_or(supervise::DEFAULT_GRACE);
    let limits = limits(args, &cfg)?;
    let sandbox = sandbox(args, &cfg, &cwd, &root)?;
    let cli_env = args
        .env
        .iter()
        .map(|text| child_env::parse_assignment(text))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| Usage(format!("invalid --env: {e}")))?;
    let mut libs = child_env::resolve_libs(&args.lib, &root);
    libs.extend(cfg.lib.iter().cloned());
    let inherited = |key: &str| std::env::var_os(key);
    let mut env = ChildEnv::build(&cfg.env, &cli_env, &libs, inherited);
    // A PATH argument naming a `[[suite]]` (and no file) selects that suite; with no PATH,
    // every suite runs beside the files found.
    let (suite_args, paths): (Vec<String>, Vec<String>) = args
        .paths
        .iter()
        .cloned()
        .partition(|p| cfg.suites.iter().any(|s| s.name == *p) && !cwd.join(p).exists());
    let found = if paths.is_empty() && !suite_args.is_empty() {
        discover::Found::default()
    } else {
        match discover::find(&paths, &cwd, &root, &cfg, args.exec.as_deref()) {
            Ok(found) => found,
            // A project of suites alone has no test folder to walk.
            Err(
                discover::DiscoverError::NoTests(_)
                | discover::DiscoverError::NoTestFolder(_)
                | discover::DiscoverError::EmptyFolder(_)
                | discover::DiscoverError::NoDeclaredTests(_),
            ) if paths.is_empty() && !cfg.suites.is_empty() => {
                discover::Found::default()
            }
            // pytest's tests are functions, not files that print TAP: say how to run them.
            Err(discover::DiscoverError::NoTestFolder(_)) if looks_like_pytest_project(&cwd) => {
                return Err(Usage(
                    "failed to find test files: this looks like a pytest project; run pytest as a [[suite]] in tapline.toml (`tapline init` writes one)".into(),
                ))
            }
            Err(e) => return Err(Usage(e.to_string())),
        }
    };
    let mut found_files = found.files;
    if args.paths.is_empty() {
        found_files.extend(tapline::run::suite::entries(&cfg.suites, &cwd, None));
    } else if !suite_args.is_empty() {
        let selected = Some(suite_args.as_slice());
        found_files.extend(tapline::run::suite::entries(&cfg.suites, &cwd, selected));
    }
    let tracer = (!args.list)
        .then(|| affected::tracer(args, &cfg, &root, sandbox.is_some(), &found_files))
        .flatten();
    if let Some(t) = &tracer {
        t.add_env(&mut env.vars, inherited);
    }
    let files: Vec<discover::TestFile> = found_files
        .into_iter()
        .map(|mut f| {
            f.command = f.command.map(|argv| env.adapt(argv, inherited));
            f
        })
        .collect();
    let (files, weights, shard) = shard_files(args, &cfg, &root, files)?;
    if args.list {
        // A reader that went away (`--list | head`) ends the list quietly: no panic, exit 0.
        let mut out = std::io::stdout().lock();
        for (f, w) in files.iter().zip(&weights) {
            let weight = w
                .map(|w| {
                    format!(
                        "  (weight {})",
                        tapline::report::style::duration_ms(w.as_millis() as f64)
                    )
                })
                .unwrap_or_default();
            if writeln!(out, "{}{weight}", discover::list_line(f)).is_err() {
                break;
            }
        }
        drop(out);
        list_notes(&env, &found.passed_over, found.declared.as_deref());
        return Ok(Prepared::Listed);
    }
    let files = select(files);
    // An empty shard is a shard all the same: it passes, and its record joins the merge.
    if files.is_empty() && shard.is_none() {
        return Err(Usage(NO_FILE_SELECTED.into()));
    }
    let order = args
        .order
        .as_deref()
        .map(str::parse::<Order>)
        .transpose()
        .map_err(|e| Usage(format!("invalid --order {e}")))?
        .or(cfg.order);
    let retries = args.retries.or(cfg.retries).unwrap_or(0);
    let history_dir = history_dir_path(args.log_dir.as_ref(), &cfg, &root);
    let use_history = !args.no_history && cfg.history != Some(false);
    let (index, recorder) = if use_history {
        let store = history::Store::in_dir(&history_dir);
        let wanted: Vec<&str> = files.iter().map(|f| f.rel.as_str()).collect();
        let loaded = store.recent(&wanted).unwrap_or_else(|e| {
            eprintln!(
                "tapline: warning: failed to read {}: {e}",
                store.path().display()
            );
            history::Loaded::default()
        });
        for w in &loaded.warnings {
            eprintln!("tapline: warning: {w}");
        }
        let index = Index::of(&loaded.records);
        // A shard reads history but never appends to it: every shard of a run must plan from
        // the same history (shards run one after another in one checkout would otherwise
        // deal differently), and the merged run enters it once (`report merge --history`).
        let recorder = shard.is_none().then(|| history::Recorder {
            store,
            root: root.clone(),
        });
        (index, recorder)
    } else {
        (Index::default(), None)
    };
    let log_dir = match log_dir_path(args, &cfg, &root) {
        None => None,
        Some(dir) => Some(logs::LogDir::prepare(&dir).map_err(|e| Usage(e.to_string()))?),
    };
    let mut log_names = logs::LogNames::default();
    let mut programs = ProgramCache::default();
    let planned = files
        .into_iter()
        .enumerate()
        .map(|(index, f)| {
            let log_name = log_names.claim(&f.rel);
            let command = f.command.map_err(|e| e.to_string());
            let shown = match &command {
                Ok(argv) => argv
                    .iter()
                    .map(|a| a.to_string_lossy())
                    .collect::<Vec<_>>()
                    .join(" "),
                Err(e) => e.clone(),
            };
            let log = log_dir.as_ref().map(|d| d.path().join(&log_name));
            Planned {
                info: FileInfo {
                    index,
                    rel: f.rel,
                    command: shown,
                    log,
                    attempt: 1,
                },
                command: command.map(|argv| programs.resolve(argv)),
                log_name,
                cached: None,
                input: f.input,
            }
        })
        .collect::<Vec<Planned>>();
    let mut planned = planned;
    // A series re-runs on purpose, and watch mode re-runs what changed: neither skips files.
    let cache_on =
        (args.cache || cfg.cache == Some(true)) && !args.watch && args.runs.unwrap_or(1) == 1;
    let isolation = match (&sandbox, limits.is_empty()) {
        (None, true) => String::new(),
        (sandbox, _) => format!(" (isolation: {sandbox:?} {limits:?})"),
    };
    let cache = if cache_on || (args.no_cache && cfg.cache == Some(true)) {
        let cache = Cache::open(&history_dir, &root, &cfg.cache_inputs, args.merge)
            .map_err(|e| Usage(e.to_string()))?;
        let keys: Vec<Option<String>> = planned
            .iter()
            // A suite is no file whose content tells whether it changed: it always runs. A
            // pass without the sandbox or limits says nothing of a run with them.
            .map(|p| {
                let command = format!("{}{isolation}", p.info.command);
                (!p.input.suite)
                    .then(|| cache.key(&root, &p.info.rel, &command))
                    .flatten()
            })
            .collect();
        if cache_on && !args.no_cache {
            for (p, key) in planned.iter_mut().zip(&keys) {
                p.cached = key.as_deref().and_then(|k| cache.lookup(&p.info.rel, k));
            }
        }
        Some((cache, keys))
    } else {
        None
    };
    // Watch mode keeps failing files first (its selection put them there; history agrees).
    let order = order
        .unwrap_or_else(|| {
            if args.watch {
                Order::FailedFirst
            } else {
                Order::default_for(&planned, &index)
            }
        })
        .resolved();
    if matches!(order, Order::Random(_)) && !args.watch {
        eprintln!("tapline: order {order} (the same seed repeats this order)");
    }
    tapline::run::order::arrange(&mut planned, order, &index);
    // `-j 0` is the number of cores, as in make, nextest and xargs (and wins over the file's).
    let cores = || std::thread::available_parallelism().map_or(2, usize::from);
    let jobs = match args.jobs {
        Some(0) => cores(),
        Some(n) => n,
        None => cfg.jobs.unwrap_or_else(cores),
    };
    let ci = std::env::var_os("CI").is_some_and(|v| !v.is_empty() && v != "false" && v != "0");
    let settings = Settings {
        run: 1,
        jobs,
        timeout: (!timeout.is_zero()).then_some(timeout),
        grace,
        merge: args.merge,
        cwd,
        env: env.vars,
        live: io::stderr().is_terminal() && !ci && !args.verbose,
        log_dir,
        retries,
        flaky_fails: args.flaky_fails,
        history: recorder,
        max_fail: if args.fail_fast {
            Some(1)
        } else {
            args.max_fail
                .map(|n| usize::try_from(n).unwrap_or(usize::MAX))
        },
        stop_running: args.stop_running,
        limits,
        sandbox,
        keep_going: args.keep_going,
        trace: tracer,
        inputs: Default::default(),
    };
    let extras = Extras {
        shard,
        cache,
        runs: args.runs.unwrap_or(1),
    };
    Ok(Prepared::Run(planned, Box::new(settings), extras))
}

/// `--max-*` over `[run] max_*`, limit by limit.
fn limits(args: &RunArgs, cfg: &config::Config) -> Result<Limits, Usage> {
    let size = |flag: &Option<String>, name: &str| -> Result<Option<u64>, Usage> {
        flag.as_deref()
            .map(limits::parse_size)
            .transpose()
            .map_err(|e| Usage(format!("invalid --{name}: {e}")))
    };
    let cpu_time = args
        .max_cpu_time
        .as_deref()
        .map(config::parse_duration)
        .transpose()
        .map_err(|e| Usage(format!("invalid --max-cpu-time: {e}")))?;
    let limits = Limits {
        memory: size(&args.max_memory, "max-memory")?.or(cfg.limits.memory),
        cpu_time: cpu_time.or(cfg.limits.cpu_time),
        open_files: args.max_open_files.or(cfg.limits.open_files),
        processes: args.max_processes.or(cfg.limits.processes),
        output: size(&args.max_output, "max-output")?.or(cfg.limits.output),
    };
    if limits.cpu_time.is_some_and(|t| t.is_zero()) {
        return Err(Usage(
            "invalid --max-cpu-time: it must be more than 0".into(),
        ));
    }
    if limits.open_files == Some(0) || limits.processes == Some(0) {
        return Err(Usage(
            "invalid --max-open-files/--max-processes: it must be at least 1".into(),
        ));
    }
    Ok(limits)
}

/// The sandbox `--sandbox` or `[run] sandbox = true` asks for; no bwrap is a usage error, never
/// a run without isolation.
fn sandbox(
    args: &RunArgs,
    cfg: &config::Config,
    cwd: &Path,
    root: &Path,
) -> Result<Option<std::sync::Arc<Sandbox>>, Usage> {
    let wanted = args.sandbox || (cfg.sandbox == Some(true) && !args.no_sandbox);
    if !wanted {
        if !args.sandbox_write.is_empty() {
            return Err(Usage("--sandbox-write needs --sandbox".into()));
        }
        return Ok(None);
    }
    let mut writable = cfg.sandbox_write.clone();
    writable.extend(args.sandbox_write.iter().cloned());
    let path = std::env::var_os("PATH");
    Sandbox::new(
        path.as_deref(),
        cwd,
        root,
        &writable,
        cfg.sandbox_env_drop.clone(),
    )
    .map(|s| Some(std::sync::Arc::new(s)))
    .map_err(|e| Usage(e.to_string()))
}

/// The folder of `history.jsonl` and `cache.json`: the log folder, even with `--no-logs`.
pub(crate) fn history_dir_path(
    flag: Option<&PathBuf>,
    cfg: &config::Config,
    root: &Path,
) -> PathBuf {
    let dir = flag
        .cloned()
        .or(cfg.log_dir.clone())
        .unwrap_or_else(|| Path::new(".nogit/testlogs").into());
    if dir.is_absolute() {
        dir
    } else {
        root.join(dir)
    }
}

/// `--list`'s notes on stderr (stdout stays one file per line): what a directory yields, the
/// files the walks passed over, and the variables every file gets.
fn list_notes(env: &ChildEnv, passed_over: &[String], declared: Option<&str>) {
    let mut err = io::stderr().lock();
    if let Some(declared) = declared {
        let _ = writeln!(err, "tapline: following {declared}");
    }
    let _ = writeln!(
        err,
        "tapline: a directory yields files matching {} (JavaScript: test-named, or in a test folder), your [[runner]] globs, and other executable files (a Perl distribution: *.t only)",
        discover::walk_globs().join(" ")
    );
    if !passed_over.is_empty() {
        const SHOWN: usize = 5;
        let mut names = passed_over[..passed_over.len().min(SHOWN)].join(", ");
        if passed_over.len() > SHOWN {
            names.push_str(&format!(", and {} more", passed_over.len() - SHOWN));
        }
        let _ = writeln!(
            err,
            "tapline: not tests ({} file{}): {names}",
            passed_over.len(),
            if passed_over.len() == 1 { "" } else { "s" }
        );
    }
    for (key, value) in &env.vars {
        let _ = writeln!(
            err,
            "tapline: env {}={}",
            key.to_string_lossy(),
            value.to_string_lossy()
        );
    }
}

/// Whether `dir` holds pytest's configuration (or a `conftest.py`): a missing test folder then
/// gets a hint to run pytest as a suite.
fn looks_like_pytest_project(dir: &Path) -> bool {
    tapline::run::init::pytest_configured(dir)
}

/// The log folder `args` and `tapline.toml` ask for, if any.
fn log_dir_path(args: &RunArgs, cfg: &config::Config, root: &Path) -> Option<PathBuf> {
    if args.no_logs {
        return None;
    }
    let dir = args
        .log_dir
        .clone()
        .or(cfg.log_dir.clone())
        .unwrap_or_else(|| Path::new(".nogit/testlogs").into());
    Some(if dir.is_absolute() {
        dir
    } else {
        root.join(dir)
    })
}

/// The terminal report's options (`live` is the run's, decided in `prepare`).
fn terminal_options(args: &RunArgs, live: bool) -> TerminalOptions {
    stderr_terminal_options(args.color, args.quiet, args.verbose, live)
}

/// The options of a terminal report on stderr (`run` and `serve`).
pub(crate) fn stderr_terminal_options(
    color: ColorChoice,
    quiet: bool,
    verbose: bool,
    live: bool,
) -> TerminalOptions {
    let style = color.style(io::stderr().is_terminal());
    let verbosity = if quiet {
        Verbosity::Quiet
    } else if verbose {
        Verbosity::Verbose
    } else {
        Verbosity::Normal
    };
    // Only a live region needs the width; asking without a terminal makes crossterm run `tput`.
    let width = if live {
        crossterm::terminal::size().map_or(100, |(w, _)| w)
    } else {
        100
    };
    TerminalOptions {
        style,
        live,
        verbosity,
        width,
    }
}

/// `--watch`: the session lives in `tapline::watch`; each run is prepared here, as without it.
/// The sink of `--format jsonl|summary`, on stdout (block-buffered: a machine reads it).
pub(crate) fn machine_sink(format: RunFormat) -> Option<Box<dyn RunSink>> {
    let out = || io::BufWriter::new(io::stdout().lock());
    match format {
        RunFormat::Human => None,
        RunFormat::Jsonl => Some(Box::new(JsonlRun::new(out()))),
        RunFormat::Summary => Some(Box::new(SummaryRun::new(out()))),
    }
}

fn watch(args: &RunArgs, reports: Option<ReportsThread>) -> u8 {
    struct Plans<'a>(&'a RunArgs);
    impl watch::Planner for Plans<'_> {
        fn plan(
            &mut self,
            select: &mut dyn FnMut(Vec<discover::TestFile>) -> Vec<discover::TestFile>,
        ) -> Result<Option<(Vec<Planned>, Settings)>, String> {
            let mut picked_none = false;
            let mut pick = |files| {
                let files = select(files);
                picked_none = files.is_empty();
                files
            };
            match prepare(self.0, &mut pick) {
                Ok(Prepared::Run(files, settings, _)) => Ok(Some((files, *settings))),
                Ok(Prepared::Listed) => Ok(None),
                Err(Usage(_)) if picked_none => Ok(None),
                Err(Usage(msg)) => Err(msg),
            }
        }
    }
    let usage = |msg: String| {
        eprintln!("tapline: {msg}");
        EXIT_USAGE
    };
    let debounce = match args.debounce.as_deref().map(config::parse_duration) {
        None => watch::DEFAULT_DEBOUNCE,
        Some(Ok(d)) => d,
        Some(Err(e)) => return usage(format!("invalid --debounce: {e}")),
    };
    let cwd = match std::env::current_dir() {
        Ok(cwd) => cwd,
        Err(e) => return usage(format!("failed to read the current directory: {e}")),
    };
    let root = config::find_project_root(&cwd);
    let cfg = match config::load(&root) {
        Ok(cfg) => cfg,
        Err(e) => return usage(e.to_string()),
    };
    let history_dir = history_dir_path(args.log_dir.as_ref(), &cfg, &root);
    let history = (!args.no_history && cfg.history != Some(false))
        .then(|| history::Store::in_dir(&history_dir));
    // Reports are rewritten after each run: never a trigger.
    let mut ignore = args.watch_ignore.clone();
    ignore.extend(crate::reports::watch_ignores(&args.output, &root));
    let opts = watch::WatchOptions {
        // History and the cache live there even with --no-logs: never a trigger.
        log_dir: Some(history_dir),
        history,
        root,
        debounce,
        ignore,
        clear: args.clear,
        traces: !args.no_trace && cfg.trace != Some(false),
        terminal: terminal_options(args, false),
        machine: match args.format {
            RunFormat::Human => watch::Machine::None,
            RunFormat::Jsonl => watch::Machine::Jsonl,
            RunFormat::Summary => watch::Machine::Summary,
        },
        reports,
    };
    match watch::watch(opts, &mut Plans(args)) {
        Ok(ended) => ended.exit_code(),
        Err(watch::WatchError::Usage(msg)) => usage(msg),
        Err(watch::WatchError::Internal(msg)) => {
            eprintln!("tapline: {msg}");
            EXIT_INTERNAL
        }
    }
}

fn execute(
    args: &RunArgs,
    files: Vec<Planned>,
    mut settings: Settings,
    extras: Extras,
    mut reports: Option<ReportsThread>,
) -> u8 {
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("tapline: failed to start the async runtime: {e}");
            return EXIT_INTERNAL;
        }
    };
    let stderr = io::stderr();
    // Line-buffered on a terminal so progress shows; block-buffered into pipes and files.
    let err_out: Box<dyn io::Write> = if settings.live {
        Box::new(io::BufWriter::with_capacity(1 << 16, stderr.lock()))
    } else if stderr.is_terminal() {
        Box::new(io::LineWriter::new(stderr.lock()))
    } else {
        Box::new(io::BufWriter::new(stderr.lock()))
    };
    let mut forward = match crate::daemon_cmd::forward_sink(args) {
        Ok(f) => f,
        Err(msg) => {
            eprintln!("tapline: {msg}");
            return EXIT_USAGE;
        }
    };
    let mut terminal = TerminalReporter::new(err_out, terminal_options(args, settings.live));
    let mut machine = machine_sink(args.format);
    let mut sinks: Vec<&mut dyn RunSink> = vec![&mut terminal];
    if let Some(m) = machine.as_deref_mut() {
        sinks.push(m);
    }
    if let Some(f) = forward.as_mut() {
        sinks.push(f);
    }
    if let Some(r) = reports.as_mut() {
        sinks.push(r);
    }
    let mut fanout = Fanout(sinks);
    let Extras {
        mut cache,
        runs,
        shard,
    } = extras;
    if let Some(header) = shard {
        if let Err(e) = fanout.on(&RunEvent::Shard(header)) {
            eprintln!("tapline: failed to write the report: {e}");
            return EXIT_INTERNAL;
        }
    }
    let rels: Vec<String> = {
        let mut by_index: Vec<&Planned> = files.iter().collect();
        by_index.sort_by_key(|p| p.info.index);
        by_index.iter().map(|p| p.info.rel.clone()).collect()
    };
    let finished = runtime.block_on(async {
        if runs == 1 {
            return tapline::run::execute(files, &settings, &mut fanout, None)
                .await
                .map(|f| (f, None));
        }
        fanout.on(&RunEvent::SeriesStarted { runs })?;
        let mut analysis = tapline::run::stability::Analysis::default();
        let mut last = None;
        for n in 1..=runs {
            settings.run = n;
            let f = tapline::run::execute(files.clone(), &settings, &mut fanout, None).await?;
            if n < runs {
                report_history_error(&f);
            }
            let interrupted = f.summary.interrupted;
            if !interrupted {
                analysis.add_run(
                    rels.iter()
                        .map(String::as_str)
                        .zip(f.results.iter().map(Option::as_ref)),
                );
            }
            last = Some(f);
            if interrupted {
                break;
            }
        }
        let stability = analysis.finish();
        fanout.on(&RunEvent::SeriesFinished {
            stability: stability.clone(),
        })?;
        let last = last.ok_or_else(|| io::Error::other("no run was made"))?;
        Ok((last, Some(stability)))
    });
    drop(fanout);
    let finish = terminal.finish();
    if let Some(f) = forward.as_mut() {
        f.finish();
    }
    if let (Ok((f, _)), Some((cache, keys))) = (&finished, cache.as_mut()) {
        for ((r, rel), key) in f.results.iter().zip(&rels).zip(keys.iter()) {
            if let Some(r) = r {
                cache.update(rel, key.as_deref(), r);
            }
        }
        if let Err(e) = cache.save() {
            eprintln!("tapline: warning: failed to save the result cache: {e}");
        }
    }
    if let Ok((f, _)) = &finished {
        report_history_error(f);
    }
    let report_errors = reports
        .as_mut()
        .map(tapline::report::threaded::ReportsThread::take_errors)
        .unwrap_or_default();
    for e in &report_errors {
        eprintln!("tapline: {e}");
    }
    let code = |f: &tapline::run::Finished, stability: &Option<Stability>| match stability {
        Some(s) if f.exit_code() != tapline::run::EXIT_INTERRUPTED => u8::from(!s.all_stable()),
        _ => f.exit_code(),
    };
    match (finished, finish) {
        // A report that could not be written is an error of ours, whatever the tests did.
        (Ok(_), Ok(_)) if !report_errors.is_empty() => EXIT_INTERNAL,
        (Ok((f, s)), Ok(_)) => code(&f, &s),
        (Ok((f, s)), Err(e)) if e.kind() == io::ErrorKind::BrokenPipe => code(&f, &s),
        (Err(e), _) if e.kind() == io::ErrorKind::BrokenPipe => 0,
        (Err(e), _) | (Ok(_), Err(e)) => {
            eprintln!("tapline: failed to report the run: {e}");
            EXIT_INTERNAL
        }
    }
}

fn report_history_error(f: &tapline::run::Finished) {
    if let Some(e) = &f.history_error {
        eprintln!("tapline: warning: {e}");
    }
}

/// Interpreters resolved to absolute paths once per run, so that spawning each file does not
/// search PATH again (an exec attempt per PATH entry, per file).
#[derive(Default)]
struct ProgramCache(std::collections::HashMap<std::ffi::OsString, std::ffi::OsString>);

impl ProgramCache {
    fn resolve(&mut self, mut argv: Vec<std::ffi::OsString>) -> Vec<std::ffi::OsString> {
        if let Some(program) = argv.first_mut() {
            if !program.as_encoded_bytes().contains(&b'/') {
                let found = self
                    .0
                    .entry(program.clone())
                    .or_insert_with(|| search_path(program));
                *program = found.clone();
            }
        }
        argv
    }
}

/// The first executable `name` on PATH, or `name` itself for the spawn to report.
fn search_path(name: &std::ffi::OsStr) -> std::ffi::OsString {
    use std::os::unix::fs::PermissionsExt;
    let paths = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&paths)
        .filter(|dir| dir.is_absolute())
        .map(|dir| dir.join(name))
        .find(|p| {
            std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
        .map_or_else(|| name.to_owned(), std::ffi::OsString::from)
}
