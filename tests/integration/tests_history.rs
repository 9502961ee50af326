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
        human.stderr.contains("1 flaky · 1 fails every run")
            || human.stdout.contains("1 flaky · 1 fails every run"),
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

/// A stream with a heading, a subtest, a failure inside it, and a point without a name.
const NAMED_TAP: &str = "TAP version 14\n# adds\nok 1 - one plus one\n# Subtest: outer\n    ok 1 - inner\n    not ok 2 - breaks\n      ---\n      message: broke\n      ...\n    1..2\nnot ok 2 - outer\nok 3\n1..3\n";

/// The `test_id`s of JSON lines.
fn test_ids(lines: &[u8]) -> std::collections::BTreeSet<String> {
    lines
        .split(|&b| b == b'\n')
        .filter_map(|l| serde_json::from_slice::<Value>(l).ok())
        .filter_map(|e| e["test_id"].as_str().map(str::to_owned))
        .collect()
}

fn unescape(xml: &str) -> String {
    xml.replace("&gt;", ">")
        .replace("&lt;", "<")
        .replace("&quot;", "\"")
        .replace("&amp;", "&")
}

/// Every value of `<key>"…"` in `text`, up to the next `"`.
fn values_after(text: &str, key: &str) -> Vec<String> {
    text.match_indices(key)
        .filter_map(|(at, _)| {
            let rest = &text[at + key.len()..];
            rest.find('"').map(|end| unescape(&rest[..end]))
        })
        .collect()
}

#[test]
fn issue27_junit_html_and_the_daemon_carry_the_ids_of_jsonl() {
    let p = Project::new();
    p.script(
        "test/named.sh",
        &format!("#!/bin/sh\ncat <<'TAP'\n{NAMED_TAP}TAP\n"),
    );
    let ran = p.run(&["--format", "jsonl", "-o", "r.xml", "-o", "r.html"]);
    assert_eq!(ran.code, 1, "{}", ran.both());
    let jsonl = test_ids(ran.stdout.as_bytes());
    assert!(
        jsonl.contains("test/named.sh > adds > outer > breaks"),
        "{jsonl:?}"
    );
    assert!(jsonl.contains("test/named.sh > adds > #3"), "{jsonl:?}");

    // JUnit: each case's `test_id` property, and its `file`.
    let junit = p.read_text("r.xml");
    let cases: Vec<String> = values_after(&junit, "<property name=\"test_id\" value=\"");
    assert_eq!(cases.len(), 4, "one per leaf case:\n{junit}");
    for id in &cases {
        assert!(
            jsonl.contains(id),
            "JUnit's {id} is not in jsonl's {jsonl:?}"
        );
    }
    assert!(junit.contains("file=\"test/named.sh\""), "{junit}");

    // HTML: the failure carries its ID.
    let html = p.read_text("r.html");
    let at = html
        .find("<div class=\"tid mono\" title=\"test ID\">")
        .expect("the failure's test ID");
    let rest = &html[at..];
    let id = unescape(&rest[rest.find('>').expect(">") + 1..rest.find("</div>").expect("end")]);
    assert_eq!(id, "test/named.sh > adds > outer > breaks");

    // The daemon: each point's event line, and `status`.
    let mut d = crate::util::daemon::Daemon::start(&[]);
    let sub = d
        .client(&["events"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("events");
    let sub = std::thread::spawn(move || sub.wait_with_output().expect("events ends"));
    crate::util::daemon::wait_for(|| d.status()["subscribers"] == 1);
    assert_eq!(
        d.send("test/named.sh", NAMED_TAP.as_bytes()).status.code(),
        Some(1)
    );
    let status = d.status();
    let finished = crate::util::daemon::finished(&status);
    assert_eq!(
        finished[0]["last_test_id"], "test/named.sh > adds > #3",
        "{status:#}"
    );
    d.stop(rustix::process::Signal::TERM);
    let out = sub.join().expect("events");
    let daemon = test_ids(&out.stdout);
    assert_eq!(daemon, jsonl);
}
