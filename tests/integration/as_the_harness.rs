//! Issue 25: a plain `tapline run` is the project's own harness. A Perl distribution tests its
//! checkout (`lib` on `@INC`, as `prove -l`), files run one at a time where the harness runs
//! them so (bats, a distribution's `make test`), and `--list` lists exactly what the run
//! would run after `--affected-by` and `--partition`, each file with why.
use crate::util::{copy_dir, repo, require, Project, Ran};
use serde_json::Value;
use std::collections::BTreeSet;
use std::process::Command;

/// The paths a `--format summary` run ran.
fn ran(ran: &Ran) -> BTreeSet<String> {
    let doc: Value = ran.summary_doc();
    doc["files"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .iter()
        .map(|f| f["path"].as_str().unwrap_or_default().to_owned())
        .collect()
}

/// The paths `--list` printed (its stdout: one `path<TAB>command…` a line).
fn listed(ran: &Ran) -> BTreeSet<String> {
    ran.stdout
        .lines()
        .map(|l| l.split('\t').next().unwrap_or_default().to_owned())
        .collect()
}

/// A distribution whose test needs its own `lib/` and `t/lib/`, neither named by the test.
fn perl_dist() -> Project {
    let p = Project::new();
    p.write("Makefile.PL", "use ExtUtils::MakeMaker;\nWriteMakefile(NAME => 'Tiny');\n")
        .write("lib/Tiny.pm", "package Tiny;\nour $VERSION = '2.0';\n1;\n")
        .write("t/lib/TinyHelper.pm", "package TinyHelper;\nsub want { '2.0' }\n1;\n")
        .write("other/Tiny.pm", "package Tiny;\nour $VERSION = 'other';\n1;\n")
        .write(
            "t/version.t",
            "use strict;\nuse Tiny;\nuse TinyHelper;\nprint \"1..1\\n\";\n\
             print $Tiny::VERSION eq TinyHelper::want() ? \"ok 1 - the checkout's\\n\" : \"not ok 1 - got $Tiny::VERSION\\n\";\n",
        );
    p
}

#[test]
fn issue25_a_perl_distribution_tests_its_checkout_one_file_at_a_time() {
    let test = "issue25_a_perl_distribution_tests_its_checkout_one_file_at_a_time";
    if !require(test, &["perl", "prove"]) {
        return;
    }
    let p = perl_dist();
    let prove = Command::new("prove")
        .args(["-l", "-It/lib", "t"])
        .current_dir(p.path())
        .output()
        .expect("prove runs");
    assert!(prove.status.success(), "the harness passes: {prove:?}");

    let plain = p.run(&[]);
    assert_eq!(plain.code, 0, "{}", plain.both());

    let list = p.run(&["--list"]);
    assert_eq!(list.code, 0, "{}", list.both());
    for note in [
        "tapline: a Perl distribution: lib, t/lib on @INC (PERL5LIB), as prove -l and make test; -I DIR and [run] lib come first",
        "tapline: -j1: a Perl distribution's `make test` runs files one at a time; -j N to change",
    ] {
        assert!(list.stderr.contains(note), "{note}\n{}", list.both());
    }
    // -I comes first, and -j is the user's.
    let given = p.run(&["-I", "other", "-j", "3", "--list"]);
    assert!(
        given.stderr.contains(&format!(
            "PERL5LIB={}:{}:{}",
            p.join("other").display(),
            p.join("lib").display(),
            p.join("t/lib").display()
        )),
        "{}",
        given.both()
    );
    assert!(!given.stderr.contains("-j1"), "{}", given.both());
    let other = p.run(&["-I", "other"]);
    assert_eq!(other.code, 1, "-I's Tiny wins: {}", other.both());
}

#[test]
fn issue25_bats_files_run_one_at_a_time() {
    let test = "issue25_bats_files_run_one_at_a_time";
    if !require(test, &["bats"]) {
        return;
    }
    let p = Project::new();
    // Each file holds the shared fixture folder for a while: two at once, one fails.
    let file = "@test \"holds the fixture\" {\n  mkdir \"$BATS_TEST_DIRNAME/../shared\"\n  sleep 1\n  rmdir \"$BATS_TEST_DIRNAME/../shared\"\n}\n";
    for name in ["a", "b", "c"] {
        p.write(&format!("test/{name}.bats"), file);
    }
    let started = std::time::Instant::now();
    let plain = p.run(&["--format", "summary"]);
    assert_eq!(plain.code, 0, "{}", plain.both());
    assert_eq!(ran(&plain).len(), 3);
    assert!(started.elapsed().as_secs_f64() >= 3.0, "one after another");
    let list = p.run(&["--list"]);
    assert!(
        list.stderr
            .contains("tapline: -j1: bats runs files one at a time; -j N to change"),
        "{}",
        list.both()
    );
    p.write("tapline.toml", "[run]\njobs = 2\n");
    let configured = p.run(&["--list"]);
    assert!(!configured.stderr.contains("-j1"), "{}", configured.both());
}

#[test]
fn issue25_list_with_affected_by_lists_exactly_what_the_run_runs() {
    let test = "issue25_list_with_affected_by_lists_exactly_what_the_run_runs";
    if !require(test, &["perl"]) {
        return;
    }
    let p = Project::new();
    copy_dir(&repo().join("test-data/suites/traced/perl"), p.path());
    let first = p.run(&[]);
    assert_eq!(first.code, 0, "{}", first.both());

    let change = ["--affected-by", "lib/Shop/Price.pm"];
    let list = p.run(&[&["--list"][..], &change].concat());
    assert_eq!(list.code, 0, "{}", list.both());
    let run = p.run(&[&["--format", "summary"][..], &change].concat());
    assert_eq!(run.code, 0, "{}", run.both());
    let expected: BTreeSet<String> = ["t/cart.t", "t/fork.t", "t/price.t"]
        .map(String::from)
        .into();
    assert_eq!(listed(&list), expected, "{}", list.both());
    assert_eq!(ran(&run), expected, "{}", run.both());
    assert!(
        list.stdout
            .lines()
            .all(|l| l.ends_with("  (loaded lib/Shop/Price.pm)")),
        "each file says why: {}",
        list.both()
    );

    // With a shard as well: the shard's part of the selection, on both sides.
    for shard in ["slice:1/2", "slice:2/2", "time:1/2", "time:2/2"] {
        let part = [&change[..], &["--partition", shard]].concat();
        let list = p.run(&[&["--list"][..], &part].concat());
        let run = p.run(&[&["--format", "summary"][..], &part].concat());
        assert_eq!(listed(&list), ran(&run), "{shard}: {}", list.both());
    }
    let itself = p.run(&["--list", "--affected-by", "t/name.t"]);
    assert_eq!(itself.code, 0, "{}", itself.both());
    assert_eq!(itself.stdout, "t/name.t\tperl t/name.t  (changed)\n");
}
