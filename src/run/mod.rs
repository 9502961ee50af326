//! `tapline run`: discovery → scheduling → supervised children → parser → run reporters.
//!
//! The layout, top to bottom:
//!
//! - [`options`]: the run's options, resolved once from the flags over `tapline.toml`
//!   ([`options::Project`] reads the project; where the log folder is and whether history is on
//!   are answered there), shared by `tapline run`, watch mode, `tapline history` and the daemon;
//! - [`plan`]: the planning pipeline (discover → partition → select → history, cache → order),
//!   no process started;
//! - `dispatch`: the scheduler's loop, carrying out what `decide` says of each finished file
//!   (retry, flaky, bail out, `--max-fail`), a pure function of the run's state;
//! - `file_task` and [`supervise`]: one file's child (pid-reuse-safe supervision, its final
//!   sweep and `Teardown`), its output parsed into events;
//! - sinks ([`RunSink`], open: the daemon reuses it) report the events; what the run leaves
//!   for the next one (`verdicts.json`, history, the cache) is gathered beside them and saved
//!   after the run by one route ([`keep`]).
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
//!   batches through a bounded channel too (the reports' own thread), and what a report
//!   keeps of one test point's output is capped, with a note of what was left out
//!   ([`crate::explain::held`]).
//!
//! When no further event is ready (every other task has had its turn and the channel is
//! empty) the dispatcher flushes the sinks ([`RunSink::flush`]) once the oldest event not
//! written yet is [`FLUSH_AFTER`] old: `--format jsonl` into a pipe reaches its reader as the
//! run goes, a quiet moment within 10 ms, and a producer that streams without pause is written
//! in blocks (a write per read of its pipe woke the reader thousands of times a second: +7%
//! CPU on the benchmark's 200,000-point run, benches/README.md).
pub mod child_env;
pub mod config;
mod decide;
pub mod discover;
mod dispatch;
pub mod init;
pub mod not_selected;
pub mod options;
pub mod order;
pub mod plan;
mod retry_failed;
pub mod stability;
// h40-r: a bare run from a subfolder.
pub mod start;
pub mod test_filter;

mod feed;
pub(crate) mod file_task;
pub mod runners;
pub mod suite;
pub(crate) mod worker;

pub mod coverage;
pub mod tags;
pub mod trace;

use crate::event::run::{FileInfo, FileResult, RunEvent, RunSummary};
use crate::event::sink::{Fanout, RunSink};
use crate::harness::registry::PageInputs;
use crate::state::logs;
use crate::state::{history, keep};
use crate::supervise::{limits, sandbox, Cancel};
use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Duration;
use tokio::sync::watch;

/// Exit code after Ctrl-C, as shells report a SIGINT death.
pub const EXIT_INTERRUPTED: u8 = 130;

/// How often the live region is redrawn.
const TICK: Duration = Duration::from_millis(80);

/// How long a quiet moment's events may wait to be written, so that a producer streaming
/// steadily is written in blocks while a pause still shows at once to the eye.
pub const FLUSH_AFTER: Duration = Duration::from_millis(10);
pub(crate) use crate::event::collect::EVENT_SLICE;
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
    /// `--merge`, `--no-merge` ([`runners::streams`]).
    pub merge: Option<bool>,
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
    /// The result cache, updated after each run (`--cache`).
    pub cache: Option<std::sync::Mutex<keep::CacheKeys>>,
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
    /// Measures the lines each file reaches (`--coverage`); `None` without it.
    pub coverage: Option<std::sync::Arc<coverage::Collector>>,
    /// What each file loaded, where the run learns it (watch mode re-runs by it).
    pub inputs: PageInputs,
    /// `--isolate`, `[run] isolate = true`: every file in a process of its own, none in a
    /// warm worker ([`warm`]).
    pub isolate: bool,
    /// Each file's history median in ms (by its path), where history knows it: whether another
    /// warm worker pays for its start ([`warm`]).
    pub expected_ms: std::collections::HashMap<String, u64>,
    /// What `-t` or `--only-failed` narrowed the run to: its `RunStarted` says so.
    pub test_filter: Option<crate::event::run::TestFilterInfo>,
    /// Warm workers kept ready between runs (watch mode); `None`: every worker ends with its
    /// run.
    pub(crate) warm_spares: Option<std::sync::Arc<worker::Spares>>,
}

impl Settings {
    /// The scheduler's settings from the run's options; `log_dir` prepared, `history` the
    /// recorder (none with history off, or for a shard), `sandbox` built.
    pub fn new(
        options: &options::Options,
        cwd: PathBuf,
        log_dir: Option<logs::LogDir>,
        history: Option<history::Recorder>,
        sandbox: Option<std::sync::Arc<sandbox::Sandbox>>,
    ) -> Settings {
        Settings {
            run: 1,
            jobs: options.jobs,
            timeout: options.timeout,
            grace: options.grace,
            merge: options.merge,
            cwd,
            env: options.env.vars.clone(),
            live: options.live,
            log_dir,
            retries: options.retries,
            flaky_fails: options.flaky_fails,
            history,
            cache: None,
            max_fail: options.max_fail,
            stop_running: options.stop_running,
            limits: options.limits,
            sandbox,
            keep_going: options.keep_going,
            trace: None,
            coverage: None,
            inputs: Default::default(),
            isolate: options.isolate,
            expected_ms: Default::default(),
            test_filter: None,
            warm_spares: None,
        }
    }
}

/// What a finished run leaves behind.
pub struct Finished {
    pub summary: RunSummary,
    pub results: Vec<Option<FileResult>>,
    /// This run's verdicts (path → passed), the files it finished.
    pub verdicts: std::collections::BTreeMap<String, bool>,
    /// What the run could not save for the next one (verdicts, history, the cache).
    pub warnings: Vec<String>,
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

/// Runs every planned file, at most `jobs` at a time, feeding `sink` (`dispatch`); what the
/// run leaves for the next one (verdicts, history, the cache) is saved after it, by one route
/// ([`crate::state::keep`]).
///
/// `stop` lets a caller (watch mode) cancel the run from outside: `Some(Graceful)` ends it as a
/// first Ctrl-C does. A sink's error stops the run the same way; the run still finishes
/// (`RunFinished`), and the error is the answer.
pub async fn execute(
    files: Vec<Planned>,
    settings: &Settings,
    sink: &mut dyn RunSink,
    stop: Option<watch::Receiver<Option<Cancel>>>,
) -> std::io::Result<Finished> {
    let rels = rels_by_index(&files);
    let mut keeping = keep::Keeping::new(
        settings.run,
        settings.log_dir.as_ref(),
        settings.history.clone(),
        settings.cache.as_ref(),
    );
    let finished = if keeping.gathers() {
        // The run's own sink last: it is given each event, without a copy.
        let mut both = Fanout(vec![&mut keeping, sink]);
        dispatch::execute(files, settings, &mut both, stop).await
    } else {
        dispatch::execute(files, settings, sink, stop).await
    };
    let mut finished = finished?;
    finished.warnings = keeping.save(&finished.verdicts, &rels, &finished.results);
    // Told once a run: which files left no dependency trace, and why.
    finished
        .warnings
        .extend(settings.trace.as_ref().and_then(|t| t.take_missing_note()));
    Ok(finished)
}

/// Runs the files once, or `runs` times as a series (`--runs N`) told between
/// `SeriesStarted` and `SeriesFinished` with its stability; an interrupted run ends the series.
/// `between` is shown each finished run but the last (its history warning).
pub async fn execute_series(
    files: Vec<Planned>,
    mut settings: Settings,
    runs: u64,
    sink: &mut dyn RunSink,
    between: &mut dyn FnMut(&Finished),
) -> std::io::Result<(Finished, Option<crate::event::stability::Stability>)> {
    if runs == 1 {
        return execute(files, &settings, sink, None)
            .await
            .map(|f| (f, None));
    }
    let rels = rels_by_index(&files);
    sink.on(&RunEvent::SeriesStarted { runs })?;
    let mut analysis = stability::Analysis::default();
    let mut last = None;
    for n in 1..=runs {
        settings.run = n;
        let f = execute(files.clone(), &settings, sink, None).await?;
        if n < runs {
            between(&f);
        }
        let interrupted = f.summary.interrupted;
        if !interrupted {
            let results = f.results.iter().map(Option::as_ref);
            analysis.add_run(rels.iter().map(String::as_str).zip(results));
        }
        last = Some(f);
        if interrupted {
            break;
        }
    }
    let stability = analysis.finish();
    sink.on(&RunEvent::SeriesFinished {
        stability: stability.clone(),
    })?;
    let last = last.ok_or_else(|| std::io::Error::other("no run was made"))?;
    Ok((last, Some(stability)))
}

/// Each planned file's path, by its index (the order results are kept in).
pub fn rels_by_index(files: &[Planned]) -> Vec<String> {
    let mut by_index: Vec<&Planned> = files.iter().collect();
    by_index.sort_by_key(|p| p.info.index);
    by_index.iter().map(|p| p.info.rel.clone()).collect()
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

/// Each finished file's verdict (a stopped one has none: it keeps its last).
fn verdicts(infos: &[Option<FileInfo>], results: &[Option<FileResult>]) -> BTreeMap<String, bool> {
    infos
        .iter()
        .zip(results)
        .filter_map(|(info, r)| match (info, r) {
            (Some(info), Some(r)) if !r.cancelled => Some((info.rel.clone(), r.ok)),
            _ => None,
        })
        .collect()
}

/// The run's counts and lists, told in `RunFinished`; `changes` against the last run's verdicts.
fn summarize(
    infos: &[Option<FileInfo>],
    results: &[Option<FileResult>],
    duration: Duration,
    interrupted: bool,
    changes: logs::Changes,
) -> RunSummary {
    let mut tests = crate::event::run::Tally::default();
    let (mut passed, mut failed, mut cancelled, mut not_run) = (0, 0, 0, 0);
    let mut slowest: Vec<(String, u64)> = Vec::new();
    let mut flaky = Vec::new();
    let (mut cached, mut no_tests) = (0, 0);
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
            }
            _ => not_run += 1,
        }
    }
    slowest.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    slowest.truncate(3);
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
        newly_failing: changes.newly_failing,
        fixed: changes.fixed,
        flaky,
        files_cached: cached,
        files_no_tests: no_tests,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::sink::RunSink;
    use std::time::Instant;

    struct Nothing;
    impl RunSink for Nothing {
        fn on(&mut self, _ev: &RunEvent) -> std::io::Result<()> {
            Ok(())
        }
    }

    /// Every event a sink is given, by kind; it fails from the first `Tap` event on.
    struct FailsOnOutput(Vec<&'static str>);
    impl RunSink for FailsOnOutput {
        fn on(&mut self, ev: &RunEvent) -> std::io::Result<()> {
            let kind = match ev {
                RunEvent::RunStarted { .. } => "run_started",
                RunEvent::FileStarted { .. } => "file_started",
                RunEvent::FileFinished { .. } => "file_finished",
                RunEvent::FileNotRun { .. } => "file_not_run",
                RunEvent::RunFinished { .. } => "run_finished",
                RunEvent::Tap { .. } => "tap",
                _ => "other",
            };
            self.0.push(kind);
            if self.0.contains(&"tap") {
                return Err(std::io::Error::other("disk full"));
            }
            Ok(())
        }
    }

    fn sleeper(index: usize, rel: &str) -> Planned {
        Planned {
            info: FileInfo {
                index,
                rel: rel.into(),
                command: "sh -c sleep".into(),
                log: None,
                attempt: 1,
                leaves: false,
            },
            command: Ok(vec!["sh".into(), "-c".into(), "echo 1..1; sleep 30".into()]),
            log_name: format!("{rel}.log"),
            cached: None,
            input: Default::default(),
        }
    }

    pub(crate) fn settings(jobs: usize) -> Settings {
        Settings {
            run: 1,
            jobs,
            timeout: None,
            grace: Duration::from_millis(500),
            merge: None,
            cwd: std::env::temp_dir(),
            env: Vec::new(),
            live: false,
            log_dir: None,
            retries: 0,
            flaky_fails: false,
            history: None,
            cache: None,
            max_fail: None,
            stop_running: false,
            limits: limits::Limits::default(),
            sandbox: None,
            keep_going: false,
            trace: None,
            coverage: None,
            inputs: Default::default(),
            isolate: false,
            expected_ms: Default::default(),
            test_filter: None,
            warm_spares: None,
        }
    }

    /// Regression: a sink's error ended the loop at once (`?`): no `RunFinished` for the other
    /// sinks, and the files still running were left to the drop. Now the run is stopped as a
    /// first Ctrl-C stops it, the files not started are told as not run, the run still
    /// finishes, and the error is the run's answer.
    #[tokio::test(flavor = "current_thread")]
    async fn a_failing_sink_stops_the_run_and_still_finishes_it() {
        let mut sink = FailsOnOutput(Vec::new());
        let started = Instant::now();
        let files = vec![sleeper(0, "a.sh"), sleeper(1, "b.sh")];
        let err = execute(files, &settings(1), &mut sink, None)
            .await
            .err()
            .expect("the sink's error is the run's");
        assert_eq!(err.to_string(), "disk full");
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "the running file was stopped, not waited for: {:?}",
            started.elapsed()
        );
        let kinds = &sink.0;
        assert_eq!(kinds.last(), Some(&"run_finished"), "{kinds:?}");
        assert!(kinds.contains(&"file_finished"), "{kinds:?}");
        assert!(
            kinds.contains(&"file_not_run"),
            "b.sh never starts: {kinds:?}"
        );
        assert_eq!(
            kinds.iter().filter(|k| **k == "file_started").count(),
            1,
            "{kinds:?}"
        );
    }

    /// Regression: an outside stop request left the dispatcher's branch ready forever, so on a
    /// single-threaded runtime the loop spun and the children it was stopping never ran.
    #[tokio::test(flavor = "current_thread")]
    async fn an_outside_stop_ends_a_run_promptly_on_one_thread() {
        let planned = sleeper(0, "long.sh");
        let settings = settings(1);
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
