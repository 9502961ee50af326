//! Issue 41 item 3: a file that ends short of its plan after a failure says so,
//! `planned 4, ran 2`, as prove and pg_prove say it, beside its exit code and its failed
//! point, in the terminal and the jsonl report. The stream is recorded from real perl
//! (scripts/record-producers.sh, test-data/producers/perl-plan-short.tap).
use crate::util::{repo, require, unmarkdown, unxml, Project};

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

/// A pytest file whose test segfaults: the file says it was killed in `test_crash`, and its
/// output reads Python's fatal line first, then the test's own line, pytest's and pluggy's
/// frames counted, in the terminal, JUnit and Markdown; the log keeps every line.
#[test]
fn issue41_a_segfault_names_the_running_test_and_its_fatal_line_first() {
    if !require(
        "issue41_a_segfault_names_the_running_test_and_its_fatal_line_first",
        &["pytest"],
    ) {
        return;
    }
    let p = Project::new();
    p.write(
        "test_seg.py",
        "import ctypes\n\n\ndef test_ok():\n    assert True\n\n\n\
         def test_crash():\n    ctypes.string_at(0)\n\n\ndef test_after():\n    assert True\n",
    );
    let ran = p.run(&[
        "test_seg.py",
        "--no-cache",
        "--color",
        "never",
        "-o",
        "out.xml",
        "-o",
        "out.md",
    ]);
    assert_eq!(ran.code, 1, "{}", ran.both());
    assert!(
        ran.stderr
            .contains("killed by SIGSEGV; while running \"test_crash\"; planned 3, ran 1"),
        "{}",
        ran.both()
    );
    let xml = unxml(&p.read_text("out.xml"));
    let md = unmarkdown(&p.read_text("out.md"));
    for (sink, text) in [
        ("terminal", ran.stderr.as_str()),
        ("JUnit", &xml),
        ("Markdown", &md),
    ] {
        let fatal = text.find("Fatal Python error: Segmentation fault");
        let own = text.find("File \"test_seg.py\", line 9 in test_crash");
        assert!(
            fatal.is_some() && own.is_some() && fatal < own,
            "{sink}: the fatal line, then the test's own line:\n{text}"
        );
        assert!(
            text.contains("while running \"test_crash\""),
            "{sink}:\n{text}"
        );
        assert!(text.contains("runtime frames hidden"), "{sink}:\n{text}");
    }
    // The terminal shows no pluggy frame; the log keeps them all.
    assert!(!ran.stderr.contains("pluggy"), "{}", ran.stderr);
    let log = p.read_text(".nogit/testlogs/test_seg.log");
    assert!(log.contains("pluggy/_callers.py"), "{log}");
    assert!(
        log.contains("Fatal Python error: Segmentation fault"),
        "{log}"
    );
}

/// `os._exit(3)` in a test, and a test that hangs until `--timeout` kills the file: each names
/// the test it was in.
#[test]
fn issue41_an_exit_and_a_hang_name_the_running_test() {
    if !require(
        "issue41_an_exit_and_a_hang_name_the_running_test",
        &["pytest"],
    ) {
        return;
    }
    let p = Project::new();
    p.write(
        "test_exit.py",
        "import os\n\n\ndef test_ok():\n    pass\n\n\ndef test_exits():\n    os._exit(3)\n",
    )
    .write(
        "test_hang.py",
        "import time\n\n\ndef test_hangs():\n    time.sleep(60)\n",
    );
    let ran = p.run(&[
        "test_exit.py",
        "test_hang.py",
        "--no-cache",
        "--color",
        "never",
        "--timeout",
        "2s",
        "-o",
        "out.jsonl",
    ]);
    assert_eq!(ran.code, 1, "{}", ran.both());
    for said in [
        "exited with code 3; while running \"test_exits\"; planned 2, ran 1",
        "timed out after 2s; while running \"test_hangs\"; planned 1, ran 0",
    ] {
        assert!(ran.stderr.contains(said), "lacks {said:?}:\n{}", ran.both());
    }
    let jsonl = p.read_text("out.jsonl");
    assert!(
        jsonl.contains(r#""while running \"test_hangs\"""#),
        "{jsonl}"
    );
}

/// Plain TAP names the running test where the producer said one began: a subtest head
/// (`# Subtest: outer`) whose closing point never came, when the process is killed.
#[test]
fn issue41_a_file_killed_inside_a_subtest_names_it() {
    if !require("issue41_a_file_killed_inside_a_subtest_names_it", &["bash"]) {
        return;
    }
    let p = Project::new();
    p.write(
        "sub.sh",
        "printf '1..2\\nok 1 - first\\n# Subtest: outer\\n    1..2\\n    ok 1 - inner\\n'\n\
         kill -KILL $$\n",
    );
    let ran = p.run(&["sub.sh", "--no-cache", "--color", "never"]);
    assert_eq!(ran.code, 1, "{}", ran.both());
    assert!(
        ran.stderr
            .contains("killed by SIGKILL; while running \"outer\"; planned 2, ran 1"),
        "{}",
        ran.both()
    );
    // A file that ends after its points ran names no running test.
    p.write("done.sh", "printf '1..1\\nnot ok 1 - a\\n'\nexit 3\n");
    let ran = p.run(&["done.sh", "--no-cache", "--color", "never"]);
    assert!(!ran.stderr.contains("while running"), "{}", ran.both());
}
