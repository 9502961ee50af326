//! Issue 41's two explanations the explanation-conformance suite marked `# known wrong:`,
//! on the recordings in test-data/producers/, in the terminal, JUnit and Markdown:
//! * bats' TAP 13 (`bats --formatter tap13`) writes as `message:` every comment line
//!   `bats --tap` prints after a failing point: the stack, the failed command, then the test's
//!   output. The command is the message and the rest the output, as from `bats --tap`;
//! * node-tap's runner writes a file's subtest's diagnostics as the process it ran (`stdio`,
//!   `cwd`, `externalID`, `command`, `exitCode`, `signal`): a file that failed through its
//!   tests is explained by them, not by tap's bookkeeping.
use crate::util::{replay, repo, require};

/// The recording run as a file of a project: (terminal, JUnit, Markdown).
fn sinks(tap: &str) -> [(&'static str, String); 3] {
    let recorded = std::fs::read(repo().join("test-data/producers").join(tap)).expect("recording");
    let run = replay("explain", &recorded, 1);
    assert_eq!(run.ran.code, 1, "{}", run.ran.both());
    run.sinks()
}

/// Where each sink says a failure's message: the terminal's line under `at`, JUnit's
/// `message=` attribute, Markdown's quote.
fn messages(sink: &str, text: &str) -> Vec<String> {
    let lines: Vec<&str> = text.lines().collect();
    match sink {
        "terminal" => (lines.windows(2))
            .filter(|w| w[0].trim_start().starts_with("at "))
            .map(|w| w[1].trim().to_owned())
            .collect(),
        "JUnit" => (lines.iter())
            .filter_map(|l| l.split_once("<failure message=\""))
            .map(|(_, m)| m.split_once("\">").map_or(m, |(m, _)| m).to_owned())
            .collect(),
        _ => (lines.iter())
            .filter_map(|l| l.strip_prefix("> "))
            .map(str::to_owned)
            .collect(),
    }
}

/// The message was the failed command and then the test's output (`expected: expected`,
/// `actual:   actual`), which `bats --tap` gives as output: now after the message, as the
/// values the test compared (`expected:` / `actual:` under bats' failed command, issue41_shell_tap).
#[test]
fn issue41_bats_tap13_message_is_the_failed_command_and_the_rest_its_output() {
    if !require(
        "issue41_bats_tap13_message_is_the_failed_command_and_the_rest_its_output",
        &["bash"],
    ) {
        return;
    }
    let command = r#"`[ "$actual" = "$expected" ]' failed"#;
    for (sink, text) in sinks("bats-tap13-mixed.tap") {
        let said = messages(sink, &text);
        assert!(
            said.iter().any(|m| m == command),
            "{sink}: no message {command:?} in {said:?}\n{text}"
        );
        for printed in ["expected: expected", "actual:   actual"] {
            assert!(
                !said.iter().any(|m| m.contains(printed)),
                "{sink}: {printed:?} in a message {said:?}\n{text}"
            );
            let value = printed
                .split_whitespace()
                .last()
                .map(|v| format!("\"{v}\""));
            let at = value.and_then(|v| text.rfind(&v));
            let after = text.find(command).expect("the message");
            assert!(
                at.is_some_and(|at| at > after),
                "{sink}: the value of {printed:?} is lost or before its message\n{text}"
            );
        }
    }
}

/// Each file's subtest was a failure of its own, explained by `other stdio: inherit`,
/// `other externalID: …`: now its children's failures are the file's two, and tap's runner
/// fields are nowhere.
#[test]
fn issue41_node_tap_runner_file_failed_through_its_children_is_theirs() {
    if !require(
        "issue41_node_tap_runner_file_failed_through_its_children_is_theirs",
        &["bash"],
    ) {
        return;
    }
    for (sink, text) in sinks("node-tap-runner-trailer.tap") {
        for runner in [
            "stdio",
            "inherit",
            "externalID",
            "/usr/bin/node",
            "exitCode",
        ] {
            assert!(!text.contains(runner), "{sink}: {runner:?}\n{text}");
        }
        for child in [
            "node-test-trailer.test.mjs > divides",
            "tape-trailer.js > alias > expands the alias",
        ] {
            assert!(text.contains(child), "{sink} lacks {child:?}\n{text}");
        }
    }
    let [(_, terminal), (_, junit), (_, markdown)] = sinks("node-tap-runner-trailer.tap");
    let recap: Vec<&str> = (terminal.lines())
        .skip_while(|l| *l != "Failures:")
        .filter(|l| l.starts_with("  ✗ "))
        .collect();
    assert_eq!(recap.len(), 2, "{recap:?}\n{terminal}");
    assert_eq!(junit.matches("<failure ").count(), 2, "{junit}");
    assert_eq!(markdown.matches("#### ").count(), 2, "{markdown}");
}
