//! Issue 41 item 3: a file that ends short of its plan after a failure says so,
//! `planned 4, ran 2`, as prove and pg_prove say it, beside its exit code and its failed
//! point, in the terminal and the jsonl report. The stream is recorded from real perl
//! (scripts/record-producers.sh, test-data/producers/perl-plan-short.tap).
use crate::util::{repo, require, Project};

#[test]
fn issue41_plan_shortfall_after_a_failure_is_a_reason() {
    if !require(
        "issue41_plan_shortfall_after_a_failure_is_a_reason",
        &["bash"],
    ) {
        return;
    }
    let recording =
        std::fs::read(repo().join("test-data/producers/perl-plan-short.tap")).expect("recording");
    let p = Project::new();
    p.write("short.tap", recording)
        .write("short.sh", "cat short.tap\nexit 3\n");
    let ran = p.run(&[
        "short.sh",
        "-o",
        "out.jsonl",
        "--no-cache",
        "--color",
        "never",
    ]);
    assert_eq!(ran.code, 1, "{}", ran.both());
    assert!(
        ran.stderr.contains("exited with code 3; planned 4, ran 2"),
        "{}",
        ran.both()
    );
    let jsonl = p.read_text("out.jsonl");
    assert!(
        jsonl.contains(r#""reasons":["exited with code 3","planned 4, ran 2","1 test point failed: \"second\""]"#),
        "{jsonl}"
    );
}
