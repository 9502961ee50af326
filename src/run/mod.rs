//! `tapline run`: discovery → scheduling → supervised children → parser → run reporters.
//!
//! One dispatcher owns the run's state and linearises everything that happens (child events,
//! finished files, signals, the redraw tick) in one `select!`, as nextest does; reporters are
//! sinks on the resulting [`RunEvent`] stream.
//!
//! Memory stays bounded whatever a child prints, and however fast: every queue between the
//! child and the sinks is bounded, so a producer faster than the dispatcher ends up waiting
//! on its own full pipe.
//!
//! - each output pipe is read 64 KiB at a time into a channel of 64 chunks per file
//!   ([`supervise`]); when it is full the reader stops reading and the child blocks on write;
//! - the file task writes every chunk to the log first (the log keeps every byte), then
//!   parses it [`EVENT_SLICE`] bytes at a time and sends each slice's events as one batch into
//!   the dispatcher's channel of [`EVENT_BATCHES`] batches, waiting while it is full;
//! - the dispatcher hands each event to the sinks; the `-o` reports' thread takes them in
//!   batches through a bounded channel too ([`crate::report::threaded`]), and what a report
//!   keeps of one test point's output is capped, with a note of what was left out
//!   ([`crate::report::held`]).
//!
//! When no further event is ready (every other task has had its turn and the channel is
//! empty) the dispatcher flushes the sinks ([`RunSink::flush`]) once the oldest event not
//! written yet is [`FLUSH_AFTER`] old: `--format jsonl` into a pipe reaches its reader as the
//! run goes, a quiet moment within 10 ms, and a producer that streams without pause is written
//! in blocks (a write per read of its pipe woke the reader thousands of times a second: +7%
//! CPU on the 200,000-point Perl run, benches/README.md).
pub mod cache;
pub mod child_env;
pub mod config;
pub mod discover;
pub mod history;
pub mod init;
pub mod inputs;
pub mod limits;
pub mod nogit;
pub mod order;
pub mod plan;
pub mod sandbox;
pub mod stability;

pub(crate) mod file_task;
pub mod logs;
pub mod runners;
pub(crate) mod shebang;
pub mod suite;

pub mod supervise;
pub mod trace;

pub(crate) mod browser;

use crate::event::run::{BailedOut, FileInfo, FileResult, RunEvent, RunSummary};
use crate::report::sink::{RunSink, Unflushed};
use file_task::FileJob;
use std::collections::{BTreeMap, VecDeque};
use std::ffi::OsString;
use std::path::PathBuf;
use std::time::{Duration, Instant};
use supervise::Cancel;
use tokio::signal::unix::{signal, SignalKind};
use tokio::sync::{mpsc, watch};
use tokio::task::JoinSet;

/// Exit code after Ctrl-C, as shells report a SIGINT death.
pub const EXIT_INTERRUPTED: u8 = 130;

/// How often the live region is redrawn.
const TICK: Duration = Duration::from_millis(80);

/// How long a quiet moment's events may wait to be written, so that a producer streaming
/// steadily is written in blocks while a pause still shows at once to the eye.
pub const FLUSH_AFTER: Duration = Duration::from_millis(10);
/// Bytes of a child's output parsed into one batch of events: a batch holds at most this many
/// events (one per line), a few MiB however short the lines.
pub(crate) const EVENT_SLICE: usize = 8 * 1024;
/// Batches in flight from the file tasks to the dispatcher; a file task whose batch finds the
/// channel full waits, and so reads no more of its child's output meanwhile.
const EVENT_BATCHES: usize = 8;

/// One file to run, ready for the scheduler.
#[derive(Debug, Clone)]
pub struct Planned {
    pub info: FileInfo,
    pub command: Result<Vec<OsString>, String>,
    /// The log file's name inside the log folder (a retry's is `<stem>.attempt-N.log`).
    pub log_name: String,
    /// The result cache's last pass of this unchanged file (`--cache`): reported, not run.
    pub cached: Option<FileResult>,
    /// Its output's format, where it runs, its reports (a `[[suite]]`'s).
    pub input: discover::Input,
}

/// What the scheduler needs beyond the files.
pub struct Settings {
    pub run: u64,
    pub jobs: usize,
    pub timeout: Option<Duration>,
    pub grace: Duration,
    pub merge: bool,
    pub cwd: PathBuf,
    /// Set for every child, after `TAPLINE=1` ([`child_env::ChildEnv`]).
    pub env: Vec<(OsString, OsString)>,
    pub live: bool,
    pub log_dir: Option<logs::LogDir>,
    /// A failed file is run again up to this many more times (`--retries`).
    pub retries: u32,
    /// A flaky file (failed, then passed on a retry) fails the run (`--flaky-fails`).
    pub flaky_fails: bool,
    /// Where each attempt is recorded (`None` with `--no-history`).
    pub history: Option<history::Recorder>,
    /// `--max-fail N` (`--fail-fast` is 1): after N failed files no new file starts.
    pub max_fail: Option<usize>,
    /// With `max_fail`: files still running when it is reached are stopped too.
    pub stop_running: bool,
    /// Resource limits for each file (`--max-memory` and the like).
    pub limits: limits::Limits,
    /// `--sandbox`.
    pub sandbox: Option<std::sync::Arc<sandbox::Sandbox>>,
    /// A file's `Bail out!` does not stop the run (`--keep-going`).
    pub keep_going: bool,
    /// Records what each file loaded (`None` with `--no-trace`, `[run] trace = false`).
    pub trace: Option<std::sync::Arc<trace::Tracer>>,
    /// What each file loaded, where the run learns it (watch mode re-runs by it).
    pub inputs: inputs::LoadedInputs,
}

/// What a finished run leaves behind.
pub struct Finished {
    pub summary: RunSummary,
    pub results: Vec<Option<FileResult>>,
    /// Why the run could not be recorded in history, if it could not.
    pub history_error: Option<String>,
}

impl Finished {
    pub fn exit_code(&self) -> u8 {
        if self.summary.interrupted {
            EXIT_INTERRUPTED
        } else if self.summary.ok {
            0
        } else {
            1
        }
    }
}

/// Runs every planned file, at most `jobs` at a time, feeding `sink`.
///
/// `stop` lets a caller (watch mode) cancel the run from outside: `Some(Graceful)` ends it as a
/// first Ctrl-C does.
pub async fn execute(
    files: Vec<Planned>,
    settings: &Settings,
    sink: &mut dyn RunSink,
    mut stop: Option<watch::Receiver<Option<Cancel>>>,
) -> std::io::Result<Finished> {
    let started = Instant::now();
    let run = settings.run;
    let total = files.len();
    let (tx, mut rx) = mpsc::channel::<Vec<RunEvent>>(EVENT_BATCHES);
    let mut sink = Unflushed::new(sink);
    let (cancel_tx, cancel_rx) = watch::channel(None::<Cancel>);
    let mut pending: VecDeque<(Planned, u32)> = files.into_iter().map(|p| (p, 1)).collect();
    let mut infos: Vec<Option<FileInfo>> = vec![None; total];
    let mut results: Vec<Option<FileResult>> = vec![None; total];
    // Each running file's plan, kept for a retry.
    let mut plans: Vec<Option<Planned>> = vec![None; total];
    let mut running: JoinSet<(usize, u32, FileResult)> = JoinSet::new();
    let mut sigint = signal(SignalKind::interrupt())?;
    let mut sigterm = signal(SignalKind::terminate())?;
    // Armed when a quiet moment finds events not written yet: fires FLUSH_AFTER after the
    // oldest of them arrived.
    let flush_at = tokio::time::sleep(Duration::ZERO);
    tokio::pin!(flush_at);
    let mut flush_armed = false;
    let mut tick = tokio::time::interval(TICK);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    let mut interrupts = 0u32;
    // The file that bailed out, which stops the run.
    let mut bailed: Option<BailedOut> = None;
    // The outside's stop request last passed on, so each level is acted on once: a branch that
    // stayed ready would spin the loop and starve the very children it is stopping.
    let mut applied_stop: Option<Cancel> = None;
    let jobs = settings.jobs.max(1);
    let stamp = settings
        .history
        .as_ref()
        .map(|h| history::RunStamp::new(&h.root, run));
    let mut records = Vec::new();
    let mut failed_files = 0usize;
    let mut max_fail_reached = None;
    // Started when the first browser file is due; ended with the run.
    let browser = browser::Shared::recording(settings.inputs.clone());

    let here = crate::report::record::Meta::current();
    sink.on(&RunEvent::RunStarted {
        run,
        files: total,
        jobs,
        started_ms: crate::report::record::unix_ms(std::time::SystemTime::now()),
        host: here.host,
        cwd: here.cwd,
        command: here.command,
    })?;
    loop {
        while running.len() < jobs
            && interrupts == 0
            && max_fail_reached.is_none()
            && bailed.is_none()
        {
            let Some((mut p, attempt)) = pending.pop_front() else {
                break;
            };
            let idx = p.info.index;
            if let Some(result) = p.cached.take() {
                sink.on(&RunEvent::FileStarted {
                    run,
                    file: p.info.clone(),
                })?;
                sink.on(&RunEvent::FileFinished {
                    run,
                    file: idx,
                    result: result.clone(),
                })?;
                infos[idx] = Some(p.info);
                results[idx] = Some(result);
                continue;
            }
            let log_name = attempt_log_name(&p.log_name, attempt);
            let log = settings
                .log_dir
                .as_ref()
                .map(|dir| dir.create_log(&log_name));
            let (log, log_err) = match log {
                Some(Ok(f)) => (Some(f), None),
                Some(Err(e)) => (None, Some(e.to_string())),
                None => (None, None),
            };
            let mut info = p.info.clone();
            info.attempt = attempt;
            if let Some(dir) = &settings.log_dir {
                info.log = Some(dir.path().join(&log_name));
            }
            sink.on(&RunEvent::FileStarted {
                run,
                file: info.clone(),
            })?;
            let job = FileJob {
                run,
                info: info.clone(),
                command: p.command.clone(),
                cwd: p.input.cwd.clone().unwrap_or_else(|| settings.cwd.clone()),
                input: p.input.clone(),
                env: settings.env.clone(),
                timeout: settings.timeout,
                grace: settings.grace,
                merge: settings.merge,
                log,
                limits: settings.limits,
                sandbox: settings.sandbox.clone(),
                trace: settings
                    .trace
                    .as_ref()
                    .and_then(|t| t.for_planned(&p, &settings.cwd)),
                browser: browser.clone(),
            };
            infos[idx] = Some(info);
            plans[idx] = Some(p);
            let tx = tx.clone();
            let cancel = cancel_rx.clone();
            running.spawn(async move {
                let mut r = file_task::run_file(job, tx, cancel).await;
                if let Some(e) = log_err {
                    r.reasons.push(e);
                }
                (idx, attempt, r)
            });
        }
        if running.is_empty() {
            break;
        }
        tokio::select! {
            Some(batch) = rx.recv() => give(&mut sink, batch)?,
            Some(joined) = running.join_next() => {
                // Every event a file sent precedes its FileFinished.
                while let Ok(batch) = rx.try_recv() {
                    give(&mut sink, batch)?;
                }
                let (idx, attempt, mut result) = match joined {
                    Ok(r) => r,
                    Err(e) => return Err(std::io::Error::other(format!("a file task failed: {e}"))),
                };
                let of = settings.retries.saturating_add(1);
                // A bail out asks for the run to stop, not for another try.
                let bails =
                    result.verdict.bailout.is_some() && !result.cancelled && !settings.keep_going;
                let retry = !result.ok
                    && !result.cancelled
                    && !bails
                    && interrupts == 0
                    && bailed.is_none()
                    && attempt < of;
                if retry {
                    if let (Some(stamp), Some(info)) = (&stamp, &infos[idx]) {
                        records.push(stamp.record(&info.rel, attempt, &result));
                    }
                    sink.on(&RunEvent::AttemptFailed { run, file: idx, attempt, of, result })?;
                    if let Some(p) = plans[idx].take() {
                        pending.push_front((p, attempt + 1));
                    }
                    continue;
                }
                result.attempts = attempt;
                if attempt > 1 && result.ok {
                    result.flaky = true;
                    if settings.flaky_fails {
                        result.ok = false;
                        result.reasons.push(format!(
                            "flaky: passed on attempt {attempt} of {of} (--flaky-fails)"
                        ));
                    }
                }
                if let (Some(stamp), Some(info)) = (&stamp, &infos[idx]) {
                    if !result.cancelled {
                        records.push(stamp.record(&info.rel, attempt, &result));
                    }
                }
                if let Some(by) = bailed.as_ref().filter(|_| result.cancelled) {
                    // Stopped because another file bailed out, not by Ctrl-C.
                    for reason in result.reasons.iter_mut().filter(|r| *r == "interrupted") {
                        *reason = format!("stopped: {} bailed out", by.file);
                    }
                }
                if bails && bailed.is_none() {
                    if let Some(info) = &infos[idx] {
                        bailed = Some(BailedOut {
                            file: info.rel.clone(),
                            reason: result.verdict.bailout.as_deref().unwrap_or_default().to_owned(),
                        });
                        let _ = cancel_tx.send(Some(Cancel::Graceful));
                    }
                }
                if !result.ok && !result.cancelled {
                    failed_files += 1;
                    if settings.max_fail.is_some_and(|n| failed_files >= n) && max_fail_reached.is_none() {
                        max_fail_reached = settings.max_fail;
                        if settings.stop_running {
                            let _ = cancel_tx.send(Some(Cancel::Graceful));
                        }
                    }
                }
                sink.on(&RunEvent::FileFinished { run, file: idx, result: result.clone() })?;
                results[idx] = Some(result);
            }
            _ = sigint.recv() => {
                interrupts = interrupt(interrupts, &cancel_tx);
                sink.on(&stopping(run, interrupts, running.len()))?;
            }
            _ = sigterm.recv() => {
                interrupts = interrupt(interrupts, &cancel_tx);
                sink.on(&stopping(run, interrupts, running.len()))?;
            }
            level = external_stop(&mut stop, applied_stop) => {
                applied_stop = Some(level);
                interrupts = interrupts.max(1);
                let _ = cancel_tx.send(Some(level));
            }
            _ = tick.tick(), if settings.live => sink.tick(Instant::now())?,
            // Every other task has had its turn since: nothing came meanwhile, so the events
            // waiting are written once the oldest is FLUSH_AFTER old.
            () = tokio::task::yield_now(), if sink.pending() && !flush_armed => {
                if rx.is_empty() {
                    let due = sink.since() + FLUSH_AFTER;
                    flush_at.as_mut().reset(tokio::time::Instant::from_std(due));
                    flush_armed = true;
                }
            }
            () = &mut flush_at, if flush_armed => {
                flush_armed = false;
                sink.flush()?;
            }
        }
    }
    while let Ok(batch) = rx.try_recv() {
        give(&mut sink, batch)?;
    }
    // The last verdicts are out before Chromium's shutdown (up to seconds) is waited for.
    sink.flush()?;
    browser.shutdown().await;
    // Never started: interrupted, or stopped by --max-fail or a bail out, before their turn.
    let mut never: Vec<FileInfo> = pending.into_iter().map(|(p, _)| p.info).collect();
    never.sort_by_key(|info| info.index);
    for file in never {
        sink.on(&RunEvent::FileNotRun { run, file })?;
    }
    let mut summary = summarize(
        &infos,
        &results,
        started.elapsed(),
        interrupts > 0,
        settings.log_dir.as_ref(),
    );
    if bailed.is_some() {
        summary.ok = false;
        summary.bailed_out = bailed;
    }
    let history_error = match &settings.history {
        Some(h) => h.store.append(&records).err().map(|e| {
            format!(
                "failed to record the run in {}: {e}",
                h.store.path().display()
            )
        }),
        None => None,
    };
    summary.max_fail_reached = max_fail_reached;
    sink.on(&RunEvent::RunFinished {
        run,
        summary: summary.clone(),
    })?;
    Ok(Finished {
        summary,
        results,
        history_error,
    })
}

/// One batch of a file's events to the sinks, in order.
fn give(sink: &mut impl RunSink, batch: Vec<RunEvent>) -> std::io::Result<()> {
    batch.into_iter().try_for_each(|ev| sink.on_owned(ev))
}

/// `test__a.log` for the first attempt, `test__a.attempt-2.log` for the second.
pub fn attempt_log_name(log_name: &str, attempt: u32) -> String {
    if attempt <= 1 {
        return log_name.to_owned();
    }
    let stem = log_name.strip_suffix(".log").unwrap_or(log_name);
    format!("{stem}.attempt-{attempt}.log")
}

/// First Ctrl-C: terminate every group gracefully; second: kill at once.
fn interrupt(count: u32, cancel: &watch::Sender<Option<Cancel>>) -> u32 {
    let level = if count == 0 {
        Cancel::Graceful
    } else {
        Cancel::Immediate
    };
    let _ = cancel.send(Some(level));
    count + 1
}

/// What the user is told on the `interrupts`-th Ctrl-C.
fn stopping(run: u64, interrupts: u32, running: usize) -> RunEvent {
    RunEvent::Stopping {
        run,
        immediate: interrupts > 1,
        running,
    }
}

/// Resolves with a stop level the outside asks for that differs from `applied`; never when
/// there is no outside, or it has gone.
async fn external_stop(
    stop: &mut Option<watch::Receiver<Option<Cancel>>>,
    applied: Option<Cancel>,
) -> Cancel {
    let Some(rx) = stop else {
        return std::future::pending().await;
    };
    loop {
        let wanted = *rx.borrow_and_update();
        if let Some(level) = wanted.filter(|&l| Some(l) != applied) {
            return level;
        }
        if rx.changed().await.is_err() {
            return std::future::pending().await;
        }
    }
}

fn summarize(
    infos: &[Option<FileInfo>],
    results: &[Option<FileResult>],
    duration: Duration,
    interrupted: bool,
    log_dir: Option<&logs::LogDir>,
) -> RunSummary {
    let mut tests = crate::report::Tally::default();
    let (mut passed, mut failed, mut cancelled, mut not_run) = (0, 0, 0, 0);
    let mut slowest: Vec<(String, u64)> = Vec::new();
    let mut flaky = Vec::new();
    let (mut cached, mut no_tests) = (0, 0);
    let mut verdicts = BTreeMap::new();
    for (info, result) in infos.iter().zip(results) {
        match (info, result) {
            (Some(info), Some(r)) => {
                tests.merge(&r.tally);
                // A stopped file did not fail: it was not let finish.
                if r.cancelled {
                    cancelled += 1;
                } else if r.ok && r.no_tests {
                    // Neither passed nor failed: its harness reports a file with no tests.
                    no_tests += 1;
                } else if r.ok {
                    passed += 1;
                } else {
                    failed += 1;
                }
                if r.flaky {
                    flaky.push((info.rel.clone(), r.attempts));
                }
                if r.cached {
                    cached += 1;
                } else {
                    slowest.push((info.rel.clone(), r.duration.as_millis() as u64));
                }
                if !r.cancelled {
                    verdicts.insert(info.rel.clone(), r.ok);
                }
            }
            _ => not_run += 1,
        }
    }
    slowest.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    slowest.truncate(3);
    let (newly_failing, fixed) = match log_dir {
        Some(dir) => {
            let c = dir.changes(&verdicts);
            // Later runs compare against this one; an interrupted or partial run still records
            // what it saw, over the verdicts of the files it did not finish.
            let _ = dir.write_verdicts(&dir.merged(&verdicts));
            (c.newly_failing, c.fixed)
        }
        None => (Vec::new(), Vec::new()),
    };
    RunSummary {
        ok: failed == 0 && cancelled == 0 && not_run == 0 && !interrupted,
        files_total: results.len(),
        files_passed: passed,
        files_failed: failed,
        files_not_run: not_run,
        files_cancelled: cancelled,
        tests,
        duration,
        interrupted,
        max_fail_reached: None,
        bailed_out: None,
        slowest,
        newly_failing,
        fixed,
        flaky,
        files_cached: cached,
        files_no_tests: no_tests,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::sink::RunSink;

    struct Nothing;
    impl RunSink for Nothing {
        fn on(&mut self, _ev: &RunEvent) -> std::io::Result<()> {
            Ok(())
        }
    }

    /// Regression: an outside stop request left the dispatcher's branch ready forever, so on a
    /// single-threaded runtime the loop spun and the children it was stopping never ran.
    #[tokio::test(flavor = "current_thread")]
    async fn an_outside_stop_ends_a_run_promptly_on_one_thread() {
        let planned = Planned {
            info: FileInfo {
                index: 0,
                rel: "long.sh".into(),
                command: "sh -c sleep".into(),
                log: None,
                attempt: 1,
            },
            command: Ok(vec!["sh".into(), "-c".into(), "echo 1..1; sleep 30".into()]),
            log_name: "long.log".into(),
            cached: None,
            input: Default::default(),
        };
        let settings = Settings {
            run: 1,
            jobs: 1,
            timeout: None,
            grace: Duration::from_millis(500),
            merge: false,
            cwd: std::env::temp_dir(),
            env: Vec::new(),
            live: false,
            log_dir: None,
            retries: 0,
            flaky_fails: false,
            history: None,
            max_fail: None,
            stop_running: false,
            limits: limits::Limits::default(),
            sandbox: None,
            keep_going: false,
            trace: None,
            inputs: Default::default(),
        };
        let (tx, rx) = watch::channel(None);
        let started = Instant::now();
        let stopper = tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(300)).await;
            let _ = tx.send(Some(Cancel::Graceful));
            tx // kept alive until the run is over
        });
        let finished = execute(vec![planned], &settings, &mut Nothing, Some(rx))
            .await
            .expect("run");
        drop(stopper);
        assert!(finished.summary.interrupted);
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "took {:?}",
            started.elapsed()
        );
        let result = finished.results[0].as_ref().expect("the file ran");
        assert!(result.cancelled && !result.ok);
    }
}
