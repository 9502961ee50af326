//! Issue 27: history per test. Every test of every attempt is kept by its stable ID, so
//! `tapline history --tests` shows each test's flakiness and p50/p95 durations, and `--runs N`
//! classifies tests (stable pass, stable fail, flaky), not only files.
use crate::util::Project;
use serde_json::Value;

/// A TAP script of three tests: `steady` always passes (in 10 ms, then 20, …), `coin` fails
/// on odd runs (counter in `<name>.count`) with its error on the line after it, `broken`
/// always fails with the same error.
fn flipping(name: &str) -> String {
    format!(
        "#!/bin/sh\nn=$(cat {name}.count 2>/dev/null || echo 0); n=$((n+1)); echo $n > {name}.count\n\
         echo 1..3\necho \"ok 1 - steady # time=$((n * 10))ms\"\n\
         if [ $((n % 2)) -eq 1 ]; then echo 'not ok 2 - coin'; echo \"# got heads on run $n\"; else echo 'ok 2 - coin'; fi\n\
         echo 'not ok 3 - broken'; echo '# always broken'\n"
    )
}

fn row<'a>(doc: &'a Value, id: &str) -> &'a Value {
    doc["tests"]
        .as_array()
        .and_then(|t| t.iter().find(|t| t["id"] == id))
        .unwrap_or_else(|| panic!("no test {id} in {doc:#}"))
}

#[test]
fn issue27_a_test_that_flips_between_runs_is_flaky_per_test_in_history() {
    let p = Project::new();
    p.script("test/flip.sh", &flipping("flip"));
    for _ in 0..4 {
        p.run(&[]);
    }
    // Run 5 fails `coin` on its first attempt, and passes it on the retry (run 6's count).
    p.run(&["--retries", "1"]);
    let ran = p.tapline(&["history", "--tests", "--format", "json"]);
    assert_eq!(ran.code, 0, "{}", ran.both());
    let doc = ran.summary_doc();
    let coin = row(&doc, "test/flip.sh > coin");
    assert_eq!(
        (
            &coin["runs"],
            &coin["passed"],
            &coin["failed"],
            &coin["flaky"]
        ),
        (
            &Value::from(5),
            &Value::from(2),
            &Value::from(2),
            &Value::from(1)
        ),
        "{coin:#}"
    );
    assert_eq!(coin["flip_rate"], 100.0, "{coin:#}");
    assert_eq!(coin["last"], "flaky");
    // Its error line names the run: a different error each time it failed.
    assert_eq!(coin["errors"], 3, "{coin:#}");
    let broken = row(&doc, "test/flip.sh > broken");
    assert_eq!(
        (&broken["failed"], &broken["errors"]),
        (&Value::from(5), &Value::from(1))
    );
    assert_eq!(broken["flip_rate"], 0.0);
    let steady = row(&doc, "test/flip.sh > steady");
    assert_eq!(
        (&steady["passed"], &steady["flip_rate"]),
        (&Value::from(5), &Value::from(0.0))
    );
    // Its own durations: 10, 20, 30, 40, then 50 and 60 ms (the retry's attempt counts).
    assert_eq!(steady["duration_ms"]["p50"], 30.0, "{steady:#}");
    assert_eq!(steady["duration_ms"]["p95"], 60.0, "{steady:#}");

    // Without --tests, only the tests that failed at least once; --flaky keeps coin alone.
    let failed_once = p.tapline(&["history", "--format", "json"]).summary_doc();
    assert_eq!(
        failed_once["tests"].as_array().map(Vec::len),
        Some(2),
        "{failed_once:#}"
    );
    let flaky = p
        .tapline(&["history", "--tests", "--flaky", "--format", "json"])
        .summary_doc();
    let ids: Vec<&Value> = flaky["tests"]
        .as_array()
        .expect("tests")
        .iter()
        .map(|t| &t["id"])
        .collect();
    assert_eq!(ids, [&Value::from("test/flip.sh > coin")]);
    let human = p.tapline(&["history", "--tests"]);
    assert!(
        human.stdout.contains("test/flip.sh > coin"),
        "{}",
        human.both()
    );
    assert!(human.stdout.contains("p50"), "{}", human.both());
    assert!(
        human.stdout.contains("(3 different errors)"),
        "{}",
        human.both()
    );

    // `list` reads the last attempt of the same records.
    let listed = p.tapline(&["list", "--format", "json"]);
    assert!(
        listed.stdout.contains("\"id\":\"test/flip.sh > coin\""),
        "{}",
        listed.both()
    );
}

#[test]
fn issue27_runs_n_classifies_each_test_as_stable_pass_stable_fail_or_flaky() {
    let p = Project::new();
    p.script("test/flip.sh", &flipping("flip"));
    let ran = p.run(&["--runs", "4", "--format", "summary"]);
    assert_eq!(ran.code, 1, "{}", ran.both());
    let doc = ran.summary_doc();
    let kind = |id: &str| {
        doc["stability"]["tests"]
            .as_array()
            .and_then(|t| t.iter().find(|t| t["id"] == id))
            .map(|t| t["kind"].clone())
            .unwrap_or_else(|| panic!("no {id} in {doc:#}"))
    };
    assert_eq!(kind("test/flip.sh > steady"), "stable_pass");
    assert_eq!(kind("test/flip.sh > broken"), "stable_fail");
    assert_eq!(kind("test/flip.sh > coin"), "flaky");
    let human = p.run(&["--runs", "2"]);
    assert!(
        human.stderr.contains("1 flaky · 1 failing in every run")
            || human.stdout.contains("1 flaky · 1 failing in every run"),
        "{}",
        human.both()
    );
}

/// `--no-history` keeps no per-test records, and a damaged record line is skipped with a
/// warning by `history`.
#[test]
fn issue27_no_history_keeps_no_test_records_and_a_damaged_line_is_skipped() {
    let p = Project::new();
    p.script("test/flip.sh", &flipping("flip"));
    p.run(&["--no-history"]);
    assert!(!p.join(".nogit/testlogs/tests").exists());
    p.run(&[]);
    let record = p.join(".nogit/testlogs/tests/test__flip.jsonl");
    let mut text =
        std::fs::read_to_string(&record).unwrap_or_else(|e| panic!("{e}: {}", record.display()));
    text.insert_str(0, "{not a record\n");
    std::fs::write(&record, text).expect("write");
    let ran = p.tapline(&["history", "--tests", "--format", "json"]);
    assert_eq!(ran.code, 0, "{}", ran.both());
    assert!(
        ran.stderr.contains("skipped a damaged line"),
        "{}",
        ran.both()
    );
    assert_eq!(row(&ran.summary_doc(), "test/flip.sh > coin")["runs"], 1);
}
