//! Issue 41, mocha's leftovers: `mocha --reporter tap` prints its totals (`# tests 5`, `# pass
//! 1`, `# fail 4`) right under its last failure's stack, before its plan: they are the file's
//! output, never that failure's (the log keeps them where mocha wrote them); and tapline's own
//! mocha reporter writes `assert.strictEqual(2, 3)`'s values as the numbers they are, not the
//! strings `"2"` / `"3"`.
use crate::util::{npm, parse_cli, replay, repo, require};

fn recording() -> Vec<u8> {
    std::fs::read(repo().join("test-data/producers/mocha/explain.tap")).expect("recording")
}

/// The last failure's explanation in a report: from its name to the next heading.
fn last_failure<'t>(text: &'t str, name: &str) -> &'t str {
    text.rsplit(name).next().unwrap_or_default()
}

#[test]
fn issue41_mocha_leftovers_totals_are_no_failures_output() {
    let (_, stdout, stderr) = parse_cli(&["--color", "never"], &recording());
    let text = format!("{stdout}{stderr}");
    let last = last_failure(&text, "✗ http status\n");
    let last = last.split("\n✗ FAIL").next().unwrap_or_default();
    assert!(!last.contains("output:"), "{text}");
    assert!(
        last.ends_with("… 1 runtime frame hidden\n# tests 5\n# pass 1\n# fail 4\n"),
        "the totals are the file's, after the failure:\n{text}"
    );
}

#[test]
fn issue41_mocha_leftovers_totals_in_no_sinks_failure_and_raw_in_the_log() {
    if !require(
        "issue41_mocha_leftovers_totals_in_no_sinks_failure_and_raw_in_the_log",
        &["bash"],
    ) {
        return;
    }
    let run = replay("explain", recording(), 4);
    let (p, ran) = (&run.project, &run.ran);
    assert_eq!(ran.code, 1, "{}", ran.both());
    let junit = p.read_text("out.xml");
    let failures = junit.split("<system-out>").next().unwrap_or_default();
    let markdown = p.read_text("out.md");
    for (sink, text) in [
        ("terminal", ran.stderr.as_str()),
        ("JUnit", failures),
        ("Markdown", markdown.as_str()),
    ] {
        for total in ["# tests 5", "# pass 1", "# fail 4"] {
            let under = last_failure(text, "http status");
            assert!(
                !under.contains(total),
                "{sink}: {total} under the last failure:\n{text}"
            );
        }
    }
    let log = p.read(".nogit/testlogs/explain.log");
    assert_eq!(log, recording(), "the log keeps mocha's bytes");
}

/// `assert.strictEqual(2, 3)` in a bare run of a mocha project (test-data/suites/mocha-basic):
/// tapline's reporter writes the values as JavaScript prints them, so the diff has the numbers.
#[test]
fn issue41_mocha_leftovers_the_reporters_values_keep_their_types() {
    let test = "issue41_mocha_leftovers_the_reporters_values_keep_their_types";
    let package = r#"{"name":"tapline-mocha-fixture","private":true}"#;
    let Some(modules) =
        npm::installed(test, "mocha", package, "mocha@11.7.5", "mocha/package.json")
    else {
        return;
    };
    let p = npm::copy_of(&repo().join("test-data/suites/mocha-basic"), Some(&modules));
    p.write(
        "test/types.spec.js",
        "'use strict';\nconst assert = require('node:assert');\n\n\
         describe('types', function () {\n  \
         it('numbers', function () {\n    assert.strictEqual(1 + 1, 3);\n  });\n\n  \
         it('a string and a number', function () {\n    assert.strictEqual('2', 2);\n  });\n});\n",
    );
    let ran = p.run(&[
        "test/types.spec.js",
        "--no-cache",
        "--color",
        "never",
        "-o",
        "out.md",
    ]);
    assert_eq!(ran.code, 1, "{}", ran.both());
    let numbers = ran.stderr.split("✗ types > numbers\n").nth(1);
    let numbers = numbers.and_then(|t| t.split("✗ types >").next());
    let numbers = numbers.unwrap_or_default();
    assert!(
        numbers.contains("    - Expected: 3\n    + Received: 2\n"),
        "{}",
        ran.stderr
    );
    let mixed = ran.stderr.split("✗ types > a string and a number\n").nth(1);
    let mixed = mixed.unwrap_or_default();
    assert!(
        mixed.contains("- Expected: 2\n    + Received: \"2\"\n"),
        "{}",
        ran.stderr
    );
    let markdown = p.read_text("out.md");
    assert!(
        markdown.contains("+ Expected: 3\n- Received: 2\n"),
        "{markdown}"
    );
}
