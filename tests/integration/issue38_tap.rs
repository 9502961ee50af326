//! Issue 38 (deliver 1 and 5): TAP as prove reads it, and JUnit output under its own case.
//! A test point after the trailing plan fails the stream; every TAP document of a stream counts
//! (a pgTAP file's two `plan()` blocks); a `skip_all` inside a subtest after assertions is a
//! skipped subtest (Test2, Test::More); a JUnit case's `<system-out>`/`<system-err>` is shown
//! under that case, not under a failing case before it.
use crate::util::{repo, require, Project, Ran};
use std::time::Duration;

/// `tapline ARGS`, the stream on stdin, in a fresh project.
fn parse(stdin: &str, args: &[&str]) -> (Project, Ran) {
    let p = Project::new();
    let out = assert_cmd::Command::new(env!("CARGO_BIN_EXE_tapline"))
        .current_dir(p.path())
        .env("NO_COLOR", "1")
        .env_remove("GITHUB_ACTIONS")
        .env_remove("GITHUB_STEP_SUMMARY")
        .args(args)
        .write_stdin(stdin.to_owned())
        .timeout(Duration::from_secs(120))
        .output()
        .expect("tapline runs");
    let ran = Ran::of(out, Duration::ZERO);
    (p, ran)
}

#[test]
fn issue38_a_not_ok_after_the_trailing_plan_fails_the_stream() {
    let (_p, ran) = parse("ok 1 - a\n1..1\nnot ok 2 - after plan\n", &["parse", "-"]);
    assert_eq!(ran.code, 1, "{}", ran.both());
    assert!(
        ran.stdout
            .contains("test point \"after plan\" came after the trailing plan 1..1"),
        "{}",
        ran.both()
    );
    assert!(ran.stdout.contains("✗ after plan"), "{}", ran.both());
}

#[test]
fn issue38_an_ok_after_the_trailing_plan_fails_the_stream_too() {
    let (_p, ran) = parse(
        "ok 1 - a\n1..1\nok 2 - too late\n",
        &["parse", "--format", "summary", "-"],
    );
    assert_eq!(ran.code, 1, "{}", ran.both());
    let doc = ran.summary_doc();
    assert_eq!(doc["ok"], false);
    assert_eq!(doc["count"], 2);
    assert_eq!(
        doc["reasons"],
        serde_json::json!(["test point \"too late\" came after the trailing plan 1..1"])
    );
}

#[test]
fn issue38_a_point_after_a_skip_all_plan_fails_the_stream() {
    // prove: "Bad plan.  You planned 0 tests but ran 1."
    let (_p, ran) = parse(
        "1..0 # SKIP no database\nok 1 - ran anyway\n",
        &["parse", "-"],
    );
    assert_eq!(ran.code, 1, "{}", ran.both());
    assert!(
        ran.stdout
            .contains("test point \"ran anyway\" came after the skip-all plan 1..0"),
        "{}",
        ran.both()
    );
}

/// What a pgTAP file with two `BEGIN; SELECT plan(2); … SELECT * FROM finish(); ROLLBACK;`
/// blocks prints: two documents, numbered from 1 each.
const TWO_PLANS: &str = "1..2\nok 1 - schema exists\nok 2 - table exists\n\
                         1..2\nok 1 - function exists\nnot ok 2 - function returns 42\n\
                         # Failed test 2: \"function returns 42\"\n#         have: 41\n#         want: 42\n\
                         # Looks like you failed 1 test of 2\n";

#[test]
fn issue38_a_failure_only_in_the_second_document_fails_the_stream() {
    let (_p, ran) = parse(TWO_PLANS, &["parse", "--format", "summary", "-"]);
    assert_eq!(ran.code, 1, "{}", ran.both());
    let doc = ran.summary_doc();
    assert_eq!(doc["count"], 4, "{doc}");
    assert_eq!(doc["pass"], 3, "{doc}");
    assert_eq!(doc["fail"], 1, "{doc}");
    assert_eq!(doc["plan"]["end"], 4, "{doc}");
    assert_eq!(
        doc["reasons"],
        serde_json::json!(["1 test point failed: \"function returns 42\""])
    );
}

/// Real pgTAP 1.2.0 output (PostgreSQL 15, `psql -X -f`) of test-data/pgtap/: `two-plans.sql`
/// runs two `plan(2)` blocks, the second failing; `noplan.sql` two `no_plan()` blocks, passing,
/// whose second block's points come after the first one's trailing plan. pg_prove fails both.
#[test]
fn issue38_real_pgtap_output_with_two_blocks_fails_as_under_pg_prove() {
    for (file, count, reason) in [
        (
            "two-plans.tap",
            4,
            "1 test point failed: \"second block answer\"",
        ),
        (
            "noplan.tap",
            4,
            "test point \"second block one\" came after the trailing plan 1..2",
        ),
    ] {
        let path = repo().join("test-data/pgtap").join(file);
        let path = path.to_string_lossy().into_owned();
        let (_p, ran) = parse("", &["parse", "--format", "summary", &path]);
        assert_eq!(ran.code, 1, "{file}: {}", ran.both());
        let doc = ran.summary_doc();
        assert_eq!(doc["count"], count, "{file}: {doc}");
        let reasons = doc["reasons"].as_array().cloned().unwrap_or_default();
        assert!(reasons.iter().any(|r| r == reason), "{file}: {doc}");
    }
}

#[test]
fn issue38_documents_that_all_pass_pass_with_their_counts_added() {
    let passing = TWO_PLANS
        .replace("not ok 2", "ok 2")
        .lines()
        .filter(|l| !l.starts_with('#'))
        .collect::<Vec<_>>()
        .join("\n");
    let (_p, ran) = parse(&passing, &["parse", "--format", "summary", "-"]);
    assert_eq!(ran.code, 0, "{}", ran.both());
    assert_eq!(ran.summary_doc()["count"], 4, "{}", ran.both());
    // A second `TAP version` line starts a document too; its plan is judged on its own.
    let stream = "TAP version 13\nok 1 - a\n1..1\nTAP version 13\n1..2\nok 1 - b\n";
    let (_p, ran) = parse(stream, &["parse", "--format", "summary", "-"]);
    assert_eq!(ran.code, 1, "{}", ran.both());
    assert_eq!(
        ran.summary_doc()["reasons"],
        serde_json::json!(["document 2: planned 2, ran 1"])
    );
}

/// Recorded from Test2::V0 (Test2 1.302190, perl 5.36) under prove, which passes it:
/// `subtest_buffered basic => sub { ok(1, 'compiles'); skip_all 'Missing prereq' }`, and the
/// same with `subtest_streamed`.
const TEST2_SKIP_ALL: &str = "ok 1 - first\nok 2 - basic {\n    ok 1 - compiles\n    \
                              1..0 # SKIP Missing prereq\n}\n# Subtest: streamed\n    \
                              ok 1 - compiles\n    1..0 # SKIP Missing prereq\n\
                              ok 3 - Subtest: streamed\n1..3\n";

#[test]
fn issue38_a_skip_all_after_assertions_is_a_skipped_subtest_in_every_report() {
    let (p, ran) = parse(
        TEST2_SKIP_ALL,
        &["parse", "-", "-o", "report.md", "-o", "report.xml"],
    );
    assert_eq!(ran.code, 0, "{}", ran.both());
    assert!(
        ran.stdout.contains("- basic # SKIP Missing prereq"),
        "{}",
        ran.both()
    );
    assert!(
        ran.stdout.contains("1 passed, 2 skipped (3 tests)"),
        "{}",
        ran.both()
    );
    assert!(!ran.stdout.contains("failed"), "{}", ran.both());
    let md = p.read_text("report.md");
    assert!(md.contains("Passed"), "{md}");
    assert!(md.contains("| 1 | 3 | 1 | 0 | 2 |"), "{md}");
    let xml = p.read_text("report.xml");
    assert!(xml.contains("failures=\"0\""), "{xml}");
    assert!(!xml.contains("<failure"), "{xml}");
}

#[test]
fn issue38_a_test_more_subtest_that_skips_all_after_a_failure_passes_as_under_prove() {
    if !require(
        "issue38_a_test_more_subtest_that_skips_all_after_a_failure_passes_as_under_prove",
        &["perl"],
    ) {
        return;
    }
    let p = Project::new();
    p.write(
        "t/skip.t",
        "use Test::More;\nok(1, 'before');\n\
         subtest basic => sub { ok(1, 'compiles'); plan skip_all => 'Missing prereq' };\n\
         subtest broken => sub { ok(0, 'broken'); plan skip_all => 'Missing prereq' };\n\
         done_testing;\n",
    );
    let ran = p.run(&["t/skip.t", "--format", "summary"]);
    assert_eq!(ran.code, 0, "{}", ran.both());
    let doc = ran.summary_doc();
    assert_eq!(doc["run"]["tests"]["skip"], 2, "{doc}");
    assert_eq!(doc["run"]["tests"]["fail"], 0, "{doc}");
    assert_eq!(doc["run"]["files_passed"], 1, "{doc}");
}

/// A JUnit case's lines, as the human report prints them under its name.
fn block_of<'a>(report: &'a str, case: &str) -> &'a str {
    let start = report
        .find(&format!("✗ {case}"))
        .unwrap_or_else(|| panic!("no failing case {case} in:\n{report}"));
    let rest = &report[start + case.len() + 4..];
    let end = rest.find('✗').unwrap_or(rest.len());
    &rest[..end]
}

#[test]
fn issue38_junit_output_of_each_case_is_under_that_case() {
    let xml = "<?xml version=\"1.0\"?>\n<testsuites><testsuite name=\"s\" tests=\"2\" failures=\"2\">\n\
               <testcase name=\"a\"><failure message=\"a broke\"/><system-out>out of a</system-out><system-err>err of a</system-err></testcase>\n\
               <testcase name=\"b\"><failure message=\"b broke\"/><system-out>out of b</system-out><system-err>err of b</system-err></testcase>\n\
               </testsuite></testsuites>\n";
    let (p, ran) = parse(xml, &["parse", "-", "-o", "report.xml"]);
    assert_eq!(ran.code, 1, "{}", ran.both());
    let a = block_of(&ran.stdout, "a");
    let b = block_of(&ran.stdout, "b");
    assert!(
        a.contains("out of a") && a.contains("err of a"),
        "{}",
        ran.both()
    );
    assert!(!a.contains("of b"), "{}", ran.both());
    assert!(
        b.contains("out of b") && b.contains("err of b"),
        "{}",
        ran.both()
    );
    let report = p.read_text("report.xml");
    let case_b = &report[report.find("s &gt; b\"").expect("case b")..];
    let case_b = &case_b[..case_b.find("</testcase>").expect("case b ends")];
    assert!(case_b.contains("out of b"), "{report}");
}

/// A real pytest 7.2.1 `--junitxml` (`-o junit_logging=all`) of two failing tests and a passing
/// one, each printing to stdout and stderr (times, timestamp and host made constant).
#[test]
fn issue38_junit_output_of_a_real_pytest_report_is_under_each_case() {
    let file = repo().join("test-data/junit/pytest-captured-output.xml");
    let path = file.to_string_lossy().into_owned();
    let (_p, ran) = parse("", &["parse", &path]);
    assert_eq!(ran.code, 1, "{}", ran.both());
    let a = block_of(&ran.stdout, "test_out.test_a");
    let b = block_of(&ran.stdout, "test_out.test_b");
    assert!(
        a.contains("stdout of a") && a.contains("stderr of a"),
        "{}",
        ran.both()
    );
    assert!(
        !a.contains("of b") && !a.contains("of passes"),
        "{}",
        ran.both()
    );
    assert!(
        b.contains("stdout of b") && b.contains("stderr of b"),
        "{}",
        ran.both()
    );
}
