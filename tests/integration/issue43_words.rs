//! #43: one vocabulary: a test that fails in every run of a series fails every run; it is
//! never called unstable.
use crate::util::Project;

#[test]
fn issue43_a_test_failing_every_run_fails_every_run_not_unstable() {
    let p = Project::new();
    p.script(
        "t/bad.t",
        "#!/bin/sh\necho 1..2\necho 'ok 1 - fine'\necho 'not ok 2 - never'\n",
    );
    let ran = p.run(&["--runs", "3", "--no-history", "--format", "summary"]);
    assert_eq!(ran.code, 1, "{}", ran.both());
    let doc = ran.summary_doc();
    let never = doc["stability"]["tests"]
        .as_array()
        .expect("tests")
        .iter()
        .find(|t| t["name"] == "never")
        .cloned()
        .expect("the test `never`");
    assert_eq!(never["class"], "fails_every_run", "{never:#}");
    assert!(ran.stderr.contains("fails every run"), "{}", ran.stderr);
    assert!(!ran.stderr.contains("highly_unstable"), "{}", ran.stderr);
    assert!(!ran.stderr.contains("UNSTABLE"), "{}", ran.stderr);
    assert!(ran.stderr.contains("✗ FAIL  "), "{}", ran.stderr);
}

#[test]
fn issue43_send_without_a_daemon_says_how_to_start_one() {
    let p = Project::new();
    let ran = p.tapline(&["send", "unit"]);
    assert_eq!(ran.code, 2, "{}", ran.both());
    assert!(
        ran.stderr.contains("no tapline daemon listens"),
        "{}",
        ran.both()
    );
    assert!(ran.stderr.contains("`tapline serve`"), "{}", ran.both());
}

/// `tapline parse` on a terminal with nothing piped in says what it waits for (a real
/// terminal, through `script`).
#[test]
fn issue43_parse_on_a_terminal_says_what_it_waits_for() {
    if !crate::util::require(
        "issue43_parse_on_a_terminal_says_what_it_waits_for",
        &["script"],
    ) {
        return;
    }
    let bin = env!("CARGO_BIN_EXE_tapline");
    let out = std::process::Command::new("script")
        .args(["-qec", &format!("timeout 5 '{bin}' parse"), "/dev/null"])
        .stdin(std::process::Stdio::null())
        .output()
        .expect("script runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("reading a stream from the terminal"),
        "{text}"
    );
}
