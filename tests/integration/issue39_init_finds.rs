//! Issue 39: what `tapline init` finds in a project, per harness, seen as the user sees it
//! (the file it writes, and that file read back by a run). Moved from `src/run/init.rs`'s unit
//! tests, which name no harness now.
use crate::util::{require, Project};

/// `tapline init` in `p`, and the file it wrote.
fn init(p: &Project) -> String {
    let ran = p.tapline(&["init"]);
    assert_eq!(ran.code, 0, "{}", ran.both());
    p.read_text("tapline.toml")
}

#[test]
fn issue39_init_finds_go_modules_and_pytest_folders() {
    let p = Project::new();
    p.write("go.mod", "module x\n")
        .write("tools/go.mod", "module y\n")
        .write("node_modules/z/go.mod", "module z\n")
        .write("py/pyproject.toml", "[tool.pytest.ini_options]\n")
        .write("py/sub/conftest.py", "")
        .write("other/pyproject.toml", "[project]\nname = \"x\"\n")
        .write("t/a.t", "");
    let text = init(&p);
    // tools/'s module, not the one among the dependencies; the root's is a plain run's own
    // (issue 40).
    assert_eq!(text.matches("format = \"go-json\"").count(), 1, "{text}");
    assert!(
        text.contains("# The go module in the root: a plain run"),
        "{text}"
    );
    assert!(
        text.contains("name = \"go-tools\"\ndir = \"tools\""),
        "{text}"
    );
    // py/sub is py's; other/ has no pytest table.
    assert_eq!(text.matches("format = \"junit\"").count(), 1, "{text}");
    assert!(text.contains("name = \"pytest\"\ndir = \"py\""), "{text}");
    assert!(text.contains("# test_dirs = [\"t\"]"), "{text}");
}

#[test]
fn issue39_what_init_writes_loads() {
    if !require("issue39_what_init_writes_loads", &["go"]) {
        return;
    }
    let p = Project::new();
    p.write("go.mod", "module x\n")
        .write(
            "a/a_test.go",
            "package a\n\nimport \"testing\"\n\nfunc TestA(t *testing.T) {}\n",
        )
        .write("pytest.ini", "[pytest]\n")
        .write("package.json", r#"{"scripts": {"test": "mocha \"a b\""}}"#);
    let text = init(&p);
    assert!(
        text.contains("A plain run follows package.json's test script"),
        "{text}"
    );
    assert!(text.contains("\"mocha \\\"a b\\\"\""), "{text}");
    // Read back by a run (without the script, which would need mocha installed to list):
    // the root's pytest tests run under pytest in a plain run, mocha's through mocha, the go
    // module's packages by themselves (issue 40), so the only suite is go's package.
    std::fs::remove_file(p.join("package.json")).expect("remove");
    let listed = p.run(&["--list"]);
    assert_eq!(listed.code, 0, "{}", listed.both());
    let suites: Vec<&str> = (listed.stdout.lines())
        .filter(|l| l.contains("go test -json"))
        .collect();
    assert_eq!(suites, ["a\tgo test -json ./a"], "{}", listed.both());
}

/// Issue 25: pytest's tests in the folders a plain run walks run under pytest there; a suite
/// is written only for a pytest folder it does not walk.
#[test]
fn issue39_init_writes_no_suite_for_a_walked_pytest_folder() {
    let p = Project::new();
    p.write("pyproject.toml", "[tool.pytest.ini_options]\n")
        .write("tests/test_a.py", "def test_a():\n    pass\n")
        .write("tests/sub/conftest.py", "")
        .write("t/a.t", "");
    let text = init(&p);
    assert!(!text.contains("[[suite]]"), "{text}");
    assert!(text.contains("# A plain run walks tests/, t/"), "{text}");
}

#[test]
fn issue39_init_writes_no_suite_for_a_followed_script() {
    let p = Project::new();
    p.write("package.json", r#"{"scripts": {"test": "tape test/*.js"}}"#);
    let text = init(&p);
    assert!(
        text.contains("follows package.json's test script"),
        "{text}"
    );
    assert!(!text.contains("[[suite]]"), "{text}");
}
