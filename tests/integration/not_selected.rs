//! Issue 27: `-t` in files whose framework has no filter of its own (tape, Test::More): the
//! file runs whole, the tests the patterns do not select are reported as not selected (never
//! as passed, and a failure among them does not fail the run), and every report says what
//! was filtered.
use crate::util::{require, Project};
use serde_json::Value;
use std::collections::BTreeSet;

/// A tape file with a failing test beside the one asked for, one with no matching test, and
/// Test::More subtests with a failing one beside them.
fn project() -> Project {
    let p = Project::new();
    p.write("tapline.toml", "[run]\ntest_dirs = [\"t\", \"test\"]\n");
    p.write(
        "node_modules/tape/index.js",
        crate::tests_by_id::TAPE_STAND_IN,
    );
    p.write(
        "test/words.test.js",
        "const test = require('tape');\n\
         test('joins', (t) => { t.ok(true, 'joined'); t.end(); });\n\
         test('counts', (t) => { t.ok(true, 'counted'); t.end(); });\n\
         test('splits', (t) => { t.ok(false, 'split'); t.end(); });\n",
    );
    p.write(
        "test/other.test.js",
        "const test = require('tape');\n\
         test('unrelated', (t) => { t.ok(true, 'fine'); t.end(); });\n",
    );
    p.write(
        "t/sub.t",
        "use Test::More;\n\
         subtest 'outer' => sub {\n  ok(1, 'inner one');\n  subtest 'deeper' => sub { ok(1, 'leaf') };\n};\n\
         subtest 'second' => sub { ok(0, 'broken') };\ndone_testing;\n",
    );
    p
}

const ASKED: &[&str] = &["-t", "joins", "-t", "/^deeper$/"];

/// The run events of `--format jsonl`'s stdout.
fn jsonl_events(stdout: &str) -> Vec<Value> {
    (stdout.lines())
        .map(|l| serde_json::from_str(l).expect("each line is JSON"))
        .collect()
}

/// The `test_id` of each test point of a jsonl run, and whether it was selected.
fn points(events: &[Value]) -> Vec<(String, bool)> {
    (events.iter())
        .filter(|e| e["type"] == "tap" && e["event"]["type"] == "assert")
        .map(|e| {
            let id = e["test_id"].as_str().expect("a point has an ID").to_owned();
            (id, e["event"]["not_selected"] != true)
        })
        .collect()
}

#[test]
fn issue27_tests_not_selected_in_tape_and_test_more_are_neither_passed_nor_failed() {
    let name = "issue27_tests_not_selected_in_tape_and_test_more_are_neither_passed_nor_failed";
    if !require(name, &["node", "perl"]) {
        return;
    }
    let p = project();
    let mut args = vec!["--format", "jsonl", "-o", "report.xml", "-o", "report.md"];
    args.extend(["-o", "report.html"]);
    args.extend(ASKED);
    let ran = p.run(&args);
    // The failures of `splits` and `second` are not asked for: tape's exit 1 and
    // Test::More's are theirs, and the run passes.
    assert_eq!(ran.code, 0, "{}", ran.both());
    let events = jsonl_events(&ran.stdout);
    let started = events.iter().find(|e| e["type"] == "run_started");
    let filter = &started.expect("run_started")["test_filter"];
    assert_eq!(
        filter["patterns"],
        serde_json::json!(["joins", "/^deeper$/"])
    );
    assert_eq!(filter["files_not_run"], 1, "{filter}");
    assert_eq!(filter["files_run_whole"], 2, "{filter}");
    // `other.test.js` has no matching test: it never started.
    let started: BTreeSet<&str> = (events.iter())
        .filter(|e| e["type"] == "file_started")
        .filter_map(|e| e["file"]["rel"].as_str())
        .collect();
    assert_eq!(started, ["t/sub.t", "test/words.test.js"].into());
    let not_selected: BTreeSet<String> = (points(&events).into_iter())
        .filter(|(_, selected)| !selected)
        .map(|(id, _)| id)
        .collect();
    let want = [
        "test/words.test.js > splits > split",
        "test/words.test.js > counts > counted",
        "t/sub.t > outer > inner one",
        "t/sub.t > second > broken",
        "t/sub.t > second",
    ];
    assert_eq!(not_selected, want.map(str::to_owned).into());
    let selected = points(&events).into_iter().filter(|(_, s)| *s).count();
    assert_eq!(selected, 4, "joined, leaf, deeper and outer");
    let summary = &events.last().expect("events")["summary"];
    let tests = &summary["tests"];
    assert_eq!(
        (&tests["pass"], &tests["fail"], &tests["skip"]),
        (&2.into(), &0.into(), &0.into()),
        "{tests}"
    );
    assert_eq!(tests["not_selected"], 3, "{tests}");
    assert_eq!(tests["not_selected_failed"], 2, "{tests}");
    assert_eq!(summary["files_passed"], 2, "{summary}");

    // JUnit: a not-selected test is a skip that says why, the run's filter a property.
    let junit = p.read_text("report.xml");
    assert_eq!(
        junit
            .matches("<skipped message=\"not selected by the test filter\"/>")
            .count(),
        4,
        "split, counted, inner one, broken: {junit}"
    );
    assert!(!junit.contains("<failure"), "{junit}");
    assert!(junit.contains("name=\"test_filter\""), "{junit}");
    let md = p.read_text("report.md");
    assert!(
        md.contains("Tests: `-t 'joins' -t '/^deeper$/' (1 file with no matching test not run"),
        "{md}"
    );
    assert!(
        md.contains("Tests 3 not selected (2 of them failed) by the test filter (`-t`, `--only-failed`): not counted."),
        "{md}"
    );
    let html = p.read_text("report.html");
    assert!(
        html.contains("<li class=\"n\">split <span class=\"d\"># not selected"),
        "{html}"
    );
    assert!(html.contains("<span>tests <b class=\"mono\">-t "), "{html}");

    // The per-test records hold what was selected, nothing else.
    let listed = p.tapline(&["list", "--format", "json", "--source", "history"]);
    let ids: BTreeSet<String> = (listed.stdout.lines())
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter_map(|e| e["id"].as_str().map(str::to_owned))
        .collect();
    assert!(
        ids.contains("test/words.test.js > joins > joined"),
        "{ids:?}"
    );
    assert!(
        !ids.iter()
            .any(|id| id.contains("split") || id.contains("counted")),
        "not-selected tests are not recorded: {ids:?}"
    );
}

#[test]
fn issue27_the_terminal_says_the_filter_first_and_last_and_counts_not_selected() {
    let name = "issue27_the_terminal_says_the_filter_first_and_last_and_counts_not_selected";
    if !require(name, &["node", "perl"]) {
        return;
    }
    let p = project();
    let ran = p.run(ASKED);
    assert_eq!(ran.code, 0, "{}", ran.both());
    let said = "Tests: -t 'joins' -t '/^deeper$/' (1 file with no matching test not run; \
                2 files run whole, other tests not selected)";
    // The terminal is on stderr, after the lines that say how each file is filtered.
    let terminal = ran.stderr.lines().filter(|l| !l.starts_with("tapline:"));
    let terminal: Vec<&str> = terminal.collect();
    assert_eq!(terminal.first(), Some(&said), "{}", ran.stderr);
    assert_eq!(terminal.iter().filter(|l| **l == said).count(), 2);
    let last = terminal.last().copied().unwrap_or_default();
    assert!(last.contains("✓ PASS"), "{last}");
    assert!(
        last.contains("2 passed, 3 not selected (2 of them failed)"),
        "{last}"
    );
    // `--verbose` shows each not-selected point as such, never as a pass.
    let verbose = p.run(&["--verbose", "-t", "joins", "test/words.test.js"]);
    let said = &verbose.stderr;
    assert!(said.contains("· split # not selected, failed"), "{said}");
    assert!(said.contains("· counted # not selected\n"), "{said}");
    assert!(said.contains("✓ joined"), "{said}");
}

#[test]
fn issue27_a_selected_failure_still_fails_a_file_run_whole() {
    let name = "issue27_a_selected_failure_still_fails_a_file_run_whole";
    if !require(name, &["node", "perl"]) {
        return;
    }
    let p = project();
    let ran = p.run(&["--format", "jsonl", "-t", "splits"]);
    assert_eq!(ran.code, 1, "{}", ran.both());
    let events = jsonl_events(&ran.stdout);
    let finished: Vec<&Value> = (events.iter())
        .filter(|e| e["type"] == "file_finished")
        .collect();
    assert_eq!(finished.len(), 1, "only the tape file holds `splits`");
    let result = &finished[0]["result"];
    assert_eq!(result["ok"], false);
    assert_eq!(
        result["reasons"],
        serde_json::json!(["exited with code 1", "1 test point failed: \"split\""]),
        "{result}"
    );
    let tally = &result["tally"];
    assert_eq!(
        (&tally["fail"], &tally["pass"]),
        (&1.into(), &0.into()),
        "{tally}"
    );
    assert_eq!(tally["not_selected"], 2, "{tally}");
}
