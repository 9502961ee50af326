//! `tapline run`: maps the command line onto the library's run, and its outcome onto an exit
//! code (0 passed, 1 failed, 2 usage/configuration, 3 internal, 130 interrupted). The flags go
//! to `tapline::run::options` (resolved once over `tapline.toml`), the planning is
//! `tapline::run::plan`'s pipeline, the run `tapline::run::execute_series`; what stays here is
//! what a command line owns: the sinks on stdout and stderr, `--list`'s lines, the notes and
//! warnings, and the exit code.
use crate::cli::{RunArgs, RunFormat};
use crate::reports::stderr_terminal_options;
use crate::{Failure, Outcome};
use std::io::{self, Write};
use std::time::Duration;
use tapline::event::run::RunEvent;
use tapline::report::sink::RunSink;
use tapline::report::terminal::TerminalOptions;
use tapline::report::threaded::ReportsThread;
use tapline::report::{outlets, output};
use tapline::run::child_env::ChildEnv;
use tapline::run::options::{Env, Flags, Options, Project};
use tapline::run::order::Order;
use tapline::run::{config, discover, plan, Planned, Settings};
use tapline::state::history;
use tapline::state::logs;
use tapline::supervise::sandbox::Sandbox;
use tapline::watch;

mod affected;
mod around;
pub(crate) mod coverage;
mod tests_filter;

const NO_FILE_SELECTED: &str = "no test file selected";

pub fn run(args: &RunArgs) -> Outcome {
    // Under `bazel test`, Bazel's test protocol decides the shard, reports and outputs.
    let env = |key: &str| std::env::var(key).ok();
    let (bazel, test_filter) = match crate::bazel::adapt(args, &env).map_err(Failure::usage)? {
        Some((adapted, filter)) => (Some(adapted), filter),
        None => (None, None),
    };
    let args = bazel.as_ref().unwrap_or(args);
    // From a subfolder, a bare run runs that subfolder's tests from its project's folder.
    let moved = match bazel {
        Some(_) => None,
        None => move_to_project(args)?,
    };
    let args = moved.as_ref().unwrap_or(args);
    // Report paths are checked before anything runs or is touched.
    let targets = output::targets(&args.output).map_err(Failure::usage)?;
    let machine_on_stdout = args.format != RunFormat::Human;
    let reports = crate::reports::build(targets, args.annotations, machine_on_stdout)?;
    if args.watch {
        return watch(args, reports);
    }
    let affected = affected::Affected::from_args(args).map_err(Failure::usage)?;
    // Why each selected file runs, for `--list`.
    let reasons = std::cell::RefCell::new(std::collections::BTreeMap::new());
    let tests = tests_filter::TestFilter::from_args(args)?;
    let mut select = |files: Vec<discover::TestFile>| {
        let files = match &tests {
            Some(t) => t.select(files),
            None => files,
        };
        let files: Vec<discover::TestFile> = match &test_filter {
            Some(f) => files
                .into_iter()
                .filter(|t| crate::bazel::selects(f, &t.rel))
                .collect(),
            None => files,
        };
        let files = tapline::run::tags::with_tags(files, &args.tags);
        match &affected {
            Some(a) => {
                let (picked, why) = a.select(files);
                let why = why.into_iter().map(|(rel, w)| (rel, w.to_string()));
                reasons.borrow_mut().extend(why);
                picked
            }
            None => files,
        }
    };
    match prepare(args, &mut select) {
        Ok(Prepared::Listed(files, weights)) => {
            list(&files, &weights, &reasons.borrow());
            Ok(0)
        }
        // Nothing the changes affect: nothing to run, which is no failure.
        Err(Failure::Usage(msg)) if affected.is_some() && msg == NO_FILE_SELECTED => Ok(0),
        Ok(Prepared::Run(files, mut settings, mut extras)) => {
            settings.test_filter = tests.as_ref().and_then(|t| t.info());
            // `--changed REV --coverage`: patch coverage of the changed lines.
            let base = affected.as_ref().and_then(|a| a.base.clone());
            if let (Some(after), Some(base)) = (extras.coverage.as_mut(), base) {
                let root = &settings.cwd;
                let root = tapline::run::config::find_project_root(root);
                let since = args.changed.clone().filter(|r| !r.is_empty());
                after.patch = coverage::changed_lines(&root, &base)
                    .map(|c| (c, since.unwrap_or_else(|| "the merge base".to_owned())));
            }
            execute(args, files, *settings, extras, reports)
        }
        Err(failure) => Err(failure),
    }
}

/// A bare run started in a subfolder of a project ([`tapline::run::start::moved`]): the
/// process moves to the project's folder and the run names the subfolder, as
/// `tapline run <subfolder>` there would; report paths keep naming what they named.
fn move_to_project(args: &RunArgs) -> Result<Option<RunArgs>, Failure> {
    if !args.paths.is_empty() {
        return Ok(None);
    }
    let Some((started, subfolder)) = enter_project()? else {
        return Ok(None);
    };
    let mut args = args.clone();
    args.paths = vec![subfolder];
    args.output = args.output.iter().map(|path| started.join(path)).collect();
    Ok(Some(args))
}

/// A bare command (`run`, `list`) started in a subfolder of a project enters the project's
/// folder ([`tapline::run::start::moved`]): the folder it started in, to read its own relative
/// paths (`-o`, `--write`) from, and that folder from the project's, the command's PATH now.
pub(crate) fn enter_project() -> Result<Option<(std::path::PathBuf, String)>, Failure> {
    let cwd = std::env::current_dir()
        .map_err(|e| Failure::Internal(format!("failed to read the current folder: {e}")))?;
    let Some(moved) = tapline::run::start::moved(&cwd) else {
        return Ok(None);
    };
    std::env::set_current_dir(&moved.dir).map_err(|e| {
        Failure::Internal(format!(
            "failed to enter the project folder `{}`: {e}",
            moved.dir.display()
        ))
    })?;
    // The files' processes start there: a shell's `pwd` reads PWD when it names the folder.
    std::env::set_var("PWD", &moved.dir);
    Ok(Some((cwd, moved.subfolder)))
}

enum Prepared {
    /// `--list`: the files the run would run, after every selection, with their weights.
    Listed(Vec<discover::TestFile>, Vec<Option<Duration>>),
    Run(Vec<Planned>, Box<Settings>, Extras),
}

/// What a plain run needs beyond the scheduler's settings.
struct Extras {
    /// `--partition`: the shard's header, the first event of its record.
    shard: Option<tapline::event::run::ShardHeader>,
    /// `--runs N`.
    runs: u64,
    /// `--coverage`: what the run's end does with it.
    coverage: Option<Box<coverage::After>>,
    /// What the followed harnesses run once before and after the files.
    around: Vec<tapline::harness::api::Around>,
}

/// The flags `tapline::run::options` resolves, from the command line.
fn flags(args: &RunArgs) -> Flags {
    Flags {
        jobs: args.jobs,
        timeout: args.timeout.clone(),
        grace: args.grace.clone(),
        env: (args.env.iter().cloned())
            .chain(tapline::run::tags::tag_env(&args.tags))
            .collect(),
        lib: args.lib.clone(),
        merge: args.merge,
        no_merge: args.no_merge,
        no_logs: args.no_logs,
        log_dir: args.log_dir.clone(),
        verbose: args.verbose,
        watch: args.watch,
        retries: args.retries,
        flaky_fails: args.flaky_fails,
        runs: args.runs,
        partition: args.partition.clone(),
        time_default: args.time_default.clone(),
        order: args.order.clone(),
        cache: args.cache,
        no_cache: args.no_cache,
        fail_fast: args.fail_fast,
        max_fail: args.max_fail,
        stop_running: args.stop_running,
        keep_going: args.keep_going,
        no_history: args.no_history,
        no_trace: args.no_trace,
        isolate: args.isolate,
        max_memory: args.max_memory.clone(),
        max_cpu_time: args.max_cpu_time.clone(),
        max_open_files: args.max_open_files,
        max_processes: args.max_processes,
        max_output: args.max_output.clone(),
        sandbox: args.sandbox,
        no_sandbox: args.no_sandbox,
        sandbox_write: args.sandbox_write.clone(),
    }
}

/// `select` picks (and orders) the discovered files to run; watch mode runs subsets. When it
/// picks none, nothing is touched and the answer is a `Usage` error. The planning itself is
/// the library's (`tapline::run::plan`), from options resolved once.
fn prepare(
    args: &RunArgs,
    select: &mut dyn FnMut(Vec<discover::TestFile>) -> Vec<discover::TestFile>,
) -> Result<Prepared, Failure> {
    let usage = |e: &dyn std::fmt::Display| Failure::Usage(e.to_string());
    let project = Project::current().map_err(|e| usage(&e))?;
    let mut options =
        Options::resolve(&flags(args), &project, &Env::current()).map_err(|e| usage(&e))?;
    let sandbox = sandbox(&options, &project)?;
    let inherited = |key: &str| std::env::var_os(key);
    let mut found =
        plan::discover(&project, &args.paths, args.exec.as_deref()).map_err(|e| usage(&e))?;
    // As the harness the run mirrors: one file at a time, unless `-j` or `[run] jobs` says.
    let one_at_a_time = found
        .one_at_a_time
        .take()
        .filter(|_| args.jobs.is_none() && project.config.jobs.is_none());
    if one_at_a_time.is_some() {
        options.jobs = 1;
    }
    // The trace hooks' variables go in before the commands are adapted to the environment
    // (an interpreter that ignores them in some mode takes them on its command line).
    let tracer = (!args.list)
        .then(|| affected::tracer(&options, &project, sandbox.is_some(), &found.files))
        .flatten();
    if let Some(t) = &tracer {
        t.add_env(&mut options.env.vars, inherited);
    }
    let gate = coverage::wanted(args, &project).map_err(Failure::Usage)?;
    let collector = match (&gate, args.list) {
        (Some(_), false) => coverage::collector(&project, &found.files, sandbox.is_some()),
        _ => None,
    };
    if let Some(c) = &collector {
        c.add_env(&mut options.env.vars, inherited);
        // Every file runs: a file the cache skipped would reach no line.
        if options.cache == tapline::run::options::CacheUse::On {
            options.cache = tapline::run::options::CacheUse::Refresh;
        }
    }
    plan::adapt(&mut found.files, &options.env, &inherited);
    let around = std::mem::take(&mut found.around);
    let env = |key: &str| std::env::var(key).ok();
    let part = plan::partition_files(found.files, &options, &env).map_err(|e| usage(&e))?;
    if let Some(note) = &part.note {
        tapline::say!("tapline: {note}");
    }
    let weights: std::collections::HashMap<String, Option<Duration>> = part
        .files
        .iter()
        .zip(&part.weights)
        .map(|(f, w)| (f.rel.clone(), *w))
        .collect();
    let mut files = select(part.files);
    if options.retries > 0 {
        tapline::inventory::select::keep_refilters(&project.root, &mut files);
    }
    if args.list {
        list_notes(&options.env, &found.passed_over, found.declared.as_deref());
        for note in &found.notes {
            tapline::say!("tapline: {note}");
        }
        for note in discover::harness_notes(&project.cwd, one_at_a_time.as_deref(), &files) {
            tapline::say!("tapline: {note}");
        }
        let weights = files
            .iter()
            .map(|f| weights.get(&f.rel).copied().flatten())
            .collect();
        return Ok(Prepared::Listed(files, weights));
    }
    // An empty shard is a shard all the same: it passes, and its record joins the merge.
    if files.is_empty() && part.header.is_none() {
        return Err(Failure::Usage(NO_FILE_SELECTED.into()));
    }
    let log_dir = match &options.log_dir {
        None => None,
        Some(dir) => Some(logs::LogDir::prepare(dir).map_err(|e| usage(&e))?),
    };
    let limits = options.limits;
    let isolation = match (&sandbox, limits.is_empty()) {
        (None, true) => String::new(),
        (sandbox, _) => format!(" (isolation: {sandbox:?} {limits:?})"),
    };
    let plan = plan::plan(files, &options, &project, log_dir.as_ref(), &isolation)
        .map_err(|e| usage(&e))?;
    for w in &plan.warnings {
        tapline::say!("tapline: {w}");
    }
    if matches!(plan.order, Order::Random(_)) && !options.watch {
        tapline::say!(
            "tapline: order {} (the same seed repeats this order)",
            plan.order
        );
    }
    // A shard reads history but never appends to it: every shard of a run must plan from the
    // same history (shards run one after another in one checkout would otherwise deal
    // differently), and the merged run enters it once (`report merge --history`).
    let recorder = (options.history && part.header.is_none()).then(|| history::Recorder {
        store: history::Store::in_dir(&options.history_dir),
        root: project.root.clone(),
    });
    let mut settings = Settings::new(&options, project.cwd, log_dir, recorder, sandbox);
    settings.trace = tracer;
    settings.expected_ms = (plan.index.files.iter())
        .map(|(rel, f)| (rel.clone(), f.p50_ms.max(0.0) as u64))
        .collect();
    let coverage = collector.is_some().then(|| {
        Box::new(coverage::After {
            log_dir: options.history_dir.clone(),
            // A shard is never checked on its own: the merge is.
            gate: gate.flatten().filter(|_| part.header.is_none()),
            patch: None,
        })
    });
    settings.coverage = collector;
    settings.cache = plan.cache.map(std::sync::Mutex::new);
    let extras = Extras {
        shard: part.header,
        runs: options.runs,
        coverage,
        around,
    };
    Ok(Prepared::Run(plan.files, Box::new(settings), extras))
}

/// `--list`: the files, one a line, each with its shard weight and why it was selected
/// (`--affected-by`, `--changed`). A reader that went away (`--list | head`) ends the list
/// quietly: no panic, exit 0.
fn list(
    files: &[discover::TestFile],
    weights: &[Option<Duration>],
    reasons: &std::collections::BTreeMap<String, String>,
) {
    let mut out = std::io::stdout().lock();
    for (f, w) in files.iter().zip(weights) {
        let why = reasons
            .get(&f.rel)
            .map(|why| format!("  ({why})"))
            .unwrap_or_default();
        let weight = w
            .map(|w| {
                format!(
                    "  (weight {})",
                    tapline::report::style::duration_ms(w.as_millis() as f64)
                )
            })
            .unwrap_or_default();
        if writeln!(out, "{}{weight}{why}", discover::list_line(f)).is_err() {
            break;
        }
    }
}

/// The sandbox the options ask for; no bwrap is a usage error, never a run without isolation.
fn sandbox(
    options: &Options,
    project: &Project,
) -> Result<Option<std::sync::Arc<Sandbox>>, Failure> {
    let Some(wanted) = &options.sandbox else {
        return Ok(None);
    };
    let path = std::env::var_os("PATH");
    Sandbox::new(
        path.as_deref(),
        &project.cwd,
        &project.root,
        &wanted.writable,
        wanted.env_drop.clone(),
    )
    .map(|s| Some(std::sync::Arc::new(s)))
    .map_err(|e| Failure::Usage(e.to_string()))
}

/// `--list`'s notes on stderr (stdout stays one file per line): what a directory yields, the
/// files the walks passed over, and the variables every file gets.
fn list_notes(env: &ChildEnv, passed_over: &[discover::PassedOver], declared: Option<&str>) {
    let mut err = io::stderr().lock();
    if let Some(declared) = declared {
        let _ = writeln!(err, "tapline: following {declared}");
    }
    let _ = writeln!(
        err,
        "tapline: a directory yields files matching {} (JavaScript: test-named, or in a test folder) and your [[runner]] globs, never a file for being executable (a project or a folder a harness owns: that harness's files only)",
        discover::walk_globs().join(" ")
    );
    for note in discover::passed_over_notes(passed_over) {
        let _ = writeln!(err, "tapline: {note}");
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

/// The terminal report's options (`live` is the run's, decided in `prepare`).
fn terminal_options(args: &RunArgs, live: bool) -> TerminalOptions {
    stderr_terminal_options(args.color, args.quiet, args.verbose, live)
}

/// `--watch`: the session lives in `tapline::watch`; each run is prepared here, as without it.
fn watch(args: &RunArgs, reports: Option<ReportsThread>) -> Outcome {
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
                Ok(Prepared::Listed(..)) => Ok(None),
                Err(Failure::Usage(_)) if picked_none => Ok(None),
                Err(Failure::Usage(msg) | Failure::Internal(msg)) => Err(msg),
            }
        }
    }
    let debounce = match args.debounce.as_deref().map(config::parse_duration) {
        None => watch::DEFAULT_DEBOUNCE,
        Some(Ok(d)) => d,
        Some(Err(e)) => return Err(Failure::usage(format!("invalid --debounce: {e}"))),
    };
    let project = Project::current().map_err(Failure::usage)?;
    let history_dir = project.log_dir(args.log_dir.as_deref());
    let history = project.history(args.log_dir.as_deref(), args.no_history);
    let root = project.root;
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
        traces: !args.no_trace && project.config.trace != Some(false),
        outlets: crate::reports::outlets(terminal_options(args, false), args.format, reports),
        tests: args.test.clone(),
    };
    match watch::watch(opts, &mut Plans(args)) {
        Ok(ended) => Ok(ended.exit_code()),
        Err(watch::WatchError::Usage(msg)) => Err(Failure::Usage(msg)),
        Err(watch::WatchError::Internal(msg)) => Err(Failure::Internal(msg)),
    }
}

fn execute(
    args: &RunArgs,
    files: Vec<Planned>,
    settings: Settings,
    extras: Extras,
    reports: Option<ReportsThread>,
) -> Outcome {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| Failure::internal(format!("failed to start the async runtime: {e}")))?;
    let mut forward = crate::daemon_cmd::forward_sink(args).map_err(Failure::Usage)?;
    let mut outlets =
        crate::reports::outlets(terminal_options(args, settings.live), args.format, reports);
    let mut opened = outlets.open(settings.live);
    let mut front: Vec<&mut dyn RunSink> =
        forward.iter_mut().map(|f| f as &mut dyn RunSink).collect();
    let mut tally = tapline::report::coverage::CoverageTally::default();
    if extras.coverage.is_some() {
        front.push(&mut tally);
    }
    let mut sink = opened.sink(front);
    let Extras {
        runs,
        shard,
        coverage: after_coverage,
        around: arounds,
    } = extras;
    let logs = settings.log_dir.as_ref().map(|d| d.path().to_path_buf());
    let cwd = settings.cwd.clone();
    // A failing `before` fails the run before any file starts, as the harness's runner
    // exits then.
    if let Err(why) = around::before(&arounds, &cwd, logs.as_deref()) {
        drop(sink);
        let _ = opened.close();
        tapline::say!("tapline: {why}; no test file ran");
        return Ok(1);
    }
    if let Some(header) = shard {
        sink.on(&RunEvent::Shard(header))
            .map_err(|e| Failure::internal(format!("failed to write the report: {e}")))?;
    }
    let finished = runtime.block_on(tapline::run::execute_series(
        files,
        settings,
        runs,
        &mut sink,
        &mut report_warnings,
    ));
    drop(sink);
    let closed = opened.close();
    // Its `after` runs once the files are done, a failure failing the run.
    let failed_after = around::after(&arounds, &cwd, logs.as_deref());
    for why in &failed_after {
        tapline::say!("tapline: {why}");
    }
    if let Some(f) = forward.as_mut() {
        f.finish();
    }
    if let Ok((f, _)) = &finished {
        report_warnings(f);
    }
    let code = finished.map(|(f, stability)| match stability {
        // A series answers by its stability, unless it was interrupted.
        Some(s) if f.exit_code() != tapline::run::EXIT_INTERRUPTED => u8::from(!s.all_stable()),
        _ => f.exit_code(),
    });
    let code = match &after_coverage {
        Some(after) => code.map(|c| coverage::after(after, &tally.coverage, c)),
        None => code,
    };
    let code = code.map(|c| match failed_after.is_empty() {
        true => c,
        false => c.max(1),
    });
    outlets::exit_code(code, &closed).map_err(Failure::Internal)
}

/// What a run could not save for the next one.
fn report_warnings(f: &tapline::run::Finished) {
    for w in &f.warnings {
        tapline::say!("tapline: warning: {w}");
    }
}
