//! Issue 41's tapbundle reader, on tapbundle's streams recorded from real tapbundle 5.6.3
//! (scripts/record-producers.sh, test-data/producers/tapbundle-*.tap). tapbundle prints a
//! test's own output *before* its point and a failure's error (`console.log(err)`: the
//! message, the frames, node's `{ … }`) straight *after* its `not ok`; what follows that error
//! up to the next point is the next test's output. So a failure's output is what it printed
//! and its error's, never the next test's: tstest shows each line above the test that printed
//! it. Checked in the terminal, the jsonl explanation, JUnit and Markdown.
use crate::util::{replay, repo, require};

fn recording(name: &str) -> Vec<u8> {
    std::fs::read(repo().join("test-data/producers").join(name)).expect("recording")
}

/// `s` as a JSON string.
fn json(s: &str) -> String {
    serde_json::Value::String(s.to_owned()).to_string()
}

/// The part of `text` from the first line containing `from` up to the next line containing
/// `to` (or the end).
fn section<'t>(text: &'t str, from: &str, to: &str) -> &'t str {
    let start = text
        .find(from)
        .unwrap_or_else(|| panic!("no {from:?} in:\n{text}"));
    let rest = &text[start..];
    let body = rest.find('\n').map_or(rest, |n| &rest[n..]);
    match body.find(to) {
        Some(end) => &rest[..rest.len() - body.len() + end],
        None => rest,
    }
}

/// Runs `name` as a one-file run; its terminal, jsonl, JUnit and Markdown.
fn run(name: &str) -> (String, String, String, String) {
    let run = replay("t", recording(name), 1);
    assert_eq!(run.ran.code, 1, "{}", run.ran.both());
    let [(_, terminal), (_, junit), (_, markdown)] = run.sinks();
    (terminal, run.jsonl(), junit, markdown)
}

/// For each failure: its name, a line of its own output (if any), and the next test's line
/// printed between its error and the next point.
fn check(name: &str, cases: &[(&str, Option<&str>, &str)]) {
    let (terminal, jsonl, junit, md) = run(name);
    for &(failure, own, next) in cases {
        let explained = jsonl
            .lines()
            .find(|l| l.contains("\"explained\"") && l.contains(&format!("[{}]", json(failure))))
            .unwrap_or_else(|| panic!("no explanation of {failure:?}:\n{jsonl}"));
        let sinks = [
            (
                "terminal",
                section(&terminal, &format!("✗ {failure}"), "  ✗ "),
            ),
            ("jsonl", explained),
            (
                "JUnit",
                section(
                    &junit,
                    &format!("<testcase name=\"{failure}\""),
                    "</testcase>",
                ),
            ),
            ("Markdown", section(&md, &format!("› {failure}"), "#### ")),
        ];
        for (sink, text) in sinks {
            assert!(
                !text.contains(next),
                "{name}: {sink} gives {failure:?} the next test's {next:?}:\n{text}"
            );
            if let Some(own) = own {
                assert!(
                    text.contains(own),
                    "{name}: {sink} lacks {failure:?}'s own {own:?}:\n{text}"
                );
            }
        }
    }
}

#[test]
fn issue41_tapbundle_the_output_after_a_failures_error_is_the_next_tests() {
    if !require(
        "issue41_tapbundle_the_output_after_a_failures_error_is_the_next_tests",
        &["bash"],
    ) {
        return;
    }
    // smartexpect's `Error: Expected value to equal …` and its frames.
    check(
        "tapbundle-mixed.tap",
        &[(
            "compares strings with a \\ backslash",
            Some("log before the failing expect"),
            "log from the next passing test",
        )],
    );
    // node:assert's AssertionError with its `{ … }` fields.
    check(
        "tapbundle-assert.tap",
        &[(
            "strict equal strings",
            Some("hello there"),
            "output of the passing test",
        )],
    );
    // Tests run in parallel: the slow test's last line comes after the fast one's failure.
    check(
        "tapbundle-parallel.tap",
        &[(
            "fast failing test",
            Some("Expected value to equal"),
            "slow test ends",
        )],
    );
}
