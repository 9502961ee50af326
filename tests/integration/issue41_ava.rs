//! Issue 41's ava reader: `ava --tap` puts an assertion's values under `values:` (ava 5) or
//! `details:` (ava 6), a map of ava's labels, the diff among them as `Difference (- actual, +
//! expected):` with ava's sides, the reverse of tapline's; ava 6's `at:` is a folded frame in
//! its own assert.js, ava 5's a `file://` URL of the test's line. Recorded from real ava
//! (scripts/record-ava.sh, test-data/producers/ava/). The known answers of the terminal's
//! explanation (`*.explained.txt`), the same facts in the log, JUnit and Markdown, and a bare
//! run, whose driver writes ava's labelled values as ava's TAP reporter does.
use crate::util::{npm, parse_cli, replay, repo, require, unmarkdown, unxml};

fn recording(name: &str) -> Vec<u8> {
    std::fs::read(repo().join("test-data/producers/ava").join(name)).expect("recording")
}

fn known(name: &str) -> String {
    std::fs::read_to_string(repo().join("test-data/producers/ava").join(name))
        .expect("known answer")
}

#[test]
fn issue41_ava_tap_failures_explained_as_ava_means_them() {
    for case in ["explain", "explain-ava5"] {
        let (_, stdout, stderr) =
            parse_cli(&["--color", "never"], &recording(&format!("{case}.tap")));
        assert_eq!(
            format!("{stdout}{stderr}"),
            known(&format!("{case}.explained.txt")),
            "{case}"
        );
    }
}

#[test]
fn issue41_ava_tap_failures_read_the_same_in_every_sink() {
    if !require(
        "issue41_ava_tap_failures_read_the_same_in_every_sink",
        &["bash"],
    ) {
        return;
    }
    let run = replay("explain", recording("explain-ava5.tap"), 1);
    let (p, ran) = (&run.project, &run.ran);
    assert_eq!(ran.code, 1, "{}", ran.both());
    let junit = unxml(&p.read_text("out.xml"));
    let markdown = unmarkdown(&p.read_text("out.md"));
    for (sink, text) in [
        ("terminal", ran.stderr.clone()),
        ("JUnit", junit.clone()),
        ("Markdown", markdown.clone()),
    ] {
        for fact in [
            // ava 5's `file://test/explain.js:8:5`, a place in the project.
            "test/explain.js:8:5",
            "test/explain.js:13:5",
            "test/explain.js:30:5",
            "greeting",
            "Value is not `true`: false",
            "Regular expression: /x/",
            "Error thrown in test",
            "Cannot read properties of undefined",
            // ava's `- 2` / `+ 3`: 2 is what the test got, 3 what it expected.
            "Expected: 3",
            "Received: 2",
            "\"hello world\"",
        ] {
            assert!(text.contains(fact), "{sink} lacks {fact:?}:\n{text}");
        }
        assert!(!text.contains("file://"), "{sink}:\n{text}");
    }
    // Each sink's own signs, with ava's meaning: the expected side is `- ` in the terminal
    // and JUnit, `+ ` in Markdown's `diff` block (its green).
    for (sink, text, expected, received) in [
        ("terminal", ran.stderr.as_str(), "- ", "+ "),
        ("JUnit", junit.as_str(), "- ", "+ "),
        ("Markdown", markdown.as_str(), "+ ", "- "),
    ] {
        for (sign, side) in [(expected, "Expected: 3"), (received, "Received: 2")] {
            assert!(
                text.contains(&format!("{sign}{side}")),
                "{sink} lacks {sign}{side}:\n{text}"
            );
        }
        for (sign, line) in [(expected, "    3,"), (received, "    2,")] {
            assert!(
                text.contains(&format!("{sign}{line}")),
                "{sink}: the deep diff's {line:?} on its side:\n{text}"
            );
        }
    }
    // The log keeps what ava printed, byte for byte.
    let log = p.read_text(".nogit/testlogs/explain.log");
    assert_eq!(log.as_bytes(), recording("explain-ava5.tap"), "{log}");
}

/// A bare run in an ava project: the driver writes ava's labelled values (its `details`), so
/// a failure reads as `ava --tap`'s does, with the test's line: no invented message
/// (`t.is() failed`), ava's sides.
#[test]
fn issue41_ava_a_bare_run_explains_as_ava_does() {
    let test = "issue41_ava_a_bare_run_explains_as_ava_does";
    let Some(dir) = npm::suite(test, "ava-basic", &["ava/package.json"]) else {
        return;
    };
    let p = npm::copy_of(&dir, Some(&dir.join("node_modules")));
    p.write("test/explain.test.js", known("src/explain.js"));
    let ran = p.run(&[
        "test/explain.test.js",
        "--no-cache",
        "--color",
        "never",
        "-o",
        "out.xml",
        "-o",
        "out.md",
    ]);
    assert_eq!(ran.code, 1, "{}", ran.both());
    let failure = |name: &str| {
        let text = ran.stderr.split(&format!("  ✗ {name}\n")).nth(1);
        let text = text.and_then(|t| t.split("\n  ✗").next());
        text.unwrap_or_default().to_owned()
    };
    assert!(
        failure("is numbers").starts_with(
            "    at test/explain.test.js:8:5\n    assertion t.is()\n\n    - Expected: 3\n    + Received: 2\n"
        ),
        "{}",
        ran.stderr
    );
    assert!(
        failure("is strings").starts_with(
            "    at test/explain.test.js:17:5\n    greeting\n    assertion t.is()\n\n    - Expected\n    + Received\n\n    - \"hello world\"\n    + \"hello there\"\n"
        ),
        "{}",
        ran.stderr
    );
    assert!(
        failure("true").starts_with(
            "    at test/explain.test.js:26:9\n    assertion t.true()\n    Value is not `true`: false\n"
        ),
        "{}",
        ran.stderr
    );
    assert!(
        !ran.stderr.contains("failed\n    assertion"),
        "{}",
        ran.stderr
    );
    let junit = unxml(&p.read_text("out.xml"));
    let markdown = unmarkdown(&p.read_text("out.md"));
    for (sink, text) in [("JUnit", junit), ("Markdown", markdown)] {
        for fact in [
            "test/explain.test.js:8:5",
            "Expected: 3",
            "Received: 2",
            "Value is not `true`: false",
        ] {
            assert!(text.contains(fact), "{sink} lacks {fact:?}:\n{text}");
        }
        assert!(!text.contains("t.is() failed"), "{sink}:\n{text}");
    }
    let log = p.read_text(".nogit/testlogs/test__explain.test.log");
    assert!(
        log.contains("\"Difference (- actual, + expected):\": \"- 2\\n+ 3\""),
        "{log}"
    );
}
