//! Issue 41's mocha reader: `mocha --reporter tap` writes a failure as the error's message and
//! then its stack, indented under the `not ok` line, recorded from real mocha
//! (scripts/record-mocha.sh, test-data/producers/mocha/). The error's message is the failure's
//! (said once, not once as the message and again as the stack's first line), the first frame
//! in the project its location, node's `+ actual - expected` block its diff. The known answer
//! of the terminal's explanation (explain.explained.txt), and the same facts in JUnit (whose
//! message is the error's, not the test's name) and Markdown.
use crate::util::{parse_cli, replay, repo, require, unmarkdown, unxml, Project};

fn recording() -> Vec<u8> {
    std::fs::read(repo().join("test-data/producers/mocha/explain.tap")).expect("recording")
}

#[test]
fn issue41_mocha_tap_failures_explained_as_mocha_means_them() {
    let (_, stdout, stderr) = parse_cli(&["--color", "never"], &recording());
    let known =
        std::fs::read_to_string(repo().join("test-data/producers/mocha/explain.explained.txt"))
            .expect("known answer");
    assert_eq!(format!("{stdout}{stderr}"), known);
}

#[test]
fn issue41_mocha_tap_failures_read_the_same_in_every_sink() {
    if !require(
        "issue41_mocha_tap_failures_read_the_same_in_every_sink",
        &["bash"],
    ) {
        return;
    }
    let run = replay("explain", recording(), 4);
    let (p, ran) = (&run.project, &run.ran);
    assert_eq!(ran.code, 1, "{}", ran.both());
    let junit = unxml(&p.read_text("out.xml"));
    for (sink, text) in [
        ("terminal", ran.stderr.clone()),
        ("JUnit", junit.clone()),
        ("Markdown", unmarkdown(&p.read_text("out.md"))),
    ] {
        for fact in [
            "test/explain.js:7:12",
            "test/explain.js:10:11",
            "test/explain.js:12:35",
            "expected 200 got 404",
            "AssertionError [ERR_ASSERTION]",
            // Ours, drawn from node's block (which spells `a: 1,`); each sink marks its
            // sides its own way.
            "\"a\": 1,",
            "     2,",
            "     3,",
        ] {
            assert!(text.contains(fact), "{sink} lacks {fact:?}:\n{text}");
        }
        // JUnit says it twice by design, the `message` attribute and the body, and keeps the
        // file's whole stream in `<system-out>`.
        let once = if sink == "JUnit" { 2 } else { 1 };
        let explained = text.split("<system-out>").next().unwrap_or_default();
        assert_eq!(
            explained.matches("expected 200 got 404").count(),
            once,
            "{sink}: the message once:\n{text}"
        );
    }
    for message in [
        "message=\"Expected values to be strictly equal:",
        "message=\"expected 200 got 404\"",
        "message=\"expected 200 \"OK\", got 404 \"Not Found\"\"",
    ] {
        assert!(junit.contains(message), "JUnit lacks {message:?}:\n{junit}");
    }
}

/// expressjs/body-parser b1f3d58 with a planted bug (urlencoded's `parameterLimit` default
/// 1000 → 100), `mocha --reporter tap --check-leaks test/urlencoded.js`: supertest joins the
/// error's stack and its `.expect()` call's with `----`; both are the stack, none is output,
/// and the message and location are the ones mocha's spec reporter prints.
#[test]
fn issue41_mocha_tap_supertests_joined_stack_is_the_stack() {
    let tap = std::fs::read(repo().join("test-data/producers/mocha/body-parser-urlencoded.tap"))
        .expect("recording");
    let (_, stdout, stderr) = parse_cli(&["--color", "never"], &tap);
    let text = format!("{stdout}{stderr}");
    let failure = text
        .split("✗ bodyParser.urlencoded() with extended option when true should parse array index notation with large array\n")
        .nth(1)
        .and_then(|t| t.split("\n✓").next())
        .expect("the failure");
    assert!(
        failure.starts_with(
            "    at test/urlencoded.js:252:12\n    Unexpected token 'p', \"[parameters\"... is not valid JSON\n    SyntaxError\n"
        ),
        "{failure}"
    );
    assert!(
        failure.contains("    ----\n    at JSON.parse (<anonymous>)\n"),
        "{failure}"
    );
    assert!(!failure.contains("output:"), "{failure}");
}

/// A test's `console.error` before its failing point (mocha writes it to stderr while the
/// test runs, then `not ok` to stdout) is that failure's on every run: it reached tapline while
/// the parser still held the point before (which waits for the next line), and so went to
/// that passing point, or after `not ok`'s line and went to the failure, by which pipe was
/// read first. The sleeps make the first order (seen most often) certain; and a line written
/// after a `not ok` stays that failure's.
#[test]
fn issue41_mocha_stderr_before_a_failure_is_the_failures_on_every_run() {
    if !require(
        "issue41_mocha_stderr_before_a_failure_is_the_failures_on_every_run",
        &["bash"],
    ) {
        return;
    }
    let p = Project::new();
    p.write(
        "t.sh",
        "echo 1..3\necho 'ok 1 - adds'\nsleep 0.2\necho 'debug: about to compare' >&2\nsleep 0.2\n\
         echo 'not ok 2 - fails'\nsleep 0.2\necho 'after the failure' >&2\nsleep 0.2\necho 'ok 3 - later'\n",
    );
    let ran = p.run(&["t.sh", "--color", "never", "--no-cache", "-o", "out.xml"]);
    assert_eq!(ran.code, 1, "{}", ran.both());
    assert!(
        ran.stderr.contains(
            "  ✗ fails\n    output:\n    │ debug: about to compare\n    │ after the failure\n"
        ),
        "{}",
        ran.stderr
    );
    let junit = p.read_text("out.xml");
    let failure = junit.split("<failure").nth(1).unwrap_or_default();
    let failure = failure.split("</failure>").next().unwrap_or_default();
    assert!(failure.contains("debug: about to compare"), "{junit}");
    assert!(failure.contains("after the failure"), "{junit}");
}
