//! Issue 38, items 6 and 7: a plain `tapline run` runs only what the project's harness would
//! (a folder of `*.t` tests yields its `*.t`, as prove; nothing runs for being executable), and
//! a Perl test file sees `HARNESS_ACTIVE` and `HARNESS_VERSION`, as under prove.
use crate::util::{copy_dir, file_doc, repo, require, Project, Ran};
use std::process::Command;

/// `test-data/suites/prove-helpers` copied to the root of a fresh project, its `t/lib.sh`
/// a symlink to the library, as in the repository.
fn prove_helpers() -> Project {
    let p = Project::new();
    copy_dir(&repo().join("test-data/suites/prove-helpers"), p.path());
    let lib = p.join("t/lib.sh");
    std::fs::remove_file(&lib).expect("rm the copied t/lib.sh");
    std::os::unix::fs::symlink("../lib/test-lib.sh", &lib).expect("symlink t/lib.sh");
    p
}

/// The paths of a summary document's files, in order, with whether each passed.
fn verdicts(ran: &Ran) -> Vec<(String, bool)> {
    ran.summary_doc()["files"]
        .as_array()
        .expect("files")
        .iter()
        .map(|f| {
            let path = f["path"].as_str().expect("path").to_owned();
            (path, f["ok"].as_bool().expect("ok"))
        })
        .collect()
}

fn expect(files: &[(&str, bool)]) -> Vec<(String, bool)> {
    files.iter().map(|&(p, ok)| (p.to_owned(), ok)).collect()
}

/// prove's own run of the fixture, where prove is installed: the two `*.t`, passing.
fn prove_passes(test: &str, p: &Project) {
    if !require(test, &["prove"]) {
        return;
    }
    let out = Command::new("prove")
        .arg("t")
        .current_dir(p.path())
        .output()
        .expect("prove runs");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "{text}");
    assert!(text.contains("Files=2, Tests=4"), "{text}");
}

#[test]
fn issue38_a_plain_run_in_a_folder_of_dot_t_runs_dot_t_only() {
    let p = prove_helpers();
    prove_passes(
        "issue38_a_plain_run_in_a_folder_of_dot_t_runs_dot_t_only: prove's own run",
        &p,
    );
    let _ = std::fs::remove_dir_all(p.join("test-results"));
    let ran = p.run(&["--format", "summary"]);
    assert_eq!(ran.code, 0, "{}", ran.both());
    assert_eq!(
        verdicts(&ran),
        expect(&[("t/t0001-basic.t", true), ("t/t0002-harness.t", true)]),
        "not t/lib.sh, t/aggregate-results.sh, t/test-terminal.perl nor test/run:\n{}",
        ran.both()
    );
    assert_eq!(
        ran.summary_doc()["run"]["tests"]["pass"],
        4,
        "as prove's Tests=4"
    );
    assert!(
        !p.join("MAINTENANCE-SCRIPT-RAN").exists(),
        "test/run, a maintenance script, ran"
    );
    assert!(
        !p.join("test-results").exists(),
        "the shell library saw no harness (HARNESS_ACTIVE) and wrote its results"
    );
}

#[test]
fn issue38_a_planted_bug_fails_the_file_prove_fails() {
    let p = prove_helpers();
    let test = p.read_text("t/t0001-basic.t");
    p.write(
        "t/t0001-basic.t",
        test.replace("-eq 2 ]", "-eq 3 ]").as_bytes(),
    );
    let ran = p.run(&["--format", "summary"]);
    assert_eq!(ran.code, 1, "{}", ran.both());
    assert_eq!(
        verdicts(&ran),
        expect(&[("t/t0001-basic.t", false), ("t/t0002-harness.t", true)]),
        "{}",
        ran.both()
    );
    let doc = ran.summary_doc();
    assert_eq!(doc["run"]["tests"]["fail"], 1, "{}", ran.both());
    assert_eq!(doc["run"]["tests"]["pass"], 3, "{}", ran.both());
    assert_eq!(file_doc(&doc, "t/t0001-basic.t")["ok"], false);
}

#[test]
fn issue38_list_says_what_was_passed_over_and_why() {
    let p = prove_helpers();
    let listed = p.run(&["--list"]);
    assert_eq!(listed.code, 0, "{}", listed.both());
    assert_eq!(
        listed.stdout,
        // `t/Makefile` runs its `*.t` from `t/` (`prove $(T)`), the shell one under the shell
        // of its `#!` (issue 40: a shell test library's `t/`).
        "t/t0001-basic.t\t/bin/sh t0001-basic.t\nt/t0002-harness.t\tperl t0002-harness.t\n",
        "{}",
        listed.both()
    );
    let helper = "a helper beside *.t tests (the folder's Makefile runs *.t only)";
    for note in [
        format!("tapline: t/lib.sh: passed over: {helper}"),
        format!("tapline: t/aggregate-results.sh: passed over: {helper}"),
        format!("tapline: t/test-terminal.perl: passed over: {helper}"),
        "tapline: test/run: passed over: executable, but not named as a test".to_owned(),
        "tapline: not tests (1 file): t/Makefile".to_owned(),
        "tapline: perl's files (and *.t) get HARNESS_ACTIVE=1".to_owned(),
    ] {
        assert!(listed.stderr.contains(&note), "{note}\n{}", listed.both());
    }
    let tests = p.tapline(&["list"]);
    assert_eq!(tests.code, 0, "{}", tests.both());
    assert!(
        tests
            .stderr
            .contains(&format!("tapline: t/lib.sh: passed over: {helper}")),
        "{}",
        tests.both()
    );
    assert!(!p.join("MAINTENANCE-SCRIPT-RAN").exists());

    let named = p.run(&["--format", "summary", "test/run"]);
    assert_eq!(named.code, 1, "named, it runs:\n{}", named.both());
    assert!(p.join("MAINTENANCE-SCRIPT-RAN").exists());
}

/// A `test/` folder's executable that no naming rule names is no test, in any project.
#[test]
fn issue38_no_file_runs_for_being_executable() {
    let p = Project::new();
    p.write("test/a.sh", "echo 1..1; echo ok 1\n")
        .script("test/run", "#!/bin/sh\ntouch ran\necho 1..1; echo ok 1\n")
        .script(
            "test/helper",
            "#!/bin/sh\ntouch ran\necho 1..1; echo ok 1\n",
        );
    let ran = p.run(&["--format", "summary"]);
    assert_eq!(ran.code, 0, "{}", ran.both());
    assert_eq!(
        verdicts(&ran),
        expect(&[("test/a.sh", true)]),
        "{}",
        ran.both()
    );
    assert!(!p.join("ran").exists(), "an executable ran for being one");
}

/// The TAP::Harness version prove sets, from perl itself.
fn harness_version() -> String {
    let out = Command::new("perl")
        .args(["-MTAP::Harness", "-e", "print $TAP::Harness::VERSION"])
        .output()
        .expect("perl runs");
    String::from_utf8(out.stdout).expect("utf-8")
}

#[test]
fn issue38_perl_files_see_harness_active_and_version() {
    if !require(
        "issue38_perl_files_see_harness_active_and_version",
        &["perl"],
    ) {
        return;
    }
    let p = Project::new();
    p.write(
        "t/env.t",
        "print qq{1..1\\nok 1 - [$ENV{HARNESS_ACTIVE}] [$ENV{HARNESS_VERSION}]\\n};\n",
    )
    .write(
        "t/env.pl",
        "print qq{1..1\\nok 1 - [$ENV{HARNESS_ACTIVE}]\\n};\n",
    )
    .write(
        "test/env.sh",
        "echo 1..1; echo \"ok 1 - [${HARNESS_ACTIVE:-unset}]\"\n",
    );
    let version = harness_version();
    assert!(!version.is_empty(), "perl has TAP::Harness");
    let ran = p.run(&["--format", "jsonl", "t/env.t", "t/env.pl", "test/env.sh"]);
    assert_eq!(ran.code, 0, "{}", ran.both());
    for seen in [
        format!("[1] [{version}]"),
        "\"[1]\"".to_owned(),
        "[unset]".to_owned(),
    ] {
        assert!(ran.stdout.contains(&seen), "{seen}\n{}", ran.both());
    }
    let mine = p.run(&["--format", "jsonl", "--env", "HARNESS_ACTIVE=0", "t/env.t"]);
    assert!(
        mine.stdout.contains(&format!("[0] [{version}]")),
        "--env wins:\n{}",
        mine.both()
    );
}

/// Inside the folder of `*.t` tests (`cd t && make`, as sharness projects run theirs), a plain
/// run walks that folder as prove reads it.
#[test]
fn issue38_inside_a_folder_of_dot_t_tests() {
    let p = prove_helpers();
    let out = assert_cmd::Command::new(env!("CARGO_BIN_EXE_tapline"))
        .current_dir(p.join("t"))
        .env("CI", "1")
        .env("NO_COLOR", "1")
        .args(["run", "--list"])
        .output()
        .expect("tapline runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stdout}{stderr}");
    // As from the root: `t/Makefile` runs them from `t/`, the shell one under its `#!`
    // (issue 40).
    assert_eq!(
        stdout, "t/t0001-basic.t\t/bin/sh t0001-basic.t\nt/t0002-harness.t\tperl t0002-harness.t\n",
        "{stderr}"
    );
}

/// A Perl distribution's plain run takes the `*.t` its `make test` runs: MakeMaker's are
/// `t/*.t` unless `TESTS` says more (a `t/author/` test that needs what is not installed is
/// no part of `make test`).
#[test]
fn issue38_a_perl_distribution_runs_what_its_make_test_runs() {
    let p = Project::new();
    p.write(
        "Makefile.PL",
        "use ExtUtils::MakeMaker;\nWriteMakefile(NAME => 'Tiny');\n",
    )
    .write("lib/Tiny.pm", "package Tiny;\n1;\n")
    .write("t/a.t", "print qq{1..1\\nok 1 - loads\\n};\n")
    .write(
        "t/author/pod.t",
        "print qq{1..1\\nnot ok 1 - needs Test::Pod, not installed\\n};\n",
    );
    let ran = p.run(&["--format", "summary"]);
    assert_eq!(ran.code, 0, "{}", ran.both());
    assert_eq!(verdicts(&ran), expect(&[("t/a.t", true)]), "{}", ran.both());
    let listed = p.run(&["--list"]);
    assert!(
        listed
            .stderr
            .contains("tapline: t/author/pod.t: passed over: a *.t the harness does not run"),
        "{}",
        listed.both()
    );

    p.write(
        "Makefile.PL",
        "use ExtUtils::MakeMaker;\nWriteMakefile(NAME => 'Tiny', test => {TESTS => 't/*.t t/*/*.t'});\n",
    );
    let ran = p.run(&["--format", "summary"]);
    assert_eq!(ran.code, 1, "{}", ran.both());
    assert_eq!(
        verdicts(&ran),
        expect(&[("t/a.t", true), ("t/author/pod.t", false)]),
        "TESTS names t/*/*.t too:\n{}",
        ran.both()
    );
}
