//! The watch session: one run at a time, changes, keys and signals linearised in one `select!`.
use super::*;
use crate::run::Finished;
use crate::util::paths::normalize;

mod keys;

/// Batches of file changes the debouncer may send ahead of the session.
const CHANGE_BATCHES: usize = 64;

pub(super) enum Action {
    None,
    Run(Want),
    Quit(Ended),
}

/// Where the session goes after a run.
pub(super) enum After {
    Idle,
    Run(Want),
    Quit(Ended),
}

pub(super) struct Signals {
    int: Signal,
    term: Signal,
    hup: Signal,
}

impl Signals {
    pub(super) fn new() -> io::Result<Signals> {
        Ok(Signals {
            int: signal(SignalKind::interrupt())?,
            term: signal(SignalKind::terminate())?,
            hup: signal(SignalKind::hangup())?,
        })
    }

    pub(super) async fn recv(&mut self) {
        tokio::select! {
            _ = self.int.recv() => {}
            _ = self.term.recv() => {}
            _ = self.hup.recv() => {}
        }
    }
}

/// A watch run as planned: its files, their settings, why each was picked, and the traces
/// they were picked by.
type PlannedRun = (Vec<Planned>, Settings, Picked, Traces);

pub(super) struct Session<'p> {
    opts: WatchOptions,
    planner: &'p mut dyn Planner,
    filter: Filter,
    debouncer: Debouncer<RecommendedWatcher, RecommendedCache>,
    changes: mpsc::Receiver<DebounceEventResult>,
    input: mpsc::Receiver<Input>,
    mode: Mode,
    /// Restores the terminal when the session ends.
    _cbreak: Option<input::Cbreak>,
    /// The `p` prompt being typed (or `t`'s, with `prompt_tests`).
    prompt: Option<String>,
    prompt_tests: bool,
    /// `t`'s test-name pattern in force.
    by_test: super::by_test::ByTest,
    running: bool,
    /// Each test file's last verdict (cancelled files keep their earlier one).
    verdicts: HashMap<String, bool>,
    /// What each test file loaded when it last ran, where the run could tell.
    inputs: Inputs,
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
    /// The runs' time windows and the paths the tests were caught writing.
    feedback: Feedback,
    /// Reads the clock files are stamped with, for the runs' windows.
    clock: FileClock,
    /// The paths of a cut self-feeding loop not named yet, and the run that wrote them: named
    /// after the run in progress (during it, the report owns the screen), or when idle once the
    /// rest of what that run wrote had time to arrive.
    note: Option<(BTreeSet<String>, u64)>,
    note_due: Option<tokio::time::Instant>,
    /// Runs whose loop was named: later paths of theirs get a short addendum.
    noted: BTreeSet<u64>,
    /// Warm workers kept ready for the next run (their harness loaded before the edit).
    pub(super) spares: std::sync::Arc<crate::run::worker::Spares>,
}

impl<'p> Session<'p> {
    pub(super) fn start(
        mut opts: WatchOptions,
        planner: &'p mut dyn Planner,
    ) -> Result<Session<'p>, WatchError> {
        opts.root = normalize(&opts.root);
        opts.debounce = opts.debounce.max(MIN_DEBOUNCE);
        let filter = Filter::new(&opts.root, opts.log_dir.as_deref(), &opts.ignore)
            .map_err(|e| WatchError::Usage(e.to_string()))?;
        // Bounded: the debouncer's thread waits while the session is busy (its own map of
        // changed paths goes on merging meanwhile).
        let (tx, changes) = mpsc::channel(CHANGE_BATCHES);
        // The debouncer checks for ripe changes every `tick`: a fraction of the debounce, kept
        // small so a change is acted on close to `debounce` after it happened.
        let tick = (opts.debounce / 10)
            .clamp(Duration::from_millis(5), Duration::from_millis(20))
            .min(opts.debounce);
        let debouncer = new_debouncer(opts.debounce, Some(tick), move |result| {
            let _ = tx.blocking_send(result);
        })
        .map_err(|e| WatchError::Internal(format!("failed to start watching: {e}")))?;
        let signals = Signals::new()
            .map_err(|e| WatchError::Internal(format!("failed to handle signals: {e}")))?;
        // The last verdict of each file: from history when there is one, which outlives the
        // log folder's rotation, else from the previous run's verdicts.
        let from_history: HashMap<String, bool> = opts
            .history
            .as_ref()
            .and_then(|store| store.load().ok())
            .map(|loaded| crate::state::history::Index::of(&loaded.records))
            .map(|index| {
                index
                    .files
                    .into_iter()
                    .map(|(rel, facts)| (rel, !facts.last_failed))
                    .collect()
            })
            .unwrap_or_default();
        let verdicts = if from_history.is_empty() {
            opts.log_dir
                .as_ref()
                .and_then(|dir| std::fs::read(dir.join("verdicts.json")).ok())
                .and_then(|bytes| serde_json::from_slice::<BTreeMap<String, bool>>(&bytes).ok())
                .unwrap_or_default()
                .into_iter()
                .collect()
        } else {
            from_history
        };
        let style = opts.outlets.style();
        let by_test = super::by_test::ByTest::new(&opts.tests).map_err(WatchError::Usage)?;
        let mut session = Session {
            opts,
            planner,
            filter,
            debouncer,
            changes,
            input: mpsc::channel(1).1,
            mode: Mode::None,
            _cbreak: None,
            prompt: None,
            prompt_tests: false,
            by_test,
            running: false,
            verdicts,
            inputs: Inputs::new(),
            signals,
            run: 0,
            style,
            stderr_tty: io::stderr().is_terminal(),
            reported: HashSet::new(),
            own_output: own_output(),
            prints: Fingerprints::new(),
            feedback: Feedback::default(),
            clock: FileClock::new(),
            note: None,
            note_due: None,
            noted: BTreeSet::new(),
            spares: Default::default(),
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

    pub(super) async fn run(&mut self) -> Result<Ended, WatchError> {
        let mut next = Some(Want {
            all: true,
            asked: true,
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
                () = sleep_until(self.note_due) => self.say_note(),
            }
        }
    }

    /// One run, start to finish, reacting to whatever happens meanwhile.
    pub(super) async fn run_once(&mut self, want: Want) -> Result<After, WatchError> {
        let number = self.run + 1;
        let (mut files, mut settings, picked, traces) = match self.plan_run(&want, number)? {
            Ok(planned) => planned,
            Err(after) => return Ok(after),
        };
        self.run = number;
        settings.run = number;
        settings.warm_spares = Some(self.spares.clone());
        for (index, p) in files.iter_mut().enumerate() {
            p.info.index = index;
        }
        let rels: Vec<String> = files.iter().map(|p| p.info.rel.clone()).collect();
        self.header(number, &want, &why_lines(&picked));

        let mut outlets = std::mem::replace(&mut self.opts.outlets, Outlets::none());
        let mut opened = outlets.open(settings.live);

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
        self.feedback.run_started(
            number,
            want.fed(),
            covers(&want, &picked, &rels, &traces),
            self.clock.now(),
        );
        let mut end = EndStamp {
            clock: self.clock.path.clone(),
            at: None,
        };
        let result = {
            // The stamp first: it is taken before anybody could hear of the end.
            let mut fanout = opened.sink(vec![&mut end]);
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
        let ended = end.at.unwrap_or_else(|| self.clock.now());
        self.feedback.run_ended(ended);
        let closed = opened.close();
        self.opts.outlets = outlets;
        // A report that could not be written is told; the session goes on.
        for e in &closed.report_errors {
            self.say(&format!("tapline: {e}\n"));
        }
        self.say_note();
        let finished = match reported(result, &closed) {
            Reported::Done(finished) => finished,
            Reported::Failed(msg) => return Err(WatchError::Internal(msg)),
        };
        for w in &finished.warnings {
            self.say(&format!("tapline: warning: {w}\n"));
        }
        self.remember(rels, &finished, settings.inputs.take());
        // The output's reader went away (`| head`): the run was finished and kept, and no one
        // is left to read the next.
        if crate::report::reader_gone::any_gone() {
            return Ok(After::Quit(Ended::OutputClosed));
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

    /// What the finished files leave for the next runs: their verdicts, and what they
    /// loaded (replacing what they loaded before, if they told).
    fn remember(
        &mut self,
        rels: Vec<String>,
        finished: &Finished,
        inputs: std::collections::BTreeMap<String, std::collections::BTreeSet<String>>,
    ) {
        for (rel, result) in rels.into_iter().zip(&finished.results) {
            if let Some(r) = result.as_ref().filter(|r| !r.cancelled) {
                self.inputs.remove(&rel);
                self.verdicts.insert(rel, r.ok);
            }
        }
        self.inputs.extend(inputs);
    }

    /// The run `want` asks for, planned (the files, their settings, why each was picked, the
    /// traces it was picked by); or what the session does instead when nothing can run.
    fn plan_run(
        &mut self,
        want: &Want,
        number: u64,
    ) -> Result<Result<PlannedRun, After>, WatchError> {
        let verdicts = &self.verdicts;
        // Traces are read afresh: the last run replaced those of the files it ran. The
        // inputs runs recorded (a browser file's bundle) count as traces too.
        let traces = match &self.opts.log_dir {
            Some(dir) if self.opts.traces => TraceStore::in_dir(dir).load(),
            _ => Traces::default(),
        };
        let traces = with_inputs(traces, &self.inputs);
        let mut picked = Picked::default();
        let (by_test, root, log_dir) =
            (&self.by_test, &self.opts.root, self.opts.log_dir.as_deref());
        let failed = want.only_failed_tests();
        let plan = self.planner.plan(&mut |files| {
            let files = select(want, verdicts, &traces, files, &mut picked);
            by_test.narrow(root, log_dir, failed, files)
        });
        match plan {
            Ok(Some((files, settings))) => Ok(Ok((files, settings, picked, traces))),
            Err(msg) if number == 1 => Err(WatchError::Usage(msg)),
            Err(msg) => {
                self.say(&format!("tapline: {msg}\n"));
                self.idle_line();
                Ok(Err(After::Idle))
            }
            Ok(None) => {
                let what = match (&want.patterns[..], want.failing) {
                    _ if want.only_failed_tests() => "no failing test".into(),
                    _ if self.by_test.label().is_some() => format!(
                        "no test file has {}",
                        self.by_test.label().unwrap_or_default()
                    ),
                    ([pattern], false) if !want.all => format!("no test file matches `{pattern}`"),
                    (_, true) if !want.all => "no failing test file".into(),
                    _ => "no test file to run".into(),
                };
                self.say(&format!("{what}\n"));
                self.idle_line();
                Ok(Err(After::Idle))
            }
        }
    }

    /// Adds watches for `top` and every folder under it that is not ignored, reading their
    /// `.gitignore`s on the way down (a folder's rules apply to what is below it).
    pub(super) fn watch_tree(&mut self, top: &Path) {
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

    pub(super) fn report_watch_error(&mut self, e: &notify::Error) {
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
    pub(super) fn take_changes(&mut self, batch: DebounceEventResult) -> Option<Want> {
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
        let mut changes: BTreeMap<String, Change> = BTreeMap::new();
        let mut rewalk = false;
        let mut new_dirs = Vec::new();
        for ev in &events {
            if ev.need_rescan() {
                // The kernel dropped events: anything may have changed.
                rewalk = true;
                want.all = true;
                want.asked = true;
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
                if self.filter.ignored(path, is_dir)
                    || self.is_own_output(path)
                    || *path == self.clock.path
                {
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
                self.spares.changed(path);
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
                if let Ok(rel) = normalize(path).strip_prefix(self.filter.root()) {
                    let change = changes
                        .entry(rel_string(rel))
                        .or_insert_with_key(|rel| Change {
                            rel: rel.clone(),
                            ctime: ctime(path),
                            arrived: SystemTime::now() - ev.time.elapsed(),
                            created: false,
                        });
                    change.created |= matches!(
                        ev.kind,
                        EventKind::Create(_) | EventKind::Modify(ModifyKind::Name(_))
                    );
                }
            }
        }
        self.sort_changes(changes.into_values().collect(), &mut want);
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

    /// Adds to `want` the changes that start a run, weighing which the tests made
    /// ([`super::feedback`]); names the paths of a self-feeding loop once it is cut.
    fn sort_changes(&mut self, changes: Vec<Change>, want: &mut Want) {
        if changes.is_empty() {
            return;
        }
        match self.feedback.sort(changes) {
            Sorted::Nothing => {}
            Sorted::Run { rels, fed } => {
                if fed == 0 {
                    want.asked = true;
                }
                want.fed = want.fed.max(fed);
                want.triggers.extend(rels.iter().cloned());
                want.changed.extend(rels);
            }
            Sorted::Paused { rels, run } => {
                match &mut self.note {
                    Some((pending, of)) if *of == run => pending.extend(rels),
                    _ => {
                        self.say_note();
                        self.note = Some((rels, run));
                    }
                }
                if !self.running && self.note_due.is_none() {
                    // What else the run wrote ripens within a debounce of this.
                    self.note_due =
                        Some(tokio::time::Instant::now() + self.opts.debounce + NOTE_MARGIN);
                }
            }
        }
    }

    /// Names the paths of a cut loop, if any wait.
    fn say_note(&mut self) {
        self.note_due = None;
        let Some((rels, run)) = self.note.take() else {
            return;
        };
        let text = if self.noted.insert(run) {
            paused_message(&rels, run)
        } else {
            let list: Vec<&str> = rels.iter().map(String::as_str).collect();
            format!(
                "tapline: {} also changed during run {run}: no run for that either\n",
                list.join(", ")
            )
        };
        if !self.running && self.prompt.is_some() {
            self.end_prompt();
        }
        self.say(&self.style.paint(style::YELLOW, text));
        self.draw_prompt();
    }

    /// The separator line a run starts under (or a cleared screen and the same line).
    pub(super) fn header(&self, run: u64, want: &Want, why: &[String]) {
        let mut out = String::new();
        if self.opts.clear && self.stderr_tty {
            out.push_str("\x1b[H\x1b[2J\x1b[3J");
        } else if run > 1 {
            out.push('\n');
        }
        let label = want.label();
        let mut line = format!("── run {run}");
        let by_test = self.by_test.label().filter(|_| !want.only_failed_tests());
        for part in [Some(label), by_test].into_iter().flatten() {
            if !part.is_empty() {
                line.push_str(" · ");
                line.push_str(&part);
            }
        }
        line.push(' ');
        let width = usize::from(self.opts.outlets.width()).clamp(40, 100);
        let fill = width.saturating_sub(line.chars().count()).max(2);
        line.push_str(&"─".repeat(fill));
        out.push_str(&self.style.paint(style::CYAN, line));
        out.push('\n');
        for line in why {
            out.push_str(&self.style.paint(style::DIM, format!("   {line}")));
            out.push('\n');
        }
        self.say(&out);
    }

    /// The key help under a summary.
    pub(super) fn idle_line(&self) {
        let text = match self.mode {
            Mode::Keys => {
                "watching · a/Enter all · f failing · F failing tests · p file pattern · t test pattern · q quit"
            }
            Mode::Lines => {
                "watching · stdin: a all · f failing · F failing tests · p PATTERN · t [PATTERN] · q quit"
            }
            Mode::None => "watching · Ctrl-C quits",
        };
        self.say(&format!("{}\n", self.style.paint(style::DIM, text)));
        self.draw_prompt();
    }

    pub(super) fn say(&self, text: &str) {
        let _ = io::stderr().write_all(text.as_bytes());
    }
}

/// Resolves at `due`; never without one.
async fn sleep_until(due: Option<tokio::time::Instant>) {
    match due {
        Some(due) => tokio::time::sleep_until(due).await,
        None => std::future::pending().await,
    }
}
