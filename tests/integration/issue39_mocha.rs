//! #39: a project whose test script runs mocha has its files listed by mocha's own collector
//! and each run through mocha (tapline's driver and reporter, `src/harness/mocha/`), with the
//! script's flags and `.mocharc.*`: before, a bare run named mocha as not followed (exit 2),
//! and a `[[runner]]` of `mocha FILE` ran every file of the config's `spec` for each file.
use crate::util::{npm, repo, require, Project};
use std::path::PathBuf;

/// `node_modules` holding the fixture's mocha (installed once, [`npm::installed`]).
fn mocha_modules(test: &str) -> Option<PathBuf> {
    let package = r#"{"name":"tapline-mocha-fixture","private":true}"#;
    npm::installed(test, "mocha", package, "mocha@11.7.5", "mocha/package.json")
}

/// `test-data/suites/mocha-basic` (a `.mocharc.yml` with `spec` and `require`, one failing
/// test, one pending) in a project of its own, with mocha installed; `None`: skipped.
fn mocha_basic(test: &str) -> Option<Project> {
    let modules = mocha_modules(test)?;
    Some(npm::copy_of(
        &repo().join("test-data/suites/mocha-basic"),
        Some(&modules),
    ))
}

#[test]
fn issue39_mocha_lists_what_its_config_selects() {
    let Some(p) = mocha_basic("issue39_mocha_lists_what_its_config_selects") else {
        return;
    };
    let listed = p.run(&["--list"]);
    assert_eq!(listed.code, 0, "{}", listed.both());
    let files: Vec<&str> = listed
        .stdout
        .lines()
        .filter_map(|l| l.split('\t').next())
        .collect();
    assert_eq!(
        files,
        ["test/math.spec.js", "test/strings.spec.js"],
        "{}",
        listed.both()
    );
    assert!(
        listed
            .stdout
            .contains("tapline-mocha.cjs run -- test/math.spec.js"),
        "each file runs alone through mocha: {}",
        listed.both()
    );
    assert!(
        listed.stderr.contains("mocha runs files one after another"),
        "{}",
        listed.both()
    );
    // `tapline list` names a test as a run does: one point, its titles joined.
    let tests = p.tapline(&["list", "--format", "json"]);
    assert!(
        tests
            .stdout
            .contains(r#""name":["math > range > keeps negative numbers"]"#),
        "{}",
        tests.both()
    );
}

#[test]
fn issue39_mocha_runs_each_file_through_the_project_config() {
    let Some(p) = mocha_basic("issue39_mocha_runs_each_file_through_the_project_config") else {
        return;
    };
    let ran = p.run(&[]);
    let out = ran.both();
    assert_eq!(ran.code, 1, "{out}");
    // The files need the global `.mocharc.yml`'s `require` sets: under plain node they fail.
    assert!(!out.contains("lib is not defined"), "{out}");
    assert!(
        out.contains("1 of 2 files failed · 1 failed, 4 passed, 1 skipped"),
        "{out}"
    );
    assert!(
        out.contains("test/math.spec.js:17:14 › math > range > keeps negative numbers"),
        "the failure carries mocha's location: {out}"
    );
    assert!(out.contains("deepStrictEqual"), "{out}");
    // Alone, each file in a process of its own, the verdicts are the same.
    let alone = p.run(&["--isolate"]);
    assert_eq!(alone.code, 1, "{}", alone.both());
    assert!(
        alone
            .both()
            .contains("1 of 2 files failed · 1 failed, 4 passed, 1 skipped"),
        "{}",
        alone.both()
    );
}

#[test]
fn issue39_mocha_t_narrows_with_grep() {
    let Some(p) = mocha_basic("issue39_mocha_t_narrows_with_grep") else {
        return;
    };
    let ran = p.run(&["-t", "shouts"]);
    let out = ran.both();
    assert_eq!(ran.code, 0, "{out}");
    assert!(out.contains("1 passed"), "{out}");
    assert!(!out.contains("keeps negative"), "{out}");
}

#[test]
fn issue39_a_mocha_file_that_fails_to_load_fails_alone() {
    let Some(p) = mocha_basic("issue39_a_mocha_file_that_fails_to_load_fails_alone") else {
        return;
    };
    p.write(
        "test/math.spec.js",
        "describe('math', function () {\n  it('adds', () => {});\n",
    );
    let ran = p.run(&[]);
    let out = ran.both();
    assert_eq!(ran.code, 1, "{out}");
    assert!(
        out.contains("SyntaxError"),
        "the file's own error is shown: {out}"
    );
    assert!(
        out.contains("1 of 2 files failed") && out.contains("2 passed, 1 skipped"),
        "the other file still runs: {out}"
    );
}

#[test]
fn issue39_a_parallel_mocha_script_runs_files_side_by_side() {
    let Some(p) = mocha_basic("issue39_a_parallel_mocha_script_runs_files_side_by_side") else {
        return;
    };
    p.write(
        "package.json",
        r#"{"name":"m","private":true,"scripts":{"test":"mocha --parallel"}}"#,
    );
    let listed = p.run(&["--list"]);
    assert_eq!(listed.code, 0, "{}", listed.both());
    assert!(
        !listed.stderr.contains("one after another"),
        "{}",
        listed.both()
    );
}

#[test]
fn issue39_mocha_missing_from_the_project_is_one_clear_error() {
    if !require(
        "issue39_mocha_missing_from_the_project_is_one_clear_error",
        &["node"],
    ) {
        return;
    }
    let p = Project::new();
    p.write(
        "package.json",
        r#"{"name":"m","private":true,"scripts":{"test":"mocha"}}"#,
    );
    p.write("test/a.spec.js", "it('a', () => {});\n");
    let ran = p.run(&[]);
    assert_eq!(ran.code, 2, "{}", ran.both());
    assert!(
        ran.stderr
            .contains("failed to list the test files of `mocha`: mocha is not installed in"),
        "{}",
        ran.both()
    );
}

/// As in mocha's own serial run, every file is loaded before any test runs: a root-level
/// hook one file defines applies to every file's tests, and work a module starts at load has
/// had the other files' loading to finish (expressjs/express's auth example hashes a password
/// at load; run right after its own load, its login test failed one run in five).
#[test]
fn issue39_mocha_loads_every_file_before_the_first_test_as_mocha_does() {
    let test = "issue39_mocha_loads_every_file_before_the_first_test_as_mocha_does";
    let Some(modules) = mocha_modules(test) else {
        return;
    };
    let p = Project::new();
    std::os::unix::fs::symlink(&modules, p.join("node_modules")).expect("symlink node_modules");
    p.write(
        "package.json",
        r#"{"name":"m","private":true,"scripts":{"test":"mocha"}}"#,
    );
    p.write(
        "test/z.js",
        "beforeEach(function () { global.hits = (global.hits || 0) + 1; });\n\
         it('z', function () {});\n",
    );
    p.write(
        "test/b.js",
        "const assert = require('assert');\n\
         it('sees the root hook of z.js', function () { assert.ok(global.hits > 0); });\n",
    );
    let ran = p.run(&["--no-history"]);
    assert_eq!(ran.code, 0, "{}", ran.both());
    assert!(ran.both().contains("2 files · 2 passed"), "{}", ran.both());
}

/// A file or a folder named on the command line in a mocha project runs through mocha too,
/// never under plain node (where `describe` is not defined).
#[test]
fn issue39_a_named_mocha_file_or_folder_runs_through_mocha() {
    let test = "issue39_a_named_mocha_file_or_folder_runs_through_mocha";
    let Some(p) = mocha_basic(test) else {
        return;
    };
    let one = p.run(&["--no-history", "test/strings.spec.js"]);
    assert_eq!(one.code, 0, "{}", one.both());
    assert!(
        one.both().contains("1 file · 2 passed, 1 skipped"),
        "{}",
        one.both()
    );
    let folder = p.run(&["--no-history", "test"]);
    assert_eq!(folder.code, 1, "{}", folder.both());
    assert!(
        folder
            .both()
            .contains("1 of 2 files failed · 1 failed, 4 passed, 1 skipped"),
        "mocha's files of the folder, not its setup module: {}",
        folder.both()
    );
}

/// A listing that fails (mocha not installed) stops a run only where nothing else says how the
/// files run: with a `[[runner]]` of the user's, a bare run and a run naming a file both run
/// by that rule.
#[test]
fn issue39_a_users_runner_runs_a_mocha_projects_files_when_mocha_cannot_list_them() {
    let p = Project::new();
    p.write(
        "package.json",
        r#"{"name":"m","private":true,"scripts":{"test":"mocha"}}"#,
    );
    p.write("test/a.spec.js", "it('a', () => {});\n");
    p.script(
        "fake-mocha",
        "#!/bin/sh\necho '1..1'\necho \"ok 1 - ran $1\"\n",
    );
    p.write(
        "tapline.toml",
        "[[runner]]\nglob = \"test/**/*.js\"\ncommand = \"sh fake-mocha {}\"\n",
    );
    for args in [&["--no-history"][..], &["--no-history", "test/a.spec.js"]] {
        let ran = p.run(args);
        assert_eq!(ran.code, 0, "{args:?}: {}", ran.both());
        assert!(
            ran.both().contains("1 file · 1 passed"),
            "{args:?}: {}",
            ran.both()
        );
    }
}
