//! #43 items 4 and 5, as a newcomer meets them: a fresh project per ecosystem (node:test, a
//! Perl distribution, pytest), each with one failing and some passing tests, run through the
//! built binary. One vocabulary (a test failing every run "fails every run"; tests a filter left
//! out are "not selected" in every sink; no percentage of nothing) and each thing said once
//! (the headline's reason kind without the names, the file named once in the recap, one
//! duration format, `Slowest:` only when it tells something).
use crate::util::{require, Project};

const NODE_TEST: &str = "const test = require('node:test');
const assert = require('node:assert');
test('adds', () => { assert.strictEqual(1 + 1, 2); });
test('subtracts', () => { assert.strictEqual(2 - 1, 1); });
test('multiplies', () => { assert.strictEqual(2 * 2, 5); });
test('divides', () => { assert.strictEqual(4 / 2, 2); });
";

const PERL_TEST: &str = "use strict; use warnings; use Test::More;
ok(1, 'adds');
ok(1, 'subtracts');
is(2 * 2, 5, 'multiplies');
ok(1, 'divides');
done_testing;
";

const PYTEST_TEST: &str = "def test_adds(): assert 1 + 1 == 2
def test_subtracts(): assert 2 - 1 == 1
def test_multiplies(): assert 2 * 2 == 5
def test_divides(): assert 4 / 2 == 2
";

fn node_project() -> Project {
    let p = Project::new();
    p.write("test/sum.test.js", NODE_TEST);
    p
}

fn perl_project() -> Project {
    let p = Project::new();
    p.write("t/math.t", PERL_TEST);
    p
}

fn pytest_project() -> Project {
    let p = Project::new();
    p.write("tests/test_math.py", PYTEST_TEST);
    p
}

/// The `file_finished` tally of the run's only file, from `-o run.jsonl`.
fn tally(p: &Project) -> serde_json::Value {
    let text = p.read_text("run.jsonl");
    (text.lines())
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .find(|e| e["type"] == "file_finished")
        .map(|e| e["result"]["tally"].clone())
        .unwrap_or_else(|| panic!("no file_finished event in {text}"))
}

/// Every line of the terminal report that names `name`.
fn lines_naming<'a>(stderr: &'a str, name: &str) -> Vec<&'a str> {
    stderr.lines().filter(|l| l.contains(name)).collect()
}

#[test]
fn issue43_node_tests_left_out_by_t_are_not_selected_in_every_sink() {
    if !require(
        "issue43_node_tests_left_out_by_t_are_not_selected_in_every_sink",
        &["node"],
    ) {
        return;
    }
    let p = node_project();
    let ran = p.run(&[
        "--no-history",
        "-t",
        "adds",
        "-o",
        "run.jsonl",
        "-o",
        "run.xml",
        "-o",
        "run.md",
    ]);
    assert_eq!(ran.code, 0, "{}", ran.both());
    assert!(
        ran.stderr.contains("1 passed, 3 not selected"),
        "{}",
        ran.stderr
    );
    assert!(!ran.stderr.contains("skipped"), "{}", ran.stderr);
    let t = tally(&p);
    assert_eq!(
        (t["skip"].as_u64(), t["not_selected"].as_u64()),
        (Some(0), Some(3)),
        "{t}"
    );
    let xml = p.read_text("run.xml");
    assert_eq!(
        xml.matches("<skipped message=\"not selected by the test filter\"/>")
            .count(),
        3,
        "{xml}"
    );
    let md = p.read_text("run.md");
    assert!(md.contains("3 not selected by the test filter"), "{md}");
}

#[test]
fn issue43_perl_only_failed_counts_the_others_as_not_selected_not_passed() {
    if !require(
        "issue43_perl_only_failed_counts_the_others_as_not_selected_not_passed",
        &["perl", "prove"],
    ) {
        return;
    }
    let p = perl_project();
    let first = p.run(&[]);
    assert_eq!(first.code, 1, "{}", first.both());
    let ran = p.run(&["--only-failed", "-o", "run.jsonl"]);
    assert_eq!(ran.code, 1, "{}", ran.both());
    assert!(
        ran.stderr.contains("1 failed, 0 passed, 3 not selected"),
        "{}",
        ran.stderr
    );
    assert!(!ran.stderr.contains("3 passed"), "{}", ran.stderr);
    let t = tally(&p);
    assert_eq!(
        (t["pass"].as_u64(), t["not_selected"].as_u64()),
        (Some(0), Some(3)),
        "{t}"
    );
}

#[test]
fn issue43_node_only_failed_counts_the_others_as_not_selected_not_skipped() {
    if !require(
        "issue43_node_only_failed_counts_the_others_as_not_selected_not_skipped",
        &["node"],
    ) {
        return;
    }
    let p = node_project();
    assert_eq!(p.run(&[]).code, 1);
    let ran = p.run(&["--only-failed"]);
    assert_eq!(ran.code, 1, "{}", ran.both());
    assert!(
        ran.stderr.contains("1 failed, 0 passed, 3 not selected"),
        "{}",
        ran.stderr
    );
    // (node's own `# skipped 3` comment stays in the output shown under the file.)
    assert!(!ran.stderr.contains("3 skipped"), "{}", ran.stderr);
}

/// The failing file's line says how many failed and why (the exit), not which: the names are
/// under it, once, and in the recap, once, where the file is named once.
#[test]
fn issue43_a_failing_files_names_are_said_once_under_it_and_once_in_the_recap() {
    if !require(
        "issue43_a_failing_files_names_are_said_once_under_it_and_once_in_the_recap",
        &["perl", "prove"],
    ) {
        return;
    }
    let p = perl_project();
    let ran = p.run(&["--no-history"]);
    assert_eq!(ran.code, 1, "{}", ran.both());
    let headline = (ran.stderr.lines())
        .find(|l| l.starts_with("✗ t/math.t"))
        .unwrap_or_else(|| panic!("no headline in {}", ran.stderr));
    assert!(headline.ends_with("— exited with code 1"), "{headline}");
    assert!(!headline.contains("multiplies"), "{headline}");
    assert!(!headline.contains("test point"), "{headline}");
    let named = lines_naming(&ran.stderr, "multiplies");
    assert_eq!(named.len(), 2, "{}", ran.stderr);
    assert_eq!(named[0].trim(), "✗ multiplies", "{}", ran.stderr);
    assert_eq!(
        named[1].trim(),
        "✗ t/math.t:4 › multiplies",
        "{}",
        ran.stderr
    );
}

/// One duration format: the file's line and the summary's, bare (`54ms`), never `(54ms)`.
#[test]
fn issue43_durations_read_one_way() {
    if !require("issue43_durations_read_one_way", &["node"]) {
        return;
    }
    let p = node_project();
    let ran = p.run(&["--no-history"]);
    assert_eq!(ran.code, 1, "{}", ran.both());
    let in_parens = regex::Regex::new(r"\(\d+(\.\d+)?(ms|s)\)").expect("regex");
    assert!(!in_parens.is_match(&ran.stderr), "{}", ran.stderr);
    let bare = regex::Regex::new(r"  \d+(\.\d+)?(ms|s)(  |$)").expect("regex");
    let headline = (ran.stderr.lines())
        .find(|l| l.starts_with("✗ test/sum.test.js"))
        .unwrap_or_else(|| panic!("no headline in {}", ran.stderr));
    assert!(bare.is_match(headline), "{headline}");
}

/// `Slowest:` names files only in a run of more files than it names, and only files worth
/// naming (100 ms or more): four 1 ms files have none.
#[test]
fn issue43_slowest_is_only_said_when_it_tells_something() {
    let p = Project::new();
    for n in 1..=4 {
        p.script(
            &format!("t/{n}.t"),
            "#!/bin/sh\necho 1..1\necho 'ok 1 - quick'\n",
        );
    }
    let quick = p.run(&["--no-history"]);
    assert_eq!(quick.code, 0, "{}", quick.both());
    assert!(!quick.stderr.contains("Slowest:"), "{}", quick.stderr);
    p.script(
        "t/4.t",
        "#!/bin/sh\nsleep 0.3\necho 1..1\necho 'ok 1 - slow'\n",
    );
    let slow = p.run(&["--no-history"]);
    let line = (slow.stderr.lines())
        .find(|l| l.starts_with("Slowest:"))
        .unwrap_or_else(|| panic!("no Slowest: in {}", slow.stderr));
    assert!(line.contains("t/4.t"), "{line}");
    assert!(!line.contains("t/1.t"), "{line}");
}

/// A test failing in each of `--runs 3` fails every run: no pass rate or consistency that
/// contradicts it, and the series ends `✗ FAIL` with the flaky and broken tests counted.
#[test]
fn issue43_pytest_fails_every_run_reads_as_such_and_the_series_fails() {
    if !require(
        "issue43_pytest_fails_every_run_reads_as_such_and_the_series_fails",
        &["pytest"],
    ) {
        return;
    }
    let p = pytest_project();
    let ran = p.run(&["--no-history", "--runs", "3", "-q"]);
    assert_eq!(ran.code, 1, "{}", ran.both());
    let row = (ran.stderr.lines())
        .find(|l| l.contains("› test_multiplies") && l.contains("✗✗✗"))
        .unwrap_or_else(|| panic!("no stability row in {}", ran.stderr));
    assert!(row.trim_start().starts_with("fails every run"), "{row}");
    assert!(!row.contains("consistency"), "{row}");
    assert!(!row.contains('%'), "{row}");
    let last = ran.stderr.lines().last().unwrap_or_default();
    assert!(
        last.starts_with("✗ FAIL  4 tests in 1 file over 3 runs"),
        "{last}"
    );
    assert!(
        last.contains("0 flaky · 1 fails every run · 3 stable"),
        "{last}"
    );
    assert!(!ran.stderr.contains("UNSTABLE"), "{}", ran.stderr);
    assert!(!ran.stderr.contains("unstable"), "{}", ran.stderr);
}

/// `--coverage` where nothing is measurable says so, in the terminal and in the summary
/// document (`percent: null`), never `0 of 0 lines reached (100.0%)`.
#[test]
fn issue43_coverage_of_nothing_is_no_percentage() {
    let p = Project::new();
    p.script("t/a.t", "#!/bin/sh\necho 1..1\necho 'ok 1 - fine'\n");
    let ran = p.run(&["--no-history", "--coverage", "--format", "summary"]);
    assert_eq!(ran.code, 0, "{}", ran.both());
    assert!(
        ran.stderr.contains("coverage: no measurable lines"),
        "{}",
        ran.stderr
    );
    assert!(!ran.stderr.contains("100.0%"), "{}", ran.stderr);
    let doc = ran.summary_doc();
    assert_eq!(doc["coverage"]["lines"], 0, "{doc:#}");
    assert!(doc["coverage"]["percent"].is_null(), "{doc:#}");
}

/// `--only-failed` in a file run whole whose failed point has no name (`not ok 2`): no name
/// selects it apart from the others, so the file reports every test it ran and the header
/// does not claim the others were not selected.
#[test]
fn issue43_only_failed_with_an_unnamed_failure_claims_no_selection() {
    let p = Project::new();
    p.script(
        "t/a.t",
        "#!/bin/sh\necho 1..3\necho 'ok 1'\necho 'not ok 2'\necho 'ok 3'\n",
    );
    assert_eq!(p.run(&[]).code, 1);
    let ran = p.run(&["--only-failed"]);
    assert_eq!(ran.code, 1, "{}", ran.both());
    assert!(ran.stderr.contains("1 failed, 2 passed"), "{}", ran.stderr);
    assert!(!ran.stderr.contains("not selected"), "{}", ran.stderr);
}
