//! #39 item 3: a bare `tapline run` at a monorepo's root runs each package's tests by its own
//! test script, from its own folder, in one run with one report named from the root
//! (test-data/suites/npm-workspaces, test-data/suites/pnpm-workspace; docs/discovery.md).
use crate::util::{file_doc, npm, repo, require, Project};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// The npm fixture's `node_modules` (tape and mocha, hoisted), installed once with npm.
fn npm_fixture(test: &str) -> Option<PathBuf> {
    let dir = npm::suite(
        test,
        "npm-workspaces",
        &["mocha/package.json", "tape/package.json"],
    )?;
    Some(dir.join("node_modules"))
}

/// A copy of a fixture (its installed packages linked, not copied) as a project of its own.
fn copy_of(fixture: &str, modules: Option<&Path>) -> Project {
    npm::copy_of(&repo().join("test-data/suites").join(fixture), modules)
}

/// Each file's path with its verdict and (pass, fail, skip).
fn verdicts(doc: &Value) -> Vec<(String, bool, [u64; 3])> {
    let mut out: Vec<(String, bool, [u64; 3])> = doc["files"]
        .as_array()
        .expect("files")
        .iter()
        .map(|f| {
            let t = &f["tests"];
            let n = |k: &str| t[k].as_u64().unwrap_or(0);
            (
                f["path"].as_str().unwrap_or_default().to_owned(),
                f["ok"] == true,
                [n("pass"), n("fail"), n("skip")],
            )
        })
        .collect();
    out.sort();
    out
}

fn first_location(doc: &Value, path: &str) -> String {
    file_doc(doc, path)["failures"][0]["location"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

#[test]
fn issue39_a_workspace_root_runs_each_package_by_its_own_script_from_its_folder() {
    let test = "issue39_a_workspace_root_runs_each_package_by_its_own_script_from_its_folder";
    let Some(modules) = npm_fixture(test) else {
        return;
    };
    let p = copy_of("npm-workspaces", Some(&modules));
    let ran = p.run(&["--no-history", "--format", "summary"]);
    assert_eq!(ran.code, 1, "the planted failure: {}", ran.both());
    let doc = ran.summary_doc();
    assert_eq!(
        verdicts(&doc),
        [
            // mocha, through its own script: `--require test/setup.js` from the package's
            // folder defines the global the spec uses.
            ("packages/dates/test/day.spec.js".into(), true, [1, 0, 1]),
            ("packages/math/test/add.js".into(), true, [2, 0, 0]),
            ("packages/math/test/range.js".into(), false, [0, 1, 0]),
            (
                "packages/strings/test/strings.test.js".into(),
                true,
                [2, 0, 0]
            ),
        ],
        "{}",
        ran.both()
    );
    assert_eq!(
        first_location(&doc, "packages/math/test/range.js"),
        "packages/math/test/range.js:5:5"
    );
}

/// mocha's reporter prints its `at` from the package's folder, where the file runs: the report
/// names it from the root, as every other file.
#[test]
fn issue39_a_packages_mocha_failure_is_located_from_the_root() {
    let test = "issue39_a_packages_mocha_failure_is_located_from_the_root";
    let Some(modules) = npm_fixture(test) else {
        return;
    };
    let p = copy_of("npm-workspaces", Some(&modules));
    let spec = p.read_text("packages/dates/test/day.spec.js");
    p.write(
        "packages/dates/test/day.spec.js",
        spec.replace("'2026-11-29'", "'2026-11-30'"),
    );
    let ran = p.run(&["--no-history", "--format", "summary"]);
    assert_eq!(ran.code, 1, "{}", ran.both());
    let doc = ran.summary_doc();
    assert_eq!(
        first_location(&doc, "packages/dates/test/day.spec.js"),
        "packages/dates/test/day.spec.js:5:12",
        "{}",
        ran.both()
    );
}

#[test]
fn issue39_list_names_each_package_followed_and_why_one_is_skipped() {
    let test = "issue39_list_names_each_package_followed_and_why_one_is_skipped";
    let Some(modules) = npm_fixture(test) else {
        return;
    };
    let p = copy_of("npm-workspaces", Some(&modules));
    let ran = p.run(&["--list"]);
    assert_eq!(ran.code, 0, "{}", ran.both());
    let files: Vec<&str> = ran
        .stdout
        .lines()
        .map(|l| l.split('\t').next().unwrap_or_default())
        .collect();
    // The declared order: `packages/strings` first, then `packages/*` sorted.
    assert_eq!(
        files,
        [
            "packages/strings/test/strings.test.js",
            "packages/dates/test/day.spec.js",
            "packages/math/test/add.js",
            "packages/math/test/range.js",
        ],
        "{}",
        ran.both()
    );
    for note in [
        "following package.json workspaces (packages/strings, packages/dates, packages/docs, packages/math)",
        "packages/dates: following package.json scripts.test (`mocha --require test/setup.js 'test/**/*.spec.js'`)",
        "packages/docs: skipped, its package.json has no scripts.test",
    ] {
        assert!(ran.stderr.contains(note), "{note}: {}", ran.both());
    }
}

#[test]
fn issue39_inside_a_package_or_naming_it_from_the_root_runs_that_package() {
    let test = "issue39_inside_a_package_or_naming_it_from_the_root_runs_that_package";
    let Some(modules) = npm_fixture(test) else {
        return;
    };
    let p = copy_of("npm-workspaces", Some(&modules));
    // Named from the root: through mocha as the root's run takes it, not walked under node
    // (where `describe` is not defined).
    let named = p.run(&["--no-history", "--format", "summary", "packages/dates"]);
    assert_eq!(named.code, 0, "{}", named.both());
    assert_eq!(
        verdicts(&named.summary_doc()),
        [("packages/dates/test/day.spec.js".into(), true, [1, 0, 1])],
        "{}",
        named.both()
    );
    // Inside the package: its own script, named from the repository's root.
    let out = p
        .command(&["--no-history", "--format", "summary"])
        .current_dir(p.join("packages/math"))
        .output()
        .expect("tapline runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let doc: Value = serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout}"));
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        verdicts(&doc),
        [
            ("packages/math/test/add.js".into(), true, [2, 0, 0]),
            ("packages/math/test/range.js".into(), false, [0, 1, 0]),
        ]
    );
}

/// A project of node:test packages, nothing to install: the root's own tests, a package, and
/// one whose script names a harness tapline does not follow.
fn unfollowed_project() -> Project {
    let p = Project::new();
    p.write(
        "package.json",
        r#"{"name": "r", "workspaces": ["packages/*"], "scripts": {"test": "node --test test/ && npm test -ws"}}"#,
    );
    p.write(
        "test/root.test.js",
        "require('node:test')('root', () => {});\n",
    );
    p.write(
        "packages/a/package.json",
        r#"{"name": "a", "scripts": {"test": "node --test"}}"#,
    );
    p.write(
        "packages/a/test/a.test.js",
        "require('node:test')('a', () => {});\n",
    );
    p.write(
        "packages/b/package.json",
        r#"{"name": "b", "scripts": {"test": "jasmine --random"}}"#,
    );
    p.write("packages/b/test/b.test.js", "test('b', () => {});\n");
    p
}

#[test]
fn issue39_a_package_naming_a_harness_tapline_does_not_follow_fails_alone() {
    if !require(
        "issue39_a_package_naming_a_harness_tapline_does_not_follow_fails_alone",
        &["node"],
    ) {
        return;
    }
    let p = unfollowed_project();
    let ran = p.run(&["--no-history", "--format", "summary"]);
    // The others ran; the run is not green, and not a usage error either.
    assert_eq!(ran.code, 1, "{}", ran.both());
    let doc = ran.summary_doc();
    assert_eq!(
        verdicts(&doc),
        [
            ("packages/a/test/a.test.js".into(), true, [1, 0, 0]),
            ("packages/b".into(), false, [0, 0, 0]),
            ("test/root.test.js".into(), true, [1, 0, 0]),
        ],
        "{}",
        ran.both()
    );
    let reasons = file_doc(&doc, "packages/b")["reasons"].to_string();
    assert!(
        reasons.contains("runs `jasmine`, which tapline does not follow")
            && reasons.contains(r#"dir = \"packages/b\""#),
        "{reasons}"
    );
    // Its [[suite]], from its folder, runs it instead.
    p.write(
        "tapline.toml",
        "[[suite]]\nname = \"b\"\ndir = \"packages/b\"\ncommand = [\"sh\", \"-c\", \"echo 1..1; echo ok 1 - b\"]\n",
    );
    let ran = p.run(&["--no-history", "--format", "summary"]);
    assert_eq!(ran.code, 0, "{}", ran.both());
    let paths: Vec<String> = verdicts(&ran.summary_doc())
        .into_iter()
        .map(|(p, ..)| p)
        .collect();
    assert_eq!(
        paths,
        ["b", "packages/a/test/a.test.js", "test/root.test.js"],
        "{}",
        ran.both()
    );
}

#[test]
fn issue39_a_pnpm_workspace_runs_its_packages_but_the_excluded_one() {
    if !require(
        "issue39_a_pnpm_workspace_runs_its_packages_but_the_excluded_one",
        &["node"],
    ) {
        return;
    }
    let p = copy_of("pnpm-workspace", None);
    let ran = p.run(&["--no-history", "--format", "summary"]);
    assert_eq!(ran.code, 1, "the planted failure: {}", ran.both());
    let doc = ran.summary_doc();
    assert_eq!(
        verdicts(&doc),
        [
            ("packages/core/test/clamp.test.js".into(), true, [2, 0, 0]),
            ("tools/cli/args.test.js".into(), false, [1, 1, 0]),
        ],
        "{}",
        ran.both()
    );
    // The assertion's line (#41: the stack's first frame in the project, before node's
    // `location:`, the test's call at 9:1).
    assert_eq!(
        first_location(&doc, "tools/cli/args.test.js"),
        "tools/cli/args.test.js:10:10"
    );
}

/// Nothing in the workspace runs a script tapline follows: named, package by package, as a
/// project of one package names its harness (exit 2), not a run of failing entries alone.
#[test]
fn issue39_a_workspace_whose_packages_all_name_unfollowed_harnesses_is_named_exit_2() {
    let p = Project::new();
    p.write(
        "pnpm-workspace.yaml",
        "packages:\n  - 'packages/*'\nonlyBuiltDependencies:\n  - esbuild\n",
    );
    p.write(
        "package.json",
        r#"{"name": "r", "scripts": {"test": "pnpm -r test"}}"#,
    );
    for (name, script) in [("core", "jasmine"), ("ui", "karma start")] {
        p.write(
            &format!("packages/{name}/package.json"),
            format!(r#"{{"name": "{name}", "scripts": {{"test": "{script}"}}}}"#),
        );
        p.write(
            &format!("packages/{name}/test/{name}.test.js"),
            "test('x', () => {});\n",
        );
    }
    let ran = p.run(&["--no-history"]);
    assert_eq!(ran.code, 2, "{}", ran.both());
    for said in [
        "no package of pnpm-workspace.yaml packages (packages/core, packages/ui) runs tests tapline can run",
        "packages/core: not run: package.json scripts.test (`jasmine`) runs `jasmine`",
        "packages/ui: not run: package.json scripts.test (`karma start`) runs `karma`",
    ] {
        assert!(ran.stderr.contains(said), "{said}: {}", ran.both());
    }
    // A root whose own script names one, with no package tested: as in a project of one.
    p.write(
        "package.json",
        r#"{"name": "r", "scripts": {"test": "jasmine --random"}}"#,
    );
    for name in ["core", "ui"] {
        p.write(
            &format!("packages/{name}/package.json"),
            format!(r#"{{"name": "{name}"}}"#),
        );
    }
    let ran = p.run(&["--no-history"]);
    assert_eq!(ran.code, 2, "{}", ran.both());
    assert!(
        ran.stderr
            .contains("package.json scripts.test (`jasmine --random`) runs `jasmine`, which tapline does not follow"),
        "{}",
        ran.both()
    );
}

/// `--tag` reads a package's file from the package's folder, where its path starts.
#[test]
fn issue39_tag_selects_a_packages_files_by_their_tags() {
    let p = Project::new();
    p.write(
        "package.json",
        r#"{"name": "r", "workspaces": ["packages/*"]}"#,
    );
    p.write(
        "packages/a/package.json",
        r#"{"name": "a", "scripts": {"test": "node --test"}}"#,
    );
    p.write(
        "packages/a/test/db.test.js",
        "const tap = { tags: (...t) => ({ test: () => t }) };\ntap.tags('db').test('x', () => {});\n",
    );
    p.write("packages/a/test/unit.test.js", "// no tags\n");
    let ran = p.run(&["--list", "--tag", "db"]);
    assert_eq!(ran.code, 0, "{}", ran.both());
    let files: Vec<&str> = ran
        .stdout
        .lines()
        .map(|l| l.split('\t').next().unwrap_or_default())
        .collect();
    assert_eq!(files, ["packages/a/test/db.test.js"], "{}", ran.both());
}
