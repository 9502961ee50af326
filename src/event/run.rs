//! The run's event stream: what the scheduler tells every run reporter (terminal, jsonl,
//! summary, logs), in the order it happened. Per-file TAP events are wrapped, tagged with
//! their file.
use super::Assert;
use super::{Event, Verdict};
use crate::explain::names::{error_hash, first_error_line, PointNames};
use serde::{Deserialize, Serialize};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

/// A test file of this run, as reporters see it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct FileInfo {
    /// Position in the run's sorted file list.
    pub index: usize,
    /// Path relative to the project root, `/`-separated.
    pub rel: String,
    /// The command line, for display.
    pub command: String,
    /// The log file, when logs are on (each attempt of a retried file has its own).
    pub log: Option<PathBuf>,
    /// 1 for the first run of the file, 2 for its first retry (`--retries`), …
    pub attempt: u32,
    /// Its tests are the leaf tests of packages or suites (`go-json` input, JUnit XML), not
    /// its top-level points ([`crate::event::leaves`]): a package or suite without tests is
    /// no test, in JUnit's cases as in the counts.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub leaves: bool,
}

pub use super::reason::{FailureReason, LEAK_REASON};

/// How the child process ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExitInfo {
    pub code: Option<i32>,
    pub signal: Option<i32>,
}

/// The verdict on one file: its stream's and its process's.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct FileResult {
    pub ok: bool,
    /// Why it failed, in order: "exited with code 3", "killed by SIGSEGV", "timed out after 5s",
    /// "no plan", "planned 5, ran 3", "bailed out: …", "no TAP output", "`X` is not installed …"
    /// ([`FailureReason`]: typed, serialized as these words).
    pub reasons: Vec<FailureReason>,
    /// `None` when the process never started.
    pub exit: Option<ExitInfo>,
    pub timed_out: bool,
    pub cancelled: bool,
    /// A descendant kept the output pipes open after the child exited.
    pub leaked: bool,
    #[serde(serialize_with = "as_millis", deserialize_with = "from_millis")]
    pub duration: Duration,
    /// Top-level test points.
    pub tally: Tally,
    /// The stream's verdict (as `tapline parse` would give it).
    pub verdict: Verdict<'static>,
    /// Attempts made (1 unless a failure was retried with `--retries`).
    pub attempts: u32,
    /// It failed, then passed on a retry.
    pub flaky: bool,
    /// Not run: this is its last passing result, from the result cache (`--cache`).
    pub cached: bool,
    /// It exited 0 and printed no TAP, and its harness counts that as a file with no tests
    /// (which do: protocol-spec/producers.md, Counting tests): not failed (`ok`), and not counted as passed either.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub no_tests: bool,
    /// Its test points at every depth, in stream order (a suite point marked as such,
    /// [`TestOutcome::suite`]): what history and stability analysis need; past
    /// [`KEPT_POINTS`] of them, only its failing and slowest ([`Points`]). Not serialized: the
    /// `Tap` events already carry them. Shared, not copied: a result is cloned for the sinks
    /// and the summary, and a 1,000-point file's names are 1,000 strings.
    #[serde(skip)]
    pub tests: Points,
}

/// Test points a file's result keeps whole: past this many, it keeps its failing points and
/// its slowest [`KEPT_POINTS`] (of those with a duration), and says how many it had
/// (docs/history.md, "Bounds"): a file printing a million points costs no more memory than one
/// printing this many.
pub const KEPT_POINTS: usize = 10_000;

/// A file's test points as its result keeps them: every one up to [`KEPT_POINTS`], past that
/// its failing and slowest, in stream order either way.
#[derive(Debug, Clone, Default)]
pub struct Points {
    kept: Arc<[TestOutcome]>,
    /// Points judged (all depths, no suite point), kept or not.
    judged: u64,
    /// Points seen (suite points too), when more than were kept.
    capped: Option<u64>,
}

impl Points {
    /// Test points judged (all depths, a suite point is none), kept or not.
    pub fn judged(&self) -> u64 {
        self.judged
    }

    /// How many points the file had, when more than [`KEPT_POINTS`] (only the failing and
    /// slowest are kept).
    pub fn capped(&self) -> Option<u64> {
        self.capped
    }
}

impl std::ops::Deref for Points {
    type Target = [TestOutcome];
    fn deref(&self) -> &[TestOutcome] {
        &self.kept
    }
}

impl FromIterator<TestOutcome> for Points {
    fn from_iter<I: IntoIterator<Item = TestOutcome>>(points: I) -> Points {
        Points::from(points.into_iter().collect::<Vec<_>>())
    }
}

impl From<Vec<TestOutcome>> for Points {
    fn from(kept: Vec<TestOutcome>) -> Points {
        Points {
            judged: kept.iter().filter(|t| !t.suite).count() as u64,
            kept: kept.into(),
            capped: None,
        }
    }
}

/// One test point's outcome, named by its stable ID's names ([`crate::explain::names`]).
#[derive(Debug, Clone, PartialEq)]
pub struct TestOutcome {
    /// Its names joined (`group > inner adds`): its ID without the file.
    pub name: String,
    /// The names themselves where `name` does not split back into them at ` > `.
    pub parts: Option<Box<[String]>>,
    /// Its TAP number.
    pub number: Option<u64>,
    /// Not a failure: passed, skipped, or TODO.
    pub ok: bool,
    pub status: TestStatus,
    pub duration_ms: Option<f64>,
    /// For a failure, the hash of its first error line ([`crate::explain::names::error_hash`]):
    /// the same failure again has the same hash.
    pub error: Option<u64>,
    /// A suite point (`type: 'suite'` in the dialect that announces every test,
    /// [`crate::event::leaves::NodeTest`]): a name tests are found by (`tapline list`, `-t`),
    /// not a test (its producer counts its tests): history's count and failing names and `--runs` leave it out.
    pub suite: bool,
}

impl TestOutcome {
    /// A point named `name` that passed or failed, and nothing else known: what tests build.
    pub fn named(name: &str, ok: bool) -> TestOutcome {
        let status = if ok {
            TestStatus::Passed
        } else {
            TestStatus::Failed
        };
        TestOutcome {
            name: name.to_owned(),
            parts: None,
            number: None,
            ok,
            status,
            duration_ms: None,
            error: None,
            suite: false,
        }
    }
}

/// A test point's own status.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TestStatus {
    Passed,
    Failed,
    Skipped,
    Todo,
}

impl TestStatus {
    pub fn of(a: &super::Assert<'_>) -> TestStatus {
        match (a.skip.is_some(), a.todo.is_some(), a.is_failure()) {
            (true, _, _) => TestStatus::Skipped,
            (_, true, _) => TestStatus::Todo,
            (_, _, true) => TestStatus::Failed,
            _ => TestStatus::Passed,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            TestStatus::Passed => "passed",
            TestStatus::Failed => "failed",
            TestStatus::Skipped => "skipped",
            TestStatus::Todo => "todo",
        }
    }
}

pub use super::OpenSubtests;

/// Every test point of a stream at every depth, named as its stable ID names it (the
/// explainer's rule, [`PointNames`]: one rule for the terminal, reports, history and
/// `--runs N`), with the hash of each failure's first error line: fed the stream's events in
/// order.
#[derive(Default)]
pub struct TestNames {
    names: PointNames,
    tests: Vec<TestOutcome>,
    /// The last failing point without an error line of its own: its trailing output's first
    /// line may give it one.
    wants_error: Option<usize>,
    /// Tells the suite points of the dialect that announces every test: no test of their own.
    node: super::leaves::NodeTest,
    /// Points named (suite points too) and judged (not), kept or not.
    seen: u64,
    judged: u64,
    /// Some points were let go ([`KEPT_POINTS`]).
    thinned: bool,
    /// The length at which the points are thinned next: twice what the last thinning kept,
    /// so that a file of many failures is not thinned at every point.
    thin_at: usize,
    /// Never thinned: every point is kept, whatever their number (`tapline list` naming the
    /// tests of a log).
    keep_all: bool,
}

impl TestNames {
    /// Names that keep every point, past [`KEPT_POINTS`] too.
    pub fn keeping_all() -> Self {
        TestNames {
            keep_all: true,
            ..TestNames::default()
        }
    }

    pub fn event(&mut self, event: &super::Event<'_>) {
        // Past the bound, a point that neither failed nor took a time is not kept: not named.
        let kept = match event {
            super::Event::Assert(a) if self.thinned => {
                TestStatus::of(a) == TestStatus::Failed || a.duration_ms.is_some()
            }
            _ => true,
        };
        let named = self.names.follow(event, kept);
        self.node.event(event);
        if let Some(line) = self.names.take_trailing_line() {
            if let Some(t) = self.wants_error.take().and_then(|i| self.tests.get_mut(i)) {
                t.error = Some(error_hash(&line));
            }
        }
        let (Some(name), super::Event::Assert(a)) = (named, event) else {
            return;
        };
        if a.not_selected {
            // Not run as far as the run is concerned: no record says it passed or failed.
            return;
        }
        let status = TestStatus::of(a);
        let error = match status {
            TestStatus::Failed => {
                let line = first_error_line(a);
                self.wants_error = line.is_none().then_some(self.tests.len());
                // No line at all: the failure is its name.
                Some(error_hash(line.unwrap_or(&a.name)))
            }
            _ => None,
        };
        let suite = self.node.owns(a) && super::leaves::is_suite(a);
        self.seen += 1;
        self.judged += u64::from(!suite);
        if !kept {
            return;
        }
        self.tests.push(TestOutcome {
            name: name.path,
            parts: name.parts,
            number: a.id,
            ok: status != TestStatus::Failed,
            status,
            duration_ms: a.duration_ms,
            error,
            suite,
        });
        // Thinned in bulk, once twice the bound is held: a constant cost per point.
        if !self.keep_all && self.tests.len() >= self.thin_at.max(2 * KEPT_POINTS) {
            self.thin();
            self.thin_at = 2 * self.tests.len();
        }
    }

    /// Keeps the failing points and the slowest [`KEPT_POINTS`] with a duration, in stream
    /// order (the point waiting for its error line among them: it failed).
    fn thin(&mut self) {
        self.thinned = true;
        let mut slow: Vec<f64> = (self.tests.iter())
            .filter(|t| t.ok)
            .filter_map(|t| t.duration_ms.filter(|ms| ms.is_finite()))
            .collect();
        // The slowest KEPT_POINTS durations: a point at least as slow as the last of them stays.
        let floor = match slow.len().checked_sub(KEPT_POINTS) {
            None => f64::NEG_INFINITY,
            Some(at) => *slow.select_nth_unstable_by(at, f64::total_cmp).1,
        };
        // Of the points as slow as the floor, as many as the bound has room for, first first.
        let above = slow.iter().filter(|ms| **ms > floor).count();
        let mut at_floor = KEPT_POINTS.min(slow.len()).saturating_sub(above);
        let wanted = self.wants_error.and_then(|i| self.tests.get(i)).is_some();
        self.tests.retain(|t| {
            let ms = t.duration_ms.filter(|ms| ms.is_finite());
            match ms {
                _ if !t.ok => true,
                Some(ms) if ms > floor => true,
                Some(ms) if ms == floor && at_floor > 0 => {
                    at_floor -= 1;
                    true
                }
                _ => false,
            }
        });
        // Still the last failing point: every failing one stayed, in order.
        self.wants_error = wanted
            .then(|| self.tests.iter().rposition(|t| !t.ok))
            .flatten();
    }

    /// The points named so far, in stream order (past [`KEPT_POINTS`], the failing and
    /// slowest); the names start afresh.
    pub fn take(&mut self) -> Points {
        if !self.keep_all && (self.thinned || self.tests.len() > KEPT_POINTS) {
            self.thin();
        }
        let points = Points {
            kept: std::mem::take(&mut self.tests).into(),
            judged: self.judged,
            capped: self.thinned.then_some(self.seen),
        };
        *self = TestNames {
            keep_all: self.keep_all,
            ..TestNames::default()
        };
        points
    }
}

#[cfg(test)]
mod bounded {
    use super::*;
    use crate::event::Event;

    fn point(n: u64, ok: bool, ms: Option<f64>) -> Event<'static> {
        let mut a = Assert::plain(ok, &format!("p{n}"));
        (a.id, a.duration_ms) = (Some(n), ms);
        Event::Assert(a)
    }

    /// Past the bound: every failure (with its error), the slowest points, in stream order,
    /// and the count of every point.
    #[test]
    fn past_the_bound_the_failing_and_slowest_points_are_kept_in_order() {
        let mut names = TestNames::default();
        let total = 5 * KEPT_POINTS as u64 + 3;
        for n in 1..=total {
            let ok = n % 20_000 != 0;
            // Every third point is timed, n ms: the slowest are the last ones.
            let ms = (n % 3 == 0).then_some(n as f64);
            names.event(&point(n, ok, ms));
        }
        let points = names.take();
        assert_eq!(points.judged(), total);
        assert_eq!(points.capped(), Some(total));
        let failing: Vec<u64> = (points.iter().filter(|t| !t.ok))
            .filter_map(|t| t.number)
            .collect();
        assert_eq!(failing, [20_000, 40_000]);
        assert!(points.iter().filter(|t| !t.ok).all(|t| t.error.is_some()));
        let slow = points.iter().filter(|t| t.ok).count();
        assert_eq!(slow, KEPT_POINTS);
        let numbers: Vec<u64> = points.iter().filter_map(|t| t.number).collect();
        assert!(numbers.windows(2).all(|w| w[0] < w[1]), "stream order");
        // The slowest: the last timed points.
        let first_slow = (points.iter().filter(|t| t.ok))
            .filter_map(|t| t.number)
            .next();
        assert_eq!(first_slow, Some(3 * (total / 3 - KEPT_POINTS as u64 + 1)));
    }

    #[test]
    fn under_the_bound_every_point_is_kept_and_keeping_all_keeps_all() {
        let mut names = TestNames::default();
        (1..=KEPT_POINTS as u64).for_each(|n| names.event(&point(n, true, None)));
        let points = names.take();
        assert_eq!((points.len(), points.capped()), (KEPT_POINTS, None));
        let mut all = TestNames::keeping_all();
        (1..=3 * KEPT_POINTS as u64).for_each(|n| all.event(&point(n, true, None)));
        assert_eq!(all.take().len(), 3 * KEPT_POINTS);
    }

    #[test]
    fn a_point_s_run_event_is_the_size_of_its_tap_event() {
        // What each point's event costs to move through the dispatcher and every sink layer:
        // the big variants are boxed (a file's result, the run's summary).
        let tap = std::mem::size_of::<crate::event::Event<'static>>();
        assert!(std::mem::size_of::<RunEvent>() <= tap + 16);
    }
}

/// Run events tests build: a file's start and its end.
#[cfg(test)]
pub(crate) mod test_events {
    use super::{FileInfo, FileResult, RunEvent};

    pub(crate) fn started(index: usize, rel: &str) -> RunEvent {
        RunEvent::FileStarted {
            run: 1,
            file: FileInfo {
                index,
                rel: rel.into(),
                command: String::new(),
                log: None,
                attempt: 1,
                leaves: false,
            },
        }
    }

    pub(crate) fn finished(file: usize, result: FileResult) -> RunEvent {
        RunEvent::FileFinished {
            run: 1,
            file,
            result: Box::new(result),
        }
    }
}

impl FileResult {
    /// A failed file with these `reasons` and nothing else to say: it never started, or its
    /// stream never came. Other results start from it and fill in what they know.
    pub fn failed(reasons: Vec<FailureReason>, duration: Duration) -> Self {
        FileResult {
            ok: false,
            reasons,
            exit: None,
            timed_out: false,
            cancelled: false,
            leaked: false,
            duration,
            tally: Tally::default(),
            verdict: Verdict::none(),
            attempts: 1,
            flaky: false,
            cached: false,
            no_tests: false,
            tests: Default::default(),
        }
    }

    /// Full names of the failing tests (a suite point is none).
    pub fn failing_tests(&self) -> impl Iterator<Item = &str> {
        (self.tests.iter())
            .filter(|t| !t.ok && !t.suite)
            .map(|t| t.name.as_str())
    }
}

/// The first event of one shard's run (`tapline run --partition`): what `tapline report
/// merge` checks the shards by and puts them back together with.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ShardHeader {
    /// The version of this header's format ([`SHARD_FORMAT`]).
    pub format: u32,
    /// The tapline version that ran the shard.
    pub tapline: String,
    /// `slice`, `hash` or `time`.
    pub strategy: String,
    /// This shard, 1-based, of `total`.
    pub index: usize,
    pub total: usize,
    /// A hash of the strategy, N and the whole selection with its weights: the shards of one
    /// run share it, and shards planned from another selection or history do not.
    pub fingerprint: String,
    /// The whole selection in declared order (not only this shard's part): each unit's path,
    /// its shard and the weight it was dealt with.
    pub selection: Vec<ShardUnit>,
}

/// Format version of [`ShardHeader`].
pub const SHARD_FORMAT: u32 = 1;

/// One file or suite of a sharded run's selection.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ShardUnit {
    pub path: String,
    /// 1-based.
    pub shard: usize,
    pub weight_ms: u64,
}

/// One thing that happened in the run.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum RunEvent {
    /// Before `RunStarted` in a shard's run (`--partition`).
    Shard(ShardHeader),
    RunStarted {
        run: u64,
        files: usize,
        jobs: usize,
        /// When the run started (Unix time in milliseconds), where (host name, working
        /// directory) and how (command line): what a report's header says, kept in the events so that a replayed
        /// report says the same as the live one. Absent from older recordings.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        started_ms: Option<u64>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        host: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cwd: Option<String>,
        /// The command line that started the run.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        command: Option<String>,
        /// What `-t` (or `--only-failed`) narrowed the run to.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        test_filter: Option<TestFilterInfo>,
    },
    FileStarted {
        run: u64,
        file: FileInfo,
    },
    /// A TAP event of a file's stdout (or of stdout+stderr with `--merge`).
    Tap {
        run: u64,
        file: usize,
        event: Event<'static>,
    },
    /// A line the file wrote to stderr (kept as output of the test in progress).
    Stderr {
        run: u64,
        file: usize,
        text: String,
    },
    /// An attempt that failed and will be retried (`--retries`): the next `FileStarted` of the
    /// same file is attempt `attempt + 1`. Only the last attempt gets a `FileFinished`.
    AttemptFailed {
        run: u64,
        file: usize,
        attempt: u32,
        /// Attempts allowed in all (`--retries` + 1).
        of: u32,
        /// Boxed, as `FileFinished`'s and `RunFinished`'s: a point's event (`Tap`), moved
        /// through every sink layer a million times in a big file, stays the size of its
        /// TAP event.
        result: Box<FileResult>,
    },
    FileFinished {
        run: u64,
        file: usize,
        result: Box<FileResult>,
    },
    /// A failing point of a file explained (after the events that completed it, before the
    /// file's `FileFinished` or `AttemptFailed`), and at its end the output no failure owns:
    /// put into the stream by `report::sink::Explaining` in front of the sinks, so every
    /// report renders the one explanation. Never read back from a recording: a replay
    /// explains the recorded TAP again ([`RunEvent::from_recorded`]).
    #[serde(skip_deserializing)]
    Explained {
        run: u64,
        file: usize,
        explained: std::sync::Arc<crate::explain::Explained>,
    },
    /// The lines a file's processes reached (`--coverage`), once they have all ended: after
    /// the file's TAP, before its `FileFinished` or `AttemptFailed`.
    Coverage {
        run: u64,
        file: usize,
        coverage: std::sync::Arc<crate::coverage::TestCoverage>,
    },
    /// A file that never started: the run was interrupted, or `--max-fail` stopped it, first.
    /// Sent for each such file just before `RunFinished`, so every report can list them.
    FileNotRun {
        run: u64,
        file: FileInfo,
    },
    RunFinished {
        run: u64,
        summary: Box<RunSummary>,
    },
    /// Ctrl-C (or SIGTERM) asked the run to stop: no new file starts, and the `running` files
    /// are terminated gracefully (`immediate: false`, the first signal) or killed at once
    /// (`immediate: true`, the second). Said as it happens, so a user knows a second Ctrl-C
    /// kills, and a machine reader knows why files are about to end as interrupted.
    Stopping {
        run: u64,
        immediate: bool,
        running: usize,
    },
    /// Before the first run of `--runs N`: N runs follow, then `SeriesFinished`.
    SeriesStarted {
        runs: u64,
    },
    /// After the last run of `--runs N` (or the run an interrupt ended).
    SeriesFinished {
        stability: super::stability::Stability,
    },
}

impl RunEvent {
    /// One line of a recorded run (`--format jsonl`, `-o run.jsonl`): its event, or `None` for
    /// what a replay derives again itself (an `explained` event).
    ///
    /// # Errors
    ///
    /// The line is not an event of a tapline run.
    pub fn from_recorded(line: &str) -> Result<Option<RunEvent>, serde_json::Error> {
        if line.trim_start().starts_with("{\"type\":\"explained\"") {
            return Ok(None);
        }
        serde_json::from_str(line).map(Some)
    }
}

/// What `-t PATTERN` (or `--only-failed`) narrowed a run to: what its header and reports say.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TestFilterInfo {
    /// `-t`'s patterns as given (none for `--only-failed`).
    pub patterns: Vec<String>,
    /// `--only-failed`: the tests that failed in the last run.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub only_failed: bool,
    /// Files not run: none of their tests matched (with `--only-failed`: they passed or never
    /// ran).
    pub files_not_run: usize,
    /// Files run whole, their framework having no filter of its own: their other tests are
    /// reported as not selected.
    pub files_run_whole: usize,
}

/// The whole run, for the last line and machine reports.
#[derive(Debug, Default, Clone, Serialize, Deserialize)]
pub struct RunSummary {
    pub ok: bool,
    pub files_total: usize,
    pub files_passed: usize,
    pub files_failed: usize,
    /// Files never run (interrupted before their turn).
    pub files_not_run: usize,
    /// Files started, then stopped before they finished (Ctrl-C, a watch re-run's restart, a
    /// bail out or `--max-fail` elsewhere): neither passed nor failed.
    #[serde(default)]
    pub files_cancelled: usize,
    /// All files' top-level test points.
    pub tests: Tally,
    #[serde(serialize_with = "as_millis", deserialize_with = "from_millis")]
    pub duration: Duration,
    /// Ctrl-C (or a watch restart) stopped it.
    pub interrupted: bool,
    /// `--max-fail N` stopped the run after N failed files (files not started are not run).
    #[serde(default)]
    pub max_fail_reached: Option<usize>,
    /// A file bailed out (`Bail out!`), which stops the run as it stops TAP's reference
    /// harness's: files not
    /// started yet are not run, running ones are stopped.
    #[serde(default)]
    pub bailed_out: Option<BailedOut>,
    /// Slowest files, slowest first: (rel, duration).
    pub slowest: Vec<(String, u64)>,
    /// Changed verdict since the previous run (from the log folder).
    pub newly_failing: Vec<String>,
    pub fixed: Vec<String>,
    /// Files that failed, then passed on a retry: (rel, attempts made).
    pub flaky: Vec<(String, u32)>,
    /// Files not run because the result cache held their last pass (`--cache`).
    pub files_cached: usize,
    /// Files that ran no tests and did not fail ([`FileResult::no_tests`]): neither in
    /// `files_passed` nor in `files_failed`.
    #[serde(default)]
    pub files_no_tests: usize,
}

/// The file whose `Bail out!` stopped the run, and its reason (`""` without one).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BailedOut {
    pub file: String,
    pub reason: String,
}

fn as_millis<S: serde::Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_u64(d.as_millis() as u64)
}

/// Test points counted the way people read them: a SKIP or TODO point counts only as that.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, serde::Serialize, Deserialize)]
pub struct Tally {
    pub pass: u64,
    pub fail: u64,
    pub skip: u64,
    pub todo: u64,
    /// Of `fail`, the tests their producer cancelled (their parent ended first, a timeout, an
    /// abort): failures, which its trailer counts apart, as `# cancelled`
    /// ([`tapline_protocol::dialect::cancelled`]).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub cancelled: u64,
    /// Points `-t` did not select in a file run whole ([`Assert::not_selected`]): none of the
    /// above.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub not_selected: u64,
    /// Those of them that printed `not ok` (without SKIP or TODO): not the run's failures, but
    /// said, so that none is lost.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub not_selected_failed: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl Tally {
    pub fn add(&mut self, a: &Assert<'_>) {
        if a.not_selected {
            self.not_selected += 1;
            self.not_selected_failed += u64::from(a.failed_as_printed());
        } else if a.skip.is_some() {
            self.skip += 1;
        } else if a.todo.is_some() {
            self.todo += 1;
        } else if a.ok {
            self.pass += 1;
        } else {
            self.fail += 1;
        }
    }

    pub fn merge(&mut self, o: &Tally) {
        self.pass += o.pass;
        self.fail += o.fail;
        self.skip += o.skip;
        self.todo += o.todo;
        self.cancelled += o.cancelled;
        self.not_selected += o.not_selected;
        self.not_selected_failed += o.not_selected_failed;
    }

    /// The points run and counted: the not-selected ones are not.
    pub fn total(&self) -> u64 {
        self.pass + self.fail + self.skip + self.todo
    }
}

fn from_millis<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Duration, D::Error> {
    let ms = <u64 as serde::Deserialize>::deserialize(d)?;
    Ok(Duration::from_millis(ms))
}
