//! `-o report.xml`: JUnit XML in the dialect CI systems read (Jenkins, GitLab, GitHub test
//! reporters, Azure), written with quick-junit as nextest writes it.
//!
//! - one `<testsuite>` per test file, `name` = its path, with `<system-out>` (the file's
//!   non-TAP stdout) and `<system-err>` (its stderr), the newest lines of each when there were
//!   many (the log path says where the rest is);
//! - one `<testcase>` per top-level test point: `classname` = the file, `name` = the point's
//!   name (`#N` when it has none), `time` from the producer when it gave one;
//! - a failing point has `<failure message="…">` whose text is the explanation the terminal
//!   gives, without colour: location, message, the expected/actual diff, stack, output; failures
//!   inside subtests are explained under their top-level point with `parent > child` names;
//! - SKIP and TODO points are `<skipped message="…">` (`TODO: …` for TODO);
//! - a file that failed without a failing point (crash, timeout, exit code, missing plan, no
//!   TAP, bail out) has a `<testcase name="(file)">` with `<error message="reasons">`;
//! - a file never started (`--max-fail`, Ctrl-C) is a testcase `<skipped message="not run">`;
//! - a flaky file (failed, then passed on a retry) keeps its failed attempts as
//!   `<flakyFailure>` on its test case, as nextest does.
//!
//! XML 1.0 forbids most control characters: quick-junit strips ANSI escapes and C0 controls;
//! the non-characters U+FFFE and U+FFFF are replaced here.
//!
//! A run's `.xml` is written in pieces (`Suites`): each file's suite serialized by quick-junit
//! as the file ends, the document joined when the run ends, identical to [`write()`]'s.
use super::diff::DiffLine;
use super::record::{
    Collector, FailureView, FileStatus, FileView, Pieces, PointStatus, PointView, RunView,
};
use crate::event::run::RunEvent;
use quick_junit::{
    NonSuccessKind, Report, TestCase, TestCaseStatus, TestRerun, TestSuite, XmlString,
};
use std::borrow::Cow;
use std::io::{self, Write};
use std::ops::Range;
use std::time::Duration;

/// The report's name, on its root element.
const NAME: &str = "tapline";

/// Writes the JUnit document for `run`, built whole and then serialized.
///
/// # Errors
///
/// Only errors from writing to `out`.
pub fn write(out: &mut dyn Write, run: &RunView) -> io::Result<()> {
    let mut report = Report::new(NAME);
    report.set_time(run.duration);
    for file in &run.files {
        report.add_test_suite(suite(file, Vec::new()));
    }
    report.serialize(out).map_err(io::Error::other)
}

/// The JUnit document of a run written in pieces, byte for byte what [`write()`] makes of it:
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
}

/// One `<testsuite>` element as the whole document holds it (its line break and indentation
/// first), with the counts the root element adds up.
struct Suite {
    xml: Vec<u8>,
    tests: usize,
    failures: usize,
    errors: usize,
    skipped: usize,
}

impl Suites {
    /// Follows the run after `record` has seen `ev`.
    pub(crate) fn on(&mut self, ev: &RunEvent, record: &Collector) {
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
        let Some(suites) = suites else {
            // Not expected; the whole document is still right.
            return write(out, run);
        };
        let mut root = Report::new(NAME);
        root.set_time(run.duration);
        for s in &suites {
            root.tests += s.tests;
            root.failures += s.failures;
            root.errors += s.errors;
            root.skipped += s.skipped;
        }
        self.scratch.clear();
        root.serialize(&mut self.scratch)
            .map_err(io::Error::other)?;
        let Some(body) = body(&self.scratch) else {
            return write(out, run);
        };
        out.write_all(&self.scratch[..body.start])?;
        for s in &suites {
            out.write_all(&s.xml)?;
        }
        out.write_all(&self.scratch[body.end..])
    }

    /// `file`'s suite, serialized as the only one of a document and cut out of it.
    fn render(&mut self, file: &FileView) -> Option<Suite> {
        let suite = suite(file, std::mem::take(&mut self.cases));
        let (tests, failures, errors, skipped) =
            (suite.tests, suite.failures, suite.errors, suite.skipped);
        let mut doc = Report::new(NAME);
        doc.add_test_suite(suite);
        self.scratch.clear();
        let serialized = doc.serialize(&mut self.scratch);
        if let Some(mut suite) = doc.test_suites.pop() {
            self.cases = std::mem::take(&mut suite.test_cases);
            self.cases.clear();
        }
        serialized.ok()?;
        let xml = self.scratch.get(body(&self.scratch)?)?.to_vec();
        Some(Suite {
            xml,
            tests,
            failures,
            errors,
            skipped,
        })
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
/// by the previous suite saves growing a large vector for every file).
fn suite(file: &FileView, mut cases: Vec<TestCase>) -> TestSuite {
    // Stripped of what XML cannot hold once, then copied into every case.
    let classname = XmlString::new(clean(&file.rel));
    let mut suite = TestSuite::new(classname.clone());
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
    let mut failures = file.failures.iter().peekable();
    let mut any_failing_point = false;
    for (n, point) in file.points.iter().enumerate() {
        let name = if point.name.is_empty() {
            Cow::Owned(format!("#{}", point.id.unwrap_or(n as u64 + 1)))
        } else {
            clean(&point.name)
        };
        let status = match point.status {
            PointStatus::Pass => TestCaseStatus::success(),
            PointStatus::Fail => {
                any_failing_point = true;
                // The failures explained under this point: its own, or its subtests'
                // (`name > …`).
                let prefix = format!("{} > ", point.name);
                let mut mine = Vec::new();
                while let Some(f) =
                    failures.next_if(|f| f.name == point.name || f.name.starts_with(&prefix))
                {
                    mine.push(f);
                }
                failure_status(&point.name, &mine)
            }
            PointStatus::Skip | PointStatus::Todo => skipped_status(point),
        };
        let time = point
            .duration_ms
            .map(|ms| Duration::from_secs_f64(ms.max(0.0) / 1000.0));
        suite.add_test_case(case(&classname, &name, status, time));
    }
    if file.status == FileStatus::Fail && !any_failing_point {
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
        status.set_description(clean(&text));
        suite.add_test_case(case(&classname, "(file)", status, file.duration));
    }
    if !file.earlier_attempts.is_empty() {
        add_reruns(&mut suite, file);
    }
    let (out_dropped, err_dropped) = file.stream_lines_dropped;
    if !file.stdout.is_empty() {
        suite.set_system_out(clean(&stream_text(&file.stdout, out_dropped, file)));
    }
    if !file.stderr.is_empty() {
        suite.set_system_err(clean(&stream_text(&file.stderr, err_dropped, file)));
    }
    suite
}

/// A SKIP or TODO point's `<skipped message="…">`.
fn skipped_status(point: &PointView) -> TestCaseStatus {
    let mut s = TestCaseStatus::skipped();
    let reason = point.reason.as_deref().unwrap_or("");
    let message = match (point.status, reason.is_empty()) {
        (PointStatus::Todo, true) => Cow::Borrowed("TODO"),
        (PointStatus::Todo, false) => Cow::Owned(format!("TODO: {reason}")),
        (_, true) => Cow::Borrowed("SKIP"),
        (_, false) => Cow::Borrowed(reason),
    };
    s.set_message(clean(&message));
    s
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
        rerun.set_message(clean(&format!("attempt {}: {message}", a.attempt)));
        rerun.set_type(if file.flaky { "flaky" } else { "rerun" });
        rerun.set_time(a.duration);
        let text: Vec<String> = a.failures.iter().map(|f| explain(f, true)).collect();
        if !text.is_empty() {
            rerun.set_description(clean(&text.join("\n\n")));
        }
        if !a.output_tail.is_empty() {
            rerun.set_system_out(clean(&a.output_tail.join("\n")));
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

fn failure_status(point: &str, failures: &[&FailureView]) -> TestCaseStatus {
    let mut status = TestCaseStatus::non_success(NonSuccessKind::Failure);
    let message = failures
        .iter()
        .find_map(|f| f.message.as_deref())
        .map(|m| m.lines().next().unwrap_or("").to_owned())
        .or_else(|| failures.first().map(|f| f.name.clone()))
        .unwrap_or_else(|| "failed".to_owned());
    status.set_message(clean(&message));
    let text: Vec<String> = failures
        .iter()
        .map(|f| explain(f, failures.len() > 1 || f.name != point))
        .collect();
    if !text.is_empty() {
        status.set_description(clean(&text.join("\n\n")));
    }
    status
}

/// A failure as plain text: what the terminal shows under a failing point, without colour.
pub(crate) fn explain(f: &FailureView, with_name: bool) -> String {
    let mut lines = Vec::new();
    if with_name {
        lines.push(format!("{}:", f.name));
    }
    if let Some(loc) = &f.location {
        lines.push(format!("at {loc}"));
    }
    if let Some(m) = &f.message {
        lines.extend(m.lines().map(str::to_owned));
    }
    for (k, v) in &f.other {
        lines.push(format!("{k}: {v}"));
    }
    if let Some(diff) = &f.diff {
        lines.push(String::new());
        lines.extend(diff.lines.iter().map(DiffLine::plain_text));
    }
    if let Some((raw, err)) = &f.raw_yaml {
        lines.push(format!("diagnostics are not valid YAML ({err}):"));
        lines.extend(raw.lines().take(20).map(|l| format!("  {l}")));
    }
    if let Some(stack) = &f.stack {
        lines.push(String::new());
        lines.extend(
            stack
                .lines()
                .filter(|l| !l.trim().is_empty())
                .map(str::to_owned),
        );
    }
    if !f.output.is_empty() {
        lines.push("output:".to_owned());
        lines.extend(f.output.iter().map(|l| format!("│ {l}")));
    }
    lines.join("\n")
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
mod tests {
    use super::*;

    fn file(rel: &str, status: FileStatus) -> FileView {
        FileView {
            rel: rel.to_owned(),
            status,
            duration: Some(Duration::from_millis(12)),
            tally: Default::default(),
            reasons: Vec::new(),
            log: Some(".nogit/testlogs/a.log".into()),
            command: None,
            points: Vec::new(),
            failures: Vec::new(),
            output_tail: Vec::new(),
            failures_left_out: 0,
            attempts: 1,
            flaky: false,
            cached: false,
            earlier_attempts: Vec::new(),
            stdout: Vec::new(),
            stderr: Vec::new(),
            stream_lines_dropped: (0, 0),
            warnings: Vec::new(),
        }
    }

    fn point(name: &str, status: PointStatus) -> PointView {
        PointView {
            id: None,
            name: name.to_owned(),
            status,
            reason: None,
            duration_ms: Some(1.5),
        }
    }

    fn xml(run: &RunView) -> String {
        let mut out = Vec::new();
        write(&mut out, run).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn points_skips_subtest_failures_and_crashes() {
        let mut a = file("t/a.t", FileStatus::Fail);
        a.points = vec![
            point("adds", PointStatus::Pass),
            point("group", PointStatus::Fail),
            point("later", PointStatus::Todo),
        ];
        a.failures = vec![FailureView {
            name: "group > inner <b>".into(),
            message: Some("boom ]]> \u{1b}[31mred\u{1b}[0m \u{7}bell".into()),
            ..FailureView::default()
        }];
        let mut b = file("t/b.t", FileStatus::Fail);
        b.reasons = vec!["killed by SIGSEGV".into()];
        b.output_tail = vec!["Segmentation fault".into()];
        b.stderr = vec!["oops".into()];
        let c = file("t/c.t", FileStatus::NotRun);
        let run = RunView {
            files: vec![a, b, c],
            ..RunView::default()
        };
        let x = xml(&run);
        assert!(x.contains(r#"<testsuite name="t/a.t" tests="3""#), "{x}");
        assert!(
            x.contains(r#"<testcase name="adds" classname="t/a.t" time="0.002"#),
            "{x}"
        );
        assert!(x.contains("group &gt; inner &lt;b&gt;:"), "{x}");
        assert!(
            x.contains("boom ]]&gt; red bell"),
            "control bytes and ANSI stripped: {x}"
        );
        assert!(x.contains(r#"<skipped message="TODO"/>"#), "{x}");
        assert!(
            x.contains(r#"<error message="killed by SIGSEGV" type="file">"#),
            "{x}"
        );
        assert!(x.contains("<system-err>oops</system-err>"), "{x}");
        assert!(x.contains(r#"<skipped message="not run"/>"#), "{x}");
        assert!(!x.contains('\u{1b}') && !x.contains('\u{7}'));
    }

    #[test]
    fn a_flaky_file_keeps_its_failed_attempts() {
        let mut a = file("t/flaky.t", FileStatus::Pass);
        a.points = vec![point("works", PointStatus::Pass)];
        a.flaky = true;
        a.attempts = 2;
        a.earlier_attempts = vec![crate::report::record::AttemptView {
            attempt: 1,
            duration: Duration::from_millis(5),
            reasons: vec!["exited with code 1".into()],
            failures: Vec::new(),
            output_tail: vec!["first try".into()],
            log: None,
        }];
        let x = xml(&RunView {
            files: vec![a],
            ..RunView::default()
        });
        assert!(x.contains("<flakyFailure"), "{x}");
        assert!(
            x.contains(r#"message="attempt 1: exited with code 1" type="flaky""#),
            "{x}"
        );
    }

    #[test]
    fn a_file_failing_every_attempt_keeps_them_as_rerun_failures_of_its_failing_case() {
        let mut a = file("t/broken.t", FileStatus::Fail);
        a.points = vec![
            point("passes", PointStatus::Pass),
            point("breaks", PointStatus::Fail),
        ];
        a.attempts = 2;
        a.earlier_attempts = vec![crate::report::record::AttemptView {
            attempt: 1,
            duration: Duration::from_millis(5),
            reasons: vec!["1 test point failed".into()],
            failures: Vec::new(),
            output_tail: Vec::new(),
            log: None,
        }];
        let x = xml(&RunView {
            files: vec![a],
            ..RunView::default()
        });
        assert!(!x.contains("<flakyFailure"), "{x}");
        let breaks = x.find(r#"name="breaks""#).expect("failing case");
        let rerun = x.find("<rerunFailure").expect("rerun kept");
        assert!(rerun > breaks, "the rerun belongs to the failing case: {x}");
        assert!(x.contains(r#"type="rerun""#), "{x}");
    }

    // ------------------------------------------- rendered as files end, equal to the whole

    mod pieces {
        use super::super::*;
        use crate::event::run::{ExitInfo, FileInfo, FileResult, RunSummary, Tally};
        use crate::event::{Assert, Event, Verdict};
        use crate::report::record::Meta;
        use std::borrow::Cow;

        /// Builds a run's events by hand, as the scheduler sends them.
        struct Run {
            run: u64,
            events: Vec<RunEvent>,
            tallies: Vec<Tally>,
        }

        fn assert(ok: bool, name: &str) -> Assert<'static> {
            Assert {
                depth: 0,
                line: 0,
                ok,
                id: None,
                name: Cow::Owned(name.to_owned()),
                skip: None,
                todo: None,
                duration_ms: None,
                diagnostics: None,
                meta: None,
                blocks: Vec::new(),
                closes_subtest: false,
            }
        }

        impl Run {
            fn new(run: u64, files: usize) -> Self {
                let events = vec![RunEvent::RunStarted {
                    run,
                    files,
                    jobs: 2,
                    started_ms: Some(1_795_421_421_000),
                    host: Some("ci".into()),
                    cwd: Some("/p".into()),
                    command: Some("tapline run".into()),
                }];
                Run {
                    run,
                    events,
                    tallies: vec![Tally::default(); files],
                }
            }

            fn info(file: usize, rel: &str, attempt: u32) -> FileInfo {
                FileInfo {
                    index: file,
                    rel: rel.to_owned(),
                    command: format!("sh {rel}"),
                    log: Some(format!("/p/.nogit/testlogs/{file}.{attempt}.log").into()),
                    attempt,
                }
            }

            fn start(&mut self, file: usize, rel: &str, attempt: u32) -> &mut Self {
                self.tallies[file] = Tally::default();
                let file = Self::info(file, rel, attempt);
                self.events.push(RunEvent::FileStarted {
                    run: self.run,
                    file,
                });
                self
            }

            fn tap(&mut self, file: usize, event: Event<'static>) -> &mut Self {
                if let Event::Assert(a) = &event {
                    if a.depth == 0 {
                        self.tallies[file].add(a);
                    }
                }
                self.events.push(RunEvent::Tap {
                    run: self.run,
                    file,
                    event,
                });
                self
            }

            fn point(&mut self, file: usize, a: Assert<'static>) -> &mut Self {
                self.tap(file, Event::Assert(a))
            }

            fn output(&mut self, file: usize, text: &str) -> &mut Self {
                let text = Cow::Owned(text.to_owned());
                self.tap(
                    file,
                    Event::Output {
                        depth: 0,
                        line: 0,
                        text,
                    },
                )
            }

            fn stderr(&mut self, file: usize, text: &str) -> &mut Self {
                self.events.push(RunEvent::Stderr {
                    run: self.run,
                    file,
                    text: text.to_owned(),
                });
                self
            }

            fn result(&self, file: usize, reasons: &[&str], ms: u64) -> FileResult {
                let tally = self.tallies[file];
                let ok = reasons.is_empty() && tally.fail == 0;
                FileResult {
                    ok,
                    reasons: reasons.iter().map(|r| (*r).to_owned()).collect(),
                    exit: Some(ExitInfo {
                        code: Some(i32::from(!ok)),
                        signal: None,
                    }),
                    timed_out: false,
                    cancelled: false,
                    leaked: false,
                    duration: Duration::from_millis(ms),
                    tally,
                    verdict: Verdict {
                        ok,
                        count: tally.total(),
                        pass: tally.pass,
                        fail: tally.fail,
                        todo: tally.todo,
                        skip: tally.skip,
                        plan: None,
                        bailout: None,
                        reasons: Vec::new(),
                    },
                    attempts: 1,
                    flaky: false,
                    cached: false,
                    tests: Vec::new(),
                }
            }

            fn finish(&mut self, file: usize, reasons: &[&str], attempt: u32) -> &mut Self {
                let mut result = self.result(file, reasons, 7 + file as u64);
                result.attempts = attempt;
                result.flaky = attempt > 1 && result.ok;
                self.events.push(RunEvent::FileFinished {
                    run: self.run,
                    file,
                    result,
                });
                self
            }

            fn attempt_failed(&mut self, file: usize, attempt: u32) -> &mut Self {
                let result = self.result(file, &["exited with code 1"], 3);
                self.events.push(RunEvent::AttemptFailed {
                    run: self.run,
                    file,
                    attempt,
                    of: 3,
                    result,
                });
                self
            }

            fn not_run(&mut self, file: usize, rel: &str) -> &mut Self {
                let file = Self::info(file, rel, 1);
                self.events.push(RunEvent::FileNotRun {
                    run: self.run,
                    file,
                });
                self
            }

            fn end(&mut self, interrupted: bool) -> Vec<RunEvent> {
                let mut tests = Tally::default();
                self.tallies.iter().for_each(|t| tests.merge(t));
                self.events.push(RunEvent::RunFinished {
                    run: self.run,
                    summary: RunSummary {
                        ok: tests.fail == 0,
                        files_total: self.tallies.len(),
                        tests,
                        duration: Duration::from_millis(1234),
                        interrupted,
                        ..RunSummary::default()
                    },
                });
                std::mem::take(&mut self.events)
            }
        }

        /// A run of every kind of file: hostile names and output, a diff, a subtest, SKIP
        /// and TODO, a flaky file, a file failing on every attempt, a crash, a file not run,
        /// and events arriving late for a file that had finished.
        fn every_kind(run: u64) -> Vec<RunEvent> {
            let mut r = Run::new(run, 8);
            let timed = |ok, name: &str, ms| Assert {
                duration_ms: Some(ms),
                ..assert(ok, name)
            };
            r.start(0, "t/<hostile> \"&\" 50%, a:b \u{FFFF}.t", 1)
                .output(0, "plain \u{1b}[31mred\u{1b}[0m \u{7}bell ]]> \u{FFFE}")
                .point(0, timed(true, "a <b> & \"c\" \u{1b}[1mbold\u{1b}[0m", 1.5))
                .point(0, assert(true, ""))
                .point(
                    0,
                    Assert {
                        skip: Some("no \u{FFFF} network".into()),
                        ..assert(true, "skipped")
                    },
                )
                .point(
                    0,
                    Assert {
                        todo: Some(Cow::Borrowed("")),
                        ..assert(false, "todo")
                    },
                )
                .point(
                    0,
                    Assert {
                        id: Some(9),
                        ..assert(true, "")
                    },
                )
                .stderr(0, "warn: \u{1b}[33mcareful\u{1b}[0m")
                .finish(0, &[], 1);
            r.start(1, "t/diff.t", 1)
                .tap(
                    1,
                    Event::SubtestStart {
                        depth: 0,
                        line: 0,
                        name: "group".into(),
                        buffered: false,
                    },
                )
                .output(1, "inner says hi")
                .point(
                    1,
                    Assert {
                        depth: 1,
                        ..assert(false, "inner")
                    },
                )
                .point(
                    1,
                    Assert {
                        closes_subtest: true,
                        ..assert(false, "group")
                    },
                )
                .point(
                    1,
                    Assert {
                        diagnostics: Some(
                            "message: differs\nwanted: 1\nfound: 2\nat: t/diff.t:3\n".into(),
                        ),
                        ..assert(false, "compares")
                    },
                )
                .finish(1, &["2 failed"], 1);
            r.start(2, "t/flaky.t", 1)
                .point(2, assert(false, "coin"))
                .attempt_failed(2, 1)
                .start(2, "t/flaky.t", 2)
                .point(2, assert(false, "coin"))
                .attempt_failed(2, 2)
                .start(2, "t/flaky.t", 3)
                .point(2, assert(true, "coin"))
                .finish(2, &[], 3);
            r.start(3, "t/broken.t", 1)
                .point(3, assert(false, "never"))
                .attempt_failed(3, 1)
                .start(3, "t/broken.t", 2)
                .point(3, assert(false, "never"))
                .finish(3, &["1 failed"], 2);
            r.start(4, "t/crash.t", 1)
                .stderr(4, "Segmentation fault")
                .finish(4, &["killed by SIGSEGV"], 1);
            // A file whose events come after its end: its suite is rendered again.
            r.start(5, "t/late.t", 1)
                .point(5, assert(true, "first"))
                .finish(5, &[], 1)
                .point(5, assert(true, "late point"));
            // Started, never finished (the run was stopped).
            r.start(6, "t/stopped.t", 1).point(6, assert(true, "begun"));
            r.not_run(7, "t/never.t");
            r.end(true)
        }

        /// The whole document and the one written in pieces, after `events`.
        fn both(events: &[RunEvent]) -> (String, String) {
            let mut record = Collector::new(Meta::default());
            let mut suites = Suites::default();
            for ev in events {
                record.on(ev);
                suites.on(ev, &record);
            }
            let mut whole = Vec::new();
            write(&mut whole, record.view()).unwrap();
            let mut pieces = Vec::new();
            suites.write(&mut pieces, &record).unwrap();
            let text = |b: Vec<u8>| String::from_utf8(b).unwrap();
            (text(whole), text(pieces))
        }

        #[test]
        fn pieces_are_the_whole_document_byte_for_byte() {
            let (whole, pieces) = both(&every_kind(1));
            assert!(whole.contains("<flakyFailure"), "{whole}");
            assert!(whole.contains("<rerunFailure"), "{whole}");
            assert!(whole.contains(r#"<skipped message="not run"/>"#), "{whole}");
            assert!(whole.contains("late point"), "{whole}");
            assert!(whole.contains("\u{FFFD}"), "{whole}");
            assert_eq!(whole.matches("<testsuite ").count(), 8, "{whole}");
            assert_eq!(pieces, whole);
        }

        #[test]
        fn a_run_without_files_and_a_series_are_the_whole_document_too() {
            let (whole, pieces) = both(&Run::new(1, 0).end(false));
            assert!(whole.contains("<testsuites"), "{whole}");
            assert_eq!(pieces, whole);
            let mut series = vec![RunEvent::SeriesStarted { runs: 2 }];
            series.extend(every_kind(1));
            let mut second = Run::new(2, 1);
            second
                .start(0, "t/one.t", 1)
                .point(0, assert(true, "fine"))
                .finish(0, &[], 1);
            series.extend(second.end(false));
            series.push(RunEvent::SeriesFinished {
                stability: Default::default(),
            });
            let (whole, pieces) = both(&series);
            assert_eq!(
                whole.matches("<testsuite ").count(),
                1,
                "the last run's: {whole}"
            );
            assert_eq!(pieces, whole);
            // Watch mode: the next run starts afresh.
            let mut events = every_kind(1);
            events.extend(every_kind(2)[..6].iter().cloned());
            let mut third = Run::new(3, 1);
            third
                .start(0, "t/x.t", 1)
                .point(0, assert(false, "x"))
                .finish(0, &[], 1);
            events.extend(third.end(false));
            let (whole, pieces) = both(&events);
            assert_eq!(whole.matches("<testsuite ").count(), 1, "{whole}");
            assert_eq!(pieces, whole);
        }

        #[test]
        fn a_file_is_rendered_when_it_ends_and_again_only_if_it_changed() {
            let events = every_kind(1);
            let mut record = Collector::new(Meta::default());
            let mut suites = Suites::default();
            let rendered = |s: &Suites| s.done.ready();
            for ev in &events {
                record.on(ev);
                suites.on(ev, &record);
                if let RunEvent::FileFinished { file: 2, .. } = ev {
                    // Files 0, 1 and 2 are ready before the run ends; retries did not count.
                    assert_eq!(rendered(&suites), [0, 1, 2]);
                }
            }
            // File 5 changed after its end; 6 never ended; 7 never ran.
            assert_eq!(rendered(&suites), [0, 1, 2, 3, 4]);
        }
    }
}
