//! `-o report.xml`: JUnit XML in the dialect CI systems read (Jenkins, GitLab, GitHub test
//! reporters, Azure), written with quick-junit as nextest writes it.
//!
//! - one `<testsuite>` per test file, `name` = its path, with `<system-out>` (the file's
//!   non-TAP stdout) and `<system-err>` (its stderr), the newest lines of each when there were
//!   many (the log path says where the rest is);
//! - one `<testcase>` per leaf test, at any depth (a `go-json` package's tests,
//!   a JUnit suite's cases, a TAP subtest's points): `classname` = the file's path, `name` = the
//!   test's subtest path as the terminal joins it (`parent > child`; `#N` for a point with
//!   no name), `time` from the producer when it gave one; in the dialect that announces every
//!   test, one per test its producer counts: a test with subtests is a case too, a suite
//!   never is;
//! - a failing test has `<failure message="…">`: the first line of its message (else its name)
//!   and as text the run's one explanation of it in plain text (message, the expected/actual
//!   diff, location and stack, the test's own output: see `explain`), matched by its place in the stream,
//!   never by name, so two failures with one name are two cases with their own explanations;
//!   a subtest whose own failure was explained (not only its children's) is a case too;
//! - SKIP and TODO points are `<skipped message="…">` (`TODO: …` for TODO);
//! - a file that failed without a failing point (crash, timeout, exit code, missing plan, no
//!   TAP, bail out) has a `<testcase name="(file)">` with `<error message="reasons">`;
//! - a file never started (`--max-fail`, Ctrl-C) is a testcase `<skipped message="not run">`;
//! - a flaky file (failed, then passed on a retry) keeps its failed attempts as
//!   `<flakyFailure>` on its test case, as nextest does.
//!
//! XML 1.0 forbids most control characters: in names and `<system-out>`/`<system-err>`
//! quick-junit strips ANSI escapes and C0 controls (tabs too) and the non-characters U+FFFE
//! and U+FFFF are replaced here; a failure's message and body keep every character as the
//! child printed it, tabs included, those XML cannot carry made visible (`\u{1b}`: `kept`).
//!
//! A run's `.xml` is written in pieces (`Suites`): each file's suite serialized by quick-junit
//! as the file ends, the document joined when the run ends. Plain cases (passing or skipped,
//! printable ASCII) are written by `plain.rs` into the suite quick-junit serialized around
//! them, in quick-junit's own bytes: every document equals `write_whole()`'s, quick-junit
//! writing every case (tests, and a property test over generated runs).
use super::record::{
    CaseView, Collector, FailureView, FileStatus, FileView, Pieces, PointStatus, PointView,
    RunView, SpooledRun,
};
use crate::event::run::RunEvent;
use crate::explain::diff::DiffLine;
use quick_junit::{
    NonSuccessKind, Report, TestCase, TestCaseStatus, TestRerun, TestSuite, XmlString,
};
use std::borrow::Cow;
use std::io::{self, Write};
use std::ops::Range;
use std::time::Duration;

mod plain;

/// The report's name, on its root element.
const NAME: &str = "tapline";

/// Writes the JUnit document for `run`.
///
/// # Errors
///
/// Only errors from writing to `out`.
pub fn write(out: &mut dyn Write, run: &RunView) -> io::Result<()> {
    let mut suites = Suites::default();
    let rendered: Option<Vec<Suite>> = run.files.iter().map(|f| suites.render(f)).collect();
    match rendered {
        Some(rendered) => suites.join(out, run, &rendered, None),
        None => write_whole(out, run),
    }
}

/// The JUnit document for `run` as quick-junit writes it alone: built whole, every case
/// through quick-junit, then serialized. What the pieces and plain cases must equal.
fn write_whole(out: &mut dyn Write, run: &RunView) -> io::Result<()> {
    let mut report = Report::new(NAME);
    report.set_time(run.duration);
    let filter = run
        .test_filter
        .as_ref()
        .map(|f| crate::report::test_filter_said(f));
    for file in &run.files {
        report.add_test_suite(suite(file, Vec::new(), None, filter.as_deref()));
    }
    let mut xml = Vec::new();
    report.serialize(&mut xml).map_err(io::Error::other)?;
    restore_kept(&mut xml);
    out.write_all(&xml)
}

/// The JUnit document of a run written in pieces, byte for byte what [`write_whole()`] makes of it:
/// each file's `<testsuite>` serialized as the file ends, so the end of the run only adds up
/// the counts and joins them. A `--runs N` series writes its last run's document once at its
/// end instead (rendering every run's files would be work thrown away).
#[derive(Default)]
pub(crate) struct Suites {
    /// By file index: the file's `<testsuite>`, dropped if a later event changes the file.
    done: Pieces<Suite>,
    /// One file's document is serialized here, then its suite copied out.
    scratch: Vec<u8>,
    /// The last suite's test cases, emptied for the next (see [`suite`]).
    cases: Vec<TestCase>,
    /// The plain cases of the suite being rendered.
    plain: plain::Runs,
    /// The counts of the suite serialized last.
    last: Counts,
    /// What `-t` or `--only-failed` narrowed the run to: each suite's `test_filter` property.
    filter: Option<String>,
}

/// One `<testsuite>` element as the whole document holds it (its line break and indentation
/// first), with the counts the root element adds up.
struct Suite {
    parts: Vec<plain::Part>,
    counts: Counts,
}

/// A suite's counts of test cases.
#[derive(Clone, Copy, Default)]
struct Counts {
    tests: usize,
    failures: usize,
    errors: usize,
    skipped: usize,
}

impl Counts {
    fn of(suite: &TestSuite) -> Self {
        Counts {
            tests: suite.tests,
            failures: suite.failures,
            errors: suite.errors,
            skipped: suite.skipped,
        }
    }
}

impl Suites {
    /// Follows the run after `record` has seen `ev`.
    pub(crate) fn on(&mut self, ev: &RunEvent, record: &Collector) {
        if let RunEvent::RunStarted { test_filter, .. } = ev {
            self.filter = test_filter
                .as_ref()
                .map(|f| crate::report::test_filter_said(f));
        }
        if let Some(index) = self.done.on(ev) {
            if let Some(suite) = record.file(index).and_then(|f| self.render(f)) {
                self.done.keep(index, suite);
            }
        }
    }

    /// Writes the document of the run `record` holds, which has just ended: the suites
    /// rendered as their files ended, the others rendered now.
    ///
    /// # Errors
    ///
    /// Only errors from writing to `out`.
    pub(crate) fn write(&mut self, out: &mut dyn Write, record: &Collector) -> io::Result<()> {
        let run = record.view();
        let indices = record.file_indices();
        let suites: Option<Vec<Suite>> = (indices.len() == run.files.len())
            .then(|| {
                (run.files.iter().zip(indices))
                    .map(|(file, &i)| {
                        let rendered = self.done.take(i);
                        rendered.or_else(|| self.render(file))
                    })
                    .collect()
            })
            .flatten();
        match suites {
            Some(suites) => self.join(out, run, &suites, record.spool()),
            // Not expected; the whole document is still right.
            None => write_whole(out, run),
        }
    }

    /// The document of `run` around its rendered `suites`.
    fn join(
        &mut self,
        out: &mut dyn Write,
        run: &RunView,
        suites: &[Suite],
        spool: Option<&std::fs::File>,
    ) -> io::Result<()> {
        let mut root = Report::new(NAME);
        root.set_time(run.duration);
        for s in suites {
            root.tests += s.counts.tests;
            root.failures += s.counts.failures;
            root.errors += s.counts.errors;
            root.skipped += s.counts.skipped;
        }
        self.scratch.clear();
        root.serialize(&mut self.scratch)
            .map_err(io::Error::other)?;
        let Some(body) = body(&self.scratch) else {
            return write_whole(out, run);
        };
        out.write_all(&self.scratch[..body.start])?;
        for s in suites {
            for part in &s.parts {
                match part {
                    plain::Part::Text(text) => out.write_all(text)?,
                    plain::Part::Spool(bytes) => copy_spooled(out, spool, bytes)?,
                }
            }
        }
        out.write_all(&self.scratch[body.end..])
    }

    /// `file`'s suite, serialized as the only one of a document and cut out of it, its plain
    /// cases spliced in (or, should their markers not be found, every case by quick-junit).
    fn render(&mut self, file: &FileView) -> Option<Suite> {
        let rendered = self.serialize(file, true)?;
        let rendered = self.scratch.get(rendered)?;
        let parts = if self.plain.is_empty() {
            vec![plain::Part::Text(rendered.to_vec())]
        } else {
            let mut parts = Vec::new();
            if self.plain.splice(rendered, &mut parts) {
                parts
            } else {
                let whole = self.serialize(file, false)?;
                vec![plain::Part::Text(self.scratch.get(whole)?.to_vec())]
            }
        };
        Some(Suite {
            parts,
            counts: self.last,
        })
    }

    /// `file`'s suite, plain cases as markers when `plain`, in a document of its own: the
    /// suite element's place in `self.scratch`, its counts in `self.last`.
    fn serialize(&mut self, file: &FileView, plain: bool) -> Option<Range<usize>> {
        let suite = suite(
            file,
            std::mem::take(&mut self.cases),
            plain.then_some(&mut self.plain),
            self.filter.as_deref(),
        );
        self.last = Counts::of(&suite);
        let mut doc = Report::new(NAME);
        doc.add_test_suite(suite);
        self.scratch.clear();
        let serialized = doc.serialize(&mut self.scratch);
        if let Some(mut suite) = doc.test_suites.pop() {
            self.cases = std::mem::take(&mut suite.test_cases);
            self.cases.clear();
        }
        serialized.ok()?;
        restore_kept(&mut self.scratch);
        body(&self.scratch)
    }
}

/// Where a serialized document's suites are: from the end of the `<testsuites …>` start tag
/// to the line break before `</testsuites>`. The suites are indented by their depth alone,
/// so one file's suite reads the same in a document of its own as among the others.
fn body(doc: &[u8]) -> Option<Range<usize>> {
    const ROOT: &[u8] = b"<testsuites";
    const END: &[u8] = b"\n</testsuites>";
    let root = doc.windows(ROOT.len()).position(|w| w == ROOT)?;
    // Attribute values are escaped: the first `>` ends the start tag.
    let start = root + doc[root..].iter().position(|&b| b == b'>')? + 1;
    let end = doc.windows(END.len()).rposition(|w| w == END)?;
    (start <= end).then_some(start..end)
}

/// `file`'s suite, its test cases pushed onto `cases` (emptied first; a buffer handed back
/// by the previous suite saves growing a large vector for every file). With `plain`, the
/// plain cases are written there and stand in the suite as markers (see `plain.rs`); the
/// suite's counts are those of its real cases either way. A retried file's cases are all
/// quick-junit's: its earlier attempts go onto one of them.
fn suite(
    file: &FileView,
    mut cases: Vec<TestCase>,
    mut plain: Option<&mut plain::Runs>,
    filter: Option<&str>,
) -> TestSuite {
    // Stripped of what XML cannot hold once, then copied into every case.
    let classname = XmlString::new(clean(&file.rel));
    if let Some(runs) = plain.as_deref_mut() {
        runs.begin(&classname);
    }
    let mut plain = plain.filter(|_| file.earlier_attempts.is_empty());
    let mut suite = TestSuite::new(classname.clone());
    if let Some(filter) = filter {
        // `-t 'adds' (2 files with no matching test not run)`: the suite is part of a
        // narrowed run, and its `not selected by the test filter` skips say which tests were left out.
        suite.add_property(quick_junit::Property::new("test_filter", clean(filter)));
    }
    cases.clear();
    cases.reserve(file.points.len() + 1);
    suite.test_cases = cases;
    if let Some(d) = file.duration {
        suite.set_time(d);
    }
    if file.status == FileStatus::NotRun {
        let mut status = TestCaseStatus::skipped();
        status.set_message("not run");
        suite.add_test_case(case(&classname, "(file)", status, None));
        return suite;
    }
    let explained: std::collections::HashMap<usize, &FailureView> =
        file.failures.iter().map(|f| (f.point, f)).collect();
    let mut any_failing_point = false;
    let mut spooled = file.spooled.iter().peekable();
    for (at, c) in file.cases.iter().enumerate() {
        add_spooled(&mut suite, &mut spooled, at, plain.as_deref_mut());
        let failure = explained.get(&c.point).copied();
        if !c.test && failure.is_none() {
            // A subtest that failed through its children: they are its cases.
            any_failing_point = true;
            continue;
        }
        let point = &c.point_view;
        let name = case_name(c);
        let id = c.test_id(&file.rel);
        let time = point
            .duration_ms
            .and_then(|ms| Duration::try_from_secs_f64(ms.max(0.0) / 1000.0).ok());
        if let Some(runs) = plain.as_deref_mut() {
            match plain_case(point, &name, time).filter(|_| plain::is_plain(&id)) {
                Some(case) => {
                    if let Some(marker) = runs.push(&name, &id, &case) {
                        suite.add_test_case(marker);
                    }
                    continue;
                }
                None => runs.interrupt(),
            }
        }
        let status = match point.status {
            PointStatus::Pass => TestCaseStatus::success(),
            PointStatus::Fail => {
                any_failing_point = true;
                failure_status(&c.name(), failure)
            }
            PointStatus::Skip | PointStatus::Todo | PointStatus::NotSelected => {
                skipped_status(point)
            }
        };
        let mut case = case(&classname, &name, status, time);
        with_id(&mut case, &classname, &id);
        suite.add_test_case(case);
    }
    add_spooled(
        &mut suite,
        &mut spooled,
        file.cases.len(),
        plain.as_deref_mut(),
    );
    if let Some(runs) = &plain {
        let (tests, skipped) = runs.counts();
        suite.tests += tests;
        suite.skipped += skipped;
    }
    if file.status == FileStatus::Fail && !any_failing_point {
        suite.add_test_case(file_error(file, &classname));
    }
    // Stopped with no failing point: no verdict of its own, so neither a pass nor an error.
    if file.status == FileStatus::Cancelled {
        let mut status = TestCaseStatus::skipped();
        status.set_message("cancelled: stopped before its end");
        suite.add_test_case(case(&classname, "(file)", status, file.duration));
    }
    if !file.earlier_attempts.is_empty() {
        add_reruns(&mut suite, file);
    }
    set_streams(&mut suite, file);
    suite
}

/// The runs of spooled cases that come before `file.cases[at]`, as markers (spooled cases
/// are only made where plain cases are written: without `runs` there are none).
fn add_spooled(
    suite: &mut TestSuite,
    spooled: &mut std::iter::Peekable<std::slice::Iter<'_, SpooledRun>>,
    at: usize,
    mut runs: Option<&mut plain::Runs>,
) {
    while let Some(run) = spooled.next_if(|r| r.before <= at) {
        if let Some(runs) = runs.as_deref_mut() {
            suite.add_test_case(runs.push_spooled(run));
        }
    }
}

/// Copies a run of spooled cases from the spool to `out`.
fn copy_spooled(
    out: &mut dyn Write,
    spool: Option<&std::fs::File>,
    bytes: &Range<u64>,
) -> io::Result<()> {
    use std::io::{Read, Seek, SeekFrom};
    let mut spool = spool.ok_or_else(|| io::Error::other("its spool of test cases is gone"))?;
    spool.seek(SeekFrom::Start(bytes.start))?;
    let len = bytes.end.saturating_sub(bytes.start);
    let copied = io::copy(&mut spool.take(len), out)?;
    match copied == len {
        true => Ok(()),
        false => Err(io::Error::other("its spool of test cases was cut short")),
    }
}

/// The classname of `rel`'s cases as a plain case's attribute holds it (for [`spool_case`]).
pub(crate) fn spool_classname(rel: &str) -> String {
    quick_xml::escape::escape(&*XmlString::new(clean(rel))).into_owned()
}

/// Appends `c`'s element to `out` when it is a plain case (passing or skipped, printable
/// ASCII), the bytes the document gives it among the cases of `rel` (`classname` from
/// [`spool_classname`]): `Some(skipped)`; `None` (nothing written) for any other case.
pub(crate) fn spool_case(
    c: &CaseView,
    rel: &str,
    classname: &str,
    out: &mut Vec<u8>,
) -> Option<bool> {
    if !c.test {
        return None;
    }
    let point = &c.point_view;
    let name = case_name(c);
    let time = point
        .duration_ms
        .and_then(|ms| Duration::try_from_secs_f64(ms.max(0.0) / 1000.0).ok());
    let case = plain_case(point, &name, time)?;
    let id = c.test_id(rel);
    if !plain::is_plain(&id) {
        return None;
    }
    plain::write_case(out, classname, &name, &id, &case);
    Some(case.skipped.is_some())
}

/// A case's name: its subtest path, a point with no name standing as its number.
fn case_name(c: &CaseView) -> Cow<'_, str> {
    let point = &c.point_view;
    if !point.name.is_empty() {
        return match c.name() {
            Cow::Borrowed(name) => clean(name),
            Cow::Owned(name) => Cow::Owned(clean(&name).into_owned()),
        };
    }
    let number = point
        .id
        .map_or_else(|| format!("#{}", c.point + 1), |id| format!("#{id}"));
    let parents = &*c.parents;
    match parents.is_empty() {
        true => Cow::Owned(number),
        false => Cow::Owned(clean(&format!("{parents} > {number}")).into_owned()),
    }
}

/// The file's stdout and stderr as the suite's `<system-out>` and `<system-err>`, every
/// character kept as a failure's body keeps it ([`kept`]: a tab stays a tab).
fn set_streams(suite: &mut TestSuite, file: &FileView) {
    let (out_dropped, err_dropped) = file.stream_lines_dropped;
    if !file.stdout.is_empty() {
        suite.set_system_out(kept(&stream_text(&file.stdout, out_dropped, file), false));
    }
    if !file.stderr.is_empty() {
        suite.set_system_err(kept(&stream_text(&file.stderr, err_dropped, file), false));
    }
}

/// The `(file)` case of a file that failed with no failing point: its reasons, the end of its
/// output and its log.
fn file_error(file: &FileView, classname: &XmlString) -> TestCase {
    let mut status = TestCaseStatus::non_success(NonSuccessKind::Error);
    let reasons = if file.reasons.is_empty() {
        "failed".to_owned()
    } else {
        file.reasons.join("; ")
    };
    status.set_message(clean(&reasons));
    status.set_type("file");
    let mut text = file.output_tail.join("\n");
    if let Some(log) = &file.log {
        text.push_str(&format!("\n(log: {log})"));
    }
    status.set_description(kept(&text, false));
    case(classname, "(file)", status, file.duration)
}

/// A SKIP or TODO point's `<skipped message="…">`.
fn skipped_status(point: &PointView) -> TestCaseStatus {
    let mut s = TestCaseStatus::skipped();
    s.set_message(clean(&skip_message(point)));
    s
}

fn skip_message(point: &PointView) -> Cow<'_, str> {
    let reason = point.reason.as_deref().unwrap_or("");
    match (point.status, reason.is_empty()) {
        (PointStatus::Todo, true) => Cow::Borrowed("TODO"),
        (PointStatus::Todo, false) => Cow::Owned(format!("TODO: {reason}")),
        (_, true) => Cow::Borrowed("SKIP"),
        (_, false) => Cow::Borrowed(reason),
    }
}

/// `point` as a plain case, when it is one: passing or skipped, its name and message
/// printable ASCII.
fn plain_case<'a>(
    point: &'a PointView,
    name: &str,
    time: Option<Duration>,
) -> Option<plain::Plain<'a>> {
    if !plain::is_plain(name) {
        return None;
    }
    let skipped = match point.status {
        PointStatus::Pass => None,
        PointStatus::Fail => return None,
        PointStatus::Skip | PointStatus::Todo | PointStatus::NotSelected => {
            let message = skip_message(point);
            if !plain::is_plain(&message) {
                return None;
            }
            Some(message)
        }
    };
    Some(plain::Plain { time, skipped })
}

fn case(
    classname: &XmlString,
    name: &str,
    status: TestCaseStatus,
    time: Option<Duration>,
) -> TestCase {
    let mut c = TestCase::new(name, status);
    c.set_classname(classname.clone());
    if let Some(t) = time {
        c.set_time(t);
    }
    c
}

/// A test point's case names its file (`file`, the attribute GitLab, CircleCI and Buildkite
/// read) and its stable ID (`<property name="test_id">`, as a case's properties are written
/// by a producer that writes JUnit XML itself: protocol-spec/producers.md): the ID of
/// `--format jsonl`, `tapline list` and history.
fn with_id(case: &mut TestCase, file: &XmlString, id: &str) {
    case.extra.insert(XmlString::new("file"), file.clone());
    case.add_property(quick_junit::Property::new("test_id", clean(id)));
}

/// A file run again (`--retries`) keeps its failed attempts on one test case (the file as a
/// whole was retried, not one test): `<flakyFailure>`s on its first when it passed in the end,
/// `<rerunFailure>`s on its first failing one when the last attempt failed too, as nextest
/// writes them (on a passing case they would read as flaky).
fn add_reruns(suite: &mut TestSuite, file: &FileView) {
    let failing = suite
        .test_cases
        .iter()
        .position(|c| matches!(c.status, TestCaseStatus::NonSuccess { .. }));
    let at = if file.flaky { 0 } else { failing.unwrap_or(0) };
    let Some(first) = suite.test_cases.get_mut(at) else {
        return;
    };
    let reruns = file.earlier_attempts.iter().map(|a| {
        let mut rerun = TestRerun::new(NonSuccessKind::Failure);
        let message = a
            .failures
            .iter()
            .find_map(|f| f.message.as_deref())
            .map(|m| m.lines().next().unwrap_or("").to_owned())
            .unwrap_or_else(|| a.reasons.join("; "));
        rerun.set_message(kept(&format!("attempt {}: {message}", a.attempt), true));
        rerun.set_type(if file.flaky { "flaky" } else { "rerun" });
        rerun.set_time(a.duration);
        let text: Vec<String> = a.failures.iter().map(|f| explain(f, true)).collect();
        if !text.is_empty() {
            rerun.set_description(kept(&text.join("\n\n"), false));
        }
        if !a.output_tail.is_empty() {
            rerun.set_system_out(kept(&a.output_tail.join("\n"), false));
        }
        rerun
    });
    match &mut first.status {
        TestCaseStatus::Success { flaky_runs } => flaky_runs.extend(reruns),
        status @ TestCaseStatus::NonSuccess { .. } => {
            status.add_reruns(reruns);
        }
        TestCaseStatus::Skipped { .. } => {}
    }
}

fn stream_text(lines: &[String], dropped: usize, file: &FileView) -> String {
    let mut text = String::new();
    if dropped > 0 {
        text.push_str(&format!("… {dropped} earlier lines"));
        if let Some(log) = &file.log {
            text.push_str(&format!(" in {log}"));
        }
        text.push('\n');
    }
    text.push_str(&lines.join("\n"));
    text
}

/// A failing case's `<failure>`: the first line of its explanation's message (else the
/// test's name) and the explanation as text. A failure past the reports' limit has only its
/// name.
fn failure_status(name: &str, failure: Option<&FailureView>) -> TestCaseStatus {
    let mut status = TestCaseStatus::non_success(NonSuccessKind::Failure);
    let message = failure
        .and_then(|f| f.message.as_deref())
        .and_then(|m| m.lines().find(|l| !l.trim().is_empty()))
        .map(|m| m.trim().to_owned())
        .or_else(|| (!name.is_empty()).then(|| name.to_owned()))
        // An unnamed failure says at least where it failed, as its harness does.
        .or_else(|| {
            failure?
                .location
                .as_ref()
                .map(|at| format!("failed at {at}"))
        })
        .unwrap_or_else(|| "failed".to_owned());
    status.set_message(kept(&message, true));
    if let Some(f) = failure {
        let text = explain(f, false);
        if !text.is_empty() {
            status.set_description(kept(&text, false));
        }
    }
    status
}

/// A failure as plain text, in the order a CI viewer's reader wants it (docs/reports.md,
/// "Failure bodies"): the message (with the producer's machine fields and other
/// diagnostics), the expected/actual diff, the location and stack, the test's own output;
/// a blank line between them, no heading, gutter or colour. `with_name` heads it with the
/// test's name (an earlier attempt's failures share one body).
pub(crate) fn explain(f: &FailureView, with_name: bool) -> String {
    let mut sections: Vec<Vec<String>> = Vec::new();
    let mut said = Vec::new();
    if with_name {
        said.push(format!("{}:", f.name));
    }
    if let Some(m) = &f.message {
        said.extend(m.trim_end().lines().map(str::to_owned));
    }
    said.extend(f.machine.clone());
    said.extend(f.other.iter().map(|(k, v)| format!("{k}: {v}")));
    if let Some((raw, err)) = &f.raw_yaml {
        said.push(format!("diagnostics are not valid YAML ({err}):"));
        said.extend(raw.lines().take(20).map(|l| format!("  {l}")));
    }
    sections.push(said);
    if let Some(diff) = &f.diff {
        sections.push(diff.lines.iter().map(DiffLine::plain_text).collect());
    }
    let mut place: Vec<String> = f.location.iter().map(|at| format!("at {at}")).collect();
    if let Some(stack) = &f.stack {
        place.extend(
            stack
                .lines()
                .filter(|l| !l.trim().is_empty())
                .map(str::to_owned),
        );
    }
    sections.push(place);
    // The output as printed: a viewer shows the body in a monospace block, where the blank
    // line before it is the separation (a heading would read as one of its lines).
    sections.push(f.output.clone());
    sections.retain(|s| !s.is_empty());
    let sections: Vec<String> = sections.iter().map(|s| s.join("\n")).collect();
    sections.join("\n\n")
}

/// Stands before `t`, `T` or `r` for a tab or carriage return that quick-junit would
/// drop (its `XmlString` strips them with ANSI escapes) until [`restore_kept`] puts them back
/// in the serialized bytes. `clean` keeps U+FFFF out of every other text, and the plain
/// cases' marker is U+FFFF followed by `"`.
const KEEP: char = '\u{FFFF}';

/// A body or message as the child printed it, ready for quick-junit: tabs and carriage
/// returns kept (see [`KEEP`]), every other control character (C0 but the line break, DEL,
/// C1, so the escapes of ANSI colour too) and the non-characters XML 1.0 cannot carry
/// made visible as `\u{1b}`. `attribute`: for an attribute value, where a tab must be a
/// reference to survive the reader's attribute normalization.
fn kept(text: &str, attribute: bool) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\n' => out.push(c),
            '\t' => {
                out.push(KEEP);
                out.push(if attribute { 'T' } else { 't' });
            }
            '\r' => {
                out.push(KEEP);
                out.push('r');
            }
            c if c.is_control() || matches!(c, '\u{FFFE}' | '\u{FFFF}') => {
                out.push_str(&format!("\\u{{{:x}}}", u32::from(c)));
            }
            c => out.push(c),
        }
    }
    out
}

/// `xml` as serialized, each [`KEEP`] pair replaced by the character it stands for.
fn restore_kept(xml: &mut Vec<u8>) {
    const MARK: &[u8] = "\u{FFFF}".as_bytes();
    let at: Vec<usize> = memchr::memmem::find_iter(xml, MARK).collect();
    if at.is_empty() {
        return;
    }
    let mut out = Vec::with_capacity(xml.len());
    let mut last = 0;
    for i in at {
        let kept: &[u8] = match xml.get(i + MARK.len()) {
            Some(b't') => b"\t",
            Some(b'T') => b"&#9;",
            Some(b'r') => b"&#13;",
            // A marker of `plain.rs`: not ours.
            _ => continue,
        };
        out.extend_from_slice(&xml[last..i]);
        out.extend_from_slice(kept);
        last = i + MARK.len() + 1;
    }
    out.extend_from_slice(&xml[last..]);
    *xml = out;
}

/// Text XML 1.0 accepts: quick-junit strips ANSI escapes and C0 controls; the two
/// non-characters it leaves are replaced (a copy only when there is one).
fn clean(text: &str) -> Cow<'_, str> {
    if text.contains(['\u{FFFE}', '\u{FFFF}']) {
        Cow::Owned(text.replace(['\u{FFFE}', '\u{FFFF}'], "\u{FFFD}"))
    } else {
        Cow::Borrowed(text)
    }
}

#[cfg(test)]
mod tests;
