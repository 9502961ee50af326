//! Issue 41's pytest reader: failures recorded from real pytest through tapline's plugin
//! (scripts/record-pytest.sh, test-data/producers/pytest/), explained as pytest means them.
//! Two reprs JSON cannot tell apart (`{1: 'a'}` against `{'1': 'a'}`, `(1, 2)` against
//! `[1, 2]`) are diffed as pytest's `Full diff` prints them, never "no visual difference";
//! the sides are pytest's (`-` the right, `+` the left: docs/failures.md). The known answer of
//! the terminal's explanation (test_compare.explained.txt), and the same facts in JUnit and
//! Markdown.
use crate::util::{parse_cli, repo, require, unmarkdown, unxml, Project};

fn recording() -> Vec<u8> {
    std::fs::read(repo().join("test-data/producers/pytest/test_compare.tap")).expect("recording")
}

#[test]
fn issue41_pytest_compare_explained_as_pytest_means_it() {
    let (_, stdout, stderr) = parse_cli(&["--color", "never"], &recording());
    let known = std::fs::read_to_string(
        repo().join("test-data/producers/pytest/test_compare.explained.txt"),
    )
    .expect("known answer");
    assert_eq!(format!("{stdout}{stderr}"), known);
}

#[test]
fn issue41_pytest_compare_reads_the_same_in_every_sink() {
    if !require(
        "issue41_pytest_compare_reads_the_same_in_every_sink",
        &["bash"],
    ) {
        return;
    }
    let p = Project::new();
    p.write("compare.tap", recording())
        .write("compare.sh", "cat compare.tap\nexit 1\n");
    let ran = p.run(&["compare.sh", "-o", "out.xml", "-o", "out.md", "--no-cache"]);
    assert_eq!(ran.code, 1, "{}", ran.both());
    for (sink, text) in [
        ("terminal", ran.stderr.clone()),
        ("JUnit", unxml(&p.read_text("out.xml"))),
        ("Markdown", unmarkdown(&p.read_text("out.md"))),
    ] {
        // Signs are the known answer's (Markdown's `diff` fence paints by its own: `+` green).
        for fact in [
            // pytest's Full diff of key types and of a tuple against a list.
            "Expected: {'1': 'a'}",
            "Received: {1: 'a'}",
            "Expected: [1, 2]",
            "Received: (1, 2)",
            // pytest's sides: `- hello world` (the right), `+ hello there` (the left).
            " \"hello world\"",
            " \"hello there\"",
            "compare.py:6",
            "compare.py:10",
            "compare.py:14",
            "container=tuple,",
        ] {
            assert!(text.contains(fact), "{sink} lacks {fact:?}:\n{text}");
        }
        assert!(
            !text.contains("no visual difference"),
            "{sink}: the values differ:\n{text}"
        );
    }
}

/// The same source run through real pytest: the plugin writes what the recording holds, an
/// exception's notes (hypothesis's `Failing test case:` with its arguments) kept whole after
/// pytest's explanation of the values is dropped for the diff.
#[test]
fn issue41_pytest_live_run_keeps_notes_and_diffs_what_json_cannot_tell() {
    if !require(
        "issue41_pytest_live_run_keeps_notes_and_diffs_what_json_cannot_tell",
        &["pytest"],
    ) {
        return;
    }
    let source = std::fs::read(repo().join("test-data/producers/pytest/src/test_compare.py"))
        .expect("source");
    let p = Project::new();
    p.write("test_compare.py", source);
    let ran = p.run(&["test_compare.py", "--color", "never", "--no-cache"]);
    assert_eq!(ran.code, 1, "{}", ran.both());
    for fact in [
        "- Expected: {'1': 'a'}",
        "+ Received: {1: 'a'}",
        "+ Received: (1, 2)",
        "Failing test case: test_noted(\n        container=tuple,\n    )",
        "at test_compare.py:20",
    ] {
        assert!(ran.stderr.contains(fact), "lacks {fact:?}:\n{}", ran.both());
    }
}
