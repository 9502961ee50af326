//! Issue 42: a file of many points costs bounded memory and disk. Past the bound of points a
//! result keeps (10,000), its per-test records keep its failing and slowest tests, say so
//! once, and history still reads every run right; JUnit still has every case.
use crate::util::Project;
use serde_json::Value;
use std::fs;

/// More points than a record keeps.
const POINTS: u32 = 25_000;

/// A TAP script of `POINTS` points: `a value` (point 7) fails on odd runs with its error on
/// the line after it (counter in `big.count`), point 20,000 always fails, point 3 is slow
/// (a time on it), the rest pass.
fn big() -> String {
    format!(
        "#!/bin/sh\nn=$(cat big.count 2>/dev/null || echo 0); n=$((n+1)); echo $n > big.count\n\
         awk -v n={POINTS} -v run=$n 'BEGIN {{ print \"1..\" n; for (k = 1; k <= n; k++) {{\n\
           if (k == 7 && run % 2 == 1) {{ print \"not ok 7 - a value\"; print \"# got \" run }}\n\
           else if (k == 20000) {{ print \"not ok 20000 - always\"; print \"# broken\" }}\n\
           else if (k == 3) {{ print \"ok 3 - slow # time=500ms\" }}\n\
           else {{ print \"ok \" k \" - point \" k }} }} }}'\n"
    )
}

fn row<'a>(doc: &'a Value, id: &str) -> &'a Value {
    doc["tests"]
        .as_array()
        .and_then(|t| t.iter().find(|t| t["id"] == id))
        .unwrap_or_else(|| panic!("no test {id} in {doc:#}"))
}

const NOTE: &str = "more than the 10000 a test history keeps";

#[test]
fn issue42_a_file_over_the_bound_keeps_its_failing_and_slowest_tests_and_says_so_once() {
    let p = Project::new();
    p.script("test/big.sh", &big());
    let first = p.run(&[]);
    assert_eq!(first.code, 1, "{}", first.both());
    assert_eq!(first.stderr.matches(NOTE).count(), 1, "{}", first.both());
    for _ in 0..5 {
        let again = p.run(&[]);
        assert!(
            !again.stderr.contains(NOTE),
            "said again:\n{}",
            again.both()
        );
    }
    // Six attempts of 25,000 points: each line its failing and slowest tests, not every point.
    let record = p.read_text(".nogit/testlogs/tests/test__big.jsonl");
    assert_eq!(record.lines().count(), 6);
    assert!(record.len() < 4_000, "{} bytes:\n{record}", record.len());
    assert!(record.contains("\"capped\":25000"), "{record}");
    // The history store counts every test.
    let history = p.read_text(".nogit/testlogs/history.jsonl");
    assert!(history.contains("\"tests\":25000"), "{history}");

    let ran = p.tapline(&["history", "--tests", "--format", "json"]);
    assert_eq!(ran.code, 0, "{}", ran.both());
    let doc = ran.summary_doc();
    // Failed on runs 1, 3, 5 and passed (not listed) on 2, 4, 6: flaky, each error its own.
    let value = row(&doc, "test/big.sh > a value");
    assert_eq!(
        (&value["runs"], &value["passed"], &value["failed"]),
        (&Value::from(6), &Value::from(3), &Value::from(3)),
        "{value:#}"
    );
    assert_eq!(value["last"], "passed", "{value:#}");
    assert_eq!(value["errors"], 3, "{value:#}");
    let always = row(&doc, "test/big.sh > always");
    assert_eq!(
        (&always["failed"], &always["errors"]),
        (&Value::from(6), &Value::from(1)),
        "{always:#}"
    );
    // The slowest test is kept with its time.
    let slow = row(&doc, "test/big.sh > slow");
    assert_eq!(slow["duration_ms"]["p50"], 500.0, "{slow:#}");

    // `tapline list` names every test the last run reported (from its log, the record
    // naming too few).
    let list = p.tapline(&["list", "--format", "json"]);
    assert_eq!(list.code, 0, "{}", list.both());
    assert_eq!(
        list.stdout.lines().count(),
        POINTS as usize,
        "{}",
        list.stderr
    );
    assert!(list.stdout.contains("\"test/big.sh > point 24999\""));

    // What failed last is what --only-failed runs again: the file, with its failure.
    let only = p.run(&["--only-failed", "--format", "summary"]);
    assert_eq!(only.code, 1, "{}", only.both());
}

#[test]
fn issue42_a_file_back_under_the_bound_is_said_again_when_it_grows_over_it() {
    let p = Project::new();
    p.script("test/big.sh", &big());
    assert!(p.run(&[]).stderr.contains(NOTE));
    p.script("test/big.sh", "#!/bin/sh\necho 1..1\necho ok 1 - small\n");
    let small = p.run(&[]);
    assert_eq!(small.code, 0, "{}", small.both());
    assert!(!small.stderr.contains(NOTE), "{}", small.both());
    p.script("test/big.sh", &big());
    assert_eq!(p.run(&[]).stderr.matches(NOTE).count(), 1);
}

#[test]
fn issue42_junit_of_a_file_over_the_bound_has_every_case_and_the_failures_values() {
    let p = Project::new();
    p.script("test/big.sh", &big());
    let ran = p.run(&["-q", "-o", "r.xml"]);
    assert_eq!(ran.code, 1, "{}", ran.both());
    let xml = fs::read_to_string(p.join("r.xml")).expect("r.xml");
    assert_eq!(xml.matches("<testcase ").count(), POINTS as usize);
    assert_eq!(xml.matches("<failure ").count(), 2, "two failures");
    assert!(xml.contains("got 1"), "the failure's output is in its case");
    assert!(xml.contains("name=\"point 24999\""));
}
