//! `tapline run`: discovery → scheduling → supervised children → parser → run reporters.
//!
//! One dispatcher owns the run's state and linearises everything that happens (child events,
//! finished files, signals, the redraw tick) in one `select!`, as nextest does; reporters are
//! sinks on the resulting [`RunEvent`] stream.
pub mod child_env;
pub mod config;
pub mod discover;

pub(crate) mod file_task;
pub mod logs;
pub mod runners;
pub(crate) mod shebang;
pub mod sinks;
pub mod supervise;

use crate::event::run::{FileInfo, FileResult, RunEvent, RunSummary};
use file_task::FileJob;
use sinks::RunSink;
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

/// One file to run, ready for the scheduler.
pub struct Planned {
    pub info: FileInfo,
    pub command: Result<Vec<OsString>, String>,
    /// The log file's name inside the log folder.
    pub log_name: String,
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
}

/// What a finished run leaves behind.
pub struct Finished {
    pub summary: RunSummary,
    pub results: Vec<Option<FileResult>>,
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
    let (tx, mut rx) = mpsc::unbounded_channel::<RunEvent>();
    let (cancel_tx, cancel_rx) = watch::channel(None::<Cancel>);
    let mut pending: VecDeque<Planned> = files.into();
    let mut infos: Vec<Option<FileInfo>> = vec![None; total];
    let mut results: Vec<Option<FileResult>> = vec![None; total];
    let mut running: JoinSet<(usize, FileResult)> = JoinSet::new();
    let mut sigint = signal(SignalKind::interrupt())?;
    let mut sigterm = signal(SignalKind::terminate())?;
    let mut tick = tokio::time::interval(TICK);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    let mut interrupts = 0u32;
    // The outside's stop request last passed on, so each level is acted on once: a branch that
    // stayed ready would spin the loop and starve the very children it is stopping.
    let mut applied_stop: Option<Cancel> = None;
    let jobs = settings.jobs.max(1);

    sink.on(&RunEvent::RunStarted {
        run,
        files: total,
        jobs,
    })?;
    loop {
        while running.len() < jobs && interrupts == 0 {
            let Some(p) = pending.pop_front() else { break };
            let idx = p.info.index;
            let log = settings
                .log_dir
                .as_ref()
                .map(|dir| dir.create_log(&p.log_name));
            let (log, log_err) = match log {
                Some(Ok(f)) => (Some(f), None),
                Some(Err(e)) => (None, Some(e.to_string())),
                None => (None, None),
            };
            sink.on(&RunEvent::FileStarted {
                run,
                file: p.info.clone(),
            })?;
            let job = FileJob {
                run,
                info: p.info.clone(),
                command: p.command,
                cwd: settings.cwd.clone(),
                env: settings.env.clone(),
                timeout: settings.timeout,
                grace: settings.grace,
                merge: settings.merge,
                log,
            };
            infos[idx] = Some(p.info);
            let tx = tx.clone();
            let cancel = cancel_rx.clone();
            running.spawn(async move {
                let mut r = file_task::run_file(job, tx, cancel).await;
                if let Some(e) = log_err {
                    r.reasons.push(e);
                }
                (idx, r)
            });
        }
        if running.is_empty() {
            break;
        }
        tokio::select! {
            Some(ev) = rx.recv() => sink.on(&ev)?,
            Some(joined) = running.join_next() => {
                // Every event a file sent precedes its FileFinished.
                while let Ok(ev) = rx.try_recv() {
                    sink.on(&ev)?;
                }
                let (idx, result) = match joined {
                    Ok(r) => r,
                    Err(e) => return Err(std::io::Error::other(format!("a file task failed: {e}"))),
                };
                sink.on(&RunEvent::FileFinished { run, file: idx, result: result.clone() })?;
                results[idx] = Some(result);
            }
            _ = sigint.recv() => interrupts = interrupt(interrupts, &cancel_tx),
            _ = sigterm.recv() => interrupts = interrupt(interrupts, &cancel_tx),
            level = external_stop(&mut stop, applied_stop) => {
                applied_stop = Some(level);
                interrupts = interrupts.max(1);
                let _ = cancel_tx.send(Some(level));
            }
            _ = tick.tick(), if settings.live => sink.tick(Instant::now())?,
        }
    }
    while let Ok(ev) = rx.try_recv() {
        sink.on(&ev)?;
    }
    let summary = summarize(
        &infos,
        &results,
        started.elapsed(),
        interrupts > 0,
        settings.log_dir.as_ref(),
    );
    sink.on(&RunEvent::RunFinished {
        run,
        summary: summary.clone(),
    })?;
    Ok(Finished { summary, results })
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
    let (mut passed, mut failed, mut not_run) = (0, 0, 0);
    let mut slowest: Vec<(String, u64)> = Vec::new();
    let mut verdicts = BTreeMap::new();
    for (info, result) in infos.iter().zip(results) {
        match (info, result) {
            (Some(info), Some(r)) => {
                tests.merge(&r.tally);
                if r.ok {
                    passed += 1;
                } else {
                    failed += 1;
                }
                slowest.push((info.rel.clone(), r.duration.as_millis() as u64));
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
            // Later runs compare against this one; an interrupted run still records what it saw.
            let _ = dir.write_verdicts(&verdicts);
            (c.newly_failing, c.fixed)
        }
        None => (Vec::new(), Vec::new()),
    };
    RunSummary {
        ok: failed == 0 && not_run == 0 && !interrupted,
        files_total: results.len(),
        files_passed: passed,
        files_failed: failed,
        files_not_run: not_run,
        tests,
        duration,
        interrupted,
        slowest,
        newly_failing,
        fixed,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::sinks::RunSink;

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
            },
            command: Ok(vec!["sh".into(), "-c".into(), "echo 1..1; sleep 30".into()]),
            log_name: "long.log".into(),
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
