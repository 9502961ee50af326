//! `tapline run --watch`: run once, then re-run on every change to the project.
//!
//! The shape is watchexec's: a notify debouncer feeds a channel; the session owns one run at a
//! time and linearises everything else (changes, keys, signals) against it in one `select!`.
//!
//! - **What is watched**: the project root and every folder under it that [`filter`] does not
//!   ignore, each with its own non-recursive watch, so ignored trees (`target/`,
//!   `node_modules/`, gitignored build output) cost no inotify watches. Folders created later
//!   are added as they appear; a `.gitignore` change re-reads the ignore rules.
//! - **What a change runs**: the debouncer hands over a batch once a change is `--debounce` old.
//!   A batch whose changed paths are all test files re-runs those files; any other changed path
//!   re-runs every test file. Files are discovered afresh for every run (new test files count),
//!   and the files that failed last time run first.
//! - **A change during a run** cancels it (process groups terminated with the grace period,
//!   children reaped, as a first Ctrl-C does) and starts the next run, which covers what the
//!   cancelled run was running as well as what changed.
//! - **Output**: each run starts under a separator line naming what triggered it
//!   (`── run 3 · triggered by test/a.t ──`), or on a cleared screen with `--clear`; a key
//!   help line follows each summary. `--format jsonl` keeps streaming on stdout, every event
//!   tagged with its run number; `--format summary` prints one document per run.
//! - **Input**: see [`input`]: keys on a terminal (Enter/`a` all, `f` failing, `p` pattern,
//!   `q` quit), line commands on a pipe (EOF quits).
//! - **Ending**: `q`, Ctrl-D or the end of piped input quit with 0; Ctrl-C, SIGTERM or SIGHUP
//!   with 130. Either way the running run is cancelled first and its children are gone when
//!   tapline exits.
pub mod filter;
pub mod input;

use crate::report::style::{self, Style};
use crate::report::terminal::{TerminalOptions, TerminalReporter};
use crate::run::discover::TestFile;
use crate::run::sinks::{Fanout, JsonlRun, RunSink, SummaryRun};
use crate::run::supervise::Cancel;
use crate::run::{execute, Planned, Settings, EXIT_INTERRUPTED};
use filter::Filter;
use globset::GlobBuilder;
use input::{Input, Key, Mode};
use notify::event::{EventKind, ModifyKind};
use notify::{RecommendedWatcher, RecursiveMode};
use notify_debouncer_full::{new_debouncer, DebounceEventResult, Debouncer, RecommendedCache};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::io::{self, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;
use tokio::signal::unix::{signal, Signal, SignalKind};
use tokio::sync::{mpsc, watch};

/// How long a change must be old before it is acted on.
pub const DEFAULT_DEBOUNCE: Duration = Duration::from_millis(300);
/// Shorter debounce values are raised to this (the debouncer polls at a fraction of it).
pub const MIN_DEBOUNCE: Duration = Duration::from_millis(5);
/// Paths named in a run's header before "and N more".
const SHOWN_TRIGGERS: usize = 3;

/// The machine output on stdout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Machine {
    None,
    Jsonl,
    Summary,
}

pub struct WatchOptions {
    /// The project root: watched, and what test paths are relative to.
    pub root: PathBuf,
    pub debounce: Duration,
    /// `--watch-ignore` globs.
    pub ignore: Vec<String>,
    /// Never watched: tapline writes there.
    pub log_dir: Option<PathBuf>,
    pub clear: bool,
    /// For each run's terminal report (`live` and `width` are set per run).
    pub terminal: TerminalOptions,
    pub machine: Machine,
}

/// Prepares each run: discovers the test files, lets `select` pick and order them, then (when
/// any is left) rotates the log folder and builds the commands. `Ok(None)`: `select` left
/// nothing, and nothing was touched.
pub trait Planner {
    fn plan(
        &mut self,
        select: &mut dyn FnMut(Vec<TestFile>) -> Vec<TestFile>,
    ) -> Result<Option<(Vec<Planned>, Settings)>, String>;
}

/// How a session ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ended {
    /// `q`, Ctrl-D, or the end of piped input.
    Quit,
    /// Ctrl-C, SIGTERM or SIGHUP.
    Interrupted,
    /// stdout was closed (`| head`).
    OutputClosed,
}

impl Ended {
    pub fn exit_code(self) -> u8 {
        match self {
            Ended::Quit | Ended::OutputClosed => 0,
            Ended::Interrupted => EXIT_INTERRUPTED,
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum WatchError {
    /// Bad options, or the first run could not be prepared.
    #[error("{0}")]
    Usage(String),
    #[error("{0}")]
    Internal(String),
}

/// Runs a watch session until the user quits.
pub fn watch(opts: WatchOptions, planner: &mut dyn Planner) -> Result<Ended, WatchError> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| WatchError::Internal(format!("failed to start the async runtime: {e}")))?;
    let ended = runtime.block_on(async {
        let mut session = Session::start(opts, planner)?;
        session.run().await
    });
    runtime.shutdown_timeout(Duration::from_secs(1));
    ended
}

/// What the next run covers; several requests merge into one.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Want {
    /// Every test file.
    pub all: bool,
    /// The files whose last verdict was a failure.
    pub failing: bool,
    /// Files whose path matches one of these (`p`).
    pub patterns: Vec<String>,
    /// Changed paths relative to the root: test files among them run; any other means all.
    pub changed: BTreeSet<String>,
    /// What to name in the header: the changes that asked for this run…
    pub triggers: BTreeSet<String>,
    /// …and the keys.
    pub reasons: Vec<String>,
    /// The cancelled run this one restarts.
    pub restarts: Option<u64>,
}

impl Want {
    fn all(reason: &str) -> Want {
        Want {
            all: true,
            reasons: vec![reason.into()],
            ..Want::default()
        }
    }

    fn is_empty(&self) -> bool {
        !self.all && !self.failing && self.patterns.is_empty() && self.changed.is_empty()
    }

    fn merge(&mut self, other: Want) {
        self.triggers.extend(other.triggers);
        for reason in other.reasons {
            if !self.reasons.contains(&reason) {
                self.reasons.push(reason);
            }
        }
        self.restarts = self.restarts.max(other.restarts);
        self.absorb(other.all, other.failing, other.patterns, other.changed);
    }

    /// Takes over what a cancelled run covered, but not its header.
    fn restart_of(&mut self, run: u64, cancelled: Want) {
        self.restarts = Some(run);
        self.absorb(
            cancelled.all,
            cancelled.failing,
            cancelled.patterns,
            cancelled.changed,
        );
    }

    fn absorb(
        &mut self,
        all: bool,
        failing: bool,
        patterns: Vec<String>,
        changed: BTreeSet<String>,
    ) {
        self.all |= all;
        self.failing |= failing;
        for p in patterns {
            if !self.patterns.contains(&p) {
                self.patterns.push(p);
            }
        }
        self.changed.extend(changed);
    }

    /// `triggered by test/a.t, lib/b.pm · restarts run 3`.
    pub fn label(&self) -> String {
        let mut parts = Vec::new();
        if !self.triggers.is_empty() {
            let shown: Vec<&str> = self
                .triggers
                .iter()
                .take(SHOWN_TRIGGERS)
                .map(String::as_str)
                .collect();
            let more = self.triggers.len() - shown.len();
            let mut part = format!("triggered by {}", shown.join(", "));
            if more > 0 {
                part.push_str(&format!(" and {more} more"));
            }
            parts.push(part);
        }
        parts.extend(self.reasons.iter().cloned());
        if let Some(run) = self.restarts {
            parts.push(format!("restarts run {run}"));
        }
        parts.join(" · ")
    }
}

/// The files `want` runs, out of those discovered: previously failing ones first, then in
/// discovery order.
pub fn select(
    want: &Want,
    verdicts: &HashMap<String, bool>,
    files: Vec<TestFile>,
) -> Vec<TestFile> {
    let failing = |rel: &str| verdicts.get(rel) == Some(&false);
    let all = want.all || {
        let tests: HashSet<&str> = files.iter().map(|f| f.rel.as_str()).collect();
        want.changed.iter().any(|c| !tests.contains(c.as_str()))
    };
    let patterns: Vec<PathPattern> = want.patterns.iter().map(|p| PathPattern::new(p)).collect();
    let mut picked: Vec<TestFile> = files
        .into_iter()
        .filter(|f| {
            all || want.changed.contains(&f.rel)
                || (want.failing && failing(&f.rel))
                || patterns.iter().any(|p| p.matches(&f.rel))
        })
        .collect();
    // Stable: discovery order within each group.
    picked.sort_by_key(|f| !failing(&f.rel));
    picked
}

/// A `p` pattern: a glob when it has glob characters (matched against the path and the file
/// name), else a substring of the path.
struct PathPattern {
    text: String,
    glob: Option<globset::GlobMatcher>,
}

impl PathPattern {
    fn new(text: &str) -> PathPattern {
        let glob = text
            .contains(['*', '?', '[', '{'])
            .then(|| GlobBuilder::new(text).build().ok())
            .flatten()
            .map(|g| g.compile_matcher());
        PathPattern {
            text: text.to_owned(),
            glob,
        }
    }

    fn matches(&self, rel: &str) -> bool {
        match &self.glob {
            Some(glob) => {
                glob.is_match(rel) || glob.is_match(rel.rsplit('/').next().unwrap_or(rel))
            }
            None => rel.contains(&self.text),
        }
    }
}

enum Action {
    None,
    Run(Want),
    Quit(Ended),
}

/// Where the session goes after a run.
enum After {
    Idle,
    Run(Want),
    Quit(Ended),
}

struct Signals {
    int: Signal,
    term: Signal,
    hup: Signal,
}

impl Signals {
    fn new() -> io::Result<Signals> {
        Ok(Signals {
            int: signal(SignalKind::interrupt())?,
            term: signal(SignalKind::terminate())?,
            hup: signal(SignalKind::hangup())?,
        })
    }

    async fn recv(&mut self) {
        tokio::select! {
            _ = self.int.recv() => {}
            _ = self.term.recv() => {}
            _ = self.hup.recv() => {}
        }
    }
}

struct Session<'p> {
    opts: WatchOptions,
    planner: &'p mut dyn Planner,
    filter: Filter,
    debouncer: Debouncer<RecommendedWatcher, RecommendedCache>,
    changes: mpsc::UnboundedReceiver<DebounceEventResult>,
    input: mpsc::UnboundedReceiver<Input>,
    mode: Mode,
    /// Restores the terminal when the session ends.
    _cbreak: Option<input::Cbreak>,
    /// The `p` prompt being typed.
    prompt: Option<String>,
    running: bool,
    /// Each test file's last verdict (cancelled files keep their earlier one).
    verdicts: HashMap<String, bool>,
    /// Shared by every run, so stdout is one stream.
    jsonl: Option<JsonlRun<io::BufWriter<io::Stdout>>>,
    signals: Signals,
    run: u64,
    style: Style,
    stderr_tty: bool,
    /// Watch errors already reported.
    reported: HashSet<String>,
    /// What the project's files hold, to tell a write that changed nothing.
    prints: Fingerprints,
    /// Files our stdout and stderr were redirected to (device, inode): writing them must not
    /// start a run (`tapline run -w --format jsonl > events.jsonl` inside the project).
    own_output: Vec<(u64, u64)>,
}

impl<'p> Session<'p> {
    fn start(
        mut opts: WatchOptions,
        planner: &'p mut dyn Planner,
    ) -> Result<Session<'p>, WatchError> {
        opts.root = filter::normalize(&opts.root);
        opts.debounce = opts.debounce.max(MIN_DEBOUNCE);
        let filter = Filter::new(&opts.root, opts.log_dir.as_deref(), &opts.ignore)
            .map_err(|e| WatchError::Usage(e.to_string()))?;
        let (tx, changes) = mpsc::unbounded_channel();
        // The debouncer checks for ripe changes every `tick`: a fraction of the debounce, kept
        // small so a change is acted on close to `debounce` after it happened.
        let tick = (opts.debounce / 10)
            .clamp(Duration::from_millis(5), Duration::from_millis(20))
            .min(opts.debounce);
        let debouncer = new_debouncer(opts.debounce, Some(tick), move |result| {
            let _ = tx.send(result);
        })
        .map_err(|e| WatchError::Internal(format!("failed to start watching: {e}")))?;
        let signals = Signals::new()
            .map_err(|e| WatchError::Internal(format!("failed to handle signals: {e}")))?;
        let verdicts = opts
            .log_dir
            .as_ref()
            .and_then(|dir| std::fs::read(dir.join("verdicts.json")).ok())
            .and_then(|bytes| serde_json::from_slice::<BTreeMap<String, bool>>(&bytes).ok())
            .unwrap_or_default()
            .into_iter()
            .collect();
        let jsonl = (opts.machine == Machine::Jsonl)
            .then(|| JsonlRun::new(io::BufWriter::new(io::stdout())));
        let style = opts.terminal.style;
        let mut session = Session {
            opts,
            planner,
            filter,
            debouncer,
            changes,
            input: mpsc::unbounded_channel().1,
            mode: Mode::None,
            _cbreak: None,
            prompt: None,
            running: false,
            verdicts,
            jsonl,
            signals,
            run: 0,
            style,
            stderr_tty: io::stderr().is_terminal(),
            reported: HashSet::new(),
            own_output: own_output(),
            prints: Fingerprints::new(),
        };
        let root = session.opts.root.clone();
        session
            .debouncer
            .watch(&root, RecursiveMode::NonRecursive)
            .map_err(|e| {
                WatchError::Internal(format!("failed to watch {}: {e}", root.display()))
            })?;
        session.watch_tree(&root);
        // Keys last: the terminal is in cbreak mode only once nothing can fail any more.
        let (mode, input, cbreak) = input::start();
        session.mode = mode;
        session.input = input;
        session._cbreak = cbreak;
        Ok(session)
    }

    async fn run(&mut self) -> Result<Ended, WatchError> {
        let mut next = Some(Want {
            all: true,
            ..Want::default()
        });
        loop {
            if let Some(want) = next.take() {
                match self.run_once(want).await? {
                    After::Idle => {}
                    After::Run(want) => {
                        next = Some(want);
                        continue;
                    }
                    After::Quit(ended) => return Ok(ended),
                }
            }
            tokio::select! {
                Some(batch) = self.changes.recv() => next = self.take_changes(batch),
                Some(input) = self.input.recv() => match self.on_input(input) {
                    Action::None => {}
                    Action::Run(want) => next = Some(want),
                    Action::Quit(ended) => return Ok(ended),
                },
                () = self.signals.recv() => return Ok(Ended::Interrupted),
            }
        }
    }

    /// One run, start to finish, reacting to whatever happens meanwhile.
    async fn run_once(&mut self, want: Want) -> Result<After, WatchError> {
        let number = self.run + 1;
        let verdicts = &self.verdicts;
        let plan = self
            .planner
            .plan(&mut |files| select(&want, verdicts, files));
        let (mut files, mut settings) = match plan {
            Ok(Some(plan)) => plan,
            Err(msg) if number == 1 => return Err(WatchError::Usage(msg)),
            Err(msg) => {
                self.say(&format!("tapline: {msg}\n"));
                self.idle_line();
                return Ok(After::Idle);
            }
            Ok(None) => {
                let what = match (&want.patterns[..], want.failing) {
                    ([pattern], false) if !want.all => format!("no test file matches `{pattern}`"),
                    (_, true) if !want.all => "no failing test file".into(),
                    _ => "no test file to run".into(),
                };
                self.say(&format!("{what}\n"));
                self.idle_line();
                return Ok(After::Idle);
            }
        };
        self.run = number;
        settings.run = number;
        for (index, p) in files.iter_mut().enumerate() {
            p.info.index = index;
        }
        let rels: Vec<String> = files.iter().map(|p| p.info.rel.clone()).collect();
        self.header(number, &want);

        let mut terminal_opts = self.opts.terminal;
        terminal_opts.live = settings.live;
        terminal_opts.width = crossterm::terminal::size().map_or(terminal_opts.width, |(w, _)| w);
        let stderr = io::stderr();
        let out: Box<dyn Write> = if settings.live {
            Box::new(io::BufWriter::with_capacity(1 << 16, stderr))
        } else if self.stderr_tty {
            Box::new(io::LineWriter::new(stderr))
        } else {
            Box::new(io::BufWriter::new(stderr))
        };
        let mut terminal = TerminalReporter::new(out, terminal_opts);
        let mut summary = (self.opts.machine == Machine::Summary)
            .then(|| SummaryRun::new(io::BufWriter::new(io::stdout())));
        let mut jsonl = self.jsonl.take();

        let (stop_tx, stop_rx) = watch::channel(None::<Cancel>);
        let mut stopping: Option<Cancel> = None;
        let stop = |level: Cancel, stopping: &mut Option<Cancel>| {
            if *stopping < Some(level) {
                *stopping = Some(level);
                let _ = stop_tx.send(Some(level));
            }
        };
        let mut next: Option<Want> = None;
        let mut quit: Option<Ended> = None;
        self.running = true;
        let result = {
            let mut sinks: Vec<&mut dyn RunSink> = vec![&mut terminal];
            if let Some(j) = jsonl.as_mut() {
                sinks.push(j);
            }
            if let Some(s) = summary.as_mut() {
                sinks.push(s);
            }
            let mut fanout = Fanout(sinks);
            let exec = execute(files, &settings, &mut fanout, Some(stop_rx));
            tokio::pin!(exec);
            loop {
                tokio::select! {
                    result = &mut exec => break result,
                    Some(batch) = self.changes.recv() => {
                        if let Some(w) = self.take_changes(batch) {
                            next.get_or_insert_with(Want::default).merge(w);
                            stop(Cancel::Graceful, &mut stopping);
                        }
                    }
                    Some(input) = self.input.recv() => match self.on_input(input) {
                        Action::None => {}
                        Action::Run(w) => {
                            next.get_or_insert_with(Want::default).merge(w);
                            stop(Cancel::Graceful, &mut stopping);
                        }
                        Action::Quit(ended) => {
                            // Asking twice stops at once.
                            let level = if quit.is_some() { Cancel::Immediate } else { Cancel::Graceful };
                            quit = Some(if quit == Some(Ended::Interrupted) { Ended::Interrupted } else { ended });
                            stop(level, &mut stopping);
                        }
                    },
                    () = self.signals.recv() => {
                        // The run sees SIGINT and SIGTERM itself; SIGHUP only through us.
                        let level = if quit.is_some() { Cancel::Immediate } else { Cancel::Graceful };
                        quit = Some(Ended::Interrupted);
                        stop(level, &mut stopping);
                    }
                }
            }
        };
        self.running = false;
        let finish = terminal.finish();
        drop(summary);
        self.jsonl = jsonl;
        let finished = match result {
            Ok(finished) => finished,
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => {
                return Ok(After::Quit(Ended::OutputClosed))
            }
            Err(e) => {
                return Err(WatchError::Internal(format!(
                    "failed to report the run: {e}"
                )))
            }
        };
        if let Err(e) = finish {
            if e.kind() != io::ErrorKind::BrokenPipe {
                return Err(WatchError::Internal(format!(
                    "failed to report the run: {e}"
                )));
            }
        }
        for (rel, result) in rels.into_iter().zip(&finished.results) {
            if let Some(r) = result.as_ref().filter(|r| !r.cancelled) {
                self.verdicts.insert(rel, r.ok);
            }
        }
        if let Some(ended) = quit {
            return Ok(After::Quit(ended));
        }
        if let Some(mut next) = next {
            if finished.summary.interrupted {
                next.restart_of(number, want);
            }
            return Ok(After::Run(next));
        }
        self.idle_line();
        Ok(After::Idle)
    }

    /// Adds watches for `top` and every folder under it that is not ignored, reading their
    /// `.gitignore`s on the way down (a folder's rules apply to what is below it).
    fn watch_tree(&mut self, top: &Path) {
        let mut stack = vec![top.to_path_buf()];
        while let Some(dir) = stack.pop() {
            // Watch before listing: a folder created in between is either listed or reported.
            if let Err(e) = self.debouncer.watch(&dir, RecursiveMode::NonRecursive) {
                if matches!(e.kind, notify::ErrorKind::PathNotFound)
                    || matches!(&e.kind, notify::ErrorKind::Io(io) if io.kind() == io::ErrorKind::NotFound)
                {
                    continue;
                }
                self.report_watch_error(&e);
                continue;
            }
            self.filter.load_gitignore(&dir);
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            for entry in entries.flatten() {
                // Symlinks are not followed: their targets may be anywhere.
                let Ok(kind) = entry.file_type() else {
                    continue;
                };
                let path = entry.path();
                if kind.is_dir() {
                    if !self.filter.ignored(&path, true) {
                        stack.push(path);
                    }
                } else if kind.is_file()
                    && self.prints.budget > 0
                    && !self.prints.map.contains_key(&path)
                    && !self.filter.ignored(&path, false)
                {
                    self.prints.record(path);
                }
            }
        }
    }

    fn report_watch_error(&mut self, e: &notify::Error) {
        let msg = match &e.kind {
            notify::ErrorKind::MaxFilesWatch => "tapline: not every folder can be watched: the \
                inotify watch limit is reached (raise fs.inotify.max_user_watches, or ignore \
                more with --watch-ignore)"
                .to_owned(),
            _ => format!("tapline: watching: {e}"),
        };
        if self.reported.insert(msg.clone()) {
            self.say(&format!("{msg}\n"));
        }
    }

    /// What a debounced batch asks for, if anything; keeps the watches up to date.
    fn take_changes(&mut self, batch: DebounceEventResult) -> Option<Want> {
        let events = match batch {
            Ok(events) => events,
            Err(errors) => {
                for e in &errors {
                    self.report_watch_error(e);
                }
                return None;
            }
        };
        let mut want = Want::default();
        let mut rewalk = false;
        let mut new_dirs = Vec::new();
        for ev in &events {
            if ev.need_rescan() {
                // The kernel dropped events: anything may have changed.
                rewalk = true;
                want.all = true;
                if !want.reasons.iter().any(|r| r == "changes were missed") {
                    want.reasons.push("changes were missed".into());
                }
                continue;
            }
            if !filter::kind_matters(&ev.kind) {
                continue;
            }
            for path in &ev.paths {
                let is_dir = filter::kind_is_dir(&ev.kind)
                    || std::fs::symlink_metadata(path).is_ok_and(|m| m.is_dir());
                if self.filter.ignored(path, is_dir) || self.is_own_output(path) {
                    continue;
                }
                if self.filter.holds_log_dir(path) {
                    // Made (or removed) with the log folder: no change of the project's, but
                    // what else it holds is watched.
                    if is_dir && matches!(ev.kind, EventKind::Create(_)) {
                        new_dirs.push(path.clone());
                    }
                    continue;
                }
                if !is_dir && self.prints.unchanged(path) {
                    // Written, but to what it held: a save without changes, a mtime-only touch.
                    continue;
                }
                if path.file_name().is_some_and(|n| n == ".gitignore") {
                    rewalk = true;
                }
                if is_dir
                    && matches!(
                        ev.kind,
                        EventKind::Create(_)
                            | EventKind::Modify(ModifyKind::Name(_))
                            | EventKind::Any
                    )
                {
                    new_dirs.push(path.clone());
                }
                if let Ok(rel) = filter::normalize(path).strip_prefix(self.filter.root()) {
                    let rel = rel_string(rel);
                    want.changed.insert(rel.clone());
                    want.triggers.insert(rel);
                }
            }
        }
        if rewalk {
            self.filter.clear_gitignores();
            let root = self.opts.root.clone();
            self.watch_tree(&root);
        } else {
            for dir in new_dirs {
                self.watch_tree(&dir);
            }
        }
        (!want.is_empty()).then_some(want)
    }

    fn on_input(&mut self, input: Input) -> Action {
        match input {
            Input::Eof => Action::Quit(Ended::Quit),
            Input::Line(line) => {
                let line = line.trim();
                match line {
                    "" | "a" => Action::Run(Want::all("all files (a)")),
                    "f" => self.failing(),
                    "q" => Action::Quit(Ended::Quit),
                    "p" => {
                        self.say("usage: p PATTERN\n");
                        Action::None
                    }
                    _ => match line.strip_prefix("p ") {
                        Some(pattern) => pattern_want(pattern.trim()),
                        None => {
                            self.say(&format!("unknown command `{line}`: a, f, p PATTERN or q\n"));
                            Action::None
                        }
                    },
                }
            }
            Input::Key(key) => {
                if let Some(mut text) = self.prompt.take() {
                    return match key {
                        Key::Char(c) => {
                            text.push(c);
                            self.prompt = Some(text);
                            self.draw_prompt();
                            Action::None
                        }
                        Key::Backspace => {
                            text.pop();
                            self.prompt = Some(text);
                            self.draw_prompt();
                            Action::None
                        }
                        Key::Escape | Key::EndOfInput => {
                            self.end_prompt();
                            Action::None
                        }
                        Key::Enter => {
                            self.end_prompt();
                            if text.trim().is_empty() {
                                Action::None
                            } else {
                                pattern_want(text.trim())
                            }
                        }
                        Key::Interrupt => Action::Quit(Ended::Interrupted),
                    };
                }
                match key {
                    Key::Enter | Key::Char('a') => Action::Run(Want::all("all files (a)")),
                    Key::Char('f') => self.failing(),
                    Key::Char('p') => {
                        self.prompt = Some(String::new());
                        self.draw_prompt();
                        Action::None
                    }
                    Key::Char('q') | Key::EndOfInput => Action::Quit(Ended::Quit),
                    Key::Interrupt => Action::Quit(Ended::Interrupted),
                    _ => Action::None,
                }
            }
        }
    }

    fn is_own_output(&self, path: &Path) -> bool {
        use std::os::unix::fs::MetadataExt;
        !self.own_output.is_empty()
            && std::fs::metadata(path).is_ok_and(|m| self.own_output.contains(&(m.dev(), m.ino())))
    }

    fn failing(&mut self) -> Action {
        if self.verdicts.values().any(|ok| !ok) {
            Action::Run(Want {
                failing: true,
                reasons: vec!["failing files (f)".into()],
                ..Want::default()
            })
        } else {
            self.say("no failing test file\n");
            Action::None
        }
    }

    /// The separator line a run starts under (or a cleared screen and the same line).
    fn header(&self, run: u64, want: &Want) {
        let mut out = String::new();
        if self.opts.clear && self.stderr_tty {
            out.push_str("\x1b[H\x1b[2J\x1b[3J");
        } else if run > 1 {
            out.push('\n');
        }
        let label = want.label();
        let mut line = format!("── run {run}");
        if !label.is_empty() {
            line.push_str(" · ");
            line.push_str(&label);
        }
        line.push(' ');
        let width = usize::from(self.opts.terminal.width).clamp(40, 100);
        let fill = width.saturating_sub(line.chars().count()).max(2);
        line.push_str(&"─".repeat(fill));
        out.push_str(&self.style.paint(style::CYAN, line));
        out.push('\n');
        self.say(&out);
    }

    /// The key help under a summary.
    fn idle_line(&self) {
        let text = match self.mode {
            Mode::Keys => "watching · a/Enter all · f failing · p pattern · q quit",
            Mode::Lines => "watching · stdin: a all · f failing · p PATTERN · q quit",
            Mode::None => "watching · Ctrl-C quits",
        };
        self.say(&format!("{}\n", self.style.paint(style::DIM, text)));
        self.draw_prompt();
    }

    fn draw_prompt(&self) {
        // Drawn only between runs: during one, the report owns the screen.
        if let (Some(text), false, true) = (&self.prompt, self.running, self.stderr_tty) {
            self.say(&format!(
                "\r\x1b[2K{}{text}",
                self.style.paint(style::BOLD, "pattern › ")
            ));
        }
    }

    fn end_prompt(&self) {
        if !self.running && self.stderr_tty {
            self.say("\r\x1b[2K");
        }
    }

    fn say(&self, text: &str) {
        let _ = io::stderr().write_all(text.as_bytes());
    }
}

/// Files larger than this are never fingerprinted: a write to one always counts.
const FINGERPRINT_MAX_FILE: u64 = 1 << 20;
/// Bytes read to fingerprint the files already there when watching starts; files met later
/// are fingerprinted when they change.
const FINGERPRINT_BUDGET: u64 = 64 << 20;

/// Length and hash of files' contents. A write leaving a file as it was (an editor saving an
/// unchanged buffer, a formatter with nothing to do, `touch -m`, which inotify reports as a
/// write) changes nothing and starts nothing. A file with no fingerprint yet counts as changed.
struct Fingerprints {
    map: HashMap<PathBuf, (u64, u64)>,
    /// Bytes left for fingerprinting files nobody changed yet.
    budget: u64,
}

impl Fingerprints {
    fn new() -> Fingerprints {
        Fingerprints {
            map: HashMap::new(),
            budget: FINGERPRINT_BUDGET,
        }
    }

    fn print(path: &Path) -> Option<(u64, u64)> {
        use std::hash::Hasher;
        let meta = std::fs::metadata(path).ok()?;
        if !meta.is_file() || meta.len() > FINGERPRINT_MAX_FILE {
            return None;
        }
        let bytes = std::fs::read(path).ok()?;
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        hasher.write(&bytes);
        Some((bytes.len() as u64, hasher.finish()))
    }

    /// Fingerprints a file found while walking, within the budget.
    fn record(&mut self, path: PathBuf) {
        if let Some(print) = Fingerprints::print(&path) {
            self.budget = self.budget.saturating_sub(print.0.max(1));
            self.map.insert(path, print);
        }
    }

    /// Whether `path` holds what it held when last seen; remembers what it holds now.
    fn unchanged(&mut self, path: &Path) -> bool {
        match Fingerprints::print(path) {
            Some(print) => self.map.insert(path.to_path_buf(), print) == Some(print),
            None => {
                self.map.remove(path);
                false
            }
        }
    }
}

/// The regular files stdout and stderr write to, as (device, inode).
fn own_output() -> Vec<(u64, u64)> {
    use std::os::fd::AsFd;
    use std::os::unix::fs::MetadataExt;
    let stdout = io::stdout();
    let stderr = io::stderr();
    [stdout.as_fd(), stderr.as_fd()]
        .into_iter()
        .filter_map(|fd| fd.try_clone_to_owned().ok())
        .filter_map(|fd| std::fs::File::from(fd).metadata().ok())
        .filter(|m| m.is_file())
        .map(|m| (m.dev(), m.ino()))
        .collect()
}

fn pattern_want(pattern: &str) -> Action {
    Action::Run(Want {
        patterns: vec![pattern.to_owned()],
        reasons: vec![format!("files matching `{pattern}` (p)")],
        ..Want::default()
    })
}

/// A relative path with `/` separators.
fn rel_string(rel: &Path) -> String {
    rel.components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files(rels: &[&str]) -> Vec<TestFile> {
        rels.iter()
            .map(|rel| TestFile {
                path: rel.into(),
                rel: (*rel).to_owned(),
                command: Ok(vec!["sh".into(), (*rel).into()]),
            })
            .collect()
    }

    fn picked(want: &Want, verdicts: &[(&str, bool)]) -> Vec<String> {
        let verdicts = verdicts.iter().map(|&(r, ok)| (r.to_owned(), ok)).collect();
        select(
            want,
            &verdicts,
            files(&["t/a.t", "t/b.t", "t/c.t", "t/sub/d.t"]),
        )
        .into_iter()
        .map(|f| f.rel)
        .collect()
    }

    fn changed(paths: &[&str]) -> Want {
        let set: BTreeSet<String> = paths.iter().map(|p| (*p).to_owned()).collect();
        Want {
            changed: set.clone(),
            triggers: set,
            ..Want::default()
        }
    }

    #[test]
    fn a_changed_test_file_runs_alone() {
        assert_eq!(picked(&changed(&["t/b.t"]), &[]), ["t/b.t"]);
        assert_eq!(
            picked(&changed(&["t/c.t", "t/a.t"]), &[]),
            ["t/a.t", "t/c.t"]
        );
    }

    #[test]
    fn any_other_change_runs_all_failing_first() {
        let verdicts = [("t/c.t", false), ("t/a.t", true), ("t/sub/d.t", false)];
        assert_eq!(
            picked(&changed(&["lib/x.pm"]), &verdicts),
            ["t/c.t", "t/sub/d.t", "t/a.t", "t/b.t"]
        );
        assert_eq!(
            picked(&changed(&["t/a.t", "t/gone.t"]), &[]),
            ["t/a.t", "t/b.t", "t/c.t", "t/sub/d.t"],
            "a deleted test file is another change"
        );
    }

    #[test]
    fn keys_select() {
        let verdicts = [("t/c.t", false), ("t/a.t", true)];
        let failing = Want {
            failing: true,
            ..Want::default()
        };
        assert_eq!(picked(&failing, &verdicts), ["t/c.t"]);
        let pattern = |p: &str| Want {
            patterns: vec![p.into()],
            ..Want::default()
        };
        assert_eq!(picked(&pattern("sub"), &[]), ["t/sub/d.t"]);
        assert_eq!(picked(&pattern("[ab].t"), &[]), ["t/a.t", "t/b.t"]);
        assert_eq!(
            picked(&pattern("t/*.t"), &[]),
            ["t/a.t", "t/b.t", "t/c.t", "t/sub/d.t"]
        );
        assert!(picked(&pattern("nothing"), &[]).is_empty());
    }

    #[test]
    fn merging_and_labels() {
        let mut want = changed(&["t/a.t"]);
        want.merge(changed(&["lib/x.pm", "lib/y.pm", "lib/z.pm"]));
        assert_eq!(
            want.label(),
            "triggered by lib/x.pm, lib/y.pm, lib/z.pm and 1 more"
        );
        let mut next = changed(&["t/b.t"]);
        next.restart_of(3, Want::all("all files (a)"));
        assert!(next.all);
        assert_eq!(next.label(), "triggered by t/b.t · restarts run 3");
        assert_eq!(Want::default().label(), "");
        let mut keys = Want::all("all files (a)");
        keys.merge(Want::all("all files (a)"));
        assert_eq!(keys.label(), "all files (a)");
    }
}
