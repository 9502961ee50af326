//! #39 item 3, vitest: a project whose test script runs `vitest` has its files listed by its
//! own vitest and each run alone through it (tapline's driver and reporter), with the
//! script's flags and the project's config; each test a point, a failure at the line vitest
//! maps it to. The fixture is test-data/suites/vitest-basic, installed from npm's registry
//! once (its node_modules is git-ignored); other projects here borrow its node_modules.
use crate::util::{file_doc, npm, Project};
use std::path::PathBuf;

/// test-data/suites/vitest-basic, its vitest installed; `None` when it cannot be (the test
/// then skips, or fails under CI).
fn fixture(test: &str) -> Option<PathBuf> {
    npm::suite(test, "vitest-basic", &["vitest/package.json"])
}

/// A fresh project holding the fixture's files (its node_modules linked, not copied).
fn copy_of(fixture: &std::path::Path) -> Project {
    npm::copy_of(fixture, Some(&fixture.join("node_modules")))
}

fn link_modules(fixture: &std::path::Path, p: &Project) {
    std::os::unix::fs::symlink(fixture.join("node_modules"), p.join("node_modules"))
        .expect("symlink node_modules");
}

#[test]
fn issue39_vitest_a_bare_run_runs_each_file_through_the_projects_vitest() {
    let Some(fixture) =
        fixture("issue39_vitest_a_bare_run_runs_each_file_through_the_projects_vitest")
    else {
        return;
    };
    let p = copy_of(&fixture);
    let ran = p.run(&["--no-history", "--format", "summary"]);
    assert_eq!(ran.code, 1, "{}", ran.both());
    let doc = ran.summary_doc();
    let files: Vec<&str> = doc["files"]
        .as_array()
        .expect("files")
        .iter()
        .filter_map(|f| f["path"].as_str())
        .collect();
    assert_eq!(
        files,
        ["test/math.test.ts", "test/strings.test.ts"],
        "{doc:#}"
    );
    let math = file_doc(&doc, "test/math.test.ts");
    assert_eq!(math["ok"], false);
    assert_eq!(math["tests"]["pass"], 2, "{math:#}");
    assert_eq!(math["tests"]["fail"], 1, "{math:#}");
    let failure = &math["failures"][0];
    assert_eq!(failure["path"][0], "math > range > keeps negative numbers");
    // The TypeScript source's line, through vitest's source maps.
    assert_eq!(
        failure["location"], "test/math.test.ts:18:35",
        "{failure:#}"
    );
    // The values as the test compared them (#41: not vitest's printing of them).
    assert_eq!(failure["expected"][0], serde_json::json!(-2), "{failure:#}");
    // The setup file of vitest.config.ts ran first: the config applies.
    let strings = file_doc(&doc, "test/strings.test.ts");
    assert_eq!(strings["ok"], true, "{strings:#}");
    assert_eq!(strings["tests"]["pass"], 2, "{strings:#}");
    assert_eq!(strings["tests"]["skip"], 1, "{strings:#}");
    // `--list` names the driver, never a TypeScript runner.
    let listed = p.run(&["--list"]);
    assert!(
        listed
            .stdout
            .contains("tapline-vitest.mjs run run -- test/math.test.ts"),
        "{}",
        listed.both()
    );
}

/// vitest takes a file on its command line as a substring filter: `test/a.test.js` alone
/// must not run `test/sub/test/a.test.js` too. A file's stray stdout is output, not TAP. A
/// file that throws while loading fails alone.
#[test]
fn issue39_vitest_a_file_runs_alone_its_stray_stdout_is_output_a_broken_one_fails_alone() {
    let Some(fixture) = fixture(
        "issue39_vitest_a_file_runs_alone_its_stray_stdout_is_output_a_broken_one_fails_alone",
    ) else {
        return;
    };
    let p = Project::new();
    p.write(
        "package.json",
        r#"{"name":"x","type":"module","scripts":{"test":"vitest"}}"#,
    );
    p.write(
        "test/a.test.js",
        "import { test, expect } from 'vitest';\ntest('one', () => expect(1).toBe(1));\n",
    );
    p.write(
        "test/sub/test/a.test.js",
        "import { test, expect } from 'vitest';\ntest('deep', () => expect(1).toBe(2));\n",
    );
    p.write(
        "test/boom.test.js",
        "import { test } from 'vitest';\nthrow new Error('no such thing');\ntest('never', () => {});\n",
    );
    // What a test file's worker prints on stdout is its output, not its TAP (unjs/defu: a
    // file importing node:test makes node print TAP 13 of its own).
    p.write(
        "test/noisy.test.js",
        "import { test, expect } from 'vitest';\nprocess.stdout.write('TAP version 13\\nnot ok 1 - stray\\n1..1\\n');\ntest('quiet', () => expect(1).toBe(1));\n",
    );
    link_modules(&fixture, &p);
    let ran = p.run(&["--no-history", "--format", "summary"]);
    assert_eq!(ran.code, 1, "{}", ran.both());
    let doc = ran.summary_doc();
    let noisy = file_doc(&doc, "test/noisy.test.js");
    assert_eq!(noisy["ok"], true, "{noisy:#}");
    assert_eq!(noisy["tests"]["pass"], 1, "{noisy:#}");
    let a = file_doc(&doc, "test/a.test.js");
    assert_eq!(a["ok"], true, "{a:#}");
    assert_eq!(a["tests"]["pass"], 1, "{a:#}");
    assert_eq!(a["tests"]["fail"], 0, "{a:#}");
    let deep = file_doc(&doc, "test/sub/test/a.test.js");
    assert_eq!(deep["tests"]["fail"], 1, "{deep:#}");
    assert_eq!(
        deep["failures"][0]["location"],
        "test/sub/test/a.test.js:2:30"
    );
    let boom = file_doc(&doc, "test/boom.test.js");
    assert_eq!(boom["ok"], false, "{boom:#}");
    let said = boom["failures"][0]["message"].as_str().unwrap_or("");
    assert!(said.contains("no such thing"), "{boom:#}");
}

/// unjs/defu's script says `pnpm vitest run`: pnpm runs the package's own vitest, so its
/// TypeScript tests run through vitest, not under a TypeScript runner.
#[test]
fn issue39_vitest_a_package_managers_vitest_is_followed() {
    let Some(fixture) = fixture("issue39_vitest_a_package_managers_vitest_is_followed") else {
        return;
    };
    let p = copy_of(&fixture);
    p.write(
        "package.json",
        r#"{"name":"x","type":"module","scripts":{"lint":"true","test":"pnpm lint && pnpm vitest run"}}"#,
    );
    let ran = p.run(&["--list"]);
    assert_eq!(ran.code, 0, "{}", ran.both());
    for file in ["test/math.test.ts", "test/strings.test.ts"] {
        let line = ran
            .stdout
            .lines()
            .find(|l| l.starts_with(file))
            .unwrap_or_else(|| panic!("{file}: {}", ran.both()));
        assert!(line.contains("tapline-vitest.mjs run run --"), "{line}");
    }
}

/// A project whose vitest is not installed: one error naming it, exit 2.
#[test]
fn issue39_vitest_a_missing_vitest_is_one_clear_error() {
    if !crate::util::require(
        "issue39_vitest_a_missing_vitest_is_one_clear_error",
        &["node"],
    ) {
        return;
    }
    let p = Project::new();
    p.write(
        "package.json",
        r#"{"name":"x","scripts":{"test":"vitest run"}}"#,
    );
    p.write(
        "test/a.test.ts",
        "import { test } from 'vitest';\ntest('a', () => {});\n",
    );
    let ran = p.run(&["--no-history"]);
    assert_eq!(ran.code, 2, "{}", ran.both());
    assert!(
        ran.stderr
            .contains("failed to list the test files of `vitest run`: vitest is not installed"),
        "{}",
        ran.both()
    );
}

/// `-t` runs the tests it names through vitest's `--testNamePattern`; the others are not
/// reported (vitest itself would call them skipped).
#[test]
fn issue39_vitest_t_narrows_through_the_name_pattern() {
    let Some(fixture) = fixture("issue39_vitest_t_narrows_through_the_name_pattern") else {
        return;
    };
    let p = copy_of(&fixture);
    let ran = p.run(&["--no-history", "--format", "summary", "-t", "math > adds"]);
    assert_eq!(ran.code, 0, "{}", ran.both());
    let doc = ran.summary_doc();
    let math = file_doc(&doc, "test/math.test.ts");
    assert_eq!(math["tests"]["pass"], 1, "{math:#}");
    assert_eq!(math["tests"]["fail"], 0, "{math:#}");
    assert_eq!(math["tests"]["skip"], 0, "{math:#}");
}

/// A PATH in a vitest project: the files vitest lists run through it, never under the
/// TypeScript runner; a walked TypeScript file vitest does not list is passed over.
#[test]
fn issue39_vitest_a_path_in_a_vitest_project_runs_through_vitest() {
    let Some(fixture) = fixture("issue39_vitest_a_path_in_a_vitest_project_runs_through_vitest")
    else {
        return;
    };
    let p = copy_of(&fixture);
    // Named as a test by tapline's TypeScript naming (`test*.ts`), not by vitest's config.
    p.write("test/testdata.ts", "export const n = 1;\n");
    let listed = p.run(&["--list", "test/"]);
    assert_eq!(listed.code, 0, "{}", listed.both());
    for file in ["test/math.test.ts", "test/strings.test.ts"] {
        let line = listed
            .stdout
            .lines()
            .find(|l| l.starts_with(file))
            .unwrap_or_else(|| panic!("{file}: {}", listed.both()));
        assert!(line.contains("tapline-vitest.mjs run run --"), "{line}");
    }
    assert!(
        !listed.stdout.contains("test/testdata.ts"),
        "{}",
        listed.both()
    );
    let ran = p.run(&["--no-history", "--format", "summary", "test/math.test.ts"]);
    assert_eq!(ran.code, 1, "{}", ran.both());
    let doc = ran.summary_doc();
    assert_eq!(doc["files"].as_array().map(Vec::len), Some(1), "{doc:#}");
    let math = file_doc(&doc, "test/math.test.ts");
    assert_eq!(math["tests"]["pass"], 2, "{math:#}");
    assert_eq!(
        math["failures"][0]["location"], "test/math.test.ts:18:35",
        "{math:#}"
    );
}

/// A file's dependency trace is what vite's module graph says it imported (vitest runs the
/// file in a worker no hook of tapline's sees): a change to `src/strings.ts` affects
/// `test/strings.test.ts` alone, in a warm worker and in a process of its own.
#[test]
fn issue39_vitest_a_files_trace_holds_what_it_imported() {
    let Some(fixture) = fixture("issue39_vitest_a_files_trace_holds_what_it_imported") else {
        return;
    };
    for isolate in [false, true] {
        let p = copy_of(&fixture);
        let first = p.run(if isolate { &["--isolate"] } else { &[] });
        assert_eq!(first.code, 1, "{}", first.both());
        let ran = p.run(&["--format", "summary", "--affected-by", "src/strings.ts"]);
        assert_eq!(ran.code, 0, "isolate {isolate}: {}", ran.both());
        let doc = ran.summary_doc();
        let files: Vec<&str> = doc["files"]
            .as_array()
            .expect("files")
            .iter()
            .filter_map(|f| f["path"].as_str())
            .collect();
        assert_eq!(
            files,
            ["test/strings.test.ts"],
            "isolate {isolate}: {doc:#}"
        );
    }
}
