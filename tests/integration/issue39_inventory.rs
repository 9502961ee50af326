//! Issue 39: the inventory's per-language knowledge lives in the harness rooms (each
//! language's static scan, pytest's and go's own listings); `tapline list` names the tests
//! as a run does, and asks a harness for its listing only where it may name more.
use crate::util::{require, Project};
use serde_json::Value;

/// The IDs `tapline list ARGS --format json` lists, in its order.
fn listed(p: &Project, args: &[&str]) -> Vec<String> {
    let mut all = vec!["list", "--format", "json"];
    all.extend(args);
    let ran = p.tapline(&all);
    assert_eq!(ran.code, 0, "{}", ran.both());
    (ran.stdout.lines())
        .map(|l| serde_json::from_str::<Value>(l).expect("each line is JSON"))
        .map(|e| e["id"].as_str().expect("an id").to_owned())
        .collect()
}

/// A Python file run under pytest is scanned as pytest's plugin names its tests: a method of
/// a test class by its node ID after the file (`Class::test`), not as two levels.
#[test]
fn issue39_a_native_pytest_files_static_scan_names_a_class_test_by_its_node_id() {
    if !require(
        "issue39_a_native_pytest_files_static_scan_names_a_class_test_by_its_node_id",
        &["pytest"],
    ) {
        return;
    }
    let p = Project::new();
    p.write(
        "tests/test_calc.py",
        "def test_adds():\n    pass\n\nclass TestWords:\n    def test_upper(self):\n        pass\n",
    );
    assert_eq!(
        listed(&p, &["--source", "static"]),
        [
            "tests/test_calc.py > test_adds",
            "tests/test_calc.py > TestWords::test_upper"
        ]
    );
}

/// go's listing names no more than its static scan's top-level tests (and examples) and builds
/// every package to say it: `auto` does not ask it for a suite that never ran, while
/// `--source runtime` does.
#[test]
fn issue39_auto_lists_a_go_suite_that_never_ran_by_its_static_scan_only() {
    if !require(
        "issue39_auto_lists_a_go_suite_that_never_ran_by_its_static_scan_only",
        &["go"],
    ) {
        return;
    }
    let p = Project::new();
    p.write(
        "tapline.toml",
        "[[suite]]\nname = \"go\"\ndir = \"go\"\ncommand = [\"go\", \"test\", \"-json\", \"./...\"]\nformat = \"go-json\"\n",
    );
    p.write("go/go.mod", "module example.com/calc\n\ngo 1.18\n");
    p.write(
        "go/calc/calc_test.go",
        "package calc\n\nimport (\n\t\"fmt\"\n\t\"testing\"\n)\n\n\
         func TestAdd(t *testing.T) {}\n\n\
         func ExampleAdd() {\n\tfmt.Println(3)\n\t// Output: 3\n}\n",
    );
    assert_eq!(listed(&p, &[]), ["go > example.com/calc/calc > TestAdd"]);
    assert_eq!(
        listed(&p, &["--source", "runtime"]),
        [
            "go > example.com/calc/calc > TestAdd",
            "go > example.com/calc/calc > ExampleAdd"
        ]
    );
}
