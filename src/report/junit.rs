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
use super::diff::DiffLine;
use super::record::{FailureView, FileStatus, FileView, PointStatus, RunView};
use quick_junit::{NonSuccessKind, Report, TestCase, TestCaseStatus, TestRerun, TestSuite};
use std::io::{self, Write};
use std::time::Duration;

/// Writes the JUnit document for `run`.
///
/// # Errors
///
/// Only errors from writing to `out`.
pub fn write(out: &mut dyn Write, run: &RunView) -> io::Result<()> {
    let mut report = Report::new("tapline");
    report.set_time(run.duration);
    for file in &run.files {
        report.add_test_suite(suite(file));
    }
    report
        .serialize(out)
        .map_err(|e| io::Error::other(e.to_string()))
}

fn suite(file: &FileView) -> TestSuite {
    let mut suite = TestSuite::new(clean(&file.rel));
    if let Some(d) = file.duration {
        suite.set_time(d);
    }
    if file.status == FileStatus::NotRun {
        let mut status = TestCaseStatus::skipped();
        status.set_message("not run");
        suite.add_test_case(case(file, "(file)", status, None));
        return suite;
    }
    let mut failures = file.failures.iter().peekable();
    let mut any_failing_point = false;
    for (n, point) in file.points.iter().enumerate() {
        let name = if point.name.is_empty() {
            format!("#{}", point.id.unwrap_or(n as u64 + 1))
        } else {
            point.name.clone()
        };
        // The failures explained under this point: its own, or its subtests' (`name > …`).
        let mut mine = Vec::new();
        if point.status == PointStatus::Fail {
            let prefix = format!("{} > ", point.name);
            while let Some(f) =
                failures.next_if(|f| f.name == point.name || f.name.starts_with(&prefix))
            {
                mine.push(f);
            }
        }
        let status = match point.status {
            PointStatus::Pass => TestCaseStatus::success(),
            PointStatus::Fail => {
                any_failing_point = true;
                failure_status(&point.name, &mine)
            }
            PointStatus::Skip | PointStatus::Todo => {
                let mut s = TestCaseStatus::skipped();
                let reason = point.reason.as_deref().unwrap_or("");
                let message = match (point.status, reason.is_empty()) {
                    (PointStatus::Todo, true) => "TODO".to_owned(),
                    (PointStatus::Todo, false) => format!("TODO: {reason}"),
                    (_, true) => "SKIP".to_owned(),
                    (_, false) => reason.to_owned(),
                };
                s.set_message(clean(&message));
                s
            }
        };
        let time = point
            .duration_ms
            .map(|ms| Duration::from_secs_f64(ms.max(0.0) / 1000.0));
        suite.add_test_case(case(file, &name, status, time));
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
        suite.add_test_case(case(file, "(file)", status, file.duration));
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

fn case(file: &FileView, name: &str, status: TestCaseStatus, time: Option<Duration>) -> TestCase {
    let mut c = TestCase::new(clean(name), status);
    c.set_classname(clean(&file.rel));
    if let Some(t) = time {
        c.set_time(t);
    }
    c
}

/// A file run again (`--retries`) keeps its failed attempts on its first test case (the file
/// as a whole was retried, not one test): `<flakyFailure>` when it passed in the end,
/// `<rerunFailure>` when the last attempt failed too, as nextest writes them.
fn add_reruns(suite: &mut TestSuite, file: &FileView) {
    let Some(first) = suite.test_cases.first_mut() else {
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
/// non-characters it leaves are replaced.
fn clean(text: &str) -> String {
    text.replace(['\u{FFFE}', '\u{FFFF}'], "\u{FFFD}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::record::PointView;

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
}
