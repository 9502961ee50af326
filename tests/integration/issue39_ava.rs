//! #39 item 2, ava: a bare `tapline run` in an ava project (test-data/suites/ava-basic, whose
//! script is a bare `ava`) runs the files ava itself runs, each through the project's own ava,
//! with a point per test and the failure at the test file's line. Before the ava room the run
//! stopped with "runs `ava`, which tapline does not follow" (exit 2).
use crate::util::{file_doc, npm, require, Project};

/// A copy of test-data/suites/ava-basic (its `node_modules` linked, not copied), or `None`
/// (skipped, or failed under CI).
fn project(test: &str) -> Option<Project> {
    let dir = npm::suite(test, "ava-basic", &["ava/package.json"])?;
    Some(npm::copy_of(&dir, Some(&dir.join("node_modules"))))
}

#[test]
fn issue39_ava_a_bare_run_runs_avas_files_through_ava() {
    let Some(p) = project("issue39_ava_a_bare_run_runs_avas_files_through_ava") else {
        return;
    };
    let listed = p.run(&["--list"]);
    assert_eq!(listed.code, 0, "{}", listed.both());
    for file in ["test/math.test.js", "test/strings.test.js"] {
        assert!(listed.stdout.contains(file), "{file}: {}", listed.both());
    }
    // ava's `files` leaves the helper out; lib/ is code under test.
    for not in ["test/helpers/sample.js", "lib/math.js"] {
        assert!(!listed.stdout.contains(not), "{not}: {}", listed.both());
    }

    let ran = p.run(&["--no-history", "--format", "summary"]);
    assert_eq!(ran.code, 1, "ava's exit: a test failed\n{}", ran.both());
    let doc = ran.summary_doc();
    assert_eq!(doc["files"].as_array().map(Vec::len), Some(2), "{doc:#}");
    let math = file_doc(&doc, "test/math.test.js");
    assert_eq!(math["ok"], false, "{math:#}");
    assert_eq!(math["tests"]["pass"], 2, "{math:#}");
    assert_eq!(math["tests"]["fail"], 1, "{math:#}");
    let failure = &math["failures"][0];
    assert_eq!(
        failure["path"][0], "range keeps negative numbers",
        "{failure:#}"
    );
    // The test's line, not ava's own assert.js (ava 6's TAP `at:`).
    assert_eq!(failure["location"], "test/math.test.js:13:4", "{failure:#}");
    let diff = failure["diff"].to_string();
    assert!(
        diff.contains("-2,") && diff.contains("2,"),
        "ava's diff: {failure:#}"
    );
    let strings = file_doc(&doc, "test/strings.test.js");
    assert_eq!(strings["ok"], true, "{strings:#}");
    assert_eq!(strings["tests"]["pass"], 2, "{strings:#}");
    assert_eq!(strings["tests"]["skip"], 1, "{strings:#}");

    let shown = p.run(&["--no-history"]);
    assert_eq!(shown.code, 1, "{}", shown.both());
    assert!(
        shown.stderr.contains("at test/math.test.js:13:4"),
        "{}",
        shown.both()
    );
    assert!(
        !shown.both().contains("node_modules/ava/lib/assert.js"),
        "{}",
        shown.both()
    );
}

#[test]
fn issue39_ava_the_scripts_patterns_and_t_narrow_as_ava_does() {
    let Some(p) = project("issue39_ava_the_scripts_patterns_and_t_narrow_as_ava_does") else {
        return;
    };
    let json = p.read_text("package.json");
    p.write(
        "package.json",
        json.replace(
            "\"test\": \"ava\"",
            "\"test\": \"ava --verbose test/math.test.js\"",
        ),
    );
    let listed = p.run(&["--list"]);
    assert_eq!(listed.code, 0, "{}", listed.both());
    assert!(
        listed.stdout.contains("test/math.test.js"),
        "{}",
        listed.both()
    );
    assert!(
        !listed.stdout.contains("test/strings.test.js"),
        "{}",
        listed.both()
    );

    // -t as ava's --match: only the matching test runs, and it passes.
    let ran = p.run(&["--no-history", "-t", "adds", "--format", "summary"]);
    assert_eq!(ran.code, 0, "{}", ran.both());
    let doc = ran.summary_doc();
    let math = file_doc(&doc, "test/math.test.js");
    assert_eq!(math["tests"]["pass"], 1, "{math:#}");
    assert_eq!(math["tests"]["fail"], 0, "{math:#}");
}

#[test]
fn issue39_ava_not_installed_is_one_clear_error() {
    if !require("issue39_ava_not_installed_is_one_clear_error", &["node"]) {
        return;
    }
    let p = Project::new();
    p.write(
        "package.json",
        "{\"name\":\"x\",\"type\":\"module\",\"scripts\":{\"test\":\"xo && ava\"}}",
    );
    p.write(
        "test/a.test.js",
        "import test from 'ava';\ntest('a', t => t.pass());\n",
    );
    let ran = p.run(&["--no-history"]);
    assert_eq!(ran.code, 2, "{}", ran.both());
    assert!(
        ran.stderr.contains("ava is not installed"),
        "{}",
        ran.both()
    );
    assert!(!ran.stderr.contains("does not follow"), "{}", ran.both());
}

/// On a CI job that is one of several (`CI_NODE_TOTAL`), ava runs only its share of the files
/// it is given: of the one file tapline names, none, green with no test. tapline's
/// `--partition` splits the files; every file named runs.
#[test]
fn issue39_ava_a_ci_jobs_share_does_not_empty_a_file() {
    let Some(p) = project("issue39_ava_a_ci_jobs_share_does_not_empty_a_file") else {
        return;
    };
    let ran = p.run_env(
        &["--no-history", "--format", "summary"],
        &[
            ("CI_NODE_INDEX", "1".as_ref()),
            ("CI_NODE_TOTAL", "2".as_ref()),
        ],
    );
    assert_eq!(ran.code, 1, "{}", ran.both());
    let doc = ran.summary_doc();
    let math = file_doc(&doc, "test/math.test.js");
    assert_eq!(math["tests"]["fail"], 1, "{math:#}");
    let strings = file_doc(&doc, "test/strings.test.js");
    assert_eq!(strings["tests"]["pass"], 2, "{strings:#}");
}

/// An ava that keeps its globs elsewhere than ava 5 and 6 do (`lib/globs.js`): its files are
/// listed by ava's documented defaults and the project's `files` and `extensions`, not refused.
#[test]
fn issue39_ava_an_ava_without_its_globs_module_is_listed_by_its_defaults() {
    if !require(
        "issue39_ava_an_ava_without_its_globs_module_is_listed_by_its_defaults",
        &["node"],
    ) {
        return;
    }
    let p = Project::new();
    p.write(
        "package.json",
        r#"{"name":"x","type":"module","scripts":{"test":"ava"},"ava":{"files":["!test/skip.js"],"extensions":["js","ts"]}}"#,
    );
    p.write(
        "node_modules/ava/package.json",
        r#"{"name":"ava","version":"99.0.0","exports":{".":"./main.js"}}"#,
    );
    p.write("node_modules/ava/main.js", "export default () => {};\n");
    for file in [
        "test/a.js",
        "test/b.ts",
        "test/skip.js",
        "test/_private.js",
        "test/helpers/h.js",
        "test/fixtures/f.js",
        "src/x.spec.js",
        "test-c.js",
        "lib/m.js",
    ] {
        p.write(file, "");
    }
    let listed = p.run(&["--list"]);
    assert_eq!(listed.code, 0, "{}", listed.both());
    for file in ["test/a.js", "test/b.ts", "src/x.spec.js", "test-c.js"] {
        assert!(listed.stdout.contains(file), "{file}: {}", listed.both());
    }
    for not in [
        "test/skip.js",
        "test/_private.js",
        "test/helpers/h.js",
        "test/fixtures/f.js",
        "lib/m.js",
    ] {
        assert!(!listed.stdout.contains(not), "{not}: {}", listed.both());
    }
}

/// One warm worker runs ava's CLI again for each of its files (`-j1`: both files in one): each
/// file gives what it gives alone.
#[test]
fn issue39_ava_one_worker_runs_its_files_one_after_another() {
    let Some(p) = project("issue39_ava_one_worker_runs_its_files_one_after_another") else {
        return;
    };
    let ran = p.run(&["--no-history", "-j1", "--format", "summary"]);
    assert_eq!(ran.code, 1, "{}", ran.both());
    let doc = ran.summary_doc();
    let math = file_doc(&doc, "test/math.test.js");
    assert_eq!(math["tests"]["pass"], 2, "{math:#}");
    assert_eq!(math["tests"]["fail"], 1, "{math:#}");
    assert_eq!(
        math["failures"][0]["location"], "test/math.test.js:13:4",
        "{math:#}"
    );
    let strings = file_doc(&doc, "test/strings.test.js");
    assert_eq!(strings["ok"], true, "{strings:#}");
    assert_eq!(strings["tests"]["pass"], 2, "{strings:#}");
    assert_eq!(strings["tests"]["skip"], 1, "{strings:#}");
}
