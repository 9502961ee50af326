//! Issue 40, go: a bare `tapline run` in a go module tests the packages `go list ./...` gives
//! (as `go test ./...` selects them: no `_examples` module, no `testdata`), each package an
//! entry with its own verdict, each test a point; a PATH naming a package's folder runs that
//! package; `tapline init` writes no suite a bare run does not need. Fixture:
//! test-data/suites/go-module (calc passes its 3 tests, strs fails 1 of 2).
use crate::util::{copy_dir, file_doc, repo, require, Project};
use serde_json::Value;

/// A copy of the fixture, a project of its own.
fn module() -> Project {
    let p = Project::new();
    copy_dir(&repo().join("test-data/suites/go-module"), p.path());
    p
}

/// `tapline run ARGS --format summary` in `p`, offline: (exit, the report, the summary).
fn run(p: &Project, args: &[&str]) -> (Option<i32>, String, Value) {
    run_with(p, args, "-mod=mod")
}

/// [`run`] with `GOFLAGS` (a workspace refuses `-mod=mod`).
fn run_with(p: &Project, args: &[&str], goflags: &str) -> (Option<i32>, String, Value) {
    let mut argv = vec!["--no-history", "--format", "summary"];
    argv.extend_from_slice(args);
    let out = p
        .command(&argv)
        .env("GOFLAGS", goflags)
        .env("GOPROXY", "off")
        .output()
        .expect("tapline runs");
    let report = String::from_utf8_lossy(&out.stderr).into_owned();
    let doc: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("summary JSON ({e}): {report}"));
    (out.status.code(), report, doc)
}

/// The files of a summary, by path.
fn paths(doc: &Value) -> Vec<String> {
    (doc["files"].as_array().into_iter().flatten())
        .filter_map(|f| f["path"].as_str().map(str::to_owned))
        .collect()
}

/// A file's (pass, fail) counts.
fn counts(doc: &Value, path: &str) -> (Option<u64>, Option<u64>) {
    let tests = &file_doc(doc, path)["tests"];
    (tests["pass"].as_u64(), tests["fail"].as_u64())
}

#[test]
fn issue40_go_a_bare_run_tests_each_package_as_go_test_selects_them() {
    if !require(
        "issue40_go_a_bare_run_tests_each_package_as_go_test_selects_them",
        &["go"],
    ) {
        return;
    }
    let p = module();
    let (code, report, doc) = run(&p, &[]);
    assert_eq!(code, Some(1), "{report}");
    // `go test ./...`: ok calc, FAIL strs; `_examples` and `testdata` never run.
    assert_eq!(paths(&doc), ["calc", "strs"], "{report}");
    assert_eq!(file_doc(&doc, "calc")["ok"], true, "{report}");
    assert_eq!(file_doc(&doc, "strs")["ok"], false, "{report}");
    assert_eq!(counts(&doc, "calc"), (Some(3), Some(0)), "{report}");
    assert_eq!(counts(&doc, "strs"), (Some(1), Some(1)), "{report}");
    assert!(!report.contains("TestNeverRuns"), "{report}");
    let failure = &file_doc(&doc, "strs")["failures"][0];
    assert_eq!(failure["location"], "strs/strs_test.go:13", "{failure:#}");
    let message = failure["message"].as_str().unwrap_or_default();
    assert!(message.contains(r#"= "A!!", want "A!""#), "{failure:#}");
    // Each package has its own log.
    assert!(p.join(".nogit/testlogs/strs.log").is_file(), "{report}");
}

#[test]
fn issue40_go_a_path_runs_the_packages_in_that_folder() {
    if !require(
        "issue40_go_a_path_runs_the_packages_in_that_folder",
        &["go"],
    ) {
        return;
    }
    let p = module();
    for arg in ["./calc", "calc", "calc/"] {
        let (code, report, doc) = run(&p, &[arg]);
        assert_eq!(code, Some(0), "{arg}: {report}");
        assert_eq!(paths(&doc), ["calc"], "{arg}: {report}");
        assert_eq!(counts(&doc, "calc"), (Some(3), Some(0)), "{arg}: {report}");
    }
    let (code, report, doc) = run(&p, &["./strs"]);
    assert_eq!(code, Some(1), "{report}");
    assert_eq!(paths(&doc), ["strs"], "{report}");
    let (code, report, doc) = run(&p, &["."]);
    assert_eq!(code, Some(1), "{report}");
    assert_eq!(paths(&doc), ["calc", "strs"], "{report}");
}

#[test]
fn issue40_go_init_writes_no_suite_a_bare_run_does_not_need() {
    if !require(
        "issue40_go_init_writes_no_suite_a_bare_run_does_not_need",
        &["go"],
    ) {
        return;
    }
    let p = module();
    let init = p.tapline(&["init"]);
    assert_eq!(init.code, 0, "{}", init.both());
    let toml = p.read_text("tapline.toml");
    // The root's module is a bare run's own; `_examples` is a module go never runs.
    assert!(!toml.contains("[[suite]]"), "{toml}");
    let (code, report, doc) = run(&p, &[]);
    assert_eq!(code, Some(1), "{report}");
    assert_eq!(paths(&doc), ["calc", "strs"], "{report}");
    // A nested module a bare run leaves out gets a suite (named by its folder: the root's module is another), and the
    // root's packages still run beside it.
    std::fs::remove_file(p.join("tapline.toml")).expect("remove tapline.toml");
    p.write("tools/go.mod", "module example.com/tools\n\ngo 1.19\n");
    let tool_test = "package tools\n\nimport \"testing\"\n\nfunc TestTool(t *testing.T) {}\n";
    p.write("tools/tool_test.go", tool_test);
    let init = p.tapline(&["init"]);
    assert_eq!(init.code, 0, "{}", init.both());
    let toml = p.read_text("tapline.toml");
    assert_eq!(toml.matches("[[suite]]").count(), 1, "{toml}");
    assert!(toml.contains("dir = \"tools\""), "{toml}");
    let (code, report, doc) = run(&p, &[]);
    assert_eq!(code, Some(1), "{report}");
    let mut files = paths(&doc);
    files.sort();
    assert_eq!(files, ["calc", "go-tools", "strs"], "{report}");
}

/// A `go.work` with no module of its own: `./...` matches nothing there, so each module the
/// workspace uses gives its packages, each run from its module's folder (failures located
/// from the root).
#[test]
fn issue40_go_a_workspace_tests_the_packages_of_each_module() {
    if !require(
        "issue40_go_a_workspace_tests_the_packages_of_each_module",
        &["go"],
    ) {
        return;
    }
    let p = Project::new();
    p.write("go.work", "go 1.19\n\nuse (\n\t./a\n\t./b\n)\n");
    for m in ["a", "b"] {
        p.write(
            &format!("{m}/go.mod"),
            format!("module ex.com/{m}\n\ngo 1.19\n"),
        );
        let test = format!("package {m}\n\nimport \"testing\"\n\nfunc TestX(t *testing.T) {{}}\n");
        p.write(&format!("{m}/{m}_test.go"), test);
    }
    let failing =
        "package sub\n\nimport \"testing\"\n\nfunc TestSub(t *testing.T) { t.Fatal(\"sub\") }\n";
    p.write("b/sub/sub_test.go", failing);
    let (code, report, doc) = run_with(&p, &[], "");
    assert_eq!(code, Some(1), "{report}");
    assert_eq!(paths(&doc), ["a", "b", "b/sub"], "{report}");
    assert_eq!(counts(&doc, "a"), (Some(1), Some(0)), "{report}");
    let failure = &file_doc(&doc, "b/sub")["failures"][0];
    assert_eq!(failure["location"], "b/sub/sub_test.go:5", "{failure:#}");
    let (code, report, doc) = run_with(&p, &["./b"], "");
    assert_eq!(code, Some(1), "{report}");
    assert_eq!(paths(&doc), ["b", "b/sub"], "{report}");
}

/// Before any run, `tapline list` names each package's tests under its entry by a scan of that
/// package's folder alone: not the other packages', nor `_examples`'.
#[test]
fn issue40_go_list_names_each_packages_own_tests() {
    if !require("issue40_go_list_names_each_packages_own_tests", &["go"]) {
        return;
    }
    let p = module();
    let listed = p.tapline(&["list"]);
    assert_eq!(listed.code, 0, "{}", listed.both());
    let names: Vec<&str> = (listed.stdout.lines())
        .filter_map(|l| l.split("  (").next())
        .filter(|l| l.contains(" > "))
        .collect();
    assert_eq!(
        names,
        [
            "calc > example.com/gomodule/calc > TestAdd",
            "calc > example.com/gomodule/calc > TestTable",
            "strs > example.com/gomodule/strs > TestShout",
            "strs > example.com/gomodule/strs > TestShoutTwice",
        ],
        "{}",
        listed.both()
    );
}
