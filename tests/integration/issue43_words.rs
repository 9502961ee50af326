//! #43: one vocabulary: a test that fails in every run of a series fails every run; it is
//! never called unstable.
use crate::util::Project;

#[test]
fn issue43_a_test_failing_every_run_fails_every_run_not_unstable() {
    let p = Project::new();
    p.script(
        "t/bad.t",
        "#!/bin/sh\necho 1..2\necho 'ok 1 - fine'\necho 'not ok 2 - never'\n",
    );
    let ran = p.run(&["--runs", "3", "--no-history", "--format", "summary"]);
    assert_eq!(ran.code, 1, "{}", ran.both());
    let doc = ran.summary_doc();
    let never = doc["stability"]["tests"]
        .as_array()
        .expect("tests")
        .iter()
        .find(|t| t["name"] == "never")
        .cloned()
        .expect("the test `never`");
    assert_eq!(never["class"], "fails_every_run", "{never:#}");
    assert!(ran.stderr.contains("fails_every_run"), "{}", ran.stderr);
    assert!(!ran.stderr.contains("highly_unstable"), "{}", ran.stderr);
    assert!(!ran.stderr.contains("UNSTABLE"), "{}", ran.stderr);
    assert!(ran.stderr.contains("✗ FAILING"), "{}", ran.stderr);
}
