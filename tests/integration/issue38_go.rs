//! Issue 38, go: verdicts by `go test -json`'s `Test` field. A test that ends the test binary
//! (SIGSEGV, `os.Exit`, a panic in a goroutine) fails and is named; a paused `t.Parallel`
//! test did not run and is not failed; a timeout names the tests that were running; package
//! names never nest; a package or suite with no tests is no test point. Recordings:
//! test-data/formats/go-crash.jsonl and go-timeout.jsonl (scripts/record-formats.sh).
use crate::util::{copy_dir, formats_dir, parse_cli, repo, require, Project};
use serde_json::Value;

fn recording(name: &str) -> Vec<u8> {
    std::fs::read(formats_dir().join(name)).expect("recording committed")
}

/// The `--format summary` document of a recording.
fn summary_of(name: &str) -> Value {
    let (_, out, err) = parse_cli(&["--format", "summary"], &recording(name));
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("{name}: {e}: {out}{err}"))
}

/// The package `name`'s subtest in a summary document.
fn package<'a>(doc: &'a Value, name: &str) -> &'a Value {
    doc["asserts"]
        .as_array()
        .and_then(|a| a.iter().find(|p| p["name"] == name))
        .map(|p| &p["subtest"])
        .unwrap_or_else(|| panic!("no package {name} in {doc:#}"))
}

/// The point `name` in a subtest of a summary document.
fn point<'a>(subtest: &'a Value, name: &str) -> &'a Value {
    subtest["asserts"]
        .as_array()
        .and_then(|a| a.iter().find(|p| p["name"] == name))
        .unwrap_or_else(|| panic!("no point {name} in {subtest:#}"))
}

/// The diagnostics of the (last) point `name` in `--format jsonl` events.
fn diagnostics(events: &str, name: &str) -> String {
    events
        .lines()
        .rev()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|e| e["type"] == "assert" && e["name"] == name)
        .map(|e| e["diagnostics"].as_str().unwrap_or_default().to_owned())
        .unwrap_or_else(|| panic!("no point {name}"))
}

#[test]
fn issue38_go_crash_recordings_match_their_known_answers() {
    for (name, exit) in [
        ("go-crash.jsonl", 1),
        ("go-timeout.jsonl", 1),
        ("libtest-empty.xml", 0),
    ] {
        let stem = name.rsplit_once('.').map_or(name, |(stem, _)| stem);
        let want = std::fs::read_to_string(formats_dir().join(format!("{stem}.summary.json")))
            .expect("known answer committed");
        let (code, out, err) = parse_cli(&["--format", "summary"], &recording(name));
        assert_eq!(out.trim_end(), want.trim_end(), "{name}: summary changed");
        assert_eq!(code, exit, "{name}: {err}");
    }
}

/// Each crashing test fails; the `t.Parallel` test paused beside it did not run and is not
/// failed; the test after the crash never started and is no point.
#[test]
fn issue38_go_a_test_that_ends_the_binary_is_the_one_failed() {
    let doc = summary_of("go-crash.jsonl");
    let (_, events, _) = parse_cli(&["--format", "jsonl"], &recording("go-crash.jsonl"));
    for (pkg, crasher, says) in [
        ("kill", "TestKillsItself", "SIGSEGV: segmentation violation"),
        ("segv", "TestNilDeref", "nil pointer dereference"),
        ("exit", "TestExits", "exiting with 3"),
        (
            "goroutine",
            "TestGoroutinePanics",
            "panic: boom in a goroutine",
        ),
    ] {
        let pkg = package(&doc, &format!("example.com/gocrash/{pkg}"));
        assert_eq!(point(pkg, crasher)["ok"], false, "{crasher}: {pkg:#}");
        assert_eq!(point(pkg, "TestFirst")["ok"], true, "{pkg:#}");
        let paused = point(pkg, "TestPaused");
        assert_eq!(paused["ok"], true, "{pkg:#}");
        let reason = paused["skip"].as_str().unwrap_or_default();
        assert!(reason.starts_with("did not run"), "{reason}");
        assert!(!pkg["asserts"].to_string().contains("TestAfter"), "{pkg:#}");
        let diag = diagnostics(&events, crasher);
        assert!(diag.contains(says), "{crasher}: {diag}");
    }
    // The crash dump is the crashing test's, not the paused one's.
    assert!(!diagnostics(&events, "TestPaused").contains("SIGSEGV"));
    // The human report names the crashing test and fails no paused one.
    let (code, human, _) = parse_cli(&["--color", "never"], &recording("go-crash.jsonl"));
    assert_eq!(code, 1);
    assert!(human.contains("✗ TestKillsItself"), "{human}");
    assert!(!human.contains("✗ TestPaused"), "{human}");
}

/// `go test -timeout 1s`: the tests that were running fail, saying so; the paused one did not
/// run.
#[test]
fn issue38_go_a_timeout_names_the_running_tests() {
    let doc = summary_of("go-timeout.jsonl");
    let pkg = package(&doc, "example.com/gocrash/timeout");
    let sleeps = point(pkg, "TestSleeps");
    assert_eq!(sleeps["ok"], false, "{pkg:#}");
    assert_eq!(point(&sleeps["subtest"], "inner")["ok"], false, "{pkg:#}");
    assert_eq!(point(pkg, "TestFirst")["ok"], true);
    let paused = point(pkg, "TestPaused");
    assert_eq!(paused["ok"], true, "{pkg:#}");
    let (_, events, _) = parse_cli(&["--format", "jsonl"], &recording("go-timeout.jsonl"));
    let diag = diagnostics(&events, "inner");
    assert!(diag.contains("-timeout 1s"), "{diag}");
    assert!(diag.contains("panic: test timed out after 1s"), "{diag}");
    let (_, human, _) = parse_cli(&["--color", "never"], &recording("go-timeout.jsonl"));
    assert!(
        human.contains("1 failed, 1 passed, 1 skipped (3 tests"),
        "{human}"
    );
}

/// A package still streaming when the stream ends (the run was stopped, a timeout killed
/// go) is closed once: no package opens inside itself or another.
#[test]
fn issue38_go_package_names_never_nest() {
    let stream = concat!(
        r#"{"Action":"run","Package":"example.com/mod/pkg/sub","Test":"TestS"}"#,
        "\n",
        r#"{"Action":"run","Package":"example.com/mod","Test":"TestX"}"#,
        "\n",
        r#"{"Action":"pass","Package":"example.com/mod","Test":"TestX"}"#,
        "\n",
        r#"{"Action":"pass","Package":"example.com/mod"}"#,
        "\n",
    );
    let (code, events, _) = parse_cli(&["--format", "jsonl"], stream.as_bytes());
    assert_eq!(code, 1, "{events}");
    let starts: Vec<(u64, String)> = events
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|e| e["type"] == "subtest_start")
        .map(|e| {
            let depth = e["depth"].as_u64().unwrap_or_default();
            (depth, e["name"].as_str().unwrap_or_default().to_owned())
        })
        .collect();
    let want = [
        (1, "example.com/mod/pkg/sub".to_owned()),
        (1, "example.com/mod".to_owned()),
    ];
    assert_eq!(starts, want, "{events}");
    assert!(!events.contains("unterminated_subtest"), "{events}");
    let (_, human, _) = parse_cli(&["--color", "never"], stream.as_bytes());
    assert!(human.contains("no result: it was still running when the stream ended"));
    assert!(human.contains("✓ example.com/mod"), "{human}");
    // Both cut off (go killed mid-run): each package once, at the top, its test inside it.
    let cut = stream.lines().take(2).collect::<Vec<_>>().join("\n");
    let (code, human, _) = parse_cli(&["--color", "never"], cut.as_bytes());
    assert_eq!(code, 1, "{human}");
    for line in [
        "✗ example.com/mod/pkg/sub\n",
        "\n  ✗ TestS\n",
        "✗ example.com/mod\n",
        "\n  ✗ TestX\n",
    ] {
        assert_eq!(human.matches(line).count(), 1, "{line:?} once:\n{human}");
    }
    assert!(!human.contains("inside a subtest"), "{human}");
}

/// `?   pkg [no test files]`, `ok pkg [no tests to run]` and an empty libtest suite (cargo's
/// JUnit) count no test: go and cargo count none.
#[test]
fn issue38_packages_and_suites_without_tests_are_no_test_point() {
    let go = concat!(
        r#"{"Action":"output","Package":"example.com/gocrash/notests","Output":"testing: warning: no tests to run\n"}"#,
        "\n",
        r#"{"Action":"output","Package":"example.com/gocrash/notests","Output":"PASS\n"}"#,
        "\n",
        r#"{"Action":"pass","Package":"example.com/gocrash/notests","Elapsed":0.003}"#,
        "\n",
        r#"{"Action":"output","Package":"example.com/gocrash/nofiles","Output":"?   \texample.com/gocrash/nofiles\t[no test files]\n"}"#,
        "\n",
        r#"{"Action":"skip","Package":"example.com/gocrash/nofiles","Elapsed":0}"#,
        "\n",
    );
    // libtest's JUnit of a crate without tests (recorded).
    let libtest = recording("libtest-empty.xml");
    for stream in [go.as_bytes(), &libtest] {
        let (code, human, err) = parse_cli(&["--color", "never"], stream);
        assert_eq!(code, 0, "{human}{err}");
        assert!(human.contains("0 passed (0 tests)"), "{human}");
    }
    let (_, human, _) = parse_cli(&["--color", "never"], go.as_bytes());
    assert!(
        human.contains("- example.com/gocrash/notests # SKIP no tests to run"),
        "{human}"
    );
    // In the recording of a whole module: 10 passing tests, not 11 (notests), and 5 skipped
    // (4 paused, 1 t.Skip), not 6 (nofiles).
    let (_, human, _) = parse_cli(&["--color", "never"], &recording("go-crash.jsonl"));
    assert!(
        human.contains("4 failed, 10 passed, 5 skipped (19 tests"),
        "{human}"
    );
}

/// A `[[suite]]` running go for real: the test that sends itself SIGSEGV is the one failed,
/// named in the report; the paused parallel test is not failed.
#[test]
fn issue38_go_suite_reports_the_test_that_killed_itself() {
    if !require(
        "issue38_go_suite_reports_the_test_that_killed_itself",
        &["go"],
    ) {
        return;
    }
    let p = Project::new();
    copy_dir(
        &repo().join("test-data/formats/src/go-crash/kill"),
        &p.join("go/kill"),
    );
    p.write("go/go.mod", "module example.com/gocrash\n\ngo 1.19\n");
    p.write(
        "tapline.toml",
        "[[suite]]\nname = \"go\"\ndir = \"go\"\ncommand = [\"go\", \"test\", \"-json\", \"./...\"]\nformat = \"go-json\"\n",
    );
    let out = p
        .command(&["--no-history", "--format", "summary"])
        .env("GOFLAGS", "-mod=mod")
        .env("GOPROXY", "off")
        .output()
        .expect("tapline runs");
    let report = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(1), "{report}");
    assert!(
        report.contains("✗ example.com/gocrash/kill > TestKillsItself"),
        "{report}"
    );
    assert!(
        !report.contains("✗ example.com/gocrash/kill > TestPaused"),
        "{report}"
    );
    // Where it died: the test's frame of the runtime's dump (issue 41), its signal first.
    assert!(report.contains("at go/kill/kill_test.go:19"), "{report}");
    assert!(
        report.contains("ran (a crash, os.Exit or a panic in a goroutine: its output says which)\n    SIGSEGV: segmentation violation"),
        "{report}"
    );
    let doc: Value = serde_json::from_slice(&out.stdout).expect("summary JSON");
    let tests = ["pass", "fail", "skip"].map(|k| doc["run"]["tests"][k].as_u64());
    // TestFirst passes, TestKillsItself fails, TestPaused did not run.
    assert_eq!(tests, [Some(1), Some(1), Some(1)], "{doc:#}");
}

/// A bare `tapline run` in a go module runs `go test -json ./...` as go selects the packages
/// (no `testdata`, no `_`-folder, no nested module), with no `tapline.toml`; the test that
/// kills itself is the one failed.
#[test]
fn issue38_a_bare_run_in_a_go_module_runs_go_test() {
    if !require("issue38_a_bare_run_in_a_go_module_runs_go_test", &["go"]) {
        return;
    }
    let p = Project::new();
    copy_dir(
        &repo().join("test-data/formats/src/go-crash/kill"),
        &p.join("kill"),
    );
    p.write("go.mod", "module example.com/gocrash\n\ngo 1.19\n");
    p.write(
        "add/add.go",
        "package add\n\nfunc Add(a, b int) int { return a + b }\n",
    );
    let add_test = "package add\n\nimport \"testing\"\n\n\
                    func TestAdd(t *testing.T) {\n\tt.Parallel()\n\tif Add(1, 2) != 3 {\n\t\tt.Fatal(\"1+2\")\n\t}\n}\n";
    p.write("add/add_test.go", add_test);
    // What go passes over: a bare run must not run them either.
    let failing =
        "package x\n\nimport \"testing\"\n\nfunc TestNever(t *testing.T) { t.Fatal(\"ran\") }\n";
    p.write("add/testdata/x/x_test.go", failing);
    p.write("_examples/x/x_test.go", failing);
    p.write("nested/go.mod", "module example.com/nested\n\ngo 1.19\n");
    p.write("nested/x_test.go", failing);
    let run = |p: &Project| {
        let out = p
            .command(&["--no-history", "--format", "summary"])
            .env("GOFLAGS", "-mod=mod")
            .env("GOPROXY", "off")
            .output()
            .expect("tapline runs");
        let report = String::from_utf8_lossy(&out.stderr).into_owned();
        let doc: Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("summary JSON ({e}): {report}"));
        (out.status.code(), report, doc)
    };
    let (code, report, doc) = run(&p);
    assert_eq!(code, Some(1), "{report}");
    assert!(
        report.contains("✗ example.com/gocrash/kill > TestKillsItself"),
        "{report}"
    );
    assert!(!report.contains("TestNever"), "{report}");
    let tests = ["pass", "fail", "skip"].map(|k| doc["run"]["tests"][k].as_u64());
    // TestAdd and TestFirst pass, TestKillsItself fails, TestPaused did not run.
    assert_eq!(tests, [Some(2), Some(1), Some(1)], "{doc:#}");
    // Without the crasher, the module passes as `go test ./...` does.
    std::fs::remove_dir_all(p.join("kill")).expect("remove kill/");
    let (code, report, doc) = run(&p);
    assert_eq!(code, Some(0), "{report}");
    let tests = ["pass", "fail", "skip"].map(|k| doc["run"]["tests"][k].as_u64());
    assert_eq!(tests, [Some(1), Some(0), Some(0)], "{doc:#}");
}

/// JUnit has a case per test the counts count: a package without test files or without tests
/// is no case, in `parse -o` as in a run's report.
#[test]
fn issue38_go_junit_has_no_case_for_a_package_without_tests() {
    let p = Project::new();
    let recording =
        std::fs::read(repo().join("test-data/formats/go-crash.jsonl")).expect("the recording");
    p.write("go-crash.jsonl", &recording);
    let cases = |xml: &str| xml.matches("<testcase ").count();
    let parsed = p.tapline(&["parse", "go-crash.jsonl", "-o", "parse.xml"]);
    assert_eq!(parsed.code, 1, "{}", parsed.both());
    let xml = p.read_text("parse.xml");
    assert!(xml.contains("tests=\"19\""), "{xml}");
    assert_eq!(cases(&xml), 19, "{xml}");
    assert!(!xml.contains("no test files"), "{xml}");
    assert!(!xml.contains("no tests to run"), "{xml}");
    p.script("t/go.sh", "#!/bin/sh\ncat go-crash.jsonl\nexit 1\n");
    p.write(
        "tapline.toml",
        "[[runner]]\nglob = \"*.sh\"\ncommand = \"sh {}\"\nformat = \"go-json\"\n",
    );
    let ran = p.run(&["t/go.sh", "--no-history", "-o", "run.xml"]);
    assert_eq!(ran.code, 1, "{}", ran.both());
    let xml = p.read_text("run.xml");
    assert!(xml.contains("tests=\"19\""), "{xml}");
    assert_eq!(cases(&xml), 19, "{xml}");
}
