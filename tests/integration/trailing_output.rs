//! Output printed after a `not ok`, before the next test, belongs to that failure (issue 16):
//! tapbundle prints a failing test's error and stack after its `not ok` line. Checked over the
//! real recording in the terminal (`run`), the human report (`parse`), JUnit, Markdown and
//! HTML, for `run` and `parse` alike, and for a run's stderr.
use crate::util::{repo, require, Project, Ran};
use serde_json::Value;
use std::process::Command as StdCommand;

/// The recording: test 2 and 4 fail an `expect`, 5 throws; 3 and 6 pass.
const RECORDING: &str = "test-data/producers/tapbundle-mixed.tap";
const STRINGS: &str = "compares strings with a \\ backslash";
/// Each error's message as a failure shows it (the dump's `Error: ` class is read off it).
const STRINGS_ERROR: &str = "Expected value to equal \"hello there\"";
const OBJECTS_ERROR: &str = "Expected value to equal {\"name\":\"tapline\"";
const THROWN_ERROR: &str = "boom from the test body";

/// A project whose one test file prints the tapbundle recording.
fn bundle_project() -> Project {
    let p = Project::new();
    let tap = std::fs::read(repo().join(RECORDING)).expect("read the recording");
    p.write("data/bundle.tap", tap);
    p.script(
        "test/bundle.sh",
        "#!/bin/sh\ncat \"$(dirname \"$0\")/../data/bundle.tap\"\n",
    );
    p
}

fn tapline(p: &Project, args: &[&str]) -> Ran {
    let started = std::time::Instant::now();
    let out = assert_cmd::Command::new(env!("CARGO_BIN_EXE_tapline"))
        .current_dir(p.path())
        .env("CI", "1")
        .env("NO_COLOR", "1")
        .env_remove("GITHUB_ACTIONS")
        .env_remove("GITHUB_STEP_SUMMARY")
        .args(args)
        .timeout(std::time::Duration::from_secs(120))
        .output()
        .expect("tapline runs");
    Ran::of(out, started.elapsed())
}

/// The text under each point line (`✗ name`, `✓ name`) of a terminal or human report, by name
/// (a line that is not indented, such as `output after the last test:`, ends a point's text;
/// a blank line, as between a failure's message and its stack, does not).
fn blocks(report: &str) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for line in report.lines() {
        let t = line.trim_start();
        if let Some(name) = t.strip_prefix("✗ ").or_else(|| t.strip_prefix("✓ ")) {
            out.push((name.to_owned(), String::new()));
        } else if !line.starts_with(' ') && !line.is_empty() {
            out.push((String::new(), String::new()));
        } else if let Some((_, text)) = out.last_mut() {
            text.push_str(line);
            text.push('\n');
        }
    }
    out
}

/// The block of the point whose line starts with `name`.
fn block<'a>(blocks: &'a [(String, String)], name: &str) -> &'a str {
    blocks
        .iter()
        .find(|(n, _)| !n.is_empty() && n.starts_with(name))
        .map(|(_, t)| t.as_str())
        .unwrap_or_else(|| panic!("no point {name:?} in {blocks:#?}"))
}

/// Each error is under its own failure and under no other point.
fn errors_are_under_their_failures(report: &str) {
    let b = blocks(report);
    let owner = [
        (STRINGS_ERROR, STRINGS),
        (OBJECTS_ERROR, "compares objects"),
        (THROWN_ERROR, "throws an error"),
    ];
    for (error, name) in owner {
        for (n, text) in &b {
            assert_eq!(
                text.contains(error),
                !n.is_empty() && n.starts_with(name),
                "{error:?} under {n:?}:\n{report}"
            );
        }
    }
    // Output a test printed before its failing `expect` stays with it.
    assert!(
        block(&b, STRINGS).contains("log before the failing expect"),
        "{report}"
    );
}

/// The JUnit file as expat reads it: each case's name, outcome and failure text; `None` when
/// `test` cannot go on without python3 (`require`).
fn junit_cases(test: &str, p: &Project, rel: &str) -> Option<Vec<Value>> {
    const SCRIPT: &str = r#"
import json, sys
import xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
cases = []
for c in root.iter("testcase"):
    f = c.find("failure")
    cases.append({"name": c.get("name"), "failure": None if f is None else (f.text or "")})
print(json.dumps(cases))
"#;
    if !require(&format!("{test}: the JUnit file read back"), &["python3"]) {
        return None;
    }
    let out = StdCommand::new("python3")
        .args(["-c", SCRIPT])
        .arg(p.join(rel))
        .output()
        .expect("python3 starts");
    assert!(
        out.status.success(),
        "the JUnit file is not well-formed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(serde_json::from_slice(&out.stdout).expect("the script prints JSON"))
}

fn junit_has_each_error_in_its_failure(test: &str, p: &Project, rel: &str) {
    let Some(cases) = junit_cases(test, p, rel) else {
        return;
    };
    let failure = |name: &str| -> Option<String> {
        let case = cases
            .iter()
            .find(|c| c["name"].as_str().is_some_and(|n| n.starts_with(name)))
            .unwrap_or_else(|| panic!("no case {name:?} in {cases:#?}"));
        case["failure"].as_str().map(str::to_owned)
    };
    let strings = failure(STRINGS).expect("a failure");
    assert!(strings.contains(STRINGS_ERROR), "{strings}");
    assert!(!strings.contains(OBJECTS_ERROR), "{strings}");
    let objects = failure("compares objects").expect("a failure");
    assert!(objects.contains(OBJECTS_ERROR), "{objects}");
    let thrown = failure("throws an error").expect("a failure");
    assert!(thrown.contains(THROWN_ERROR), "{thrown}");
    assert!(!thrown.contains(OBJECTS_ERROR), "{thrown}");
    assert_eq!(failure("passes after a failure"), None);
}

/// Sections of a Markdown report, one per failure (`#### ❌ `file` › name`).
fn markdown_has_each_error_in_its_section(md: &str) {
    let sections: Vec<&str> = md.split("\n#### ❌ ").skip(1).collect();
    let section = |name: &str| {
        *sections
            .iter()
            .find(|s| s.lines().next().is_some_and(|h| h.contains(name)))
            .unwrap_or_else(|| panic!("no section {name:?} in\n{md}"))
    };
    assert!(section("compares strings").contains(STRINGS_ERROR), "{md}");
    assert!(section("compares objects").contains(OBJECTS_ERROR), "{md}");
    let thrown = section("throws an error");
    assert!(thrown.contains(THROWN_ERROR), "{md}");
    assert!(!thrown.contains(OBJECTS_ERROR), "{md}");
    assert!(
        !md.contains("passes after a failure"),
        "a passing test has no section: {md}"
    );
}

/// Articles of the HTML report, one per failure, named in their `<h3>` by the test's name
/// (not its TAP line: #43).
fn html_has_each_error_in_its_article(html: &str) {
    let articles: Vec<&str> = html.split("<article").skip(1).collect();
    let article = |title: &str| {
        *articles
            .iter()
            .find(|a| a.split("</h3>").next().is_some_and(|h| h.contains(title)))
            .unwrap_or_else(|| {
                let heads: Vec<&str> = html
                    .split("<h3>")
                    .skip(1)
                    .map(|h| h.split("</h3>").next().unwrap_or(h))
                    .collect();
                panic!("no article {title:?} among {heads:?}")
            })
    };
    let strings = article("compares strings");
    assert!(
        strings.contains("Expected value to equal &quot;hello there&quot;"),
        "{strings}"
    );
    let objects = article("compares objects");
    assert!(objects.contains("Expected value to equal {"), "{objects}");
    let thrown = article("throws an error");
    assert!(thrown.contains(THROWN_ERROR), "{thrown}");
    assert!(!thrown.contains("Expected value to equal {"), "{thrown}");
}

#[test]
fn a_tapbundle_error_after_its_not_ok_is_under_that_failure_in_every_report_of_a_run() {
    let p = bundle_project();
    let r = tapline(
        &p,
        &[
            "run",
            "test",
            "--no-history",
            "-o",
            "r.xml",
            "-o",
            "r.md",
            "-o",
            "r.html",
        ],
    );
    // tapbundle exits 0 with failing tests: the stream says it failed.
    assert_eq!(r.code, 1, "{}", r.both());
    // The terminal report goes to stderr when files take the reports.
    errors_are_under_their_failures(&r.stderr);
    junit_has_each_error_in_its_failure(
        "a_tapbundle_error_after_its_not_ok_is_under_that_failure_in_every_report_of_a_run",
        &p,
        "r.xml",
    );
    let md = String::from_utf8(p.read("r.md")).expect("UTF-8");
    markdown_has_each_error_in_its_section(&md);
    let html = String::from_utf8(p.read("r.html")).expect("UTF-8");
    html_has_each_error_in_its_article(&html);
}

#[test]
fn a_tapbundle_error_after_its_not_ok_is_under_that_failure_in_every_report_of_parse() {
    let p = bundle_project();
    let r = tapline(
        &p,
        &[
            "parse",
            "data/bundle.tap",
            "-o",
            "p.xml",
            "-o",
            "p.md",
            "-o",
            "p.html",
        ],
    );
    assert_eq!(r.code, 1, "{}", r.both());
    errors_are_under_their_failures(&r.stdout);
    // The summary tapbundle prints after the last test is no test's.
    let b = blocks(&r.stdout);
    assert!(!block(&b, "last passing test").contains("Test 2 failed with status error"));
    assert!(
        r.stdout
            .contains("output after the last test:\n│ Test 2 failed"),
        "{}",
        r.stdout
    );
    junit_has_each_error_in_its_failure(
        "a_tapbundle_error_after_its_not_ok_is_under_that_failure_in_every_report_of_parse",
        &p,
        "p.xml",
    );
    markdown_has_each_error_in_its_section(&String::from_utf8(p.read("p.md")).expect("UTF-8"));
    html_has_each_error_in_its_article(&String::from_utf8(p.read("p.html")).expect("UTF-8"));
}

/// A failure's error written to stderr after its `not ok`, before the next point, is that
/// failure's too; what a later test prints is not. (The parser completes a point only when the
/// next TAP line arrives, so stderr is read before the failing point's event: the consumers
/// must keep it as output before that point, not place it by the rule for lines after one.)
#[test]
fn stderr_after_a_not_ok_is_under_that_failure() {
    let p = Project::new();
    p.script(
        "test/err.sh",
        "#!/bin/sh\necho 1..3\necho 'not ok 1 - fails'\necho 'the error of 1' >&2\nsleep 0.5\n\
         echo 'ok 2 - passes'\nsleep 0.5\necho 'log of 3'\necho 'not ok 3 - fails too'\n",
    );
    let r = tapline(&p, &["run", "test", "--no-history", "-o", "r.xml"]);
    assert_eq!(r.code, 1, "{}", r.both());
    let b = blocks(&r.stderr);
    assert!(
        block(&b, "fails").contains("the error of 1"),
        "{}",
        r.both()
    );
    let three = block(&b, "fails too");
    assert!(!three.contains("the error of 1"), "{}", r.both());
    assert!(three.contains("log of 3"), "{}", r.both());
    if let Some(cases) = junit_cases("stderr_after_a_not_ok_is_under_that_failure", &p, "r.xml") {
        let text = cases[0]["failure"].as_str().unwrap_or_default();
        assert!(text.contains("the error of 1"), "{cases:#?}");
    }
}

/// Recorded streams whose harness writes lines that are no test's, and those lines: a skipped
/// tape test's notice and tape's totals; node-tap 16's `# failed 1 test` closing each failing
/// subtest and its totals; Test::More's closing line after a plan given first (no plan follows
/// the last point); and node-tap's runner running a tape file and a node:test file, whose
/// totals and 8-line summary close each file's subtest, right before the file's `not ok`.
const TRAILERS: &[(&str, &[&str])] = &[
    (
        "tape-trailer.tap",
        &["SKIP needs a network", "tests 2", "pass  1", "fail  1"],
    ),
    (
        "node-tap16-trailer.tap",
        &["failed 1 test", "failed 2 of 4 tests", "time=29.568ms"],
    ),
    ("perl-plan-first.tap", &["Looks like you failed"]),
    (
        "node-tap-runner-trailer.tap",
        &[
            "SKIP needs a network",
            "tests 2",
            "pass  1",
            "suites 0",
            "cancelled 0",
            "duration_ms 17.160879",
            "{ total: 4",
        ],
    ),
];

/// A project whose one test file prints `recording`.
fn recording_project(recording: &str) -> Project {
    let p = Project::new();
    let tap = std::fs::read(repo().join("test-data/producers").join(recording))
        .expect("read the recording");
    p.write("data/stream.tap", tap);
    p.script(
        "test/stream.sh",
        "#!/bin/sh\ncat \"$(dirname \"$0\")/../data/stream.tap\"\n",
    );
    p
}

/// No failure's explanation in `text` (one failure's part of a report) holds a trailer line.
fn holds_no_trailer(recording: &str, lines: &[&str], what: &str, text: &str) {
    for line in lines {
        assert!(
            !text.contains(line),
            "{recording}: {line:?} is in a failure's {what}:\n{text}"
        );
    }
}

fn reports_hold_no_trailer(test: &str, p: &Project, recording: &str, lines: &[&str], stem: &str) {
    if let Some(cases) = junit_cases(test, p, &format!("{stem}.xml")) {
        for case in &cases {
            let text = case["failure"].as_str().unwrap_or_default();
            holds_no_trailer(recording, lines, "JUnit case", text);
        }
    }
    let md = String::from_utf8(p.read(&format!("{stem}.md"))).expect("UTF-8");
    let sections: Vec<&str> = md.split("\n#### ❌ ").skip(1).collect();
    assert!(!sections.is_empty(), "{recording}: no failure in\n{md}");
    for s in sections {
        // A section ends where the report's next part (`<details><summary>Slowest`) starts.
        let s = s.split("<details><summary>Slowest").next().unwrap_or(s);
        holds_no_trailer(recording, lines, "Markdown section", s);
    }
    let html = String::from_utf8(p.read(&format!("{stem}.html"))).expect("UTF-8");
    let articles: Vec<&str> = html
        .split("<article")
        .skip(1)
        .map(|a| a.split("</article>").next().unwrap_or(a))
        .collect();
    assert!(!articles.is_empty(), "{recording}: no failure in the page");
    for a in articles {
        holds_no_trailer(recording, lines, "HTML article", a);
    }
}

/// Each failure's text in a terminal or human report: the lines indented under its `✗` line
/// (the terminal's `  output:` of the file, level with the point lines, is not one's).
fn failure_texts(report: &str) -> Vec<(String, String)> {
    let indent = |l: &str| l.len() - l.trim_start().len();
    let mut out: Vec<(usize, String, String)> = Vec::new();
    let mut open = false;
    for line in report.lines() {
        if let Some(name) = line.trim_start().strip_prefix("✗ ") {
            out.push((indent(line), name.to_owned(), String::new()));
            open = true;
        } else if let (true, Some((under, _, text))) = (open, out.last_mut()) {
            if line.trim().is_empty() || indent(line) > *under {
                text.push_str(line);
                text.push('\n');
            } else {
                open = false;
            }
        }
    }
    out.into_iter().map(|(_, n, t)| (n, t)).collect()
}

/// Each failure's text in a terminal or human report holds none of the lines.
fn failures_hold_no_trailer(recording: &str, lines: &[&str], report: &str) {
    let failures = failure_texts(report);
    assert!(!failures.is_empty(), "{recording}: no failure in\n{report}");
    for (name, text) in failures {
        holds_no_trailer(recording, lines, &format!("block {name:?}"), &text);
    }
}

#[test]
fn a_harness_trailer_and_notices_are_no_failures_output_in_any_report() {
    let test = "a_harness_trailer_and_notices_are_no_failures_output_in_any_report";
    for (recording, lines) in TRAILERS {
        let p = recording_project(recording);
        let run = tapline(
            &p,
            &[
                "run",
                "test",
                "--no-history",
                "--annotations",
                "github",
                "-o",
                "r.xml",
                "-o",
                "r.md",
                "-o",
                "r.html",
            ],
        );
        assert_eq!(run.code, 1, "{recording}: {}", run.both());
        failures_hold_no_trailer(recording, lines, &run.stderr);
        for annotation in run.stdout.lines().filter(|l| l.starts_with("::error")) {
            holds_no_trailer(recording, lines, "annotation", annotation);
        }
        reports_hold_no_trailer(test, &p, recording, lines, "r");
        let parse = tapline(
            &p,
            &[
                "parse",
                "data/stream.tap",
                "-o",
                "p.xml",
                "-o",
                "p.md",
                "-o",
                "p.html",
            ],
        );
        assert_eq!(parse.code, 1, "{recording}: {}", parse.both());
        failures_hold_no_trailer(recording, lines, &parse.stdout);
        reports_hold_no_trailer(test, &p, recording, lines, "p");
    }
}
