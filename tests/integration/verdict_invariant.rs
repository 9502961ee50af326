//! Issue 7: a failing verdict always has its reason. For every document (the stream and each
//! subtest): `ok: false` ⇒ `reasons` is non-empty, and the human report names the stream's;
//! `ok: true` ⇒ no failing problem was reported at that level and `reasons` is empty.
//! Checked over every real stream of test-data/ and over generated streams.
use crate::util::{files_with_ext, repo};
use proptest::prelude::*;
use tapline::event::{Event, Verdict};
use tapline::protocol::parse_all;
use tapline::report::human::HumanReport;
use tapline::report::style::Style;

fn check_level(v: &Verdict<'_>, failing_problem: bool, at: &str) -> Result<(), String> {
    if v.ok {
        if failing_problem {
            return Err(format!("{at}: ok, but a failing problem was reported"));
        }
        if !v.reasons.is_empty() {
            return Err(format!("{at}: ok, but reasons {:?}", v.reasons));
        }
    } else if v.reasons.is_empty() {
        return Err(format!("{at}: not ok, and no reason"));
    }
    Ok(())
}

/// Checks every level of a stream's events; the stream's own verdict is returned.
fn check_events(events: &[Event<'_>]) -> Result<Verdict<'static>, String> {
    // Failing problems seen at each open depth.
    let mut failing = vec![false];
    for e in events {
        match e {
            Event::SubtestStart { depth, .. } => {
                let d = *depth as usize;
                failing.resize(d + 1, false);
                failing[d] = false;
            }
            Event::Problem(p) if p.fails => {
                let d = p.depth as usize;
                if failing.len() <= d {
                    failing.resize(d + 1, false);
                }
                failing[d] = true;
            }
            Event::SubtestEnd { depth, verdict } => {
                let d = *depth as usize;
                let f = failing.get(d).copied().unwrap_or(false);
                check_level(verdict, f, &format!("subtest at depth {d}"))?;
                failing.truncate(d);
            }
            Event::End { verdict } => {
                check_level(verdict, failing[0], "stream")?;
                return Ok(verdict.clone().into_owned());
            }
            _ => {}
        }
    }
    Err("no End event".to_owned())
}

fn human(bytes: &[u8]) -> String {
    let mut p = tapline::protocol::Parser::new(HumanReport::new(Vec::new(), Style::default()));
    p.feed(bytes);
    let out = p.finish().finish().expect("writing to a Vec cannot fail");
    String::from_utf8_lossy(&out).into_owned()
}

fn check_stream(bytes: &[u8]) -> Result<(), String> {
    let verdict = check_events(&parse_all(bytes))?;
    if !verdict.ok {
        let report = human(bytes);
        for reason in &verdict.reasons {
            if !report.contains(reason.as_str()) {
                return Err(format!(
                    "the human report does not name {reason:?}:\n{report}"
                ));
            }
        }
    }
    Ok(())
}

#[test]
fn every_real_stream_names_why_it_fails() {
    let mut n = 0;
    for dir in ["test-data", "protocol-spec"] {
        for path in files_with_ext(&repo().join(dir), "tap") {
            let bytes = std::fs::read(&path).expect("stream readable");
            if let Err(e) = check_stream(&bytes) {
                panic!("{}: {e}", path.display());
            }
            n += 1;
        }
    }
    assert!(n >= 150, "only {n} streams checked");
}

/// The reasons the issue named, each on its own stream.
#[test]
fn each_kind_of_failure_has_its_reason() {
    let cases: [(&[u8], &str); 7] = [
        (b"1..1\nnot ok 1 - adds\n", "1 test point failed: \"adds\""),
        (
            b"# Subtest: s\n    1..1\n    not ok 1\nok 1 - s\n1..1\n",
            "subtest \"s\" failed",
        ),
        (
            b"# Subtest: s\n    1..1\n    not ok 1\nok 1 - s # TODO\n1..1\n",
            "subtest \"s\" failed",
        ),
        (b"1..2\nok 1\nBail out! gone\n", "bailed out: gone"),
        (
            b"1..4\nnot ok 1\nnot ok 2 - b\nnot ok 3 - c\nnot ok 4 - d\n",
            "4 test points failed: #1, \"b\", \"c\" and 1 more",
        ),
        (
            b"ok 1 {\n    1..1\n    not ok 1\n}\n1..1\n",
            "subtest #1 failed",
        ),
        (b"    1..1\n    not ok 1\nok\n1..1\n", "a subtest failed"),
    ];
    for (tap, want) in cases {
        let verdict = check_events(&parse_all(tap)).expect("invariant holds");
        assert!(!verdict.ok);
        assert!(
            verdict.reasons.iter().any(|r| r == want),
            "{}: {want:?} not in {:?}",
            String::from_utf8_lossy(tap),
            verdict.reasons
        );
        check_stream(tap).expect("named by the human report");
    }
}

/// Lines of every construct the state machine has, at several depths.
const VOCABULARY: &[&str] = &[
    "ok",
    "ok 1 - a",
    "not ok 2 - b",
    "not ok 3 # TODO t",
    "not ok 4 # SKIP s",
    "ok 5 - c # time=3ms",
    "ok 1 - b {",
    "not ok 1 - b {",
    "}",
    "{",
    "    }",
    "# Subtest: s",
    "# Subtest",
    "1..2",
    "1..0",
    "1..0 # skip",
    "2..1",
    "  ---",
    "  a: 1",
    "  ...",
    "Bail out!",
    "Bail out! why",
    "pragma +strict",
    "pragma -strict",
    "TAP version 14",
    "TAP version 13",
    "# comment",
    "noise",
    "",
    "⟦TSTEST:ERROR⟧",
    "⟦TSTEST:/ERROR⟧",
    "⟦TSTEST:META:{\"time\":1}⟧",
    "ok 1 - x ⟦TSTEST:SKIP:r⟧",
];

fn generated_line() -> impl Strategy<Value = String> {
    (
        prop::sample::select(VOCABULARY),
        0usize..4,
        prop::bool::weighted(0.1),
    )
        .prop_map(|(line, depth, odd)| {
            let pad = "    ".repeat(depth) + if odd { "  " } else { "" };
            if line.is_empty() {
                String::new()
            } else {
                format!("{pad}{line}")
            }
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn generated_streams_name_why_they_fail(lines in prop::collection::vec(generated_line(), 0..50)) {
        let text = lines.join("\n") + "\n";
        if let Err(e) = check_stream(text.as_bytes()) {
            prop_assert!(false, "{e}\nstream:\n{text}");
        }
    }
}

/// `tapline run` end to end: every failing file's reasons are in its result and on the
/// terminal; a subtest's unclosed YAML block no longer fails a passing file.
#[test]
fn run_names_every_failing_files_reason() {
    let p = crate::util::Project::new();
    let echo = |lines: &[&str]| {
        lines
            .iter()
            .map(|l| format!("printf '%s\\n' '{l}'\n"))
            .collect::<String>()
    };
    p.write(
        "test/ok-closer.sh",
        echo(&[
            "1..1",
            "# Subtest: cache",
            "    1..1",
            "    not ok 1 - evicts",
            "ok 1 - cache",
        ]),
    );
    p.write(
        "test/open-yaml.sh",
        echo(&[
            "1..1",
            "# Subtest: cache",
            "    1..1",
            "    ok 1 - evicts",
            "      ---",
            "      duration_ms: 2",
            "ok 1 - cache",
        ]),
    );
    p.write("test/point.sh", echo(&["1..2", "ok 1", "not ok 2 - adds"]));
    p.write("test/bail.sh", echo(&["1..2", "ok 1", "Bail out! no disk"]));
    // --keep-going: a bail out would otherwise stop the run before the other files.
    let ran = p.run(&["--format", "jsonl", "--keep-going"]);
    assert_eq!(ran.code, 1, "{}", ran.both());
    let mut failing = Vec::new();
    for line in ran.stdout.lines() {
        let ev: serde_json::Value = serde_json::from_str(line).expect("jsonl");
        if ev["type"] != "file_finished" {
            continue;
        }
        let result = &ev["result"];
        let reasons: Vec<String> = result["reasons"]
            .as_array()
            .expect("reasons")
            .iter()
            .map(|r| r.as_str().unwrap_or_default().to_owned())
            .collect();
        if result["ok"] == false {
            assert!(!reasons.is_empty(), "failing without a reason: {result}");
            failing.extend(reasons);
        } else {
            assert!(reasons.is_empty(), "passing with reasons: {result}");
        }
    }
    let mut want = vec![
        "bailed out: no disk".to_owned(),
        "1 test point failed: \"adds\"".to_owned(),
        "subtest \"cache\" failed".to_owned(),
    ];
    failing.sort();
    want.sort();
    assert_eq!(failing, want, "{}", ran.both());
    let human = p.run(&["--keep-going"]);
    // The terminal says the failed points by its counts and their names under the file
    // (#43: each thing once), not in the file's line.
    assert!(human.stderr.contains("  ✗ adds"), "{}", human.both());
    for reason in want.iter().filter(|r| !r.contains("test point failed")) {
        assert!(
            human.stderr.contains(reason.as_str()),
            "{reason:?} not shown:\n{}",
            human.both()
        );
    }
}
