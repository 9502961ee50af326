//! Issue 40, item 1: pytest through its own session. A bare run takes the files pytest
//! collects (a conftest's `collect_ignore`, `testpaths`, `--ignore` in `addopts`), `tapline
//! list` lists them, each `-j` worker is one pytest process, a crash fails its file alone, and
//! a missing pytest is one error naming the interpreter.
use crate::util::{file_doc, require, Project};

/// A pytest project whose configuration leaves files out three ways.
fn configured() -> Project {
    let p = Project::new();
    p.write(
        "pytest.ini",
        "[pytest]\ntestpaths = tests/unit\naddopts = --ignore=tests/unit/test_skipme.py\n",
    );
    p.write(
        "conftest.py",
        "collect_ignore = [\"tests/unit/test_ignored.py\"]\n",
    );
    let passing = "def test_one():\n    assert 1\n\ndef test_two():\n    assert 2\n";
    let failing = "def test_fails():\n    assert 0\n";
    p.write("tests/unit/test_a.py", passing);
    p.write("tests/unit/test_b.py", passing);
    p.write("tests/unit/test_ignored.py", failing);
    p.write("tests/unit/test_skipme.py", failing);
    p.write("tests/slow/test_outside.py", failing);
    p
}

/// A conftest that writes a line to `configured.txt` for each pytest that runs tests (the
/// listing collects too, with `--collect-only`: not counted).
const CONFIGURED: &str = "import os\n\ndef pytest_configure(config):\n\
    \x20   if not config.option.collectonly:\n\
    \x20       with open(os.path.join(str(config.rootpath), 'configured.txt'), 'a') as f:\n\
    \x20           f.write('%d\\n' % os.getpid())\n";

#[test]
fn issue40_collect_ignore_testpaths_and_ignore_are_honoured_by_run_and_list() {
    if !require(
        "issue40_collect_ignore_testpaths_and_ignore_are_honoured_by_run_and_list",
        &["pytest"],
    ) {
        return;
    }
    let p = configured();
    let ran = p.run(&["--format", "summary", "-j2"]);
    assert_eq!(ran.code, 0, "{}", ran.both());
    let doc = ran.summary_doc();
    let files: Vec<&str> = (doc["files"].as_array().expect("files").iter())
        .filter_map(|f| f["path"].as_str())
        .collect();
    assert_eq!(
        files,
        ["tests/unit/test_a.py", "tests/unit/test_b.py"],
        "{doc:#}"
    );
    assert_eq!(file_doc(&doc, "tests/unit/test_a.py")["summary"]["pass"], 2);

    let listed = p.tapline(&["list"]);
    assert_eq!(listed.code, 0, "{}", listed.both());
    assert!(
        listed.stdout.contains("tests/unit/test_a.py"),
        "{}",
        listed.both()
    );
    for left_out in ["test_ignored", "test_skipme", "test_outside"] {
        assert!(!listed.stdout.contains(left_out), "{}", listed.both());
    }
}

#[test]
fn issue40_a_crashing_pytest_file_fails_alone_and_keeps_its_output() {
    if !require(
        "issue40_a_crashing_pytest_file_fails_alone_and_keeps_its_output",
        &["pytest"],
    ) {
        return;
    }
    let p = Project::new();
    p.write("pytest.ini", "[pytest]\n");
    p.write("conftest.py", CONFIGURED);
    let passing = "def test_one():\n    assert 1\n";
    p.write("tests/test_a.py", passing);
    p.write(
        "tests/test_b_exit.py",
        "import os\n\ndef test_first():\n    assert 1\n\ndef test_exits():\n    os._exit(3)\n",
    );
    p.write(
        "tests/test_c_segv.py",
        "import ctypes\n\ndef test_segfault():\n    ctypes.string_at(0)\n",
    );
    p.write("tests/test_d.py", passing);
    let ran = p.run(&["--format", "summary", "-j1"]);
    assert_eq!(ran.code, 1, "{}", ran.both());
    let doc = ran.summary_doc();
    for fine in ["tests/test_a.py", "tests/test_d.py"] {
        assert_eq!(file_doc(&doc, fine)["summary"]["pass"], 1, "{doc:#}");
        assert_eq!(file_doc(&doc, fine)["ok"], true, "{doc:#}");
    }
    let exited = file_doc(&doc, "tests/test_b_exit.py");
    assert_eq!(exited["ok"], false, "{doc:#}");
    assert_eq!(
        exited["summary"]["pass"], 1,
        "the point before the crash: {doc:#}"
    );
    let log = p.read_text(".nogit/testlogs/tests__test_b_exit.log");
    assert!(
        log.contains("1..2") && log.contains("ok 1 - test_first"),
        "{log}"
    );
    let segv = file_doc(&doc, "tests/test_c_segv.py");
    assert_eq!(segv["ok"], false, "{doc:#}");
    let log = p.read_text(".nogit/testlogs/tests__test_c_segv.log");
    assert!(
        log.contains("Segmentation fault"),
        "faulthandler's words kept: {log}"
    );
    // Files share a worker; each crash replaced its worker (two crashes, four files: two
    // pytest processes if a crash came last, else three).
    let configured = p.read_text("configured.txt").lines().count();
    assert!(
        (2..=3).contains(&configured),
        "{configured} pytest processes"
    );
}

#[test]
fn issue40_one_pytest_process_per_worker() {
    if !require("issue40_one_pytest_process_per_worker", &["pytest"]) {
        return;
    }
    let p = Project::new();
    p.write("pytest.ini", "[pytest]\n");
    p.write("conftest.py", CONFIGURED);
    for name in ["a", "b", "c", "d", "e"] {
        p.write(
            &format!("tests/test_{name}.py"),
            "def test_it():\n    assert 1\n",
        );
    }
    let ran = p.run(&["-j1"]);
    assert_eq!(ran.code, 0, "{}", ran.both());
    let configured = p.read_text("configured.txt");
    assert_eq!(
        configured.lines().count(),
        1,
        "one pytest for 5 files: {configured}"
    );
}

#[test]
fn issue40_a_missing_pytest_is_one_error_naming_the_interpreter() {
    if !require(
        "issue40_a_missing_pytest_is_one_error_naming_the_interpreter",
        &["python3"],
    ) {
        return;
    }
    let p = Project::new();
    p.write("pytest.ini", "[pytest]\n");
    p.write("tests/test_a.py", "def test_it():\n    assert 1\n");
    p.write("tests/test_b.py", "def test_it():\n    assert 1\n");
    // A virtualenv of its own with nothing installed, system packages not seen.
    let venv = std::process::Command::new("python3")
        .args(["-m", "venv", "--without-pip", ".venv"])
        .current_dir(p.path())
        .output()
        .expect("python3 runs");
    assert!(venv.status.success(), "venv: {venv:?}");
    let ran = p.run(&[]);
    assert_eq!(ran.code, 2, "{}", ran.both());
    let lines: Vec<&str> = ran
        .stderr
        .lines()
        .filter(|l| !l.trim().is_empty())
        .collect();
    assert_eq!(lines.len(), 1, "one error: {}", ran.both());
    assert!(
        lines[0].contains(".venv/bin/python") && lines[0].contains("has no pytest"),
        "{}",
        ran.both()
    );
}

/// Watch mode keeps no pytest worker for the next edit: one would have collected (imported) the
/// project's tests and modules before the edit and run the next cycle's file as it was.
#[test]
fn issue40_watch_runs_an_edit_in_a_pytest_that_sees_it() {
    if !require(
        "issue40_watch_runs_an_edit_in_a_pytest_that_sees_it",
        &["pytest"],
    ) {
        return;
    }
    let p = crate::watch::Project::new(&[
        ("pytest.ini", "[pytest]\npythonpath = .\n"),
        ("val.py", "v = 1\n"),
        (
            "tests/test_val.py",
            "import val\n\ndef test_v():\n    assert val.v == 1\n",
        ),
    ]);
    let mut s = crate::watch::Session::start(&p, &[]);
    let first = s.wait_finished(1);
    assert_eq!(first["summary"]["ok"], true, "{first}\n{}", s.stderr());
    // An editor's pause: a worker kept for the next edit would have collected by now.
    std::thread::sleep(std::time::Duration::from_secs(3));
    p.write("val.py", "v = 2\n");
    let second = s.wait_finished(2);
    assert_eq!(second["summary"]["ok"], false, "the edit is seen: {second}");
    s.quit();
    s.assert_nothing_left(&p);
}
