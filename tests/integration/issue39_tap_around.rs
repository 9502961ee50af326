//! #39: node-tap's `before` and `after` programs (`.taprc`, package.json `tap`, the script's
//! `--before`/`--after`) run once around a run's files, as tap's runner runs them: `before`
//! first (a failure fails the run with its reason, and no file runs, as tap then exits),
//! `after` last (a failure fails the run); their output kept in the log folder; neither is a
//! test of its own. `tapline run FILE` runs them too, as `tap FILE` does. Before, neither ran
//! (a tap 16 walk even ran them as tests).
use crate::util::{npm, repo, require, Project};

const BEFORE: &str =
    "console.log('before ran')\nrequire('fs').writeFileSync('before-ran', 'yes')\n";
const AFTER: &str = "console.log('after ran')\nrequire('fs').writeFileSync('after-ran', 'yes')\n";
const FAILING: &str = "console.log('no database here')\nprocess.exit(3)\n";

/// A tap 16 project (tap's `package.json` only) whose test needs what its `before` made.
fn tap16_project(before: &str) -> Project {
    let p = Project::new();
    p.write(
        "package.json",
        r#"{"name":"t","private":true,"scripts":{"test":"tap"},"tap":{"before":"test/before.js","after":"test/after.js"}}"#,
    );
    p.write(
        "node_modules/tap/package.json",
        r#"{"name":"tap","version":"16.3.10"}"#,
    );
    p.write("test/before.js", before);
    p.write("test/after.js", AFTER);
    p.write(
        "test/a.js",
        "const ok = require('fs').existsSync('before-ran')\nconsole.log(`TAP version 13\\n${ok ? 'ok' : 'not ok'} 1 - before ran first\\n1..1`)\n",
    );
    p
}

#[test]
fn issue39_tap_16s_before_and_after_run_once_around_the_files() {
    let test = "issue39_tap_16s_before_and_after_run_once_around_the_files";
    if !require(test, &["node"]) {
        return;
    }
    let p = tap16_project(BEFORE);
    let ran = p.run(&[]);
    let out = ran.both();
    assert_eq!(ran.code, 0, "{out}");
    assert!(out.contains("✓ test/a.js  1 passed"), "{out}");
    assert!(out.contains("1 file ·"), "before/after are no tests: {out}");
    assert!(p.join("after-ran").is_file(), "after ran: {out}");
    let log = String::from_utf8_lossy(&p.read(".nogit/testlogs/around-before.log")).into_owned();
    assert!(log.contains("before ran"), "{log}");
}

#[test]
fn issue39_a_failing_tap_before_fails_the_run_and_runs_no_file() {
    let test = "issue39_a_failing_tap_before_fails_the_run_and_runs_no_file";
    if !require(test, &["node"]) {
        return;
    }
    let p = tap16_project(FAILING);
    let ran = p.run(&["test/a.js"]);
    let out = ran.both();
    assert_eq!(ran.code, 1, "{out}");
    assert!(
        out.contains("tap's before test/before.js failed: exit 3: no database here"),
        "{out}"
    );
    assert!(!out.contains("test/a.js  "), "no file ran: {out}");
    assert!(
        !p.join("after-ran").exists(),
        "nor its after, as tap: {out}"
    );
}

#[test]
fn issue39_tap_21s_before_and_after_run_around_a_named_file() {
    let test = "issue39_tap_21s_before_and_after_run_around_a_named_file";
    let package = r#"{"name":"tapline-tap-fixture","private":true}"#;
    let Some(modules) = npm::installed(test, "tap", package, "tap@21.0.1", "tap/package.json")
    else {
        return;
    };
    let p = npm::copy_of(&repo().join("test-data/suites/tap-basic"), Some(&modules));
    p.write(
        ".taprc",
        "node-arg:\n  - --expose-gc\nbefore: setup/before.cjs\nafter: setup/after.cjs\n",
    );
    p.write("setup/before.cjs", BEFORE);
    p.write("setup/after.cjs", AFTER);
    let ran = p.run(&["test/gc.test.js"]);
    let out = ran.both();
    assert_eq!(ran.code, 0, "{out}");
    assert!(out.contains("✓ test/gc.test.js  1 passed"), "{out}");
    assert!(p.join("before-ran").is_file(), "{out}");
    assert!(p.join("after-ran").is_file(), "{out}");
    p.write("setup/after.cjs", FAILING);
    let ran = p.run(&["test/gc.test.js"]);
    let out = ran.both();
    assert_eq!(ran.code, 1, "a failing after fails the run: {out}");
    assert!(
        out.contains("tap's after setup/after.cjs failed: exit 3"),
        "{out}"
    );
}
