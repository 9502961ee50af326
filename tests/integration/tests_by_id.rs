//! Issue 27: tests, not only files: every test point's stable ID (`file > outer > inner`) in
//! `--format jsonl`, `tapline list` (static scan, and what the last run reported), and the
//! two agreeing.
use crate::util::{require, Project};
use serde_json::Value;
use std::collections::BTreeSet;

const PERL_SUBTESTS: &str = "use Test::More;\n\
subtest 'outer' => sub {\n  ok(1, 'inner one');\n  subtest 'deeper' => sub { ok(1, 'leaf') };\n};\n\
ok(1, 'top');\nok(1);\ndone_testing;\n";

/// The `test_id` of every test point in a run's `--format jsonl`.
fn reported_ids(stdout: &str) -> Vec<String> {
    stdout
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|e| e["type"] == "tap" && e["event"]["type"] == "assert")
        .map(|e| {
            e["test_id"]
                .as_str()
                .expect("a test point has a test_id")
                .to_owned()
        })
        .collect()
}

#[test]
fn every_test_point_in_jsonl_has_its_stable_id() {
    if !require("every_test_point_in_jsonl_has_its_stable_id", &["perl"]) {
        return;
    }
    let p = Project::new();
    p.write("t/sub.t", PERL_SUBTESTS);
    let ran = p.run(&["--format", "jsonl"]);
    assert_eq!(ran.code, 0, "{}", ran.both());
    let ids: BTreeSet<String> = reported_ids(&ran.stdout).into_iter().collect();
    let want: BTreeSet<String> = [
        "t/sub.t > outer > inner one",
        "t/sub.t > outer > deeper > leaf",
        "t/sub.t > outer > deeper",
        "t/sub.t > outer",
        "t/sub.t > top",
        "t/sub.t > #3",
    ]
    .map(str::to_owned)
    .into();
    assert_eq!(ids, want);
}
