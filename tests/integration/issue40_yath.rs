//! Issue 40, item 3: a project that uses yath (its `.yath.rc`, a `t2/` folder) runs, bare, the
//! files yath runs (`t/` and `t2/`, recursively, `*.t` and `*.t2`), each by perl as yath runs
//! it: `.yath.rc`'s `[test]` options applied (`-I`, `--env-var`, `-P`), what a test sees under
//! yath in its environment, each file a tapline entry: the same files, verdicts and exit code
//! as `yath test`, clean and with a planted bug, whose Test2 table reads as Test2 means it.
//! The fixture: test-data/suites/yath.
use crate::util::{copy_dir, repo, require, Project, Ran};
use serde_json::Value;
use std::process::Command;

fn project() -> Project {
    let p = Project::new();
    copy_dir(&repo().join("test-data/suites/yath"), p.path());
    p
}

/// Each file's path, verdict and counts, and the exit code, of a `--format summary` run.
fn outcome(ran: &Ran) -> (i32, Vec<String>) {
    let doc: Value = ran.summary_doc();
    let files = doc["files"].as_array().cloned().unwrap_or_default();
    let files = files
        .iter()
        .map(|f| {
            format!(
                "{} ok={} pass={} fail={}",
                f["path"].as_str().unwrap_or_default(),
                f["ok"],
                f["tests"]["pass"],
                f["tests"]["fail"]
            )
        })
        .collect();
    (ran.code, files)
}

/// yath's own run: its exit code and each file it ran with its verdict, in its words.
fn yath(p: &Project) -> (i32, Vec<String>) {
    let out = Command::new("yath")
        .args(["test", "--no-color"])
        .current_dir(p.path())
        .env_remove("HARNESS_ACTIVE")
        .output()
        .expect("yath runs");
    let said = String::from_utf8_lossy(&out.stdout);
    let mut files: Vec<String> = said
        .lines()
        .filter_map(|l| {
            let verdict = if l.starts_with("( PASSED )") {
                "ok=true"
            } else if l.starts_with("( FAILED )") {
                "ok=false"
            } else {
                return None;
            };
            Some(format!("{} {verdict}", l.split_whitespace().last()?))
        })
        .collect();
    files.sort();
    (out.status.code().unwrap_or(-1), files)
}

/// The run's files with their verdicts only, as yath says them.
fn verdicts(files: &[String]) -> Vec<String> {
    files
        .iter()
        .map(|f| f.split(" pass=").next().unwrap_or(f).to_owned())
        .collect()
}

#[test]
fn issue40_yath_a_bare_run_runs_what_yath_runs_as_yath_runs_it() {
    if !require(
        "issue40_yath_a_bare_run_runs_what_yath_runs_as_yath_runs_it",
        &["perl", "yath"],
    ) {
        return;
    }
    let p = project();
    let ran = p.run(&["--format", "summary", "--no-cache", "--no-history"]);
    let (code, files) = outcome(&ran);
    assert_eq!(
        (code, files.clone()),
        (
            0,
            vec![
                "t/basic.t ok=true pass=6 fail=0".to_owned(),
                "t/deep/nested.t ok=true pass=1 fail=0".to_owned(),
                "t2/config.t2 ok=true pass=1 fail=0".to_owned(),
            ]
        ),
        "t/ and t2/ recursively, .yath.rc's -I, --env-var and -P applied: {}",
        ran.both()
    );
    assert_eq!(yath(&p), (0, verdicts(&files)), "as yath test");
}

#[test]
fn issue40_yath_a_planted_bug_fails_as_under_yath_and_reads_as_test2_means_it() {
    if !require(
        "issue40_yath_a_planted_bug_fails_as_under_yath_and_reads_as_test2_means_it",
        &["perl", "yath"],
    ) {
        return;
    }
    let p = project();
    // The bug: a tag lost and the size off by one.
    let thing = p
        .read_text("lib/My/Thing.pm")
        .replace("tags => ['a', 'b'], size => 3", "tags => ['a'], size => 4");
    p.write("lib/My/Thing.pm", thing);
    let ran = p.run(&["--format", "summary", "--no-cache", "--no-history"]);
    let (code, files) = outcome(&ran);
    assert_eq!(
        (code, files.clone()),
        (
            1,
            vec![
                "t/basic.t ok=true pass=6 fail=0".to_owned(),
                "t/deep/nested.t ok=true pass=1 fail=0".to_owned(),
                "t2/config.t2 ok=false pass=0 fail=1".to_owned(),
            ]
        ),
        "{}",
        ran.both()
    );
    let (yath_code, yath_files) = yath(&p);
    assert_eq!(yath_files, verdicts(&files), "as yath test");
    assert_ne!(yath_code, 0, "yath fails too");

    let ran = p.run(&["t2/config.t2", "--no-cache", "--no-history"]);
    let out = &ran.stderr;
    assert!(
        out.contains("Structures differ at {size}, {tags}[1]"),
        "each row a difference at its path: {}",
        ran.both()
    );
    assert!(
        out.contains(
            "      {\n    -   \"{size}\": \"3\",\n    -   \"{tags}[1]\": \"b\",\n    +   \"{size}\": \"4\",\n      }\n"
        ),
        "the missing tag on the expected side only: {}",
        ran.both()
    );
    assert!(
        !out.contains("DOES NOT EXIST"),
        "absence is no value: {}",
        ran.both()
    );
    assert!(!out.contains("| PATH"), "the table is read: {}", ran.both());
    assert!(
        out.contains("t2/config.t2:4"),
        "Test2's location: {}",
        ran.both()
    );
}

#[test]
fn issue40_yath_list_shows_yaths_files_and_why() {
    if !require("issue40_yath_list_shows_yaths_files_and_why", &["perl"]) {
        return;
    }
    let p = project();
    let ran = p.run(&["--list"]);
    for file in ["t/basic.t", "t/deep/nested.t", "t2/config.t2"] {
        assert!(ran.stdout.contains(file), "{file}: {}", ran.both());
    }
    assert!(
        ran.stderr.contains("a yath project (.yath.rc)"),
        "{}",
        ran.both()
    );
    assert!(
        ran.stdout.contains("-It/inc") && ran.stdout.contains("-mMy::Preload"),
        "the command as yath gives it: {}",
        ran.both()
    );
}

#[test]
fn issue40_yath_a_file_that_says_no_preload_runs_without_them() {
    if !require(
        "issue40_yath_a_file_that_says_no_preload_runs_without_them",
        &["perl", "yath"],
    ) {
        return;
    }
    let p = project();
    // As Catalyst's t/unit_stats.t: it replaces Time::HiRes before anything loads it.
    p.write(
        "t/no_preload.t",
        "# HARNESS-NO-PRELOAD\nuse Test2::V0;\nok(!$INC{'My/Preload.pm'}, 'not preloaded');\ndone_testing;\n",
    );
    let ran = p.run(&["t/no_preload.t", "--no-cache", "--no-history"]);
    assert_eq!(ran.code, 0, "{}", ran.both());
    let yath = Command::new("yath")
        .args(["test", "--no-color", "t/no_preload.t"])
        .current_dir(p.path())
        .env_remove("HARNESS_ACTIVE")
        .output()
        .expect("yath runs");
    assert!(yath.status.success(), "yath agrees");
}

#[test]
fn issue40_yath_jobs_in_yath_rc_run_files_side_by_side() {
    if !require(
        "issue40_yath_jobs_in_yath_rc_run_files_side_by_side",
        &["perl"],
    ) {
        return;
    }
    let p = project();
    let listed = p.run(&["--list"]);
    assert!(
        listed
            .stderr
            .contains("-j1: a yath project (.yath.rc): yath runs files one at a time"),
        "yath's default is one job: {}",
        listed.both()
    );
    let rc = p
        .read_text(".yath.rc")
        .replace("[test]\n", "[test]\n-j 4\n");
    p.write(".yath.rc", rc);
    let listed = p.run(&["--list"]);
    assert!(
        !listed.stderr.contains("one at a time") && !listed.stderr.contains("-j1"),
        "-j 4 in .yath.rc: side by side, as many as tapline's jobs: {}",
        listed.both()
    );
}
