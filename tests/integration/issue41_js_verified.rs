//! Issue 41's JavaScript producers checked against their harness on real projects
//! (docs/failures.md, "Checked on real projects"), and what that found:
//! * `assert.throws(fn, TypeError)` and `assert.rejects` failures as node's spec reporter (node
//!   20 and 22) prints them: node's message with its `Error message:` paragraph, no diff of
//!   the class against what was thrown, and the thrown value as the `actual` line (an error with
//!   the place it was thrown, `undefined` when nothing was), recorded from `node FILE`, as
//!   `tapline run` runs a node:test file (scripts/record-node-test.sh, `throws-direct.tap`);
//! * a string node writes in backticks (one holding both kinds of quote) is read, not shown as
//!   "diagnostics are not valid YAML";
//! * a node-tap subtest that failed through its children, whose YAML says only where it is
//!   (`at:` and tap's `source:` excerpt of the `t.test(` line), is theirs, as tap counts it
//!   (isaacs/minipass: `fail: 2`, not 4 failures in the recap);
//! * tape's closing totals (`# tests 426`, `# pass  425`, `# fail  1`) are the run's counts,
//!   no file's output, in the terminal, JUnit and Markdown (the log keeps every byte).
use crate::util::{parse_cli, replay, repo, require};

fn recording(path: &str) -> Vec<u8> {
    std::fs::read(repo().join("test-data/producers").join(path)).expect("recording")
}

/// `tapline parse --color never` of a recording: the terminal's explanation.
fn parsed(path: &str) -> String {
    let (_, stdout, stderr) = parse_cli(&["--color", "never"], &recording(path));
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
    let end = body.find(['✗', '✓']).unwrap_or(body.len());
    &body[..end]
}

/// Where scripts/record-node-test.sh ran the sources.
const SOURCE: &str = "file:///tmp/tapline-record-node-test/test/throws.test.mjs";

#[test]
fn issue41_js_verified_node_throws_shows_what_was_thrown_as_node_does() {
    let text = parsed("node-test/throws-direct.tap");
    let class = failure(&text, "throws another class");
    assert!(
        class.contains(&format!(
            "    The error is expected to be an instance of \"TypeError\". Received \"RangeError\"\n\n    Error message:\n\n    empty input\n    operator throws · AssertionError [ERR_ASSERTION]\n    actual:\n      RangeError: empty input\n          at parse ({SOURCE}:7:26)\n"
        )),
        "{class}"
    );
    let with_message = failure(&text, "throws another class, with a message");
    assert!(
        with_message.contains("    parse must reject an empty input\n")
            && with_message.contains("      RangeError: empty input\n"),
        "the thrown error is said beside the test's own message:\n{with_message}"
    );
    let nothing = failure(&text, "throws nothing");
    assert!(
        nothing.contains("    Missing expected exception (TypeError).\n    operator throws · AssertionError [ERR_ASSERTION]\n    actual: undefined\n"),
        "{nothing}"
    );
    let rejects = failure(&text, "rejects with another class");
    assert!(
        rejects.contains("    actual:\n      RangeError: empty input\n"),
        "{rejects}"
    );
    for name in [
        "throws another class",
        "throws nothing",
        "throws nothing, a regular expression",
        "rejects with another class",
    ] {
        let f = failure(&text, name);
        for wrong in [
            "- Expected",
            "+ Received",
            "[Function: TypeError]",
            "different types",
        ] {
            assert!(!f.contains(wrong), "{name} has {wrong:?}:\n{f}");
        }
    }
}

#[test]
fn issue41_js_verified_node_a_backticked_string_is_read() {
    let text = parsed("node-test/throws-direct.tap");
    let string = failure(&text, "throws a string");
    assert!(!string.contains("not valid YAML"), "{string}");
    assert!(
        string.contains(
            "    The error is expected to be an instance of \"TypeError\". Received \"'text'\"\n    operator throws · AssertionError [ERR_ASSERTION]\n    actual: 'text'\n"
        ),
        "{string}"
    );
}

/// The thrown error and node's message in every sink of a `tapline run`, and the log byte
/// for byte.
#[test]
fn issue41_js_verified_node_throws_in_every_sink() {
    if !require("issue41_js_verified_node_throws_in_every_sink", &["bash"]) {
        return;
    }
    let run = replay("throws", recording("node-test/throws-direct.tap"), 1);
    let ran = &run.ran;
    assert_eq!(ran.code, 1, "{}", ran.both());
    for (sink, text) in run.sinks() {
        for fact in [
            "Error message:",
            "RangeError: empty input",
            &format!("at parse ({SOURCE}:7:26)"),
            "actual: undefined",
            "actual: 'text'",
            "Missing expected exception (TypeError).",
        ] {
            assert!(text.contains(fact), "{sink} lacks {fact:?}:\n{text}");
        }
        for wrong in ["[Function: TypeError]", "not valid YAML"] {
            assert!(!text.contains(wrong), "{sink} has {wrong:?}:\n{text}");
        }
    }
}

/// ljharb/qs under tape 5: the failing file's closing totals were shown as its output.
#[test]
fn issue41_js_verified_tape_totals_are_no_files_output() {
    if !require(
        "issue41_js_verified_tape_totals_are_no_files_output",
        &["bash"],
    ) {
        return;
    }
    let run = replay("failures", recording("tape-failures.tap"), 1);
    let ran = &run.ran;
    assert_eq!(ran.code, 1, "{}", ran.both());
    for (sink, text) in run.sinks() {
        for total in ["# tests 4", "# pass  0", "# fail  4"] {
            assert!(!text.contains(total), "{sink} has {total:?}:\n{text}");
        }
    }
}

/// isaacs/minipass @ ab4b3b0 under tap 21 with `concat` joining with `' '`: one file's own
/// stream, as tap's runner printed it (dedented from under the file's subtest).
const MINIPASS_NESTED: &str = r#"TAP version 14
# Subtest: empty write
    ok 1 - first write returns false
    ok 2 - empty write returns false
    ok 3 - src is not flowing yet
    ok 4 - return true, now flowing
    ok 5 - got data
    1..5
ok 1 - empty write # time=12.5ms

# Subtest: non-empty write
    ok 1 - first write returns false
    ok 2 - empty write returns false
    ok 3 - src is not flowing yet
    ok 4 - return true, now flowing
    not ok 5 - got data
      ---
      compare: ===
      at:
        fileName: test/write-returns-true-when-readable-triggers-flow.ts
        lineNumber: 29
        columnNumber: 39
        isToplevel: true
      stack: |
        test/write-returns-true-when-readable-triggers-flow.ts:29:39
        Test.<anonymous> (test/write-returns-true-when-readable-triggers-flow.ts:41:3)
      source: |2
          const s = new Minipass<string>({ encoding: 'utf8' })
          const dest = new Minipass<string>({ encoding: 'utf8' })
          const p = dest.concat().then(d => t.equal(d, 'ab', 'got data'))
        --------------------------------------^
          t.equal(s.write('a'), false, 'first write returns false')
          t.equal(s.write(''), false, 'empty write returns false')
      diff: |
        --- expected
        +++ actual
        @@ -1,1 +1,1 @@
        -ab
        +a b
      ...
    
    1..5
not ok 2 - non-empty write # time=12.5ms
  ---
  at:
    fileName: test/write-returns-true-when-readable-triggers-flow.ts
    lineNumber: 26
    columnNumber: 3
    isToplevel: true
  source: |
    })
  
    t.test('non-empty write', async t => {
    --^
      const s = new Minipass<string>({ encoding: 'utf8' })
      const dest = new Minipass<string>({ encoding: 'utf8' })
  ...

1..2
"#;

#[test]
fn issue41_js_verified_node_tap_a_subtest_said_by_where_it_is_is_its_childrens() {
    if !require(
        "issue41_js_verified_node_tap_a_subtest_said_by_where_it_is_is_its_childrens",
        &["bash"],
    ) {
        return;
    }
    let run = replay("nested", MINIPASS_NESTED.as_bytes(), 1);
    let ran = &run.ran;
    assert_eq!(ran.code, 1, "{}", ran.both());
    let recap = ran.stderr.split("Failures:").nth(1).unwrap_or_default();
    assert_eq!(
        recap.lines().filter(|l| l.starts_with("  ✗ ")).count(),
        1,
        "one failure, the child's, as tap's `fail: 1`:\n{}",
        ran.stderr
    );
    for (sink, text) in run.sinks() {
        assert!(
            text.contains("write-returns-true-when-readable-triggers-flow.ts:29:39"),
            "{sink} lacks the child's place:\n{text}"
        );
        assert!(
            !text.contains("write-returns-true-when-readable-triggers-flow.ts:26:3"),
            "{sink} explains the subtest as a failure of its own:\n{text}"
        );
    }
}
