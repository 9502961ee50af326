//! Issue 25: a project whose tests are pytest's runs under pytest with a plain `tapline run`,
//! one pytest per file, each test a point with its own explanation, through tapline's own
//! plugin (the project installs nothing).
use crate::util::{file_doc, require, Project};
use serde_json::{json, Value};

/// A project of pytest's: passing, failing, skipped and xfail tests, a unittest class, a
/// module that fails to import and one with no tests.
fn project() -> Project {
    let p = Project::new();
    p.write(
        "tests/test_values.py",
        "import pytest\n\n\
         def helper():\n    return 5\n\n\
         def test_adds():\n    assert 1 + 1 == 2\n\n\
         def test_lists():\n    x = [1, 2, 3]\n    assert x == [1, 2, 4]\n\n\
         def test_where():\n    assert helper() == 6\n\n\
         @pytest.mark.skip(reason=\"not today\")\ndef test_skipped():\n    pass\n\n\
         @pytest.mark.xfail(reason=\"known bug\")\ndef test_xfail():\n    assert False\n\n\
         def test_raises():\n    print(\"said before\")\n    raise ValueError(\"bad # value\")\n",
    );
    p.write(
        "tests/test_unit.py",
        "import unittest\n\n\
         class Lists(unittest.TestCase):\n\
         \x20   def test_equal(self):\n        self.assertEqual([1, 2, 3], [1, 2, 4])\n\n\
         \x20   def test_true(self):\n        self.assertTrue(True)\n\n\
         \x20   @unittest.skip(\"later\")\n    def test_skip(self):\n        pass\n",
    );
    p.write(
        "tests/test_broken.py",
        "import pytest\nimport no_such_module\n\ndef test_never():\n    pass\n",
    );
    p.write("tests/test_none.py", "import pytest\n");
    p.write(
        "tests/test_cases.py",
        "import pytest\n\n\
         @pytest.fixture\ndef broken():\n    raise RuntimeError(\"fixture broke\")\n\n\
         def test_setup(broken):\n    pass\n\n\
         def test_dicts():\n    assert {\"a\": 1, \"b\": None} == {\"a\": 2, \"b\": None}\n",
    );
    p
}

fn failure<'a>(file: &'a Value, name: &str) -> &'a Value {
    file["failures"]
        .as_array()
        .expect("failures")
        .iter()
        .find(|f| f["path"] == json!([name]))
        .unwrap_or_else(|| panic!("no failure {name} in {file:#}"))
}

#[test]
fn issue25_pytest_runs_natively_each_test_a_point() {
    if !require(
        "issue25_pytest_runs_natively_each_test_a_point",
        &["pytest"],
    ) {
        return;
    }
    let p = project();
    let listed = p.run(&["--list"]);
    assert!(
        listed
            .stdout
            .contains("tests/test_values.py\tpytest -p tapline_pytest tests/test_values.py")
            || listed
                .stdout
                .contains("-m pytest -p tapline_pytest tests/test_values.py"),
        "{}",
        listed.both()
    );
    let ran = p.run(&["--format", "summary", "-j2"]);
    assert_eq!(ran.code, 1, "{}", ran.both());
    let doc = ran.summary_doc();

    let values = file_doc(&doc, "tests/test_values.py");
    let s = &values["summary"];
    assert_eq!(
        (&s["count"], &s["pass"], &s["fail"], &s["skip"], &s["todo"]),
        // As tap-parser counts: a skip passes, a TODO (xfail) fails.
        (&json!(6), &json!(2), &json!(4), &json!(1), &json!(1)),
        "{values:#}"
    );
    let lists = failure(values, "test_lists");
    assert_eq!(lists["location"], "tests/test_values.py:11");
    assert_eq!(lists["message"], "assert [1, 2, 3] == [1, 2, 4]");
    assert_eq!(
        (&lists["expected"], &lists["actual"]),
        (&json!([1, 2, 4]), &json!([1, 2, 3]))
    );
    let r#where = failure(values, "test_where");
    assert_eq!(r#where["message"], "assert 5 == 6\n +  where 5 = helper()");
    assert_eq!(
        (&r#where["expected"], &r#where["actual"]),
        (&json!(6), &json!(5))
    );
    let raises = failure(values, "test_raises");
    assert_eq!(raises["location"], "tests/test_values.py:26");
    assert_eq!(raises["message"], "ValueError: bad # value");
    assert!(
        raises["stack"]
            .as_str()
            .is_some_and(|s| s.contains("raise ValueError(\"bad # value\")")),
        "{raises:#}"
    );

    let unit = file_doc(&doc, "tests/test_unit.py");
    let s = &unit["summary"];
    assert_eq!(
        (&s["count"], &s["pass"], &s["fail"], &s["skip"]),
        (&json!(3), &json!(2), &json!(1), &json!(1)),
        "{unit:#}"
    );
    let equal = failure(unit, "Lists::test_equal");
    assert_eq!(equal["location"], "tests/test_unit.py:5");
    assert_eq!(
        (&equal["expected"], &equal["actual"]),
        (&json!([1, 2, 4]), &json!([1, 2, 3]))
    );

    let cases = file_doc(&doc, "tests/test_cases.py");
    assert_eq!(
        failure(cases, "test_setup")["message"],
        "error at setup: RuntimeError: fixture broke"
    );
    let dicts = failure(cases, "test_dicts");
    // pytest's multi-line explanation gives way to the values, read from their reprs.
    assert_eq!(
        dicts["message"],
        "assert {'a': 1, 'b': None} == {'a': 2, 'b': None}"
    );
    assert_eq!(dicts["expected"]["a"], 2, "{dicts:#}");
    assert_eq!(dicts["actual"]["a"], 1, "{dicts:#}");

    let broken = file_doc(&doc, "tests/test_broken.py");
    let collecting = failure(broken, "collecting tests/test_broken.py");
    assert_eq!(
        collecting["message"],
        "ModuleNotFoundError: No module named 'no_such_module'"
    );

    let none = file_doc(&doc, "tests/test_none.py");
    assert_eq!(none["ok"], true, "{none:#}");
    assert_eq!(
        none["summary"]["plan"]["reason"],
        "SKIP pytest collected no tests in this file"
    );
}

/// The human report shows a failure as pytest's words, the place and the diff of the values.
#[test]
fn issue25_a_pytest_failure_reads_as_any_other() {
    if !require("issue25_a_pytest_failure_reads_as_any_other", &["pytest"]) {
        return;
    }
    let p = project();
    let ran = p.run(&["tests/test_values.py"]);
    assert_eq!(ran.code, 1, "{}", ran.both());
    for part in [
        "✗ test_lists",
        "at tests/test_values.py:11",
        "assert [1, 2, 3] == [1, 2, 4]",
        "-   4,\n",
        "+   3,\n",
        "# said before",
    ] {
        assert!(ran.stderr.contains(part), "{part:?} in {}", ran.stderr);
    }
}

/// Without pytest, a run of pytest's files is one error saying how to get it (issue 40: not
/// one failure per file).
#[test]
fn issue25_without_pytest_a_file_says_how_to_get_it() {
    let p = project();
    let empty = tempfile::TempDir::new().expect("temp dir");
    let out = p
        .command(&["tests/test_none.py"])
        .env("PATH", empty.path())
        .output()
        .expect("tapline runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("failed to run pytest's files: the interpreter `python3` is not installed, nor is pytest: install it in the project's venv"),
        "{stderr}"
    );
}

/// Under `--sandbox` the temp folder is the sandbox's own: the plugin is bound into it.
#[test]
fn issue25_pytest_runs_in_the_sandbox() {
    if !require("issue25_pytest_runs_in_the_sandbox", &["pytest", "bwrap"]) {
        return;
    }
    let p = project();
    let ran = p.run(&["--sandbox", "--format", "summary", "tests/test_unit.py"]);
    assert_eq!(ran.code, 1, "{}", ran.both());
    let doc = ran.summary_doc();
    let unit = file_doc(&doc, "tests/test_unit.py");
    assert_eq!(unit["summary"]["count"], 3, "{unit:#}");
}

/// A pytest file is traced like any python file: a change to a module it imports selects it.
#[test]
fn issue25_a_pytest_file_has_a_trace() {
    if !require("issue25_a_pytest_file_has_a_trace", &["pytest"]) {
        return;
    }
    let p = Project::new();
    p.write("pytest.ini", "[pytest]\npythonpath = .\n");
    p.write("shop.py", "def total(*xs):\n    return sum(xs)\n");
    p.write(
        "tests/test_shop.py",
        "import shop\n\ndef test_total():\n    assert shop.total(1, 2) == 3\n",
    );
    p.write("tests/test_other.py", "def test_other():\n    pass\n");
    let first = p.run(&[]);
    assert_eq!(first.code, 0, "{}", first.both());
    let affected = p.run(&["--affected-by", "shop.py"]);
    assert_eq!(affected.code, 0, "{}", affected.both());
    assert!(
        affected
            .stderr
            .contains("tests/test_shop.py  loaded shop.py"),
        "{}",
        affected.both()
    );
    assert!(
        affected.stderr.contains("1 of 2 test files affected"),
        "{}",
        affected.both()
    );
}
