//! Issue 11: `[[suite]]` entries (whole commands whose output is go test -json or TAP, or
//! whose JUnit reports are read when they end) and `[[runner]]` rules with a `format`.
use crate::util::{copy_dir, repo, require, Project, Ran};
use serde_json::Value;

/// test-data/suites/polyglot copied to the root of a fresh project.
fn polyglot() -> Project {
    let p = Project::new();
    copy_dir(&repo().join("test-data/suites/polyglot"), p.path());
    p
}

fn file<'a>(doc: &'a Value, path: &str) -> &'a Value {
    doc["files"]
        .as_array()
        .and_then(|files| files.iter().find(|f| f["path"] == path))
        .unwrap_or_else(|| panic!("no {path} in {doc:#}"))
}

fn tests(doc: &Value) -> [u64; 3] {
    ["pass", "fail", "skip"].map(|k| doc["run"]["tests"][k].as_u64().unwrap_or(u64::MAX))
}

/// A bare `tapline run` runs the TAP files, the go module and the pytest suite together.
#[test]
fn issue11_polyglot_suite_runs_with_a_bare_run() {
    if !require(
        "issue11_polyglot_suite_runs_with_a_bare_run",
        &["perl", "pytest", "go"],
    ) {
        return;
    }
    let p = polyglot();
    let ran = p
        .command(&["--format", "summary"])
        .env("GOFLAGS", "-mod=mod")
        .output();
    let out = ran.expect("tapline runs");
    let ran = Ran::of(out, std::time::Duration::ZERO);
    assert_eq!(ran.code, 0, "{}", ran.both());
    let doc = ran.summary_doc();
    let paths: Vec<&str> = doc["files"]
        .as_array()
        .expect("files")
        .iter()
        .filter_map(|f| f["path"].as_str())
        .collect();
    assert_eq!(paths.len(), 4, "{paths:?}");
    for path in ["t/strings.t", "t/numbers.t", "go", "pytest"] {
        assert_eq!(file(&doc, path)["ok"], true, "{path}: {}", ran.both());
    }
    // pytest: 3 passed, 1 skipped, read from its JUnit report; perl: 4 passed, 1 skipped; go:
    // TestHello's two subtests pass, TestNeedsNetwork skips. (Without go: the next test.)
    assert_eq!(tests(&doc), [4 + 3 + 2, 0, 1 + 1 + 1], "{}", ran.both());
    assert!(
        p.join("python/.nogit/junit.xml").exists(),
        "pytest wrote no report"
    );
}

/// Where go is absent, the optional go suite is skipped with a message, and the run passes.
#[test]
fn issue11_polyglot_without_go_skips_the_go_suite() {
    if !require(
        "issue11_polyglot_without_go_skips_the_go_suite",
        &["perl", "pytest"],
    ) {
        return;
    }
    let p = polyglot();
    // A PATH holding only what the other suites need.
    let bin = p.join(".bin");
    std::fs::create_dir_all(&bin).expect("mkdir");
    for program in ["perl", "pytest"] {
        link_working(program, &bin);
    }
    let out = p
        .command(&[])
        .env("PATH", &bin)
        .output()
        .expect("tapline runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("- go  skipped: `go` is not installed (the suite is optional)"),
        "{stderr}"
    );
    assert!(stderr.contains("✓ pytest  3 passed, 1 skipped"), "{stderr}");
}

/// Links into `bin` the first `program` on PATH that runs with `bin` alone as its PATH: a
/// version manager's shim (pyenv's `pytest` is a bash script that asks `pyenv`) does not, so
/// the next one on PATH is taken.
fn link_working(program: &str, bin: &std::path::Path) {
    let paths = std::env::var_os("PATH").unwrap_or_default();
    let link = bin.join(program);
    for found in std::env::split_paths(&paths)
        .map(|d| d.join(program))
        .filter(|p| p.is_file())
    {
        let _ = std::fs::remove_file(&link);
        std::os::unix::fs::symlink(&found, &link).expect("symlink");
        let runs = std::process::Command::new(&link)
            .arg("--version")
            .env("PATH", bin)
            .output()
            .is_ok_and(|o| o.status.success());
        if runs {
            return;
        }
    }
    panic!("no {program} on PATH runs without the rest of PATH");
}

/// A suite whose command leaves no report (or only an earlier run's) fails, saying so.
#[test]
fn issue11_a_missing_or_stale_junit_report_fails_the_suite() {
    let p = Project::new();
    p.write(
        "tapline.toml",
        r#"
[[suite]]
name = "reports"
command = ["sh", "-c", "echo building"]
format = "junit"
report = "out/*.xml"
"#,
    );
    let ran = p.run(&["--format", "summary"]);
    assert_eq!(ran.code, 1, "{}", ran.both());
    let doc = ran.summary_doc();
    let reasons = file(&doc, "reports")["reasons"].to_string();
    assert!(
        reasons.contains("no JUnit report matches `out/*.xml` after the command ended"),
        "{reasons}"
    );
    // An earlier run's report is not read as this run's.
    p.write(
        "out/TEST-old.xml",
        "<testsuite name=\"old\"><testcase name=\"x\"/></testsuite>",
    );
    let old = std::process::Command::new("touch")
        .args(["-d", "2020-01-01", "out/TEST-old.xml"])
        .current_dir(p.path())
        .status()
        .expect("touch runs");
    assert!(old.success());
    let ran = p.run(&["--format", "summary"]);
    assert_eq!(ran.code, 1, "{}", ran.both());
    let reasons = file(&ran.summary_doc(), "reports")["reasons"].to_string();
    assert!(
        reasons.contains("1 older, from an earlier run, not read"),
        "{reasons}"
    );
}

/// A report the command writes is read when it ends: its cases are the suite's tests, its
/// failures the suite's reasons, the command's output kept as output.
#[test]
fn issue11_junit_reports_are_read_when_the_command_ends() {
    let p = Project::new();
    p.write(
        "tapline.toml",
        r#"
[[suite]]
name = "java"
dir = "java"
command = ["sh", "-c", "echo compiling; mkdir -p target/reports && cp ../fixture.xml target/reports/TEST-calc.xml; exit 1"]
format = "junit"
report = "target/reports/*.xml"
"#,
    );
    p.write(
        "fixture.xml",
        std::fs::read(repo().join("test-data/formats/junit5-console.xml")).expect("recording"),
    );
    std::fs::create_dir_all(p.join("java")).expect("mkdir");
    let ran = p.run(&["--format", "jsonl"]);
    assert_eq!(ran.code, 1, "{}", ran.both());
    assert!(
        ran.stdout.contains("\"text\":\"compiling\""),
        "{}",
        ran.both()
    );
    assert!(
        ran.stderr.contains("✗ java  2 failed, 5 passed, 2 skipped"),
        "{}",
        ran.both()
    );
    assert!(ran.stderr.contains("exited with code 1"), "{}", ran.both());
    assert!(
        ran.stderr.contains("- \"1\"") && ran.stderr.contains("+ \"2\""),
        "no diff: {}",
        ran.both()
    );
}

/// A `[[runner]]` rule's `format` reads its files' output as go test -json.
#[test]
fn issue11_runner_rules_take_a_format() {
    let p = Project::new();
    p.write(
        "tapline.toml",
        r#"
[[runner]]
glob = "*.gojson"
command = ["cat", "{}"]
format = "go-json"
"#,
    );
    let go = std::fs::read(repo().join("test-data/formats/go-test.jsonl")).expect("recording");
    p.write("test/recorded.gojson", go);
    let ran = p.run(&["--format", "summary"]);
    assert_eq!(ran.code, 1, "{}", ran.both());
    let doc = ran.summary_doc();
    // Tests, not packages: calc's leaves (TestAdd, 3 of TestAbs's 4 cases, fast, 3 workers,
    // TestOutput pass; minus_three fails; TestSkipped and slow skip), broken's build failure;
    // nofiles, with no test files, is no test (issue 38).
    assert_eq!(tests(&doc), [9, 2, 2], "{}", ran.both());
    let reasons = file(&doc, "test/recorded.gojson")["reasons"].to_string();
    assert!(reasons.contains("example.com/formats/broken"), "{reasons}");
}

/// Suites are named by their name on the command line; a bad entry is a usage error.
#[test]
fn issue11_suites_are_selected_by_name_and_checked() {
    let p = Project::new();
    p.write(
        "tapline.toml",
        r#"
[[suite]]
name = "one"
command = ["sh", "-c", "echo 1..1; echo ok 1 - one"]

[[suite]]
name = "two"
command = ["sh", "-c", "echo 1..1; echo not ok 1 - two"]
"#,
    );
    let ran = p.run(&["one"]);
    assert_eq!(ran.code, 0, "{}", ran.both());
    assert!(ran.stderr.contains("1 file"), "{}", ran.both());
    let ran = p.run(&[]);
    assert_eq!(ran.code, 1, "{}", ran.both());
    for (toml, want) in [
        (
            "[[suite]]\nname = \"x\"\ncommand = [\"true\"]\nreport = \"*.xml\"\n",
            "reports are JUnit XML",
        ),
        (
            "[[suite]]\nname = \"x\"\ncommand = [\"true\"]\nformat = \"yaml\"\n",
            "expected tap, go-json, junit, libtest, exit-status or json-result",
        ),
        (
            "[[suite]]\nname = \"x\"\ncommand = []\n",
            "has an empty command",
        ),
        (
            "[[suite]]\nname = \"x\"\ncommand = [\"a\"]\n[[suite]]\nname = \"x\"\ncommand = [\"b\"]\n",
            "two [[suite]] entries are named `x`",
        ),
    ] {
        p.write("tapline.toml", toml);
        let ran = p.run(&[]);
        assert_eq!(ran.code, 2, "{toml}: {}", ran.both());
        assert!(ran.stderr.contains(want), "{toml}: {}", ran.both());
    }
}

/// A go suite's failures (issue 23): their locations are relative to the project root (go
/// prints `util_test.go:18`, relative to the package's folder; the module is in `go/`), and
/// each holds its own output: not the `t.Log` of the passing (sub)test after it, nor the line
/// `TestMain` prints after the last test.
#[test]
fn a_go_suites_failures_are_located_from_the_root_and_hold_only_their_own_output() {
    if !require(
        "a_go_suites_failures_are_located_from_the_root_and_hold_only_their_own_output",
        &["go"],
    ) {
        return;
    }
    let p = Project::new();
    // go test -json ./... of this module is test-data/formats/go-nested.jsonl.
    copy_dir(
        &repo().join("test-data/formats/src/go-nested"),
        &p.join("go"),
    );
    p.write(
        "tapline.toml",
        "[[suite]]\nname = \"go\"\ndir = \"go\"\ncommand = [\"go\", \"test\", \"-json\", \"./...\"]\nformat = \"go-json\"\n",
    );
    let out = p
        .command(&["--no-history"])
        .env("GOFLAGS", "-mod=mod")
        .env("GOPROXY", "off")
        .output()
        .expect("tapline runs");
    let report = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(1), "{report}");
    for at in [
        "at go/equal_test.go:11",
        "at go/cmp/cmpopts/util_test.go:18",
        "at go/cmp/cmpopts/util_test.go:31",
    ] {
        assert!(report.contains(at), "no {at:?}:\n{report}");
    }
    // Each failure's block: from its line to the next point line or the recap.
    let block = |name: &str| -> &str {
        let start = report
            .find(&format!("  ✗ {name}  "))
            .unwrap_or_else(|| panic!("no {name:?}:\n{report}"));
        let rest = &report[start + "  ✗ ".len()..];
        let end = rest
            .find("\n  ✗ ")
            .or_else(|| rest.find("\nFailures:"))
            .unwrap_or(rest.len());
        &rest[..end]
    };
    for (failure, not_its) in [
        (
            "example.com/gonested > TestEqual > ints",
            "comparing strings",
        ),
        ("example.com/gonested > TestEqual > ints", "hash is stable"),
        (
            "example.com/gonested/cmp/cmpopts > TestSort > ascending",
            "sorted 3 items",
        ),
        ("example.com/gonested/cmp/cmpopts > TestEmpty", "teardown"),
    ] {
        assert!(!block(failure).contains(not_its), "{failure}:\n{report}");
    }
}
