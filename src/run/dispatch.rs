//! The dispatcher: owns one run's state and linearises everything that happens (child events,
//! finished files, signals, the redraw tick, quiet moments) in one `select!`. What a finished
//! file means for the run is [`super::decide`]'s to say; here it is carried out.
//!
//! A sink that fails does not end the loop: its first error is kept, the run is stopped as a
//! first Ctrl-C stops it (no file starts, the running ones are terminated with the grace
//! period), the files not started are told as not run, `RunFinished` still reaches every sink,
//! and the error is the run's answer.
use super::decide::{decide, Decision, Rules, State};
use super::file_task::{self, FileJob};
use super::retry_failed::Failing;
use super::{
    attempt_log_name, external_stop, interrupt, stopping, summarize, verdicts, Finished, Planned,
    Settings, EVENT_BATCHES, FLUSH_AFTER, TICK,
};
use crate::event::run::{FailureReason, FileInfo, FileResult, RunEvent};
use crate::event::sink::{RunSink, Unflushed};
use crate::harness::api::Lane;
use crate::supervise::Cancel;
use std::collections::VecDeque;
use std::io;
use std::time::{Duration, Instant};
use tokio::signal::unix::{signal, SignalKind};
use tokio::sync::{mpsc, watch};
use tokio::task::JoinSet;

/// The run's sinks, keeping their first error instead of handing it up.
struct Guarded<'s> {
    inner: Unflushed<&'s mut dyn RunSink>,
    failed: Option<io::Error>,
}

impl Guarded<'_> {
    fn keep(&mut self, r: io::Result<()>) {
        if let Err(e) = r {
            self.failed.get_or_insert(e);
        }
    }
    fn on(&mut self, ev: &RunEvent) {
        let r = self.inner.on(ev);
        self.keep(r);
    }
    /// One batch of a file's events, in order.
    fn give(&mut self, batch: Vec<RunEvent>) {
        let r = self.inner.give(batch);
        self.keep(r);
    }
}

/// A finished file task: its index, the attempt, its result, and a warm file's worker.
type Joined = (usize, u32, FileResult, Option<super::worker::Lease>);

/// One run in progress.
struct Dispatch<'a, 's> {
    settings: &'a Settings,
    run: u64,
    sink: Guarded<'s>,
    tx: mpsc::Sender<Vec<RunEvent>>,
    cancel_tx: watch::Sender<Option<Cancel>>,
    cancel_rx: watch::Receiver<Option<Cancel>>,
    pending: VecDeque<(Planned, u32)>,
    infos: Vec<Option<FileInfo>>,
    results: Vec<Option<FileResult>>,
    /// Each running file's plan, kept for a retry.
    plans: Vec<Option<Planned>>,
    running: JoinSet<Joined>,
    state: State,
    /// Ctrl-C and SIGTERM received (an outside stop counts as one).
    interrupts: u32,
    /// A sink's failure has stopped the run.
    sink_stopped: bool,
    /// The page host, started when the first page file is due; ended with the run.
    pages: crate::harness::registry::Pages,
    /// Each running file's lane: who may run beside it (a harness's files that run one at a
    /// time but for their group, [`Lane`]).
    lanes: Vec<Option<Lane>>,
    /// The warm workers ([`super::worker`]); ended with the run.
    warm: super::worker::Pool,
    /// The traces still being stored; the run waits for them before it ends.
    traces: super::trace::Later,
    /// Each file's warm worker key, once asked (`None`: it runs in a process of its own).
    warm_keys: Vec<Option<Option<super::worker::Key>>>,
    /// Each running attempt's failing tests, for a retry of only those (a file whose
    /// framework can filter, in a run that retries).
    failing: Vec<Option<Failing>>,
}

/// Runs every planned file, at most `jobs` at a time, feeding `sink` (see [`super::execute`]).
pub(super) async fn execute(
    files: Vec<Planned>,
    settings: &Settings,
    sink: &mut dyn RunSink,
    mut stop: Option<watch::Receiver<Option<Cancel>>>,
) -> io::Result<Finished> {
    let started = Instant::now();
    let (tx, mut rx) = mpsc::channel::<Vec<RunEvent>>(EVENT_BATCHES);
    let mut sigint = signal(SignalKind::interrupt())?;
    let mut sigterm = signal(SignalKind::terminate())?;
    let mut files = files;
    // A harness with lanes runs its plain files first, then each parallel group by its number
    // ([`Lane`]'s order); the planner's order holds within each (a stable sort; every file of another run is Free).
    files.sort_by_key(|p| p.input.lane);
    let mut d = Dispatch::new(files, settings, sink, tx);
    // Armed when a quiet moment finds events not written yet: fires FLUSH_AFTER after the
    // oldest of them arrived.
    let flush_at = tokio::time::sleep(Duration::ZERO);
    tokio::pin!(flush_at);
    let mut flush_armed = false;
    let mut tick = tokio::time::interval(TICK);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    // The outside's stop request last passed on, so each level is acted on once: a branch that
    // stayed ready would spin the loop and starve the very children it is stopping.
    let mut applied_stop: Option<Cancel> = None;
    d.started();
    loop {
        // A sink that failed before (even on `RunStarted`) lets nothing more start.
        d.stop_on_sink_failure();
        d.start_ready();
        if d.running.is_empty() {
            break;
        }
        tokio::select! {
            Some(batch) = rx.recv() => d.give(batch),
            Some(joined) = d.running.join_next() => {
                // Every event a file sent precedes its FileFinished.
                while let Ok(batch) = rx.try_recv() {
                    d.give(batch);
                }
                let joined = joined
                    .map_err(|e| io::Error::other(format!("a file task failed: {e}")))?;
                d.finished(joined);
            }
            _ = sigint.recv() => d.interrupt(),
            _ = sigterm.recv() => d.interrupt(),
            level = external_stop(&mut stop, applied_stop) => {
                applied_stop = Some(level);
                d.interrupts = d.interrupts.max(1);
                d.state.stopping = true;
                let _ = d.cancel_tx.send(Some(level));
            }
            _ = tick.tick(), if settings.live => {
                let r = d.sink.inner.tick(Instant::now());
                d.sink.keep(r);
            }
            // Every other task has had its turn since: nothing came meanwhile, so the events
            // waiting are written once the oldest is FLUSH_AFTER old.
            () = tokio::task::yield_now(), if d.sink.inner.pending() && !flush_armed => {
                if rx.is_empty() {
                    let due = d.sink.inner.since() + FLUSH_AFTER;
                    flush_at.as_mut().reset(tokio::time::Instant::from_std(due));
                    flush_armed = true;
                }
            }
            () = &mut flush_at, if flush_armed => {
                flush_armed = false;
                let r = d.sink.inner.flush();
                d.sink.keep(r);
            }
        }
    }
    while let Ok(batch) = rx.try_recv() {
        d.give(batch);
    }
    d.traces.wait().await;
    // The last verdicts are out before the page host's shutdown (up to seconds) is waited for.
    let flushed = d.sink.inner.flush();
    d.sink.keep(flushed);
    d.pages.shutdown().await;
    // The run's end is told first: no verdict waits for the idle workers to exit.
    let mut warm = std::mem::replace(&mut d.warm, super::worker::Pool::new());
    let finished = d.finish(started.elapsed());
    warm.shutdown(settings).await;
    finished
}

impl<'a, 's> Dispatch<'a, 's> {
    fn new(
        files: Vec<Planned>,
        settings: &'a Settings,
        sink: &'s mut dyn RunSink,
        tx: mpsc::Sender<Vec<RunEvent>>,
    ) -> Self {
        let total = files.len();
        let (cancel_tx, cancel_rx) = watch::channel(None::<Cancel>);
        Dispatch {
            settings,
            run: settings.run,
            sink: Guarded {
                inner: Unflushed::new(sink),
                failed: None,
            },
            tx,
            cancel_tx,
            cancel_rx,
            pending: files.into_iter().map(|p| (p, 1)).collect(),
            infos: vec![None; total],
            results: vec![None; total],
            plans: vec![None; total],
            running: JoinSet::new(),
            state: State {
                rules: Rules {
                    retries: settings.retries,
                    flaky_fails: settings.flaky_fails,
                    keep_going: settings.keep_going,
                    max_fail: settings.max_fail,
                    stop_running: settings.stop_running,
                },
                ..State::default()
            },
            interrupts: 0,
            sink_stopped: false,
            pages: crate::harness::registry::Pages::recording(settings.inputs.clone()),
            lanes: vec![None; total],
            warm: super::worker::Pool::new(),
            traces: super::trace::Later::default(),
            warm_keys: vec![None; total],
            failing: std::iter::repeat_with(|| None).take(total).collect(),
        }
    }

    /// One batch of a file's events: its failing tests noted for a retry, then to the sinks.
    fn give(&mut self, batch: Vec<RunEvent>) {
        for ev in &batch {
            if let RunEvent::Tap { file, event, .. } = ev {
                if let Some(f) = self.failing.get_mut(*file).and_then(Option::as_mut) {
                    f.event(event);
                }
            }
        }
        self.sink.give(batch);
    }

    fn jobs(&self) -> usize {
        self.settings.jobs.max(1)
    }

    fn started(&mut self) {
        let here = crate::event::meta::Meta::current();
        self.sink.on(&RunEvent::RunStarted {
            run: self.run,
            files: self.infos.len(),
            jobs: self.jobs(),
            started_ms: crate::event::meta::unix_ms(std::time::SystemTime::now()),
            host: here.host,
            cwd: here.cwd,
            command: here.command,
            test_filter: self.settings.test_filter.clone(),
        });
    }

    /// Starts pending files while a job is free and the run may go on: first a file a warm
    /// worker was sent ahead (it runs already), then the others in order, passing over the
    /// files sent ahead to a worker still busy (a warm file may wait for its worker instead,
    /// [`super::worker::Pool::should_wait`]). Then sends the busy workers their next files.
    fn start_ready(&mut self) {
        while self.running.len() < self.jobs() && self.state.may_start() {
            let Some(file) = self.warm.ready_ahead() else {
                break;
            };
            let at = self
                .pending
                .iter()
                .position(|(p, a)| (p.info.index, *a) == file);
            let Some((p, attempt)) = at.and_then(|at| self.pending.remove(at)) else {
                break;
            };
            self.start(p, attempt);
        }
        while self.running.len() < self.jobs() && self.state.may_start() {
            let Some(at) = self.next_free() else {
                break;
            };
            let lane = self.pending[at].0.input.lane;
            // In order: a file that may not run beside the running ones waits, and so do
            // the files after it.
            if !self.lanes.iter().flatten().all(|r| lane.fits_beside(*r))
                || self.waits_for_worker(at)
            {
                break;
            }
            let Some((p, attempt)) = self.pending.remove(at) else {
                break;
            };
            self.start(p, attempt);
        }
        self.send_ahead();
    }

    /// The first pending file no warm worker was sent ahead.
    fn next_free(&self) -> Option<usize> {
        (self.pending.iter()).position(|(p, a)| !self.warm.holds((p.info.index, *a)))
    }

    /// Sends each busy warm worker that holds no next file the command of the first pending
    /// file of its key no worker holds, while more than `jobs` such files are left: the last
    /// ones go to whichever worker is free first, so that no worker ends the run with a file
    /// another could have taken.
    /// A run that stops at a failure (`--max-fail`) sends nothing ahead: the file after the
    /// one that stops it must not start. (A bail out stops any run; the file its worker was
    /// sent ahead is then stopped with the worker and told as not run, as if never started.)
    fn send_ahead(&mut self) {
        if !self.state.may_start() || self.settings.max_fail.is_some() {
            return;
        }
        let jobs = self.jobs();
        for (id, key) in self.warm.without_ahead() {
            let (settings, keys, warm) = (self.settings, &mut self.warm_keys, &self.warm);
            let mut free = (self.pending.iter())
                .filter(|(p, a)| !warm.holds((p.info.index, *a)))
                .filter(|(p, _)| key_for(keys, settings, p).as_ref() == Some(&key));
            let Some((first, attempt)) = free.next() else {
                continue;
            };
            if free.take(jobs).count() < jobs {
                continue;
            }
            let file = (first.info.index, *attempt);
            let line = super::worker::command_of(first, settings);
            self.warm.send_ahead(id, file, line);
        }
    }

    /// The warm worker key of a planned file, worked out once.
    fn warm_key(&mut self, p: &Planned) -> Option<super::worker::Key> {
        key_for(&mut self.warm_keys, self.settings, p)
    }

    /// Whether the pending file at `at` is to wait for a worker of its key to come back.
    fn waits_for_worker(&mut self, at: usize) -> bool {
        let (settings, keys) = (self.settings, &mut self.warm_keys);
        let Some((front, _)) = self.pending.get(at) else {
            return false;
        };
        let Some(key) = key_for(keys, settings, front) else {
            return false;
        };
        let (pending, wanted) = (&self.pending, key.clone());
        self.warm.should_wait(&key, move || {
            pending
                .iter()
                .filter(move |(p, _)| key_for(keys, settings, p).as_ref() == Some(&wanted))
                .map(|(p, _)| settings.expected_ms.get(&p.info.rel).copied())
        })
    }

    /// Starts `attempt` of `p`, or reports its cached result.
    fn start(&mut self, mut p: Planned, attempt: u32) {
        let (run, idx) = (self.run, p.info.index);
        if let Some(result) = p.cached.take() {
            self.sink.on(&RunEvent::FileStarted {
                run,
                file: p.info.clone(),
            });
            self.sink.on(&RunEvent::FileFinished {
                run,
                file: idx,
                result: Box::new(result.clone()),
            });
            self.infos[idx] = Some(p.info);
            self.results[idx] = Some(result);
            return;
        }
        let settings = self.settings;
        let log_name = attempt_log_name(&p.log_name, attempt);
        let (log, log_err) = match settings.log_dir.as_ref().map(|d| d.create_log(&log_name)) {
            Some(Ok(f)) => (Some(f), None),
            Some(Err(e)) => (None, Some(e.to_string())),
            None => (None, None),
        };
        let mut info = p.info.clone();
        info.attempt = attempt;
        if let Some(dir) = &settings.log_dir {
            info.log = Some(dir.path().join(&log_name));
        }
        self.sink.on(&RunEvent::FileStarted {
            run,
            file: info.clone(),
        });
        let job = FileJob {
            run,
            info: info.clone(),
            command: p.command.clone(),
            cwd: p.input.cwd.clone().unwrap_or_else(|| settings.cwd.clone()),
            input: p.input.clone(),
            env: settings.env.clone(),
            timeout: settings.timeout,
            grace: settings.grace,
            streams: super::runners::streams(settings.merge, &p.input, &p.command),
            log,
            limits: settings.limits,
            sandbox: settings.sandbox.clone(),
            trace: settings
                .trace
                .as_ref()
                .and_then(|t| t.for_planned(&p, &settings.cwd)),
            trace_later: (settings.retries == 0).then(|| self.traces.clone()),
            coverage: settings.coverage.as_ref().and_then(|c| c.for_planned(&p)),
            pages: self.pages.clone(),
        };
        let mut worker = self
            .warm_key(&p)
            .and_then(|key| self.warm.take(key, (idx, attempt), settings));
        // Queued now, before any file is sent ahead behind it.
        let unsent = (worker.as_mut())
            .and_then(|w| w.hand((idx, attempt), || super::worker::job_command(&job)));
        self.failing[idx] =
            (settings.retries > 0 && p.input.refilter.is_some()).then(Failing::default);
        self.infos[idx] = Some(info);
        self.lanes[idx] = Some(p.input.lane);
        self.plans[idx] = Some(p);
        let tx = self.tx.clone();
        let cancel = self.cancel_rx.clone();
        self.running.spawn(async move {
            let (mut r, lease) = match worker {
                Some(w) => {
                    let (r, lease) = super::worker::run_file(job, w, unsent, tx, cancel).await;
                    (r, Some(lease))
                }
                None => (file_task::run_file(job, tx, cancel).await, None),
            };
            if let Some(e) = log_err {
                r.reasons.push(FailureReason::Other(e));
            }
            (idx, attempt, r, lease)
        });
    }

    /// A file task ended: tried again, or finished, as [`decide`] says.
    fn finished(&mut self, (idx, attempt, mut result, lease): Joined) {
        if let Some(lease) = lease {
            self.warm.give_back(lease, self.state.stopping);
        }
        self.lanes[idx] = None;
        let rel = self.infos[idx].as_ref().map_or("", |i| i.rel.as_str());
        let decision = decide(&self.state, rel, attempt, &result);
        self.state.apply(&decision);
        let run = self.run;
        match decision {
            Decision::Retry { of } => {
                self.sink.on(&RunEvent::AttemptFailed {
                    run,
                    file: idx,
                    attempt,
                    of,
                    result: Box::new(result),
                });
                if let Some(mut p) = self.plans[idx].take() {
                    self.only_failed(&mut p);
                    self.pending.push_front((p, attempt + 1));
                }
            }
            Decision::Finish(f) => {
                f.amend(&mut result);
                if f.stop_running {
                    let _ = self.cancel_tx.send(Some(Cancel::Graceful));
                }
                self.sink.on(&RunEvent::FileFinished {
                    run,
                    file: idx,
                    result: Box::new(result.clone()),
                });
                self.results[idx] = Some(result);
            }
        }
    }

    /// A retried file's next attempt runs only the tests that failed in this one, where its
    /// framework can filter and they have names ([`super::retry_failed`]).
    fn only_failed(&mut self, p: &mut Planned) {
        let idx = p.info.index;
        let failing = self.failing[idx].take();
        let command = (failing.as_ref())
            .zip(p.input.refilter.as_ref())
            .and_then(|(f, r)| f.retry_command(r));
        if let Some(command) = command {
            p.info.command = (command.iter())
                .map(|w| w.to_string_lossy())
                .collect::<Vec<_>>()
                .join(" ");
            p.command = Ok(command);
            // A warm worker's key is its command's: asked again.
            self.warm_keys[idx] = None;
        }
    }

    /// Ctrl-C or SIGTERM.
    fn interrupt(&mut self) {
        self.interrupts = interrupt(self.interrupts, &self.cancel_tx);
        self.state.stopping = true;
        self.sink
            .on(&stopping(self.run, self.interrupts, self.running.len()));
    }

    /// A sink failed: the run stops as after a first Ctrl-C, once.
    fn stop_on_sink_failure(&mut self) {
        if self.sink.failed.is_some() && !self.sink_stopped {
            self.sink_stopped = true;
            self.state.stopping = true;
            if self.interrupts == 0 {
                let _ = self.cancel_tx.send(Some(Cancel::Graceful));
            }
        }
    }

    /// Tells the files never started, then the run's end; the verdicts are kept for the next
    /// run after it.
    fn finish(mut self, elapsed: Duration) -> io::Result<Finished> {
        let run = self.run;
        // Never started: interrupted, or stopped by --max-fail or a bail out, before their turn.
        let mut never: Vec<FileInfo> = std::mem::take(&mut self.pending)
            .into_iter()
            .map(|(p, _)| p.info)
            .collect();
        never.sort_by_key(|info| info.index);
        for file in never {
            self.sink.on(&RunEvent::FileNotRun { run, file });
        }
        let verdicts = verdicts(&self.infos, &self.results);
        let log_dir = self.settings.log_dir.as_ref();
        let changes = log_dir
            .map(|dir| dir.changes(&verdicts))
            .unwrap_or_default();
        let mut summary = summarize(
            &self.infos,
            &self.results,
            elapsed,
            self.interrupts > 0,
            changes,
        );
        if self.state.bailed.is_some() {
            summary.ok = false;
            summary.bailed_out = self.state.bailed.take();
        }
        summary.max_fail_reached = self.state.max_fail_reached;
        self.sink.on(&RunEvent::RunFinished {
            run,
            summary: Box::new(summary.clone()),
        });
        match self.sink.failed.take() {
            Some(e) => Err(e),
            None => Ok(Finished {
                summary,
                results: self.results,
                verdicts,
                warnings: Vec::new(),
            }),
        }
    }
}

/// The warm worker key of a planned file (`keys` by file index), worked out once.
fn key_for(
    keys: &mut [Option<Option<super::worker::Key>>],
    settings: &Settings,
    p: &Planned,
) -> Option<super::worker::Key> {
    keys[p.info.index]
        .get_or_insert_with(|| {
            let streams = super::runners::streams(settings.merge, &p.input, &p.command);
            super::worker::key_of(p, settings, streams)
        })
        .clone()
}
