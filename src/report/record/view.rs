//! What the HTML page shows, gathered from the run: the page's own view of it, so every
//! section reads plain fields and can be tested without running anything.
use std::time::{Duration, SystemTime};

use crate::event::run::Tally;
use crate::event::Assert;
use crate::explain::diff::Diff;
use crate::explain::Explanation;

/// The whole page.
#[derive(Debug, Clone, Default)]
pub struct RunView {
    pub ok: bool,
    pub interrupted: bool,
    /// When the run started (shown in UTC).
    pub started: Option<SystemTime>,
    pub host: Option<String>,
    pub cwd: Option<String>,
    /// The command line that made the run, for display.
    pub command: Option<String>,
    pub duration: Duration,
    pub tests: Tally,
    pub files: Vec<FileView>,
    /// Failing points past the number explained in full (listed by name only).
    pub failures_left_out: usize,
    /// After a `--runs N` series: every test's and file's stability (the view is the last
    /// run's).
    pub stability: Option<crate::event::stability::Stability>,
    /// The run's line coverage (`run --coverage`).
    pub coverage: Option<crate::coverage::RunCoverage>,
    /// What `-t` or `--only-failed` narrowed the run to.
    pub test_filter: Option<crate::event::run::TestFilterInfo>,
}

/// A file's verdict as one word, for the status pill and the filter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileStatus {
    Pass,
    Fail,
    /// Passed without running a test (skip all, or only SKIP points).
    Skip,
    /// Its harness reported it holds no tests (not a failure, not a skip).
    NoTests,
    /// Started, then stopped before its end (a watch restart, Ctrl-C, `--max-fail`) with no
    /// failing point: no verdict of its own. One with a failing point is [`Self::Fail`].
    Cancelled,
    NotRun,
}

impl FileStatus {
    pub(crate) fn class(self) -> &'static str {
        match self {
            Self::Pass => "pass",
            Self::Fail => "fail",
            Self::Skip => "skip",
            Self::NoTests => "notests",
            Self::Cancelled => "cancelled",
            Self::NotRun => "notrun",
        }
    }

    pub(crate) fn label(self) -> &'static str {
        match self {
            Self::Pass => "pass",
            Self::Fail => "fail",
            Self::Skip => "skip",
            Self::NoTests => "no tests",
            Self::Cancelled => "cancelled",
            Self::NotRun => "not run",
        }
    }
}

/// One test file.
#[derive(Debug, Clone)]
pub struct FileView {
    pub rel: String,
    pub status: FileStatus,
    pub duration: Option<Duration>,
    pub tally: Tally,
    /// Why the file failed, in the words of the run ("exited with code 3", "timed out …").
    pub reasons: Vec<String>,
    pub log: Option<String>,
    pub command: Option<String>,
    /// Top-level test points in order.
    pub points: Vec<PointView>,
    /// Its leaf tests (every depth) and failing subtests, in stream order: JUnit's test cases.
    pub cases: Vec<CaseView>,
    /// Failing points, nested ones included.
    pub failures: Vec<FailureView>,
    /// Failing points not explained in full (the page's limit was reached).
    pub failures_left_out: usize,
    /// Attempts made (`--retries`); the points are the last attempt's.
    pub attempts: u32,
    /// Failed, then passed on a retry.
    pub flaky: bool,
    /// Not run: its last passing result came from the result cache (`--cache`).
    pub cached: bool,
    /// The failed attempts before the last one (`--retries`), oldest first: JUnit's
    /// `<flakyFailure>`/`<rerunFailure>`.
    pub earlier_attempts: Vec<AttemptView>,
    /// The file's last output lines, shown when it failed without a failing point.
    pub output_tail: Vec<String>,
    /// The file's newest non-TAP stdout lines and its stderr lines (bounded; the log has all),
    /// and how many of each fell out: JUnit's `<system-out>` and `<system-err>`.
    pub stdout: Vec<String>,
    pub stderr: Vec<String>,
    pub stream_lines_dropped: (usize, usize),
    /// Warnings that did not fail it: a leaked process, parse problems that do not fail.
    pub warnings: Vec<String>,
    /// Top-level points past [`crate::event::run::KEPT_POINTS`] that passed (or were not
    /// selected): counted, not kept in `points` (which keeps the others).
    pub points_dropped: usize,
    /// Its plain JUnit cases written to the run's spool as they arrived, each run of them by
    /// the place in `cases` it comes before (see [`SpooledRun`]).
    pub spooled: Vec<SpooledRun>,
}

/// Plain JUnit cases (passing or skipped, printable ASCII) written to the run's spool file in
/// the bytes the JUnit report gives them, instead of kept in `cases`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpooledRun {
    /// Their place: before `cases[before]` (after the last case when it is `cases.len()`).
    pub before: usize,
    /// Their bytes in the spool.
    pub bytes: std::ops::Range<u64>,
    /// How many cases, and how many of them skipped.
    pub cases: usize,
    pub skipped: usize,
}

/// A failed attempt of a retried file.
#[derive(Debug, Clone)]
pub struct AttemptView {
    pub attempt: u32,
    pub duration: Duration,
    pub reasons: Vec<String>,
    /// Its failing points, explained as the last attempt's are.
    pub failures: Vec<FailureView>,
    /// Its last output lines.
    pub output_tail: Vec<String>,
    pub log: Option<String>,
}

/// How one test point ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PointStatus {
    Pass,
    Fail,
    Skip,
    Todo,
    /// `-t` did not select it, in a file run whole ([`Assert::not_selected`]).
    NotSelected,
}

/// A not-selected point's reason, as JUnit's `<skipped message>` and the HTML page say it.
pub const NOT_SELECTED: &str = "not selected by the test filter";

#[derive(Debug, Clone)]
pub struct PointView {
    pub id: Option<u64>,
    pub name: String,
    pub status: PointStatus,
    /// The SKIP or TODO reason.
    pub reason: Option<String>,
    pub duration_ms: Option<f64>,
}

/// A leaf test of a file (a point that is not a subtest with points of its own), or a failing
/// subtest.
#[derive(Debug, Clone)]
pub struct CaseView {
    /// Its place among the file's points of every depth ([`FailureView::point`] for a
    /// failing one).
    pub point: usize,
    /// A test of its own: not a subtest with points of its own, or one that the dialect that
    /// announces every test counts as a test (a test with subtests that is no suite).
    pub test: bool,
    /// The subtests it is in as the stream names them (`outer > inner`; empty at the top
    /// level, where most points are: no copy of a name per point).
    pub parents: std::sync::Arc<str>,
    pub point_view: PointView,
}

impl CaseView {
    /// Its stable ID in file `file` ([`crate::explain::names`]): `file > parents > name`, a
    /// point without a name by its number.
    pub fn test_id(&self, file: &str) -> String {
        use crate::explain::names::{id_of, push_unnamed, SEPARATOR};
        let mut path = String::with_capacity(self.parents.len() + self.point_view.name.len() + 3);
        if !self.parents.is_empty() {
            path.push_str(&self.parents);
            path.push_str(SEPARATOR);
        }
        match self.point_view.name.is_empty() {
            true => push_unnamed(&mut path, self.point_view.id),
            false => path.push_str(&self.point_view.name),
        }
        id_of(file, &path)
    }

    /// Its subtest path: `outer > inner > name`.
    pub fn name(&self) -> std::borrow::Cow<'_, str> {
        match self.parents.is_empty() {
            true => std::borrow::Cow::Borrowed(self.point_view.name.as_str()),
            false => format!("{} > {}", self.parents, self.point_view.name).into(),
        }
    }
}

/// A failing test point, explained (a report's copy of the run's one explanation).
#[derive(Debug, Clone, Default)]
pub struct FailureView {
    /// Its place among the file's points of every depth.
    pub point: usize,
    pub depth: u32,
    pub id: Option<u64>,
    /// The point's name, prefixed by its enclosing subtests (`parent > child`).
    pub name: String,
    pub location: Option<String>,
    pub message: Option<String>,
    /// The producer's machine fields on one line (`operator strictEqual · AssertionError
    /// [ERR_ASSERTION]`).
    pub machine: Option<String>,
    /// Other diagnostics worth a line each (`source: …`).
    pub other: Vec<(String, String)>,
    pub diff: Option<Diff>,
    /// Diagnostics that did not parse as YAML: the raw text and the parser's complaint.
    pub raw_yaml: Option<(String, String)>,
    pub stack: Option<String>,
    /// What the test printed before it reported, and after, up to the next test (the error
    /// many producers print after `not ok`; `report::trailing` has the rule).
    pub output: Vec<String>,
}

impl PointStatus {
    /// As people count it: a SKIP or TODO point is only that, whatever its `ok`.
    pub fn of(a: &Assert<'_>) -> Self {
        if a.not_selected {
            Self::NotSelected
        } else if a.skip.is_some() {
            Self::Skip
        } else if a.todo.is_some() {
            Self::Todo
        } else if a.ok {
            Self::Pass
        } else {
            Self::Fail
        }
    }
}

impl PointView {
    pub fn of(a: &Assert<'_>) -> Self {
        Self {
            id: a.id,
            name: a.name.to_string(),
            status: PointStatus::of(a),
            reason: match a.not_selected {
                true => Some(NOT_SELECTED.to_owned()),
                false => a.skip.as_deref().or(a.todo.as_deref()).map(str::to_owned),
            },
            duration_ms: a.duration_ms,
        }
    }
}

impl FailureView {
    /// The report's copy of the run's explanation of a failing point.
    pub fn of(e: &Explanation) -> Self {
        Self {
            point: e.point,
            depth: e.depth,
            id: e.id,
            name: e.shown_name(),
            location: e.location.clone(),
            message: e.message.clone(),
            machine: e.machine.clone(),
            other: e.other.clone(),
            diff: e.diff.clone(),
            raw_yaml: e.raw_yaml.clone(),
            stack: e.stack.clone(),
            output: e.output.clone(),
        }
    }
}
