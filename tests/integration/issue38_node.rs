//! Issue 38, deliver 2: node:test's tests are counted as node counts them, every `it`/`test`
//! at every depth (a `test()` with subtests too), never a `describe`, in the summary line,
//! the run's totals and each file's, the summary document, `parse`'s machine formats, JUnit,
//! history and `--runs`: the totals equal node's own trailer (`# tests`, `# pass`, `# fail`,
//! `# cancelled`, `# skipped`, `# todo`). The fixture is `test-data/suites/node-nested`
//! (nested describes, skips and todos inside them, a failing leaf, tests node cancels); its
//! recording, `test-data/producers/node-test-nested.tap`, serves where node is not needed.
use crate::util::{copy_dir, file_doc, repo, require, Project};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::process::Command;

/// The fixture copied to the root of a fresh project.
fn nested() -> Project {
    let p = Project::new();
    copy_dir(&repo().join("test-data/suites/node-nested"), p.path());
    p
}

/// The recorded `node --test --test-reporter=tap` stream of `test/nested.test.mjs`.
const RECORDED: &str = "test-data/producers/node-test-nested.tap";

/// node's own trailer for `test/nested.test.mjs` (the recording ends with it).
fn nested_trailer() -> BTreeMap<String, u64> {
    trailer(&std::fs::read_to_string(repo().join(RECORDED)).expect("the recording"))
}

/// The counts of a node:test trailer (`# tests 19`, `# pass 6`, …), by name.
fn trailer(tap: &str) -> BTreeMap<String, u64> {
    let keys = [
        "tests",
        "suites",
        "pass",
        "fail",
        "cancelled",
        "skipped",
        "todo",
    ];
    tap.lines()
        .filter_map(|l| l.strip_prefix("# ")?.split_once(' '))
        .filter(|(k, _)| keys.contains(k))
        .filter_map(|(k, v)| Some((k.to_owned(), v.trim().parse().ok()?)))
        .collect()
}

/// A node trailer as tapline's tally says it: node's failures and cancelled tests are both
/// `fail`, the cancelled said apart as well.
fn as_tally(t: &BTreeMap<String, u64>) -> Value {
    let n = |k: &str| t.get(k).copied().unwrap_or(0);
    let mut v = json!({
        "pass": n("pass"),
        "fail": n("fail") + n("cancelled"),
        "skip": n("skipped"),
        "todo": n("todo"),
    });
    if n("cancelled") > 0 {
        v["cancelled"] = json!(n("cancelled"));
    }
    v
}

#[test]
fn issue38_node_the_recorded_trailer_is_what_the_fixture_says() {
    let t = nested_trailer();
    let want: BTreeMap<String, u64> = [
        ("tests", 19),
        ("suites", 5),
        ("pass", 6),
        ("fail", 4),
        ("cancelled", 3),
        ("skipped", 3),
        ("todo", 3),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v))
    .collect();
    assert_eq!(t, want);
}

#[test]
fn issue38_node_parse_counts_every_test_node_counts() {
    let p = Project::new();
    let path = repo().join(RECORDED);
    let path = path.to_str().expect("a UTF-8 path");
    let human = p.tapline(&["parse", path]);
    assert_eq!(human.code, 1, "{}", human.both());
    // node: tests 19, pass 6, fail 4, cancelled 3, skipped 3, todo 3.
    assert!(
        human
            .stdout
            .contains("✗ FAIL  7 failed (3 cancelled), 6 passed, 3 skipped, 3 todo (19 tests;"),
        "{}",
        human.both()
    );
    let want = as_tally(&nested_trailer());
    let summary = p.tapline(&["parse", "--format", "summary", path]);
    let doc: Value = serde_json::from_str(&summary.stdout).expect("a JSON document");
    assert_eq!(doc["tests"], want, "{doc:#}");
    // The stream's own top-level points are still what the reference parser counts.
    assert_eq!(doc["count"], 7, "{doc:#}");
    let jsonl = p.tapline(&["parse", "--format", "jsonl", path]);
    let end: Value =
        serde_json::from_str(jsonl.stdout.lines().last().expect("an end record")).expect("JSON");
    assert_eq!(end["type"], "end");
    assert_eq!(end["tests"], want, "{end:#}");
}

#[test]
fn issue38_node_parse_of_other_tap_has_no_tests_member() {
    let p = Project::new();
    p.write(
        "a.tap",
        "TAP version 13\n# Subtest: x\n    ok 1 - y\n    1..1\nok 1 - x\n1..1\n",
    );
    let summary = p.tapline(&["parse", "--format", "summary", "a.tap"]);
    let doc: Value = serde_json::from_str(&summary.stdout).expect("a JSON document");
    assert!(doc.get("tests").is_none(), "{doc:#}");
    let human = p.tapline(&["parse", "a.tap"]);
    assert!(
        human.stdout.contains("✓ PASS  1 passed (1 test)"),
        "{}",
        human.both()
    );
}

#[test]
fn issue38_node_parse_junit_has_a_case_per_test_node_counts() {
    let p = Project::new();
    let path = repo().join(RECORDED);
    let ran = p.tapline(&[
        "parse",
        path.to_str().expect("a UTF-8 path"),
        "-o",
        "report.xml",
    ]);
    assert_eq!(ran.code, 1, "{}", ran.both());
    let xml = p.read_text("report.xml");
    // node: 19 tests, 4 failed and 3 cancelled (failing cases), 3 skipped and 3 todo; and the
    // `describe` whose `before` hook threw, a case for its own error (node counts it in no
    // total, but a report that left the error out would hide why its tests were cancelled).
    assert!(
        xml.contains(r#"<testsuites name="tapline" tests="20" skipped="6" failures="8""#),
        "{xml}"
    );
    assert!(xml.contains("no database"), "{xml}");
    // A `test()` with subtests is a case (node counts it); a `describe` is none.
    assert!(
        xml.contains(r#"<testcase name="a test with subtests""#),
        "{xml}"
    );
    assert!(
        xml.contains(r#"<testcase name="a test whose subtest fails""#),
        "{xml}"
    );
    // A `describe` that failed because its tests did is none.
    assert!(!xml.contains(r#"<testcase name="parser""#), "{xml}");
    assert!(
        !xml.contains(r#"<testcase name="parser &gt; strings""#),
        "{xml}"
    );
    assert!(
        xml.contains(r#"<testcase name="parser &gt; strings &gt; unicode &gt; normalises""#),
        "{xml}"
    );
}

/// `node --test` in the project: its trailer, and whether it passed.
fn node_run(p: &Project, file: &str) -> (BTreeMap<String, u64>, bool) {
    let out = Command::new("node")
        .args(["--test", "--test-reporter=tap", file])
        .current_dir(p.path())
        .output()
        .expect("node runs");
    (
        trailer(&String::from_utf8_lossy(&out.stdout)),
        out.status.success(),
    )
}

#[test]
fn issue38_node_run_counts_as_node_does() {
    if !require("issue38_node_run_counts_as_node_does", &["node"]) {
        return;
    }
    let p = nested();
    let ran = p.run(&["--format", "summary"]);
    assert_eq!(ran.code, 1, "{}", ran.both());
    let doc = ran.summary_doc();
    let mut total = BTreeMap::new();
    for (file, passes) in [
        ("test/nested.test.mjs", false),
        ("test/passing.test.mjs", true),
    ] {
        let (node, ok) = node_run(&p, file);
        assert_eq!(ok, passes, "node --test {file}");
        let entry = file_doc(&doc, file);
        assert_eq!(entry["ok"], passes, "{entry:#}");
        assert_eq!(entry["tests"], as_tally(&node), "{file}: {entry:#}");
        for (k, v) in node {
            *total.entry(k).or_insert(0) += v;
        }
    }
    assert_eq!(doc["run"]["tests"], as_tally(&total), "{doc:#}");
    // The summary line too: node says 22 tests, 8 passed, 4 failed, 3 cancelled, 4 skipped,
    // 3 todo.
    let human = p.run(&[]);
    assert!(
        human.stderr.contains(
            "✗ FAIL  1 of 2 files failed · 7 failed (3 cancelled), 8 passed, 4 skipped, 3 todo"
        ),
        "{}",
        human.both()
    );
    assert!(
        human
            .stderr
            .contains("✓ test/passing.test.mjs  2 passed, 1 skipped"),
        "{}",
        human.both()
    );
}

#[test]
fn issue38_node_run_junit_has_a_case_per_test_node_counts() {
    if !require(
        "issue38_node_run_junit_has_a_case_per_test_node_counts",
        &["node"],
    ) {
        return;
    }
    let p = nested();
    let ran = p.run(&["-o", "report.xml"]);
    assert_eq!(ran.code, 1, "{}", ran.both());
    let xml = p.read_text("report.xml");
    // node: 22 tests; 4 failed and 3 cancelled; 4 skipped and 3 todo; and the `describe`
    // whose hook threw, for its own error.
    assert!(
        xml.contains(r#"<testsuites name="tapline" tests="23" skipped="7" failures="8""#),
        "{xml}"
    );
}

#[test]
fn issue38_node_history_counts_tests_not_suites() {
    if !require("issue38_node_history_counts_tests_not_suites", &["node"]) {
        return;
    }
    let p = nested();
    let ran = p.run(&[]);
    assert_eq!(ran.code, 1, "{}", ran.both());
    // Each file's test count is node's.
    let history = p.read_text(".nogit/testlogs/history.jsonl");
    let counts: BTreeMap<String, u64> = history
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).expect("a history line"))
        .map(|v| {
            (
                v["path"].as_str().expect("path").to_owned(),
                v["tests"].as_u64().expect("tests"),
            )
        })
        .collect();
    assert_eq!(counts["test/nested.test.mjs"], 19, "{history}");
    assert_eq!(counts["test/passing.test.mjs"], 3, "{history}");
    let failing = history
        .lines()
        .find(|l| l.contains("nested.test.mjs"))
        .expect("the nested file's line");
    assert!(
        !failing.contains(r#""parser""#),
        "a describe is no test: {failing}"
    );
}

#[test]
fn issue38_node_runs_measure_tests_not_suites() {
    if !require("issue38_node_runs_measure_tests_not_suites", &["node"]) {
        return;
    }
    let p = nested();
    // One entry per test node counts, no describe among them.
    let runs = p.run(&["--runs", "2", "--format", "summary"]);
    let doc = runs.summary_doc();
    let tests = doc["stability"]["tests"].as_array().expect("tests");
    assert_eq!(tests.len(), 22, "{doc:#}");
    let names: Vec<&str> = tests.iter().filter_map(|t| t["name"].as_str()).collect();
    for suite in [
        "parser",
        "parser > strings",
        "a group whose setup throws",
        "math",
    ] {
        assert!(!names.contains(&suite), "{suite} is a describe: {names:?}");
    }
    assert!(names.contains(&"a test with subtests"), "{names:?}");
}
