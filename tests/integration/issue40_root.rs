//! Issue 40, item 7: a bare run in a project's subfolder runs that subfolder's tests from the
//! project's root, as the harness finds its root from anywhere below it: the same files,
//! counts, verdicts and exit code as `tapline run <subfolder>` at the root, logs under the
//! root's `.nogit/`, nothing written in the subfolder.
use crate::util::{require, Project};
use serde_json::Value;
use std::path::Path;

/// What a run said that must not depend on where it started: its exit code, and each file's
/// name, verdict and counts.
fn outcome(p: &Project, from: &str, args: &[&str]) -> (i32, Vec<String>) {
    let mut args = args.to_vec();
    args.extend(["--format", "summary", "--no-cache", "--no-history"]);
    let mut command = p.command(&args);
    command.current_dir(p.join(from));
    let out = command.output().expect("tapline runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let doc: Value = serde_json::from_str(&stdout).unwrap_or_else(|e| {
        let stderr = String::from_utf8_lossy(&out.stderr);
        panic!("no summary from {from} ({e}):\n{stdout}\n{stderr}")
    });
    let files = doc["files"].as_array().cloned().unwrap_or_default();
    let files = files.iter().map(|f| {
        let log = f["log"].as_str().unwrap_or_default();
        let logged_at_root = Path::new(log).starts_with(p.join(".nogit"));
        let t = &f["tests"];
        format!(
            "{} ok={} pass={} fail={} skip={} logged at the root={logged_at_root}",
            f["path"].as_str().unwrap_or_default(),
            f["ok"],
            t["pass"],
            t["fail"],
            t["skip"],
        )
    });
    (out.status.code().unwrap_or(-1), files.collect())
}

#[test]
fn issue40_root_from_t_of_a_perl_distribution() {
    if !require(
        "issue40_root_from_t_of_a_perl_distribution",
        &["perl", "prove"],
    ) {
        return;
    }
    let p = Project::new();
    // A distribution unpacked from its tarball: no repository around it.
    std::fs::remove_dir(p.join(".git")).expect("rmdir .git");
    p.write(
        "Makefile.PL",
        "use ExtUtils::MakeMaker;\nWriteMakefile(NAME => 'My::Thing');\n",
    )
    .write(
        "lib/My/Thing.pm",
        "package My::Thing;\nsub answer { 42 }\n1;\n",
    )
    .write(
        "t/thing.t",
        "use Test::More;\nuse My::Thing;\nis(My::Thing::answer(), 42, 'answer');\ndone_testing;\n",
    )
    .write(
        "t/broken.t",
        "use Test::More;\nok(1, 'one');\nok(0, 'two');\ndone_testing;\n",
    );
    let from_root = outcome(&p, ".", &[]);
    let from_t = outcome(&p, "t", &[]);
    assert_eq!(from_root.0, 1, "{from_root:?}");
    assert_eq!(from_t, from_root);
    assert!(!p.join("t/.nogit").exists(), "a .nogit/ in t/");
}

#[test]
fn issue40_root_from_tests_sub_of_a_pytest_project() {
    if !require(
        "issue40_root_from_tests_sub_of_a_pytest_project",
        &["pytest"],
    ) {
        return;
    }
    let p = Project::new();
    // A project not (yet) in a repository: only its pytest configuration marks its root.
    std::fs::remove_dir(p.join(".git")).expect("rmdir .git");
    p.write("pyproject.toml", "[tool.pytest.ini_options]\n")
        .write(
            "conftest.py",
            "import pytest\n\n@pytest.fixture\ndef answer():\n    return 42\n",
        )
        .write("tests/test_top.py", "def test_top():\n    assert True\n")
        .write(
            "tests/sub/test_deep.py",
            "def test_answer(answer):\n    assert answer == 42\n\ndef test_wrong(answer):\n    assert answer == 41\n",
        )
        .write("tests/sub/test_more.py", "def test_more(answer):\n    assert answer\n");
    let from_root = outcome(&p, ".", &["tests/sub"]);
    let from_sub = outcome(&p, "tests/sub", &[]);
    assert_eq!(from_root.0, 1, "{from_root:?}");
    assert_eq!(from_root.1.len(), 2, "{from_root:?}");
    assert_eq!(from_sub, from_root);
    assert!(
        !p.join("tests/sub/.nogit").exists(),
        "a .nogit/ in tests/sub/"
    );
}

/// `tapline list` from a subfolder lists what a bare run there runs: the subfolder's tests,
/// named from the project's folder, as `tapline list <subfolder>` there names them.
#[test]
fn issue40_list_from_a_subfolder_lists_what_a_run_there_runs() {
    let p = Project::new();
    std::fs::remove_dir(p.join(".git")).expect("rmdir .git");
    p.write("package.json", "{\"scripts\": {\"test\": \"node --test\"}}\n")
        .write("test/top.test.js", "const test = require('node:test');\ntest('top', () => {});\n")
        .write(
            "test/sub/deep.test.js",
            "const test = require('node:test');\ntest('deep one', () => {});\ntest('deep two', () => {});\n",
        );
    let list = |from: &str, args: &[&str]| {
        let mut all = vec!["list", "--format", "json"];
        all.extend(args);
        let mut command = assert_cmd::Command::new(env!("CARGO_BIN_EXE_tapline"));
        command
            .current_dir(p.join(from))
            .env("NO_COLOR", "1")
            .args(&all);
        let out = command.output().expect("tapline runs");
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{stdout}{stderr}");
        let mut ids: Vec<String> = (stdout.lines())
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .filter_map(|v| v["id"].as_str().map(str::to_owned))
            .collect();
        ids.sort();
        ids
    };
    let from_root = list(".", &["test/sub"]);
    assert_eq!(
        from_root,
        [
            "test/sub/deep.test.js > deep one",
            "test/sub/deep.test.js > deep two"
        ],
    );
    assert_eq!(list("test/sub", &[]), from_root);
    // `--write` is read from where the command started.
    list("test/sub", &["--write", "ids.jsonl"]);
    assert!(
        p.join("test/sub/ids.jsonl").exists(),
        "--write from the subfolder"
    );
}
