//! Builds the page's view from the run's event stream, as the run goes: files as they start
//! and finish, top-level points, leaf test cases, failing points as the run's explaining stage
//! explained them ([`crate::explain`]; this module works none out itself), and each
//! file's last output lines.
//!
//! What it holds is bounded: the explanations are bounded where they are made, a file's
//! streams keep their newest lines, and every line kept is cut at
//! [`crate::explain::held::LINE_BYTES`].
use std::collections::VecDeque;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use super::view::{
    AttemptView, CaseView, FailureView, FileStatus, FileView, PointStatus, PointView, RunView,
    SpooledRun,
};
use crate::event::meta::Meta;
use crate::event::run::{FileInfo, FileResult, OpenSubtests, RunEvent, RunSummary, KEPT_POINTS};
use crate::event::{Assert, Event};
use crate::explain::headings::with_headings;
use crate::explain::held::{cut_line, LINE_BYTES};
use crate::explain::Explained;

/// A file's stdout and stderr lines kept for JUnit's `<system-out>`/`<system-err>` (the newest
/// win; the log has every byte).
const FILE_STREAM_LINES: usize = 1000;
/// Warnings kept per file.
const MAX_WARNINGS: usize = 20;
/// Failures explained in full; past this the page lists them by name only (in each file's
/// points) and says how many it left out. Bounds both the page and the time spent diffing.
pub const EXPANDED_FAILURES: usize = 500;

/// A file while its events arrive.
struct Building {
    view: FileView,
    /// The file's newest non-TAP stdout lines and stderr lines, for JUnit.
    stdout: VecDeque<String>,
    stderr: VecDeque<String>,
    /// Lines that fell out of `stdout`/`stderr`.
    dropped: (usize, usize),
    /// Its leaf test cases, named by their subtest path.
    cases: Cases,
    /// Its output that no failure owns, told at its end.
    rest: Vec<String>,
    /// Its top-level points so far.
    top_points: usize,
    /// With a spool: its plain cases go there, and this is their classname (escaped).
    classname: Option<String>,
    /// A plain case's bytes, before they go to the spool.
    case_bytes: Vec<u8>,
}

/// Durations as the run's events record them (whole milliseconds), so that a report replayed
/// from a recording is the report written live.
fn whole_ms(d: Duration) -> Duration {
    Duration::from_millis(u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// Appends `line` (cut at the held line length) to `lines`, dropping the oldest past `cap`.
fn push_bounded(lines: &mut VecDeque<String>, line: String, cap: usize) {
    let line = match line.len() > LINE_BYTES {
        true => cut_line(&line),
        false => line,
    };
    if lines.len() >= cap {
        lines.pop_front();
    }
    lines.push_back(line);
}

/// Collects one run (the latest, in watch mode) into a [`RunView`].
pub struct Collector {
    run: u64,
    /// This process's view of where it runs, for recordings that do not say.
    meta: Meta,
    view: RunView,
    building: Vec<Option<Building>>,
    /// Each file of `view` by its index in the run (`view.files[k]` is file `indices[k]`).
    indices: Vec<usize>,
    expanded: usize,
    /// Where plain JUnit cases go as they arrive, when a JUnit report is written.
    spool: Option<super::spool::Spool>,
}

impl Collector {
    /// A collector that writes the plain JUnit cases of each file's first attempt to a spool
    /// file (unnamed, in the temporary directory: gone with the process whatever happens), so
    /// that a file's record holds its other cases only. Without a spool file, they are kept.
    pub(crate) fn with_spool(mut self) -> Self {
        self.spool = super::spool::Spool::create();
        self
    }

    /// The spool file the plain cases of [`FileView::spooled`] are in, written out up to the
    /// last file that finished; `None` when there is none or writing it failed.
    pub(crate) fn spool(&self) -> Option<&std::fs::File> {
        self.spool.as_ref().and_then(super::spool::Spool::file)
    }

    pub fn new(meta: Meta) -> Self {
        Collector {
            spool: None,
            run: 0,
            view: RunView {
                host: meta.host.clone(),
                cwd: meta.cwd.clone(),
                command: meta.command.clone(),
                ..RunView::default()
            },
            meta,
            building: Vec::new(),
            indices: Vec::new(),
            expanded: 0,
        }
    }

    /// A path as the report shows it: relative to the working directory when under it, so
    /// a report moved with its project (a CI artifact) still points at the right file.
    fn shown_path(&self, path: &std::path::Path) -> String {
        self.view
            .cwd
            .as_deref()
            .and_then(|cwd| path.strip_prefix(cwd).ok())
            .unwrap_or(path)
            .display()
            .to_string()
    }

    /// The page's view so far (complete once `RunFinished` arrived).
    pub fn view(&self) -> &RunView {
        &self.view
    }

    /// The index in the run of each file of [`Self::view`]: `view().files[k]` is file
    /// `file_indices()[k]` (files never heard of are left out of the view).
    pub fn file_indices(&self) -> &[usize] {
        &self.indices
    }

    /// A file of the run in progress as recorded so far, by its index. The runner sends every
    /// event of a file before its `FileFinished`, so from then on it is what the view will hold.
    pub fn file(&self, index: usize) -> Option<&FileView> {
        self.building.get(index)?.as_ref().map(|b| &b.view)
    }

    pub fn on(&mut self, ev: &RunEvent) {
        match ev {
            RunEvent::RunStarted {
                run,
                started_ms,
                host,
                cwd,
                command,
                test_filter,
                ..
            } => {
                self.run_started(*run, *started_ms, host, cwd, command);
                self.view.test_filter.clone_from(test_filter);
            }
            RunEvent::FileStarted { run, file } if *run == self.run => self.file_started(file),
            RunEvent::Coverage { run, coverage, .. } if *run == self.run => {
                (self.view.coverage.get_or_insert_with(Default::default)).add(coverage);
            }
            RunEvent::Tap { run, file, event } if *run == self.run => {
                if let Some(Some(b)) = self.building.get_mut(*file) {
                    b.tap(event, self.spool.as_mut());
                }
            }
            RunEvent::Explained {
                run,
                file,
                explained,
            } if *run == self.run => {
                let expand = self.expanded < EXPANDED_FAILURES;
                if let Some(Some(b)) = self.building.get_mut(*file) {
                    if b.explained(explained, expand) {
                        self.expanded += 1;
                    }
                }
            }
            RunEvent::Stderr { run, file, text } if *run == self.run => {
                if let Some(Some(b)) = self.building.get_mut(*file) {
                    b.dropped.1 += usize::from(b.stderr.len() >= FILE_STREAM_LINES);
                    push_bounded(&mut b.stderr, text.clone(), FILE_STREAM_LINES);
                }
            }
            RunEvent::FileNotRun { run, file } if *run == self.run => {
                // Told as a file that started and ended at once, with nothing in it.
                self.on(&RunEvent::FileStarted {
                    run: *run,
                    file: file.clone(),
                });
                if let Some(Some(b)) = self.building.get_mut(file.index) {
                    b.view.reasons.push("not run".to_owned());
                }
            }
            RunEvent::AttemptFailed {
                run,
                file,
                attempt,
                result,
                ..
            } if *run == self.run => self.attempt_failed(*file, *attempt, result),
            RunEvent::SeriesFinished { stability } => {
                self.view.stability = Some(stability.clone());
            }
            RunEvent::FileFinished { run, file, result } if *run == self.run => {
                if let Some(Some(b)) = self.building.get_mut(*file) {
                    b.finish(result);
                }
                // The JUnit suite of the file is rendered now and may read the spool.
                if let Some(spool) = &mut self.spool {
                    spool.flush();
                }
            }
            RunEvent::RunFinished { run, summary } if *run == self.run => {
                self.run_finished(summary)
            }
            _ => {}
        }
    }

    fn run_started(
        &mut self,
        run: u64,
        started_ms: Option<u64>,
        host: &Option<String>,
        cwd: &Option<String>,
        command: &Option<String>,
    ) {
        self.run = run;
        // What the run recorded wins (a replay shows the original run); a recording without it
        // gets this process's view.
        let started = match started_ms {
            Some(ms) => UNIX_EPOCH.checked_add(Duration::from_millis(ms)),
            None => Some(SystemTime::now()),
        };
        self.view = RunView {
            host: host.clone().or_else(|| self.meta.host.clone()),
            cwd: cwd.clone().or_else(|| self.meta.cwd.clone()),
            command: command.clone().or_else(|| self.meta.command.clone()),
            started,
            ..RunView::default()
        };
        self.building.clear();
        self.indices.clear();
        self.expanded = 0;
        if let Some(spool) = &mut self.spool {
            spool.clear();
        }
    }

    fn file_started(&mut self, file: &FileInfo) {
        if self.building.len() <= file.index {
            self.building.resize_with(file.index + 1, || None);
        }
        // A retry carries its file's failed attempts on.
        let earlier_attempts = self
            .building
            .get_mut(file.index)
            .and_then(Option::take)
            .filter(|_| file.attempt > 1)
            .map(|b| b.view.earlier_attempts)
            .unwrap_or_default();
        let log = file.log.as_deref().map(|p| self.shown_path(p));
        let mut b = Building::new(file, log, earlier_attempts);
        // A retried file's cases are all quick-junit's (its earlier attempts go on one).
        if self.spool.is_some() && file.attempt <= 1 {
            b.classname = Some(crate::report::junit::spool_classname(&file.rel));
        }
        self.building[file.index] = Some(b);
    }

    fn attempt_failed(&mut self, file: usize, attempt: u32, result: &FileResult) {
        if let Some(Some(b)) = self.building.get_mut(file) {
            b.finish(result);
            let failed = AttemptView {
                attempt,
                duration: whole_ms(result.duration),
                reasons: result.reasons.iter().map(ToString::to_string).collect(),
                failures: std::mem::take(&mut b.view.failures),
                output_tail: std::mem::take(&mut b.view.output_tail),
                log: b.view.log.clone(),
            };
            b.view.earlier_attempts.push(failed);
        }
    }

    fn run_finished(&mut self, summary: &RunSummary) {
        if let Some(spool) = &mut self.spool {
            spool.flush();
        }
        self.view.ok = summary.ok;
        self.view.interrupted = summary.interrupted;
        self.view.duration = whole_ms(summary.duration);
        self.view.tests = summary.tests;
        self.indices = (self.building.iter().enumerate())
            .filter_map(|(i, b)| b.is_some().then_some(i))
            .collect();
        self.view.files = self.building.drain(..).flatten().map(|b| b.view).collect();
        self.view.failures_left_out = self.view.files.iter().map(|f| f.failures_left_out).sum();
    }
}

impl Building {
    /// A file that started: nothing recorded yet but its `earlier_attempts`.
    fn new(file: &FileInfo, log: Option<String>, earlier_attempts: Vec<AttemptView>) -> Self {
        Building {
            view: FileView {
                rel: file.rel.clone(),
                status: FileStatus::NotRun,
                duration: None,
                tally: Default::default(),
                reasons: Vec::new(),
                log,
                command: Some(file.command.clone()),
                points: Vec::new(),
                cases: Vec::new(),
                failures: Vec::new(),
                output_tail: Vec::new(),
                failures_left_out: 0,
                attempts: file.attempt,
                flaky: false,
                cached: false,
                earlier_attempts,
                stdout: Vec::new(),
                stderr: Vec::new(),
                stream_lines_dropped: (0, 0),
                warnings: Vec::new(),
                points_dropped: 0,
                spooled: Vec::new(),
            },
            stdout: VecDeque::new(),
            stderr: VecDeque::new(),
            dropped: (0, 0),
            cases: Cases {
                leaves: file.leaves,
                ..Cases::default()
            },
            rest: Vec::new(),
            top_points: 0,
            classname: None,
            case_bytes: Vec::new(),
        }
    }

    /// A non-TAP stdout line, for JUnit's `<system-out>`.
    fn stdout_line(&mut self, text: &str) {
        self.dropped.0 += usize::from(self.stdout.len() >= FILE_STREAM_LINES);
        push_bounded(&mut self.stdout, text.to_owned(), FILE_STREAM_LINES);
    }

    fn tap(&mut self, event: &Event<'static>, spool: Option<&mut super::spool::Spool>) {
        self.cases.node.event(event);
        match event {
            Event::Assert(a) => {
                if let Some(case) = self.cases.point(a) {
                    self.case(case, spool);
                }
                if a.depth == 0 {
                    self.top_point(a);
                }
            }
            Event::Output { text, .. } => self.stdout_line(text),
            Event::Problem(p) if !p.fails && self.view.warnings.len() < MAX_WARNINGS => {
                self.view
                    .warnings
                    .push(format!("line {}: {}", p.line, p.message));
            }
            Event::SubtestStart { depth, name, .. } => self.cases.subtest_start(*depth, name),
            _ => {}
        }
    }

    /// A case of the file: to the spool when it is plain and there is one, else kept.
    fn case(&mut self, case: CaseView, spool: Option<&mut super::spool::Spool>) {
        if let (Some(spool), Some(classname)) = (spool, &self.classname) {
            self.case_bytes.clear();
            let bytes = &mut self.case_bytes;
            if let Some(skipped) =
                crate::report::junit::spool_case(&case, &self.view.rel, classname, bytes)
            {
                let bytes = spool.write(bytes);
                let before = self.view.cases.len();
                match self.view.spooled.last_mut() {
                    // Continues the run the spool's last bytes are.
                    Some(run) if run.before == before && run.bytes.end == bytes.start => {
                        run.bytes.end = bytes.end;
                        run.cases += 1;
                        run.skipped += usize::from(skipped);
                    }
                    _ => self.view.spooled.push(SpooledRun {
                        before,
                        bytes,
                        cases: 1,
                        skipped: usize::from(skipped),
                    }),
                }
                return;
            }
        }
        self.view.cases.push(case);
    }

    /// A top-level point: kept up to [`KEPT_POINTS`], past that only one that did not pass
    /// (numbered by its place when it has no number: the page numbers it so), the others
    /// counted.
    fn top_point(&mut self, a: &Assert<'_>) {
        self.top_points += 1;
        let mut point = PointView::of(a);
        if self.top_points > KEPT_POINTS {
            if matches!(point.status, PointStatus::Pass | PointStatus::NotSelected) {
                self.view.points_dropped += 1;
                return;
            }
            point.id = point.id.or(Some(self.top_points as u64));
        }
        self.view.points.push(point);
    }

    /// What the explaining stage says of this file; returns whether a failure was explained
    /// in full here.
    fn explained(&mut self, explained: &Explained, expand: bool) -> bool {
        match explained {
            // Its children say it.
            Explained::Failure(e) if e.by_children => false,
            Explained::Failure(e) if e.full && expand => {
                self.view.failures.push(FailureView::of(e));
                true
            }
            Explained::Failure(_) => {
                self.view.failures_left_out += 1;
                false
            }
            Explained::Rest { tail, .. } => {
                self.rest = tail.clone();
                false
            }
            Explained::Heading { depth, heading } => {
                self.cases.heading(*depth, heading.clone());
                false
            }
        }
    }

    fn finish(&mut self, result: &FileResult) {
        let v = &mut self.view;
        v.tally = result.tally;
        v.duration = Some(whole_ms(result.duration));
        v.reasons = result.reasons.iter().map(ToString::to_string).collect();
        v.attempts = result.attempts;
        v.flaky = result.flaky;
        v.cached = result.cached;
        if result.leaked {
            v.warnings.push(crate::event::run::LEAK_REASON.to_owned());
        }
        v.stdout = self.stdout.drain(..).collect();
        v.stderr = self.stderr.drain(..).collect();
        v.stream_lines_dropped = std::mem::take(&mut self.dropped);
        v.status = if result.exit.is_none() && result.cancelled {
            FileStatus::NotRun
        } else if result.cancelled && result.tally.fail == 0 {
            FileStatus::Cancelled
        } else if !result.ok {
            FileStatus::Fail
        } else if result.no_tests {
            FileStatus::NoTests
        } else if result.tally.pass == 0 && result.tally.todo == 0 {
            // Passed without running a test: skipped whole, or only SKIP points.
            FileStatus::Skip
        } else {
            FileStatus::Pass
        };
        // Only a file that failed on its own shows its last output.
        v.output_tail = match v.status == FileStatus::Fail {
            true => std::mem::take(&mut self.rest),
            false => Vec::new(),
        };
    }
}

/// Names the leaf test cases of a stream (points that close no subtest with points in it) and
/// its failing subtests, by their subtest path as the stream names them.
#[derive(Default)]
struct Cases {
    subtests: OpenSubtests,
    /// Points seen per open nesting level (index = depth), to tell a subtest from a leaf.
    inside: Vec<usize>,
    /// Points seen, of every depth: the case's `point`.
    points: usize,
    /// The headings the points of each level are under (index = depth), as the run's
    /// explaining stage said them: cases are named as its failures are.
    headings: Vec<Option<String>>,
    /// The names the points at a depth are under while no heading applies, made once per
    /// subtest and shared by its cases.
    shared: Option<(u32, std::sync::Arc<str>)>,
    /// Whether the stream is in the dialect that announces every test: then its cases are the
    /// tests its producer counts.
    node: crate::event::leaves::NodeTest,
    /// The file's tests are leaf tests of packages or suites ([`FileInfo::leaves`]): one
    /// without tests that did not fail is no case, as it is no test in the counts.
    leaves: bool,
}

impl Cases {
    fn heading(&mut self, depth: u32, heading: Option<String>) {
        self.shared = None;
        let d = depth as usize;
        if self.headings.len() <= d {
            self.headings.resize(d + 1, None);
        }
        self.headings[d] = heading;
    }

    /// The names a case is under: its headings and subtests (`top > outer > inner`), no
    /// copy for a top-level point under no heading.
    fn parents(&mut self, a: &Assert<'_>) -> std::sync::Arc<str> {
        let d = a.depth as usize;
        let heading = |d: usize| self.headings.get(d).and_then(Option::as_deref);
        let level = (d > 0).then(|| heading(d)).flatten();
        if heading(0).is_some() || level.is_some() {
            // A heading is left out where the name starts with it: per point.
            let mut path =
                with_headings(heading(0), self.subtests.parents(a.depth), level, &a.name);
            path.pop();
            return path.join(" > ").into();
        }
        match &self.shared {
            Some((depth, names)) if *depth == a.depth => std::sync::Arc::clone(names),
            _ => {
                let names: std::sync::Arc<str> = self
                    .subtests
                    .parents(a.depth)
                    .collect::<Vec<_>>()
                    .join(" > ")
                    .into();
                self.shared = Some((a.depth, std::sync::Arc::clone(&names)));
                names
            }
        }
    }

    fn subtest_start(&mut self, depth: u32, name: &str) {
        self.shared = None;
        self.subtests.start(depth, name);
        let d = depth as usize;
        self.inside.truncate(d);
        self.inside.resize(d + 1, 0);
    }

    fn point(&mut self, a: &Assert<'_>) -> Option<CaseView> {
        let point = self.points;
        self.points += 1;
        let d = a.depth as usize;
        let children = match a.closes_subtest {
            true => self.inside.get(d + 1).copied().unwrap_or(0),
            false => 0,
        };
        if a.closes_subtest {
            self.inside.truncate(d + 1);
            self.shared = None;
        }
        if self.inside.len() <= d {
            self.inside.resize(d + 1, 0);
        }
        self.inside[d] += 1;
        // A subtest is no case of its own, unless it failed: its own failure may have been
        // explained (JUnit then gives it a case). In the dialect that announces every test,
        // the cases are the tests its producer counts: every point but a suite, a test with
        // subtests too; a suite only as a
        // subtest is, when its own failure (a hook that threw) was explained.
        let (case, test) = match self.node.owns(a) {
            true => {
                let suite = crate::event::leaves::is_suite(a);
                (!suite || a.is_failure(), !suite)
            }
            // A package or suite without tests (go's `[no test files]`) is no test.
            false if self.leaves && a.closes_subtest && children == 0 => {
                (a.is_failure(), a.is_failure())
            }
            false => (children == 0 || a.is_failure(), children == 0),
        };
        let case = case.then(|| CaseView {
            point,
            test,
            parents: self.parents(a),
            point_view: PointView::of(a),
        });
        self.subtests.after(a);
        case
    }
}

impl crate::report::sink::RunSink for Collector {
    fn on(&mut self, ev: &RunEvent) -> std::io::Result<()> {
        Collector::on(self, ev);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A collector behind the stage that explains the run, as every run has it.
    struct Explained(crate::report::sink::Explaining<Collector>);

    impl Explained {
        fn new(c: Collector) -> Self {
            Explained(crate::report::sink::Explaining::new(c))
        }
        fn on(&mut self, ev: &RunEvent) {
            crate::report::sink::RunSink::on(&mut self.0, ev).expect("a collector cannot fail");
        }
    }

    impl std::ops::Deref for Explained {
        type Target = Collector;
        fn deref(&self) -> &Collector {
            self.0.inner()
        }
    }
    use crate::event::run::{ExitInfo, FailureReason, FileInfo, RunSummary, Tally};
    use crate::event::Verdict;
    use std::borrow::Cow;
    use std::time::Duration;

    fn point(depth: u32, id: u64, ok: bool, name: &str) -> Event<'static> {
        Event::Assert(Assert {
            depth,
            id: Some(id),
            ..Assert::plain(ok, name)
        })
    }

    fn verdict(ok: bool) -> Verdict<'static> {
        Verdict {
            ok,
            count: 0,
            pass: 0,
            fail: 0,
            todo: 0,
            skip: 0,
            plan: None,
            bailout: None,
            reasons: Vec::new(),
        }
    }

    fn result(ok: bool, tally: Tally, reasons: &[&str], exit: Option<i32>) -> FileResult {
        FileResult {
            ok,
            reasons: reasons.iter().map(|r| FailureReason::from(*r)).collect(),
            exit: exit.map(|code| ExitInfo {
                code: Some(code),
                signal: None,
            }),
            timed_out: false,
            cancelled: exit.is_none(),
            leaked: false,
            duration: Duration::from_millis(5),
            tally,
            verdict: verdict(ok),
            attempts: 1,
            flaky: false,
            cached: false,
            no_tests: false,
            tests: Default::default(),
        }
    }

    fn started(index: usize, rel: &str) -> RunEvent {
        RunEvent::FileStarted {
            run: 1,
            file: FileInfo {
                index,
                rel: rel.to_owned(),
                command: format!("sh {rel}"),
                log: Some(format!(".nogit/testlogs/{index}.log").into()),
                attempt: 1,
                leaves: false,
            },
        }
    }

    fn tap(file: usize, event: Event<'static>) -> RunEvent {
        RunEvent::Tap {
            run: 1,
            file,
            event,
        }
    }

    /// Each way a file can end has its own status, as the terminal says it: a file stopped
    /// with no failing point is cancelled (not failed), one whose harness found no tests says
    /// so (not skipped).
    #[test]
    fn a_stopped_file_is_cancelled_and_an_empty_one_has_no_tests() {
        let mut c = Explained::new(Collector::new(Meta::default()));
        let one = |pass, fail| Tally {
            pass,
            fail,
            ..Tally::default()
        };
        let mut stopped = result(false, one(1, 0), &["interrupted"], Some(130));
        stopped.cancelled = true;
        let mut stopped_failing = result(false, one(0, 1), &["interrupted"], Some(130));
        stopped_failing.cancelled = true;
        let mut empty = result(true, one(0, 0), &[], Some(5));
        empty.no_tests = true;
        let never = result(false, one(0, 0), &["interrupted"], None);
        let ends = [stopped, stopped_failing, empty, never];
        c.on(&RunEvent::RunStarted {
            run: 1,
            files: ends.len(),
            jobs: 1,
            started_ms: None,
            host: None,
            cwd: None,
            command: None,
            test_filter: None,
        });
        for (index, end) in ends.into_iter().enumerate() {
            c.on(&started(index, &format!("t/{index}.sh")));
            let ok = end.tally.fail == 0;
            c.on(&tap(index, point(0, 1, ok, "x")));
            c.on(&RunEvent::FileFinished {
                run: 1,
                file: index,
                result: Box::new(end),
            });
        }
        let statuses: Vec<FileStatus> = (0..4)
            .filter_map(|index| c.file(index).map(|f| f.status))
            .collect();
        assert_eq!(
            statuses,
            [
                FileStatus::Cancelled,
                FileStatus::Fail,
                FileStatus::NoTests,
                FileStatus::NotRun
            ]
        );
    }

    #[test]
    fn a_retried_file_keeps_its_failed_attempts_and_a_series_its_stability() {
        let mut c = Explained::new(Collector::new(Meta::default()));
        let mut failed = result(
            false,
            Tally {
                fail: 1,
                ..Tally::default()
            },
            &["1 failed"],
            Some(1),
        );
        failed.duration = Duration::from_millis(7);
        let mut passed = result(
            true,
            Tally {
                pass: 1,
                ..Tally::default()
            },
            &[],
            Some(0),
        );
        passed.attempts = 2;
        passed.flaky = true;
        let retry = match started(0, "t/flip.sh") {
            RunEvent::FileStarted { run, mut file } => {
                file.attempt = 2;
                RunEvent::FileStarted { run, file }
            }
            _ => unreachable!(),
        };
        let events = vec![
            RunEvent::RunStarted {
                run: 1,
                files: 1,
                jobs: 1,
                started_ms: None,
                host: None,
                cwd: None,
                command: None,
                test_filter: None,
            },
            started(0, "t/flip.sh"),
            tap(0, point(0, 1, false, "coin")),
            RunEvent::AttemptFailed {
                run: 1,
                file: 0,
                attempt: 1,
                of: 2,
                result: Box::new(failed),
            },
            retry,
            tap(0, point(0, 1, true, "coin")),
            RunEvent::FileFinished {
                run: 1,
                file: 0,
                result: Box::new(passed),
            },
            RunEvent::RunFinished {
                run: 1,
                summary: Box::new(RunSummary {
                    ok: true,
                    files_total: 1,
                    files_passed: 1,
                    tests: Tally::default(),
                    duration: Duration::from_millis(20),
                    flaky: vec![("t/flip.sh".into(), 2)],
                    ..RunSummary::default()
                }),
            },
            RunEvent::SeriesFinished {
                stability: crate::event::stability::Stability {
                    runs: 1,
                    ..Default::default()
                },
            },
        ];
        for ev in &events {
            c.on(ev);
        }
        let view = c.view();
        let f = &view.files[0];
        assert!(f.flaky);
        assert_eq!((f.attempts, f.status), (2, FileStatus::Pass));
        assert!(f.failures.is_empty());
        assert_eq!(f.earlier_attempts.len(), 1);
        let first = &f.earlier_attempts[0];
        assert_eq!(
            (first.attempt, first.duration),
            (1, Duration::from_millis(7))
        );
        assert_eq!(first.failures[0].name, "coin");
        assert_eq!(first.reasons, ["1 failed"]);
        assert_eq!(view.stability.as_ref().map(|s| s.runs), Some(1));
    }

    /// A file whose error follows its `not ok` (protocol-spec/producers.md); the next test
    /// prints, then passes.
    #[test]
    fn output_after_a_failing_point_is_its_own_and_stays_out_of_the_next_point() {
        let line = |n: u64, text: &str| {
            tap(
                0,
                Event::Output {
                    depth: 0,
                    line: n,
                    text: Cow::Owned(text.to_owned()),
                },
            )
        };
        let diag = |text: &str| {
            tap(
                0,
                Event::Comment {
                    depth: 0,
                    line: 0,
                    text: Cow::Owned(text.to_owned()),
                },
            )
        };
        let mut c = Explained::new(Collector::new(Meta::default()));
        let events = vec![
            RunEvent::RunStarted {
                run: 1,
                files: 1,
                jobs: 1,
                started_ms: None,
                host: None,
                cwd: None,
                command: None,
                test_filter: None,
            },
            started(0, "t/bundle.ts"),
            line(1, "log before the failing expect"),
            tap(0, point(0, 1, false, "compares strings")),
            line(3, "Error: Expected value to equal \"hello there\""),
            line(4, "    at TapTest.testFunction (t/bundle.ts:12:25)"),
            line(5, "log from the next test"),
            tap(0, point(0, 2, false, "next fails too")),
            diag("  Failed test 'next fails too'"),
            tap(0, point(0, 3, true, "passes")),
        ];
        for ev in &events {
            c.on(ev);
        }
        let f = c.file(0).expect("the file is being built");
        let outputs: Vec<&[String]> = f.failures.iter().map(|f| f.output.as_slice()).collect();
        // The error dump after `not ok` ends at its last frame: what follows is printed by the
        // next test (a producer that prints a test's output before its point, docs/failures.md).
        assert_eq!(
            outputs,
            [
                &["log before the failing expect"][..],
                &["log from the next test", "#   Failed test 'next fails too'"][..],
            ]
        );
        // The error printed after `not ok` is the first failure's, read as its explanation.
        let first = &f.failures[0];
        assert_eq!(
            first.message.as_deref(),
            Some("Expected value to equal \"hello there\"")
        );
        assert_eq!(
            first.stack.as_deref(),
            Some("at TapTest.testFunction (t/bundle.ts:12:25)")
        );
    }

    #[test]
    fn a_run_becomes_files_points_and_failures() {
        let mut c = Explained::new(Collector::new(Meta::default()));
        let mut closing = match point(0, 2, false, "group") {
            Event::Assert(a) => a,
            _ => unreachable!(),
        };
        closing.closes_subtest = true;
        let mut with_diff = match point(0, 3, false, "compares") {
            Event::Assert(a) => a,
            _ => unreachable!(),
        };
        with_diff.diagnostics = Some(Cow::Borrowed("wanted: 1\nfound: 2\nat: t/a.sh:3\n"));
        let events = vec![
            RunEvent::RunStarted {
                run: 1,
                files: 3,
                jobs: 1,
                started_ms: None,
                host: None,
                cwd: None,
                command: None,
                test_filter: None,
            },
            started(0, "t/a.sh"),
            tap(0, point(0, 1, true, "first")),
            tap(
                0,
                Event::SubtestStart {
                    depth: 0,
                    line: 0,
                    name: Cow::Borrowed("group"),
                    buffered: false,
                },
            ),
            tap(
                0,
                Event::Output {
                    depth: 1,
                    line: 0,
                    text: Cow::Borrowed("inner says hi"),
                },
            ),
            tap(0, point(1, 1, false, "inner")),
            tap(0, Event::Assert(closing)),
            tap(0, Event::Assert(with_diff)),
            tap(
                0,
                Event::Output {
                    depth: 0,
                    line: 0,
                    text: Cow::Borrowed("printed after it"),
                },
            ),
            RunEvent::FileFinished {
                run: 1,
                file: 0,
                result: Box::new(result(
                    false,
                    Tally {
                        pass: 1,
                        fail: 2,
                        ..Tally::default()
                    },
                    &["2 failed"],
                    Some(1),
                )),
            },
            started(1, "t/crash.sh"),
            RunEvent::Stderr {
                run: 1,
                file: 1,
                text: "Segmentation fault".into(),
            },
            RunEvent::FileFinished {
                run: 1,
                file: 1,
                result: Box::new(result(
                    false,
                    Tally::default(),
                    &["killed by SIGSEGV"],
                    Some(139),
                )),
            },
            // A stale event of another run is ignored.
            RunEvent::Stderr {
                run: 0,
                file: 1,
                text: "old".into(),
            },
            RunEvent::RunFinished {
                run: 1,
                summary: Box::new(RunSummary {
                    ok: false,
                    files_total: 3,
                    files_failed: 2,
                    files_not_run: 1,
                    tests: Tally {
                        pass: 1,
                        fail: 2,
                        ..Tally::default()
                    },
                    duration: Duration::from_millis(40),
                    ..RunSummary::default()
                }),
            },
        ];
        for ev in &events {
            c.on(ev);
        }
        let view = c.view();
        assert!(!view.ok);
        assert!(view.started.is_some());
        assert_eq!(view.files.len(), 2);
        let a = &view.files[0];
        assert_eq!(a.status, FileStatus::Fail);
        assert_eq!(a.points.len(), 3, "top-level points only");
        // The subtest that failed through its child is said by the child's path.
        let names: Vec<&str> = a.failures.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["group > inner", "compares"]);
        assert_eq!(a.failures[0].output, ["inner says hi"]);
        assert_eq!(a.failures[1].output, ["printed after it"]);
        assert_eq!(a.failures[1].location.as_deref(), Some("t/a.sh:3"));
        assert!(a.failures[1].diff.is_some());
        assert_eq!(a.log.as_deref(), Some(".nogit/testlogs/0.log"));
        let crash = &view.files[1];
        assert_eq!(crash.status, FileStatus::Fail);
        assert_eq!(crash.reasons, ["killed by SIGSEGV"]);
        assert_eq!(crash.output_tail, ["Segmentation fault"]);
    }
}
