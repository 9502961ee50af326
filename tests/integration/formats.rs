//! Issue 11: `go test -json` streams and JUnit XML from real tools (test-data/formats/, recorded
//! by scripts/record-formats.sh) read into the same events as TAP, with known answers.
use crate::util::{formats_dir, parse_cli};
use serde_json::Value;
use tapline::protocol::{AnyParser, InputFormat};
use tapline::report::summary::SummaryWriter;

const RECORDINGS: [&str; 5] = [
    "go-test.jsonl",
    "go-build-failure.jsonl",
    "pytest.xml",
    "junit5-console.xml",
    "jest-junit.xml",
];

/// The committed `--format summary` answer of each recording, auto-detected from a file.
#[test]
fn issue11_recordings_match_their_known_answers() {
    for name in RECORDINGS {
        let path = formats_dir().join(name);
        let stem = name.rsplit_once('.').map_or(name, |(s, _)| s);
        let want = std::fs::read_to_string(formats_dir().join(format!("{stem}.summary.json")))
            .expect("known answer committed");
        let path = path.to_str().expect("utf-8 path");
        let (code, out, err) = parse_cli(&["--format", "summary", path], b"");
        assert_eq!(out.trim_end(), want.trim_end(), "{name}: summary changed");
        // Every recording has a failing test in it (as its tool reported).
        assert_eq!(code, 1, "{name}: {err}");
    }
}

fn summary_of(name: &str) -> Value {
    let bytes = std::fs::read(formats_dir().join(name)).expect("recording");
    let mut p = AnyParser::new(SummaryWriter::new(Vec::new()), None);
    p.feed(&bytes);
    let out = p.finish().finish().expect("to a Vec");
    serde_json::from_slice(&out).expect("JSON")
}

fn counts(doc: &Value) -> [u64; 5] {
    ["count", "pass", "fail", "skip", "todo"].map(|k| doc[k].as_u64().unwrap_or(u64::MAX))
}

/// The counts each tool printed itself when it was recorded (reviewed by hand).
#[test]
fn issue11_counts_agree_with_what_each_tool_reported() {
    // pytest: "3 failed, 5 passed, 1 skipped, 1 xfailed, 1 error" (the error fails, xfail is TODO).
    let pytest = summary_of("pytest.xml");
    assert_eq!(counts(&pytest["asserts"][0]["subtest"]), [11, 5, 4, 1, 1]);
    // JUnit 5 launcher: tests="9" skipped="2" failures="1" errors="1".
    let junit5 = summary_of("junit5-console.xml");
    assert_eq!(counts(&junit5["asserts"][0]["subtest"]), [9, 5, 2, 2, 0]);
    // jest: "1 failed, 1 skipped, 1 todo, 3 passed, 6 total"; jest-junit writes the todo as a
    // plain passing testcase, so the XML (what we read) has 4 passing.
    let jest = summary_of("jest-junit.xml");
    assert_eq!(counts(&jest["asserts"][0]["subtest"]), [6, 4, 1, 1, 0]);
    // go: broken fails to build, calc fails (TestAbs/minus_three), nofiles has no test files.
    let go = summary_of("go-test.jsonl");
    assert_eq!(counts(&go), [3, 0, 2, 1, 0]);
    let calc = &go["asserts"][1]["subtest"];
    assert_eq!(counts(calc), [6, 4, 1, 1, 0]);
    let abs = &calc["asserts"][1];
    assert_eq!(abs["name"], "TestAbs");
    assert_eq!(counts(&abs["subtest"]), [4, 3, 1, 0, 0]);
    assert_eq!(abs["subtest"]["asserts"][2]["name"], "minus_three");
}

/// go's stream is read line by line: any chunking gives the same events.
#[test]
fn issue11_go_stream_is_incremental() {
    let bytes = std::fs::read(formats_dir().join("go-test.jsonl")).expect("recording");
    let parse = |size: usize| {
        let mut p = AnyParser::new(Vec::new(), None);
        for c in bytes.chunks(size) {
            p.feed(c);
        }
        assert_eq!(p.format(), Some(InputFormat::GoJson));
        p.finish()
    };
    let whole = parse(bytes.len());
    for size in [1, 2, 7, 100, 4096] {
        assert_eq!(parse(size), whole, "chunks of {size}");
    }
    // The first test's point comes out before the stream is complete.
    let half = &bytes[..bytes.len() / 2];
    let mut p = AnyParser::new(Vec::new(), None);
    p.feed(half);
    assert!(p
        .sink_mut()
        .iter()
        .any(|e| matches!(e, tapline::event::Event::Assert(a) if a.name == "TestAdd")));
}

/// Failure messages become diagnostics the failure report reads: message, location, diff.
#[test]
fn issue11_failures_explain_themselves() {
    let go = std::fs::read(formats_dir().join("go-test.jsonl")).expect("recording");
    let (_, out, _) = parse_cli(&["--color", "never"], &go);
    // go's `calc_test.go:31: Abs(-3) = -3, want 3`: the message at its place (issue 41).
    assert!(
        out.contains("at calc_test.go:31\n        Abs(-3) = -3, want 3"),
        "{out}"
    );
    let junit = std::fs::read(formats_dir().join("junit5-console.xml")).expect("recording");
    let (_, out, _) = parse_cli(&["--color", "never"], &junit);
    assert!(
        out.contains("- \"1\"") && out.contains("+ \"2\""),
        "no diff: {out}"
    );
}

/// Malformed input is a named problem and a failing stream (exit 1), never a panic.
#[test]
fn issue11_malformed_input_is_a_clear_failure() {
    let cases: [(&[&str], &[u8], &str); 5] = [
        (
            &["--input-format", "go-json"],
            b"{\"Action\": 3}\n",
            "is not a go test -json record",
        ),
        (
            &["--input-format", "go-json"],
            b"",
            "no go test -json records",
        ),
        (
            &["--input-format", "junit"],
            b"<testsuite name='a'><testcase name='x'></testsuite>",
            "failed to parse the JUnit XML at line 1",
        ),
        (
            &[],
            b"<html><body/></html>",
            "is not JUnit XML: its root element is <html>",
        ),
        (
            &[],
            b"<?xml version=\"1.0\"?>\n<testsuites>\n",
            "the document is cut short",
        ),
    ];
    for (args, input, want) in cases {
        let mut all = vec!["--color", "never"];
        all.extend_from_slice(args);
        let (code, out, err) = parse_cli(&all, input);
        assert_eq!(code, 1, "{input:?}: {err}");
        assert!(out.contains(want), "{input:?}: {out}");
    }
    let (code, _, err) = parse_cli(&["--input-format", "yaml"], b"");
    assert_eq!(code, 2, "{err}");
}
