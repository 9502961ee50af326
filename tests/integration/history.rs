//! Issue 9 end to end: retries and flaky files, `--runs N` stability, the history store and
//! `tapline history`, ordering, and the result cache, with real child processes in temporary
//! projects (a `.git` folder makes each the project root).
use crate::util::{Project, Ran};
use serde_json::Value;
use std::fs;

/// A TAP script that fails when its run counter (kept in `<name>.count`) is odd: the first,
/// third, fifth… run fail, the others pass.
fn fails_on_odd_runs(name: &str) -> String {
    format!(
        "#!/bin/sh\nn=$(cat {name}.count 2>/dev/null || echo 0); n=$((n+1)); echo $n > {name}.count\n\
         echo 1..2\necho 'ok 1 - steady'\n\
         if [ $((n % 2)) -eq 1 ]; then echo 'not ok 2 - coin'; else echo 'ok 2 - coin'; fi\n"
    )
}

const PASSES: &str = "#!/bin/sh\necho 1..2\necho 'ok 1 - one'\necho 'ok 2 - two'\n";
const FAILS: &str = "#!/bin/sh\necho 1..1\necho 'not ok 1 - never'\n";

fn file<'a>(doc: &'a Value, path: &str) -> &'a Value {
    doc["files"]
        .as_array()
        .and_then(|files| files.iter().find(|f| f["path"] == path))
        .unwrap_or_else(|| panic!("no file {path} in {doc:#}"))
}

fn test<'a>(stability: &'a Value, path: &str, name: &str) -> &'a Value {
    stability["tests"]
        .as_array()
        .and_then(|tests| {
            tests
                .iter()
                .find(|t| t["file"] == path && t["name"] == name)
        })
        .unwrap_or_else(|| panic!("no test {path} › {name} in {stability:#}"))
}

#[test]
fn issue9_a_fail_then_pass_file_under_retries_is_flaky_and_passes() {
    let p = Project::new();
    p.script("test/flip.sh", &fails_on_odd_runs("flip"))
        .script("test/ok.sh", PASSES);
    let ran = p.run(&["--retries", "1", "--format", "summary", "-o", "report.xml"]);
    assert_eq!(ran.code, 0, "{}", ran.both());
    let doc = ran.summary_doc();
    // JUnit keeps the failed attempt as nextest writes it.
    let junit = p.read_text("report.xml");
    let suite_at = junit
        .find("<testsuite name=\"test/flip.sh\"")
        .expect("flip's suite");
    let suite = &junit[suite_at..];
    let suite = &suite[..suite.find("</testsuite>").expect("suite end")];
    assert!(suite.contains("<flakyFailure"), "{junit}");
    assert!(suite.contains("attempt 1"), "{junit}");
    assert!(!suite.contains("<failure"), "a flaky file passed:\n{junit}");
    let flip = file(&doc, "test/flip.sh");
    assert_eq!(flip["flaky"], true, "{flip:#}");
    assert_eq!(flip["attempts"], 2);
    assert_eq!(flip["ok"], true);
    assert_eq!(file(&doc, "test/ok.sh")["attempts"], 1);
    assert_eq!(file(&doc, "test/ok.sh")["flaky"], false);
    assert_eq!(doc["run"]["flaky"][0][0], "test/flip.sh");
    assert!(
        ran.stderr.contains("attempt 1 of 2 failed, retrying"),
        "{}",
        ran.both()
    );
    assert!(ran.stderr.contains("FLAKY"), "{}", ran.both());
    assert!(ran.stderr.contains("1 flaky"), "{}", ran.both());
    // Each attempt kept its own log.
    let logs = ".nogit/testlogs";
    assert!(p
        .read_text(&format!("{logs}/test__flip.log"))
        .contains("not ok 2 - coin"));
    assert!(p
        .read_text(&format!("{logs}/test__flip.attempt-2.log"))
        .contains("ok 2 - coin"));
    assert!(!p
        .read_text(&format!("{logs}/test__flip.attempt-2.log"))
        .contains("not ok"));
    // Both attempts are in history, the second marked flaky.
    let history = p.read_text(&format!("{logs}/history.jsonl"));
    let flips: Vec<Value> = history
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).expect("record"))
        .filter(|r| r["path"] == "test/flip.sh")
        .collect();
    assert_eq!(flips.len(), 2, "{history}");
    assert_eq!(
        (&flips[0]["verdict"], &flips[0]["failing"][0]),
        (&Value::from("failed"), &Value::from("coin"))
    );
    assert_eq!(
        (&flips[1]["verdict"], &flips[1]["flaky"]),
        (&Value::from("passed"), &Value::from(true))
    );
    assert_eq!(flips[0]["run"], flips[1]["run"]);
}

#[test]
fn issue9_flaky_fails_and_exhausted_retries_fail_the_run() {
    let p = Project::new();
    p.script("test/flip.sh", &fails_on_odd_runs("flip"));
    let ran = p.run(&["--retries", "1", "--flaky-fails", "--format", "summary"]);
    assert_eq!(ran.code, 1, "{}", ran.both());
    let flip = file(&ran.summary_doc(), "test/flip.sh").clone();
    assert_eq!(
        (&flip["flaky"], &flip["ok"]),
        (&Value::from(true), &Value::from(false))
    );

    let p = Project::new();
    p.script("test/bad.sh", FAILS)
        .write("tapline.toml", "[run]\nretries = 2\n");
    let ran = p.run(&["--format", "summary"]);
    assert_eq!(ran.code, 1, "{}", ran.both());
    let bad = file(&ran.summary_doc(), "test/bad.sh").clone();
    assert_eq!(
        (&bad["attempts"], &bad["flaky"]),
        (&Value::from(3), &Value::from(false))
    );
    assert!(p.join(".nogit/testlogs/test__bad.attempt-3.log").exists());
}

#[test]
fn issue9_runs_n_classifies_each_test_by_pass_rate() {
    let p = Project::new();
    p.script("test/flip.sh", &fails_on_odd_runs("flip"))
        .script("test/ok.sh", PASSES)
        .script("test/bad.sh", FAILS);
    let ran = p.run(&[
        "--runs",
        "6",
        "--format",
        "summary",
        "-o",
        "report.md",
        "-o",
        "report.html",
    ]);
    assert_eq!(ran.code, 1, "{}", ran.both());
    let doc = ran.summary_doc();
    assert_eq!(doc["ok"], false);
    let st = &doc["stability"];
    assert_eq!(st["runs"], 6);
    let coin = test(st, "test/flip.sh", "coin");
    assert_eq!(coin["pass_rate"], 50.0, "{coin:#}");
    assert_eq!(coin["class"], "unstable");
    assert_eq!(
        (&coin["runs"], &coin["passed"], &coin["failed"]),
        (&Value::from(6), &Value::from(3), &Value::from(3))
    );
    assert_eq!(coin["consistency"], 50.0);
    assert_eq!(
        coin["verdicts"],
        serde_json::json!(["fail", "pass", "fail", "pass", "fail", "pass"])
    );
    assert_eq!(test(st, "test/flip.sh", "steady")["class"], "stable");
    assert_eq!(test(st, "test/ok.sh", "one")["class"], "stable");
    assert_eq!(test(st, "test/ok.sh", "one")["pass_rate"], 100.0);
    let never = test(st, "test/bad.sh", "never");
    assert_eq!(
        (&never["class"], &never["pass_rate"]),
        (&Value::from("fails_every_run"), &Value::from(0.0))
    );
    let files = st["files"].as_array().expect("files");
    let flip_file = files
        .iter()
        .find(|f| f["file"] == "test/flip.sh")
        .expect("flip");
    assert_eq!(flip_file["class"], "unstable");
    for key in ["min", "mean", "p50", "p95", "max", "stddev"] {
        assert!(
            flip_file["duration_ms"][key].is_number(),
            "{key}: {flip_file:#}"
        );
    }
    // Least stable first.
    assert_eq!(st["tests"][0]["name"], "never");
    // The terminal's table, unstable first, on stderr.
    assert!(
        ran.stderr.contains("Stability over 6 runs:"),
        "{}",
        ran.both()
    );
    assert!(ran.stderr.contains("── run 6 of 6 ──"), "{}", ran.both());
    let table_start = ran.stderr.find("Stability over").expect("table");
    let table = &ran.stderr[table_start..];
    let never_at = table.find("bad.sh › never").expect("never row");
    let coin_at = table.find("flip.sh › coin").expect("coin row");
    assert!(never_at < coin_at, "{table}");
    assert!(
        !table.contains("ok.sh › one"),
        "stable tests are counted, not listed:\n{table}"
    );
    assert!(table.contains("✗ UNSTABLE"), "{table}");

    let md = p.read_text("report.md");
    assert!(md.contains("### Stability over 6 runs"), "{md}");
    assert!(
        md.contains("| unstable | `test/flip.sh` › coin | 50.0% (3/6) | 50% |"),
        "{md}"
    );
    assert!(md.contains("🟥🟩🟥🟩🟥🟩"), "{md}");
    let html = p.read_text("report.html");
    assert!(
        html.contains("<section id=\"stability\">"),
        "no stability section"
    );
    assert!(html.contains("aria-label=\"fail, pass, fail, pass, fail, pass\""));

    let steady = Project::new();
    steady.script("test/ok.sh", PASSES);
    let ran = steady.run(&["--runs", "3"]);
    assert_eq!(ran.code, 0, "{}", ran.both());
    assert!(ran.stderr.contains("✓ STABLE"), "{}", ran.both());
}

#[test]
fn issue9_history_json_shows_the_flip_rate_and_survives_a_corrupt_line() {
    let p = Project::new();
    p.script("test/flip.sh", &fails_on_odd_runs("flip"))
        .script("test/ok.sh", PASSES);
    for _ in 0..4 {
        p.run(&[]);
    }
    let history = p.join(".nogit/testlogs/history.jsonl");
    let mut text = fs::read_to_string(&history).expect("history");
    text.push_str("{this is not a record\n");
    fs::write(&history, text).expect("write");
    let ran = p.tapline(&["history", "--format", "json"]);
    assert_eq!(ran.code, 0, "{}", ran.both());
    assert!(
        ran.stderr.contains("warning: skipped line 9"),
        "{}",
        ran.both()
    );
    let doc = ran.summary_doc();
    let flip = file(&doc, "test/flip.sh");
    assert_eq!(
        (&flip["runs"], &flip["passed"], &flip["failed"]),
        (&Value::from(4), &Value::from(2), &Value::from(2))
    );
    assert_eq!(flip["flip_rate"], 100.0, "{flip:#}");
    assert_eq!(flip["last"], "passed");
    assert!(flip["duration_ms"]["mean"].is_number() && flip["duration_ms"]["p95"].is_number());
    assert_eq!(file(&doc, "test/ok.sh")["flip_rate"], 0.0);
    let coin = doc["tests"]
        .as_array()
        .and_then(|t| t.iter().find(|t| t["name"] == "coin"))
        .expect("coin");
    assert_eq!(
        (&coin["file"], &coin["flip_rate"]),
        (&Value::from("test/flip.sh"), &Value::from(100.0))
    );

    let flaky = p
        .tapline(&["history", "--flaky", "--format", "json"])
        .summary_doc();
    assert_eq!(flaky["files"].as_array().map(Vec::len), Some(1));
    let failing = p
        .tapline(&["history", "--failing", "--format", "json"])
        .summary_doc();
    assert_eq!(failing["files"].as_array().map(Vec::len), Some(0));
    let human = p.tapline(&["history", "--slow", "1"]);
    assert_eq!(human.code, 0, "{}", human.both());
    assert!(human.stdout.contains("flips"), "{}", human.both());
    // A run still works with the corrupt line there, warning about it.
    let ran = p.run(&[]);
    assert!(
        ran.stderr.contains("warning: skipped a line of"),
        "{}",
        ran.both()
    );
}

/// Scripts that append their name to `order.txt`, run one at a time.
fn order_project(names: &[&str]) -> Project {
    let p = Project::new();
    for name in names {
        p.script(
            &format!("test/{name}.sh"),
            &format!("#!/bin/sh\necho {name} >> order.txt\necho 1..1\necho ok 1\n"),
        );
    }
    p
}

fn order_of(p: &Project, args: &[&str]) -> (Vec<String>, Ran) {
    let _ = fs::remove_file(p.join("order.txt"));
    let mut all = vec!["-j1"];
    all.extend_from_slice(args);
    let ran = p.run(&all);
    assert_eq!(ran.code, 0, "{}", ran.both());
    let order = p
        .read_text("order.txt")
        .lines()
        .map(str::to_owned)
        .collect();
    (order, ran)
}

#[test]
fn issue9_random_seed_is_reproducible() {
    let names = ["a", "b", "c", "d", "e", "f", "g", "h"];
    let p = order_project(&names);
    let (first, ran) = order_of(&p, &["--order", "random:42"]);
    assert!(ran.stderr.contains("order random:42"), "{}", ran.both());
    let (second, _) = order_of(&p, &["--order", "random:42"]);
    assert_eq!(first, second);
    assert_ne!(first, names, "a shuffle of 8 kept declared order");
    let (other, _) = order_of(&p, &["--order", "random:7"]);
    assert_ne!(other, first);
    let (_, ran) = order_of(&p, &["--order", "random"]);
    let seed = ran
        .stderr
        .split("order random:")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .unwrap_or_else(|| panic!("no seed printed:\n{}", ran.both()))
        .to_owned();
    let (replayed, _) = order_of(&p, &["--order", &format!("random:{seed}")]);
    let (again, _) = order_of(&p, &["--order", &format!("random:{seed}")]);
    assert_eq!(replayed, again);
    let bad = p.run(&["--order", "fastest"]);
    assert_eq!(bad.code, 2, "{}", bad.both());
    assert!(bad.stderr.contains("invalid --order"), "{}", bad.both());
}

#[test]
fn issue9_slowest_first_is_the_default_once_history_exists() {
    let p = order_project(&["a", "b"]);
    p.script(
        "test/c.sh",
        "#!/bin/sh\nsleep 0.4\necho c >> order.txt\necho 1..1\necho ok 1\n",
    );
    let (first, _) = order_of(&p, &[]);
    assert_eq!(first, ["a", "b", "c"], "declared order without history");
    // c is slow; a new file (unknown to history) goes first of all.
    p.script(
        "test/d.sh",
        "#!/bin/sh\necho d >> order.txt\necho 1..1\necho ok 1\n",
    );
    let (second, _) = order_of(&p, &[]);
    assert_eq!(second[..2], ["d", "c"]);
    let (declared, _) = order_of(&p, &["--order", "declared"]);
    assert_eq!(declared, ["a", "b", "c", "d"]);
    let (no_history, _) = order_of(&p, &["--no-history"]);
    assert_eq!(no_history, ["a", "b", "c", "d"]);
    // failed-first: a file that failed last time leads.
    p.script(
        "test/b.sh",
        "#!/bin/sh\necho b >> order.txt\necho 1..1\necho not ok 1\n",
    );
    let _ = p.run(&["-j1"]);
    let _ = fs::remove_file(p.join("order.txt"));
    let ran = p.run(&["-j1", "--order", "failed-first"]);
    assert_eq!(ran.code, 1, "{}", ran.both());
    assert_eq!(p.read_text("order.txt").lines().next(), Some("b"));
}

#[test]
fn issue9_cache_skips_an_unchanged_passing_file_until_an_input_changes() {
    let p = Project::new();
    p.write("tapline.toml", "[run]\ncache_inputs = [\"lib/**\"]\n")
        .write("lib/data.txt", "one")
        .script(
            "test/ok.sh",
            "#!/bin/sh\necho ran >> ok.ran\necho 1..2\necho ok 1\necho ok 2\n",
        )
        .script(
            "test/bad.sh",
            "#!/bin/sh\necho ran >> bad.ran\necho 1..1\necho not ok 1\n",
        );
    let runs = |rel: &str| p.read_text(rel).lines().count();
    let ran = p.run(&["--cache"]);
    assert_eq!(ran.code, 1, "{}", ran.both());
    assert_eq!((runs("ok.ran"), runs("bad.ran")), (1, 1));

    let ran = p.run(&["--cache", "--format", "summary"]);
    assert_eq!(ran.code, 1, "{}", ran.both());
    assert_eq!(
        (runs("ok.ran"), runs("bad.ran")),
        (1, 2),
        "a failure is never cached"
    );
    let doc = ran.summary_doc();
    let ok = file(&doc, "test/ok.sh");
    assert_eq!(
        (&ok["cached"], &ok["ok"]),
        (&Value::from(true), &Value::from(true))
    );
    assert_eq!(ok["summary"], Value::Null);
    assert_eq!(doc["run"]["files_cached"], 1);
    assert_eq!(
        doc["run"]["tests"]["pass"], 2,
        "the cached file's counts are reported"
    );
    assert!(ran.stderr.contains("(cached)"), "{}", ran.both());

    // Without --cache, or with --no-cache, it runs.
    p.run(&[]);
    assert_eq!(runs("ok.ran"), 2);
    // A declared input changed: it runs again, then is cached again.
    p.write("lib/data.txt", "two");
    p.run(&["--cache"]);
    assert_eq!(runs("ok.ran"), 3);
    p.run(&["--cache"]);
    assert_eq!(runs("ok.ran"), 3);
    // The file itself changed.
    p.script(
        "test/ok.sh",
        "#!/bin/sh\necho ran >> ok.ran\necho 1..1\necho ok 1\n",
    );
    p.run(&["--cache"]);
    assert_eq!(runs("ok.ran"), 4);
    p.write(
        "tapline.toml",
        "[run]\ncache = true\ncache_inputs = [\"lib/**\"]\n",
    );
    p.run(&[]);
    assert_eq!(runs("ok.ran"), 4, "[run] cache = true turns it on");
    p.run(&["--no-cache"]);
    assert_eq!(runs("ok.ran"), 5, "--no-cache runs it");
}
