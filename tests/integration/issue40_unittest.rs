//! Issue 40, item 2: a project with no pytest configuration, whose tests are unittest's and
//! whose interpreter has no pytest, runs under unittest's own loader through tapline's TAP
//! result class (`load_tests` honoured), with the project's virtualenv's Python.
use crate::util::{copy_dir, file_doc, repo, require, Project};
use serde_json::{json, Value};

/// The fixture (test-data/suites/unittest-basic) with a virtualenv of its own that has no
/// pytest (`--without-pip`: nothing installed in it, system packages not seen).
fn project() -> Project {
    let p = Project::new();
    copy_dir(&repo().join("test-data/suites/unittest-basic"), p.path());
    let venv = std::process::Command::new("python3")
        .args(["-m", "venv", "--without-pip", ".venv"])
        .current_dir(p.path())
        .output()
        .expect("python3 runs");
    assert!(venv.status.success(), "venv: {venv:?}");
    p
}

/// `Ran N tests` of `python -m unittest discover` in the project, with its venv's Python.
fn unittest_ran(p: &Project) -> u64 {
    let out = std::process::Command::new(p.join(".venv/bin/python"))
        .args(["-m", "unittest", "discover"])
        .current_dir(p.path())
        .output()
        .expect("unittest runs");
    let said = String::from_utf8_lossy(&out.stderr);
    let count = said.lines().find_map(|l| {
        l.strip_prefix("Ran ")?
            .split_whitespace()
            .next()?
            .parse()
            .ok()
    });
    count.unwrap_or_else(|| panic!("no `Ran N tests` in {said}"))
}

fn tests(file: &Value) -> Value {
    file["tests"].clone()
}

#[test]
fn issue40_unittest_project_runs_under_unittest_with_load_tests() {
    if !require(
        "issue40_unittest_project_runs_under_unittest_with_load_tests",
        &["python3"],
    ) {
        return;
    }
    let p = project();
    let listed = p.run(&["--list"]);
    assert!(
        listed
            .stdout
            .contains(".venv/bin/python -m tapline_unittest tests/test_calc.py"),
        "{}",
        listed.both()
    );
    let ran = p.run(&["--format", "summary", "-j2"]);
    assert_eq!(ran.code, 1, "{}", ran.both());
    let doc = ran.summary_doc();

    let calc = file_doc(&doc, "tests/test_calc.py");
    assert_eq!(
        tests(calc),
        json!({"pass": 1, "fail": 1, "skip": 1, "todo": 1}),
        "{calc:#}"
    );
    let failure = &calc["failures"][0];
    assert_eq!(failure["path"], json!(["TestAdd.test_sum_of_three"]));
    assert_eq!(failure["location"], "tests/test_calc.py:13");
    assert_eq!(failure["message"], "AssertionError: 6 != 7");
    assert_eq!(
        (&failure["expected"], &failure["actual"]),
        (&json!(7), &json!(6))
    );
    let asserts = calc["summary"]["asserts"].as_array().expect("asserts");
    let named = |name: &str| asserts.iter().find(|a| a["name"] == name).cloned();
    let skipped = named("TestAdd.test_skipped").expect("the skip");
    assert_eq!(skipped["skip"], "not on this platform");
    let todo = named("TestAdd.test_known_bug").expect("the expected failure");
    assert!(
        todo["todo"]
            .as_str()
            .is_some_and(|t| t.starts_with("expected failure")),
        "{todo:#}"
    );

    // `load_tests` says what the module runs: TestMore, not the TestAdd it imports as well.
    let reuse = file_doc(&doc, "tests/test_reuse.py");
    assert_eq!(
        tests(reuse),
        json!({"pass": 2, "fail": 1, "skip": 1, "todo": 1}),
        "{reuse:#}"
    );
    let words = file_doc(&doc, "tests/test_words.py");
    assert_eq!(words["ok"], true, "{words:#}");

    // The same tests as unittest's own discovery runs.
    let files = doc["files"].as_array().expect("files");
    let points: u64 = files
        .iter()
        .flat_map(|f| f["tests"].as_object().into_iter().flatten())
        .filter_map(|(_, n)| n.as_u64())
        .sum();
    assert_eq!(points, unittest_ran(&p), "{doc:#}");
}

#[test]
fn issue40_unittest_fixed_project_passes() {
    if !require("issue40_unittest_fixed_project_passes", &["python3"]) {
        return;
    }
    let p = project();
    let calc = p.read_text("tests/test_calc.py");
    p.write(
        "tests/test_calc.py",
        calc.replace("add(add(1, 2), 3), 7)", "add(add(1, 2), 3), 6)"),
    );
    let ran = p.run(&["--format", "summary"]);
    assert_eq!(ran.code, 0, "{}", ran.both());
    let doc = ran.summary_doc();
    assert_eq!(
        tests(file_doc(&doc, "tests/test_reuse.py")),
        json!({"pass": 3, "fail": 0, "skip": 1, "todo": 1})
    );
}

#[test]
fn issue40_unittest_a_file_of_pytest_keeps_the_project_on_pytest() {
    if !require(
        "issue40_unittest_a_file_of_pytest_keeps_the_project_on_pytest",
        &["python3"],
    ) {
        return;
    }
    let p = project();
    p.write(
        "tests/test_plain.py",
        "import pytest\n\ndef test_x():\n    pass\n",
    );
    let listed = p.run(&["--list"]);
    assert!(
        !listed.stdout.contains("tapline_unittest"),
        "{}",
        listed.both()
    );
}

#[test]
fn issue40_unittest_list_names_tests_as_the_run_does() {
    if !require(
        "issue40_unittest_list_names_tests_as_the_run_does",
        &["python3"],
    ) {
        return;
    }
    let p = project();
    let listed = p.tapline(&["list"]);
    assert!(
        listed
            .stdout
            .contains("tests/test_calc.py > TestAdd.test_adds  (tests/test_calc.py:9)"),
        "{}",
        listed.both()
    );
    p.run(&[]);
    let after = p.tapline(&["list"]);
    assert!(
        !after.stdout.contains("TestAdd > test_adds"),
        "a test listed twice: {}",
        after.both()
    );
}
