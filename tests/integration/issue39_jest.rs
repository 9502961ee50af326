//! #39: a project whose test script runs `jest` has its files listed by its own jest
//! (`--listTests`, with the script's flags and `jest.config.js`) and each run alone through it,
//! printing TAP through tapline's reporter: files, counts, per-file verdicts, the exit code and
//! the failure's place as jest itself reports them (test-data/suites/jest-basic's README).
use crate::util::{file_doc, npm, require, Project};
use serde_json::Value;

/// A copy of test-data/suites/jest-basic with its installed `node_modules`, or `None`
/// (skipped, or failed under CI).
fn jest_basic(test: &str) -> Option<Project> {
    let dir = npm::suite(test, "jest-basic", &["jest/package.json"])?;
    Some(npm::copy_of(&dir, Some(&dir.join("node_modules"))))
}

fn paths(doc: &Value) -> Vec<String> {
    let mut all: Vec<String> = doc["files"]
        .as_array()
        .expect("files")
        .iter()
        .map(|f| f["path"].as_str().unwrap_or_default().to_owned())
        .collect();
    all.sort();
    all
}

fn counts(file: &Value) -> [u64; 3] {
    let t = &file["tests"];
    ["pass", "fail", "skip"].map(|k| t[k].as_u64().unwrap_or(u64::MAX))
}

/// What jest reports for jest-basic, read from a run's summary.
fn assert_as_jest_reports(ran: &crate::util::Ran) {
    assert_eq!(ran.code, 1, "{}", ran.both());
    let doc = ran.summary_doc();
    // The config's testMatch: the setup file is no test file.
    assert_eq!(
        paths(&doc),
        ["test/math.spec.js", "test/strings.spec.js"],
        "{}",
        ran.both()
    );
    let math = file_doc(&doc, "test/math.spec.js");
    assert_eq!(math["ok"], false, "{math:#}");
    assert_eq!(counts(math), [2, 1, 0], "{math:#}");
    let failure = &math["failures"][0];
    assert_eq!(
        failure["path"][0], "math > range > keeps negative numbers",
        "{failure:#}"
    );
    assert_eq!(
        failure["location"], "test/math.spec.js:15:28",
        "{failure:#}"
    );
    // The values as the test compared them, arrays of numbers (#41: not their printing).
    assert_eq!(
        failure["actual"],
        serde_json::json!([2, 1, 0]),
        "{failure:#}"
    );
    assert_eq!(
        failure["expected"],
        serde_json::json!([-2, -1, 0]),
        "{failure:#}"
    );
    // The setup file's matcher came with the project's configuration.
    let strings = file_doc(&doc, "test/strings.spec.js");
    assert_eq!(strings["ok"], true, "{strings:#}");
    assert_eq!(counts(strings), [2, 0, 1], "{strings:#}");
}

#[test]
fn issue39_a_jest_project_runs_through_its_own_jest() {
    let Some(p) = jest_basic("issue39_a_jest_project_runs_through_its_own_jest") else {
        return;
    };
    // In a warm worker (the default), and each file in a process of its own.
    assert_as_jest_reports(&p.run(&["--format", "summary"]));
    assert_as_jest_reports(&p.run(&["--format", "summary", "--isolate"]));
    let listed = p.run(&["--list"]);
    assert!(
        listed
            .stderr
            .contains("following package.json scripts.test (`jest`)"),
        "{}",
        listed.both()
    );
}

#[test]
fn issue39_a_jest_scripts_flags_select_its_files() {
    let Some(p) = jest_basic("issue39_a_jest_scripts_flags_select_its_files") else {
        return;
    };
    // A path pattern, as jest reads it: a regular expression on the files' paths.
    p.write(
        "package.json",
        r#"{"name":"x","private":true,"scripts":{"test":"jest --ci strings"}}"#,
    );
    let ran = p.run(&["--format", "summary"]);
    assert_eq!(ran.code, 0, "{}", ran.both());
    assert_eq!(paths(&ran.summary_doc()), ["test/strings.spec.js"]);
}

#[test]
fn issue39_a_jest_file_that_does_not_load_fails_alone() {
    let Some(p) = jest_basic("issue39_a_jest_file_that_does_not_load_fails_alone") else {
        return;
    };
    p.write("test/broken.spec.js", "describe('broken', () => {\n");
    p.write(
        "test/logs.spec.js",
        "test('logs', () => { console.log('hello\\nok 9 - no'); });\n",
    );
    let ran = p.run(&["--format", "summary"]);
    assert_eq!(ran.code, 1, "{}", ran.both());
    let doc = ran.summary_doc();
    let broken = file_doc(&doc, "test/broken.spec.js");
    assert_eq!(broken["ok"], false, "{broken:#}");
    assert_eq!(
        broken["failures"][0]["path"][0], "test/broken.spec.js (outside any test)",
        "{broken:#}"
    );
    // A test's console output is a comment, never a point of its own.
    let logs = file_doc(&doc, "test/logs.spec.js");
    assert_eq!(logs["ok"], true, "{logs:#}");
    assert_eq!(counts(logs), [1, 0, 0], "{logs:#}");
    assert_eq!(counts(file_doc(&doc, "test/strings.spec.js")), [2, 0, 1]);
}

#[test]
fn issue39_tapline_t_narrows_a_jest_file_with_its_name_pattern() {
    let Some(p) = jest_basic("issue39_tapline_t_narrows_a_jest_file_with_its_name_pattern") else {
        return;
    };
    let ran = p.run(&["--format", "summary", "-t", "range > counts up"]);
    assert_eq!(ran.code, 0, "{}", ran.both());
    let doc = ran.summary_doc();
    let math = file_doc(&doc, "test/math.spec.js");
    assert_eq!(math["ok"], true, "{math:#}");
    assert_eq!(math["tests"]["fail"], 0, "{math:#}");
}

#[test]
fn issue39_a_jest_project_without_jest_installed_is_one_clear_error() {
    if !require(
        "issue39_a_jest_project_without_jest_installed_is_one_clear_error",
        &["node"],
    ) {
        return;
    }
    let p = Project::new();
    p.write(
        "package.json",
        r#"{"name":"x","private":true,"scripts":{"test":"jest"}}"#,
    )
    .write("test/a.spec.js", "test('a', () => {});\n");
    let ran = p.run(&[]);
    assert_eq!(ran.code, 2, "{}", ran.both());
    assert!(
        ran.stderr.contains("jest is not installed in"),
        "{}",
        ran.both()
    );
    assert!(
        !ran.stderr.contains("test is not defined"),
        "{}",
        ran.both()
    );
}

#[test]
fn issue39_a_jest_file_two_projects_run_has_each_test_once_per_project() {
    let Some(p) = jest_basic("issue39_a_jest_file_two_projects_run_has_each_test_once_per_project")
    else {
        return;
    };
    p.write(
        "jest.config.js",
        "module.exports = { projects: [\n\
         { displayName: 'alpha', testMatch: ['<rootDir>/test/strings.spec.js'], \
         setupFilesAfterEnv: ['<rootDir>/test/setup.js'] },\n\
         { displayName: 'beta', testMatch: ['<rootDir>/test/*.spec.js'], \
         setupFilesAfterEnv: ['<rootDir>/test/setup.js'] },\n] };\n",
    );
    let ran = p.run(&["--format", "summary"]);
    assert_eq!(ran.code, 1, "{}", ran.both());
    let doc = ran.summary_doc();
    let strings = file_doc(&doc, "test/strings.spec.js");
    // Run by both projects: each of its 3 tests once per project, named by it.
    assert_eq!(counts(strings), [4, 0, 2], "{strings:#}");
    let names: Vec<&str> = strings["summary"]["asserts"]
        .as_array()
        .expect("asserts")
        .iter()
        .filter_map(|a| a["name"].as_str())
        .collect();
    assert!(names.contains(&"[alpha] strings > shouts"), "{names:?}");
    assert!(names.contains(&"[beta] strings > shouts"), "{names:?}");
    assert_eq!(counts(file_doc(&doc, "test/math.spec.js")), [2, 1, 0]);
}

#[test]
fn issue39_a_jest_script_jest_refuses_is_one_clear_error() {
    let Some(p) = jest_basic("issue39_a_jest_script_jest_refuses_is_one_clear_error") else {
        return;
    };
    p.write(
        "package.json",
        r#"{"name":"x","private":true,"scripts":{"test":"jest --nosuchflag"}}"#,
    );
    let ran = p.run(&[]);
    assert_eq!(ran.code, 2, "{}", ran.both());
    // jest's own words, on the one line tapline shows.
    let first = ran.stderr.lines().next().unwrap_or_default();
    assert!(
        first.contains("failed to list the test files of `jest --nosuchflag`")
            && first.contains("Unrecognized option \"nosuchflag\""),
        "{}",
        ran.both()
    );
}
