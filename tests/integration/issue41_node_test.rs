//! Issue 41's node:test reader, on node 20's own TAP reporter (`node --test --test-reporter
//! tap`, and `tsx --test` under tsx 3.12.7) recorded by scripts/record-node-test.sh into
//! test-data/producers/node-test/: a thrown error is its class and message, the location is the
//! assertion's line (the stack's first frame in the project, the TypeScript one under tsx), a
//! comparison's values are said once (node's headline, then tapline's diff), node 20's
//! duplicate-key YAML of `assert.throws(fn, { message: /re/ })` is read, and node's run
//! summary (`# tests 8` … `# duration_ms`) is no one's output. The known answers of the
//! terminal's explanation (`<case>.explained.txt`), and the same facts in the terminal, the
//! file's log, JUnit and Markdown of a `tapline run`.
use crate::util::{parse_cli, repo, require, unmarkdown, unxml, Project};

/// Where scripts/record-node-test.sh ran the sources: node's paths in the recordings.
const RECORDED_IN: &str = "/tmp/tapline-record-node-test";

fn dir() -> std::path::PathBuf {
    repo().join("test-data/producers/node-test")
}

fn recording(case: &str) -> String {
    std::fs::read_to_string(dir().join(format!("{case}.tap"))).expect("recording")
}

/// `tapline parse --color never` of a recording: the terminal's explanation.
fn parsed(case: &str) -> String {
    let (_, stdout, stderr) = parse_cli(&["--color", "never"], recording(case).as_bytes());
    format!("{stdout}{stderr}")
}

/// The explanation of the failure named `name` (its lines up to the next point's).
fn failure<'a>(text: &'a str, name: &str) -> &'a str {
    let head = format!("✗ {name}  ");
    let at = text
        .find(&head)
        .unwrap_or_else(|| panic!("no {name:?}:\n{text}"));
    let rest = &text[at..];
    let body = rest.find('\n').map_or("", |n| &rest[n + 1..]);
    let end = body.find(['✗', '✓', '#']).unwrap_or(body.len());
    &body[..end]
}

#[test]
fn issue41_node_test_failures_explained_as_node_means_them() {
    for case in ["explain", "explain-tsx"] {
        let known = std::fs::read_to_string(dir().join(format!("{case}.explained.txt")))
            .expect("known answer");
        assert_eq!(parsed(case), known, "{case}");
    }
}

/// A thrown `TypeError` is `TypeError: runner.run is not a function`, as node prints an
/// uncaught error, not the message alone under node's wrapper `TypeError [ERR_TEST_FAILURE]
/// · testCodeFailure`; a bare `Error` likewise `Error: boom`.
#[test]
fn issue41_node_test_a_thrown_error_is_its_class_and_message() {
    let text = parsed("explain");
    let typed = failure(&text, "throws a TypeError");
    assert!(
        typed.contains("\n    TypeError: runner.run is not a function\n\n"),
        "{typed}"
    );
    assert!(
        failure(&text, "throws a plain Error").contains("\n    Error: boom\n\n"),
        "{text}"
    );
    assert!(
        failure(&parsed("explain-tsx"), "calls a missing method")
            .contains("\n    TypeError: p.scale is not a function\n\n"),
        "{text}"
    );
    for wrapper in ["ERR_TEST_FAILURE", "testCodeFailure"] {
        assert!(!text.contains(wrapper), "{wrapper}:\n{text}");
    }
    // An assertion keeps its class and code on the quiet line.
    assert!(
        failure(&text, "strict equal")
            .contains("\n    operator strictEqual · AssertionError [ERR_ASSERTION]\n"),
        "{text}"
    );
}

/// A comparison's values once: node's headline as the message, tapline's diff of node's
/// `expected`/`actual`, without node's own rendering of the two (`3 !== 4`, a loose
/// deep-equal's two objects and `should loosely deep-equal`, the `+ actual - expected` block).
#[test]
fn issue41_node_test_a_comparisons_values_are_said_once() {
    let text = parsed("explain");
    let strict = failure(&text, "strict equal");
    assert!(
        strict.contains(
            "    Expected values to be strictly equal:\n    operator strictEqual · AssertionError [ERR_ASSERTION]\n\n    - Expected: 4\n    + Received: 3\n"
        ),
        "{strict}"
    );
    assert!(!strict.contains("!=="), "{strict}");
    let loose = failure(&text, "deep equal");
    assert!(
        loose.starts_with(
            "      at /tmp/tapline-record-node-test/test/explain.test.mjs:33:12\n      Expected values to be loosely deep-equal:\n      operator deepEqual"
        ),
        "{loose}"
    );
    assert!(!loose.contains("should loosely"), "{loose}");
    assert_eq!(loose.matches("4").count(), 1, "one 4, the diff's:\n{loose}");
    let deep = failure(&text, "deep strict equal");
    assert!(!deep.contains("+ actual - expected"), "{deep}");
    assert_eq!(deep.matches("3").count(), 1, "one 3, the diff's:\n{deep}");
    // A message the test gave is kept whole.
    assert!(
        failure(&text, "custom message").contains("\n    the greeting\n"),
        "{text}"
    );
}

/// node 20 writes `assert.throws(fn, { message: /re/ })`'s failure with the thrown error's
/// fields at the assertion's indent (a second `error:`, `name:` and `stack:`): read as node's
/// spec reporter shows it, the assertion's message, its stack and line, node's comparison of
/// the messages as the diff; never "diagnostics are not valid YAML".
#[test]
fn issue41_node_test_duplicate_keys_of_a_nested_error_are_read() {
    let text = parsed("explain");
    let throws = failure(&text, "throws with a message");
    assert!(!throws.contains("not valid YAML"), "{throws}");
    assert!(
        throws.starts_with(
            "    at /tmp/tapline-record-node-test/test/explain.test.mjs:39:10\n    Expected values to be strictly deep-equal:\n    operator throws · AssertionError [ERR_ASSERTION]\n"
        ),
        "{throws}"
    );
    assert!(
        throws.contains("-   \"message\": /never matches/,\n    +   \"message\": \"Unexpected end of JSON input\","),
        "{throws}"
    );
    assert!(
        throws.contains("    TestContext.<anonymous> (file:///tmp/tapline-record-node-test/test/explain.test.mjs:39:10)\n"),
        "{throws}"
    );
}

/// `assert.rejects(fn, /Ahh!/)` and `assert.throws(fn, TypeError)`: node's message names what
/// was expected and what was thrown, and its YAML has the thrown error's fields at the
/// assertion's indent and an empty `expected:` (a RegExp has no fields): no diff of an empty
/// object against the error's fields, the assertion's own stack and line, and the thrown error
/// as node's spec reporter prints it below the message (`actual:` and where it was thrown).
#[test]
fn issue41_node_test_a_thrown_errors_mismatch_is_said_by_its_message() {
    let text = parsed("explain");
    let rejects = failure(&text, "rejects with a regular expression");
    assert!(
        rejects.starts_with(&format!(
            "    at {RECORDED_IN}/test/explain.test.mjs:49:3\n    The input did not match the regular expression /Ahh!/. Input:\n\n    'Error: Ahh?'\n    operator rejects · AssertionError [ERR_ASSERTION]\n    actual:\n      Error: Ahh?\n          at file://{RECORDED_IN}/test/explain.test.mjs:50:11\n"
        )),
        "{rejects}"
    );
    let class = failure(&text, "throws the wrong class");
    assert!(
        class.contains("Received \"RangeError\"\n\n    Error message:\n\n    out of range\n"),
        "{class}"
    );
    for t in [rejects, class] {
        assert!(!t.contains("Expected") || !t.contains("Received:"), "{t}");
        assert!(!t.contains("- Expected"), "{t}");
    }
}

/// The location is the assertion's line, the stack's first frame in the project, before the
/// `test()` call's `location:`; under tsx 3.12.7, whose `location:` is the transpiled
/// `2:1122`, the TypeScript line the stack names. The stack shows the project's frames, V8's
/// `new Promise (<anonymous>)` and `async Promise.all (index 0)` counted with node's own.
#[test]
fn issue41_node_test_the_location_is_the_assertions_line() {
    let text = parsed("explain");
    for (name, line) in [
        ("throws a TypeError", "15:10"),
        ("strict equal", "24:10"),
        ("deep strict equal", "29:12"),
        ("custom message", "55:10"),
    ] {
        let f = failure(&text, name);
        assert!(
            f.trim_start()
                .starts_with(&format!("at {RECORDED_IN}/test/explain.test.mjs:{line}\n")),
            "{name}: {f}"
        );
    }
    let deep = failure(&text, "deep strict equal");
    assert!(!deep.contains("<anonymous>)\n"), "{deep}");
    assert!(
        !failure(&text, "deep equal").contains("Promise.all"),
        "{text}"
    );
    let tsx = parsed("explain-tsx");
    assert!(
        failure(&tsx, "moves up").starts_with(&format!(
            "    at {RECORDED_IN}/test/explain-tsx.test.ts:17:10\n"
        )),
        "{tsx}"
    );
    assert!(!tsx.contains(".ts:2:"), "{tsx}");
}

/// The same facts in every sink of a `tapline run` (the recording put under the project, as
/// node run there would write it): terminal, the file's log, JUnit and Markdown; node's run
/// summary under no failure and not as the file's output, while the log keeps every line.
#[test]
fn issue41_node_test_failures_read_the_same_in_every_sink() {
    if !require(
        "issue41_node_test_failures_read_the_same_in_every_sink",
        &["bash"],
    ) {
        return;
    }
    let p = Project::new();
    let root = p.path().to_str().expect("a UTF-8 path").to_owned();
    p.write(
        "explain.tap",
        recording("explain").replace(RECORDED_IN, &root),
    )
    .write("explain.sh", "cat explain.tap\nexit 1\n");
    let ran = p.run(&["explain.sh", "-o", "out.xml", "-o", "out.md", "--no-cache"]);
    assert_eq!(ran.code, 1, "{}", ran.both());
    let junit = unxml(&p.read_text("out.xml"));
    let log = p.read_text(".nogit/testlogs/explain.log");
    let markdown = unmarkdown(&p.read_text("out.md"));
    for (sink, text) in [
        ("terminal", ran.stderr.clone()),
        ("JUnit", junit.clone()),
        ("Markdown", markdown.clone()),
    ] {
        for fact in [
            "test/explain.test.mjs:15:10",
            "TypeError: runner.run is not a function",
            "Error: boom",
            "test/explain.test.mjs:24:10",
            "Expected values to be strictly equal:",
            "test/explain.test.mjs:39:10",
            "\"message\": /never matches/,",
            "\"message\": \"Unexpected end of JSON input\",",
        ] {
            assert!(text.contains(fact), "{sink} lacks {fact:?}:\n{text}");
        }
        let explained = text.split("<system-out>").next().unwrap_or_default();
        for gone in [
            "ERR_TEST_FAILURE",
            "testCodeFailure",
            "not valid YAML",
            "3 !== 4",
            "should loosely deep-equal",
            "# tests 10",
            "# duration_ms",
        ] {
            assert!(!explained.contains(gone), "{sink} has {gone:?}:\n{text}");
        }
    }
    assert!(!ran.stderr.contains("output:"), "{}", ran.stderr);
    for line in ["# tests 10", "# fail 9", "# todo 0", "# duration_ms"] {
        assert!(log.contains(line), "the log keeps {line:?}:\n{log}");
    }
    for message in [
        "message=\"TypeError: runner.run is not a function\"",
        "message=\"Expected values to be loosely deep-equal:\"",
    ] {
        assert!(junit.contains(message), "JUnit lacks {message:?}:\n{junit}");
    }
}

/// node 22 (22.23.3) appends its one-line comparison to a message the test gave
/// (`assert.strictEqual('got', 'wanted', 'the greeting')`): the message is the test's, the
/// values the diff's, said once. The stream is node 22's own, cut to that failure.
#[test]
fn issue41_node_test_node_22s_comparison_after_a_custom_message_is_the_diffs() {
    let tap = "TAP version 13\n# Subtest: custom message\nnot ok 1 - custom message\n  ---\n  \
        duration_ms: 0.707365\n  type: 'test'\n  \
        location: '/tmp/real49/n22/test/explain.test.mjs:54:1'\n  \
        failureType: 'testCodeFailure'\n  error: |-\n    the greeting\n    \n    \
        'got' !== 'wanted'\n    \n  code: 'ERR_ASSERTION'\n  name: 'AssertionError'\n  \
        expected: 'wanted'\n  actual: 'got'\n  operator: 'strictEqual'\n  stack: |-\n    \
        TestContext.<anonymous> (file:///tmp/real49/n22/test/explain.test.mjs:55:10)\n    \
        Test.runInAsyncScope (node:async_hooks:214:14)\n  ...\n1..1\n";
    let (_, stdout, stderr) = parse_cli(&["--color", "never"], tap.as_bytes());
    let text = format!("{stdout}{stderr}");
    let f = failure(&text, "custom message");
    assert!(
        f.starts_with(
            "    at /tmp/real49/n22/test/explain.test.mjs:55:10\n    the greeting\n    operator strictEqual · AssertionError [ERR_ASSERTION]\n\n    - Expected\n    + Received\n\n    - \"wanted\"\n    + \"got\"\n"
        ),
        "{f}"
    );
    assert!(!f.contains("!=="), "{f}");
}
