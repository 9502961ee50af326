//! Snapshots of every output format (human, jsonl, summary) for every TAP stream in
//! test-data/ (our own streams and the recorded third-party producers). Styles are off, so
//! the snapshots are the exact bytes a pipe would get.
use crate::util::{files_with_ext, repo};
use tapline::protocol::Parser;
use tapline::report::human::HumanReport;
use tapline::report::jsonl::JsonlWriter;
use tapline::report::style::Style;
use tapline::report::summary::SummaryWriter;

fn streams() -> Vec<(String, Vec<u8>)> {
    let root = repo().join("test-data");
    // The conformance streams are checked against the reference instead (conformance.rs).
    let mut out: Vec<(String, Vec<u8>)> = ["streams", "producers"]
        .iter()
        .flat_map(|d| files_with_ext(&root.join(d), "tap"))
        .map(|p| {
            let rel = p
                .strip_prefix(&root)
                .unwrap_or(&p)
                .to_string_lossy()
                .replace(['/', '.'], "_");
            (rel, std::fs::read(&p).expect("test data readable"))
        })
        .collect();
    out.sort();
    assert!(
        out.len() >= 30,
        "expected the streams and producers of test-data/"
    );
    out
}

fn human(bytes: &[u8]) -> String {
    let mut p = Parser::new(HumanReport::new(Vec::new(), Style::default()));
    p.feed(bytes);
    String::from_utf8(p.finish().finish().expect("Vec write")).expect("utf-8 report")
}

fn jsonl(bytes: &[u8]) -> String {
    let mut p = Parser::new(JsonlWriter::new(Vec::new()));
    p.feed(bytes);
    String::from_utf8(p.finish().finish().expect("Vec write")).expect("utf-8 report")
}

fn summary(bytes: &[u8]) -> String {
    let mut p = Parser::new(SummaryWriter::new(Vec::new()));
    p.feed(bytes);
    let raw = p.finish().finish().expect("Vec write");
    let v: serde_json::Value = serde_json::from_slice(&raw).expect("summary is JSON");
    serde_json::to_string_pretty(&v).expect("serializable")
}

#[test]
fn human_reports() {
    for (name, bytes) in streams() {
        insta::assert_snapshot!(format!("human__{name}"), human(&bytes));
    }
}

#[test]
fn jsonl_events() {
    for (name, bytes) in streams() {
        let out = jsonl(&bytes);
        for line in out.lines() {
            let v: serde_json::Value = serde_json::from_str(line).expect("each line is JSON");
            assert!(
                v.get("type").is_some(),
                "{name}: event without type: {line}"
            );
        }
        insta::assert_snapshot!(format!("jsonl__{name}"), out);
    }
}

#[test]
fn summaries() {
    for (name, bytes) in streams() {
        insta::assert_snapshot!(format!("summary__{name}"), summary(&bytes));
    }
}

#[test]
fn human_report_of_a_v2_failure_shows_message_location_and_diff() {
    let text =
        human(&std::fs::read(repo().join("test-data/streams/v2-errors.tap")).expect("readable"));
    for expected in [
        "✗ should validate input",
        "at test/validate.ts:42",
        "Expected 5 to equal 6",
        "- Expected",
        "+ Received",
        "console output of test 2",
    ] {
        assert!(text.contains(expected), "missing {expected:?} in:\n{text}");
    }
}

#[test]
fn colour_only_when_asked() {
    let bytes =
        std::fs::read(repo().join("test-data/streams/fail-yaml-diff.tap")).expect("readable");
    assert!(!human(&bytes).contains('\x1b'));
    let mut p = Parser::new(HumanReport::new(Vec::new(), Style::on()));
    p.feed(&bytes);
    let coloured = String::from_utf8(p.finish().finish().expect("Vec write")).expect("utf-8");
    assert!(coloured.contains("\x1b[31m"));
}
