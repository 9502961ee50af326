//! Issue 41, item 2: the explanation-conformance suite, in `cargo test`. Every recording of a
//! real producer in test-data/producers/ runs as a real one-file run of this build, and its
//! explanations, terminal, log, JUnit and Markdown are held to the recording's known answer
//! (`NAME.answer.txt`, protocol-spec/explanations.md). The suite is
//! scripts/explain-conformance.py (which `.ci/run` runs with the release build); this is a thin
//! caller of it, so the two can never disagree on what they check.
use std::process::Command;

use crate::util::{repo, require};

/// Runs the suite over `recordings` (all when empty) with this build; its exit code and output.
fn suite(recordings: &[&str]) -> (Option<i32>, String) {
    let out = Command::new("python3")
        .arg(repo().join("scripts/explain-conformance.py"))
        .arg("--tapline")
        .arg(env!("CARGO_BIN_EXE_tapline"))
        .args(recordings)
        .output()
        .expect("python3 runs");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.code(), text)
}

#[test]
fn issue41_explain_conformance_every_recording_agrees_with_its_known_answer() {
    if !require(
        "issue41_explain_conformance_every_recording_agrees_with_its_known_answer",
        &["python3"],
    ) {
        return;
    }
    let (code, text) = suite(&[]);
    assert_eq!(code, Some(0), "{text}");
    let last = text.lines().last().unwrap_or_default();
    let agree = last.split(' ').next().unwrap_or_default();
    let (n, of) = agree.split_once('/').unwrap_or_default();
    assert!(
        n == of && n.parse::<usize>().is_ok_and(|n| n > 50),
        "{text}"
    );
}

/// The suite fails when a report and the answer part: a known answer whose value was changed
/// (as a reader that read another value would give), named on its line, and a recording that
/// gained failures but has no answer.
#[test]
fn issue41_explain_conformance_a_mutated_answer_is_a_disagreement() {
    if !require(
        "issue41_explain_conformance_a_mutated_answer_is_a_disagreement",
        &["python3"],
    ) {
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let producers = repo().join("test-data/producers");
    let answer = std::fs::read_to_string(producers.join("perl-explain-merged.answer.txt"))
        .expect("the known answer");
    let mutated = answer.replacen("expected: \"1.0\"", "expected: \"1.5\"", 1);
    assert_ne!(mutated, answer, "the answer names the value");
    std::fs::copy(
        producers.join("perl-explain-merged.tap"),
        dir.path().join("perl-explain-merged.tap"),
    )
    .expect("copy");
    std::fs::write(dir.path().join("perl-explain-merged.answer.txt"), mutated).expect("write");
    std::fs::copy(
        producers.join("perl-json-pp.tap"),
        dir.path().join("perl-json-pp.tap"),
    )
    .expect("copy");
    let out = Command::new("python3")
        .arg(repo().join("scripts/explain-conformance.py"))
        .arg("--tapline")
        .arg(env!("CARGO_BIN_EXE_tapline"))
        .arg("--producers")
        .arg(dir.path())
        .output()
        .expect("python3 runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains(
            "perl-explain-merged.tap: answer line 10: known 'expected: \"1.5\"', the run gives 'expected: \"1.0\"'"
        ),
        "{text}"
    );
    assert!(
        text.contains("perl-json-pp.tap: no known answer, but the run explains failures"),
        "{text}"
    );
    assert!(text.ends_with("0/2 recordings agree\n"), "{text}");
}

/// pytest's JUnit XML (`--junitxml`) of the tests its `--tap-stream` recording explains: the
/// failure's text is pytest's own report, read as the stream's comments are, so the known
/// answer has the test's line (`test_explain.py:13`, from `FILE.py:13: AssertionError`) and the
/// values of `assert 3 == 4` and of unittest's `'hello world' != 'hello, world'`.
#[test]
fn issue41_explain_conformance_pytest_junit_failures_read_as_pytests_stream() {
    if !require(
        "issue41_explain_conformance_pytest_junit_failures_read_as_pytests_stream",
        &["python3"],
    ) {
        return;
    }
    let (code, text) = suite(&["pytest-explain.junit.xml"]);
    assert_eq!(code, Some(0), "{text}");
    assert!(!text.contains("known wrong"), "{text}");
    let answer =
        std::fs::read_to_string(repo().join("test-data/producers/pytest-explain.answer.txt"))
            .expect("the known answer");
    for fact in [
        "location: test-data/producers/src/pytest-tap/test_explain.py:13\n",
        "expected: 4\nactual: 3\n",
        "expected: \"hello, world\"\nactual: \"hello world\"\n",
    ] {
        assert!(answer.contains(fact), "{fact:?}:\n{answer}");
    }
}
