//! Issue 16: a plain `tapline run` runs what the project's own harness runs, and judges a file
//! as that harness would. Each fixture of `test-data/suites/` is copied to the root of a fresh
//! project and run from inside it, as a user would; where the harness is installed, it is run
//! too, to show the fixture passes under it.
use crate::util::{copy_dir, file_doc, repo, require, Project, Ran};
use serde_json::Value;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::process::Command;

/// `test-data/suites/<name>` copied to the root of a fresh project.
fn fixture(name: &str) -> Project {
    let p = Project::new();
    copy_dir(&repo().join("test-data/suites").join(name), p.path());
    p
}

/// The paths of a summary document's files, in order.
fn paths(doc: &Value) -> Vec<String> {
    doc["files"]
        .as_array()
        .expect("files")
        .iter()
        .map(|f| f["path"].as_str().expect("path").to_owned())
        .collect()
}

/// A plain `tapline run --format summary`: exit code and the document.
fn plain_run(p: &Project) -> (Ran, Value) {
    let ran = p.run(&["--format", "summary"]);
    let doc = ran.summary_doc();
    (ran, doc)
}

/// Runs the project's own harness in it, when `test` can (`require`): it must pass (the
/// fixture is a real suite of that harness). Returns whether it ran.
fn harness_passes(test: &str, p: &Project, program: &str, args: &[&str]) -> bool {
    if !require(&format!("{test}: the harness's own run"), &[program]) {
        return false;
    }
    let out = Command::new(program)
        .args(args)
        .current_dir(p.path())
        .output()
        .expect("the harness runs");
    assert!(
        out.status.success(),
        "{program} {args:?} failed:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    true
}

fn make_executable(p: &Project, rel: &str, text: &str) {
    p.write(rel, text);
    fs::set_permissions(p.join(rel), fs::Permissions::from_mode(0o755)).expect("chmod");
}

#[test]
fn issue16_a_perl_distribution_runs_its_dot_t_files_only() {
    let p = fixture("perl-dist");
    harness_passes(
        "issue16_a_perl_distribution_runs_its_dot_t_files_only",
        &p,
        "prove",
        &["-r", "t"],
    );
    let (ran, doc) = plain_run(&p);
    assert_eq!(ran.code, 0, "{}", ran.both());
    assert_eq!(paths(&doc), ["t/greet.t"], "no static asset runs");
    assert_eq!(doc["run"]["files_passed"], 1);
}

#[test]
fn issue16_a_tape_package_runs_its_declared_glob() {
    let p = fixture("tape-package");
    let (ran, doc) = plain_run(&p);
    assert_eq!(ran.code, 0, "{}", ran.both());
    assert_eq!(
        paths(&doc),
        ["test/data.js", "test/index.js"],
        "`tape 'test/*.js'`: not test/browser/dom.js"
    );
    let data = file_doc(&doc, "test/data.js");
    assert_eq!(data["ok"], true, "{data:#}");
    assert_eq!(data["no_tests"], true, "{data:#}");
    assert_eq!(file_doc(&doc, "test/index.js").get("no_tests"), None);
    assert_eq!(
        doc["run"]["files_passed"], 1,
        "a file with no tests is no pass"
    );
    assert_eq!(doc["run"]["files_no_tests"], 1);
    assert_eq!(doc["run"]["files_failed"], 0);

    let human = p.run(&[]);
    assert_eq!(human.code, 0, "{}", human.both());
    assert!(
        human.stderr.contains("- test/data.js  no tests"),
        "{}",
        human.both()
    );
    assert!(
        human.stderr.contains("1 file with no tests"),
        "{}",
        human.both()
    );
}

#[test]
fn issue16_a_node_test_helper_is_a_file_with_no_tests() {
    let p = fixture("node-test");
    harness_passes(
        "issue16_a_node_test_helper_is_a_file_with_no_tests",
        &p,
        "node",
        &["--test"],
    );
    let (ran, doc) = plain_run(&p);
    assert_eq!(ran.code, 0, "{}", ran.both());
    assert_eq!(paths(&doc), ["test/helpers.js", "test/math.test.js"]);
    assert_eq!(file_doc(&doc, "test/helpers.js")["no_tests"], true);
    assert_eq!(doc["run"]["tests"]["pass"], 2, "{doc:#}");
    assert_eq!(doc["run"]["files_passed"], 1);
}

#[test]
fn issue16_package_json_scripts_declare_the_glob() {
    let p = fixture("declared-glob");
    let (ran, doc) = plain_run(&p);
    assert_eq!(ran.code, 0, "{}", ran.both());
    assert_eq!(
        paths(&doc),
        ["spec/unit/math.spec.js", "spec/unit/strings.spec.js"],
        "npm test → npm run test:unit → tape 'spec/**/*.spec.js'"
    );
    let listed = p.run(&["--list"]);
    assert!(
        listed.stderr.contains(
            "tapline: following package.json scripts.test:unit (`tape 'spec/**/*.spec.js'`)"
        ),
        "{}",
        listed.both()
    );
}

#[test]
fn issue16_bats_fixtures_never_run() {
    let test = "issue16_bats_fixtures_never_run";
    if !require(test, &["bats"]) {
        return;
    }
    let p = fixture("bats-fixtures");
    harness_passes(test, &p, "bats", &["test"]);
    let (ran, doc) = plain_run(&p);
    assert_eq!(ran.code, 0, "{}", ran.both());
    assert_eq!(
        paths(&doc),
        ["test/greet.bats"],
        "test/fixtures/ never runs"
    );
    assert_eq!(doc["run"]["tests"]["pass"], 2);
}

/// A stand-in TypeScript runner that says it ran, then runs the file with node (the fixture's
/// files are plain JavaScript).
fn fake_runner(p: &Project, rel: &str, name: &str) {
    make_executable(
        p,
        rel,
        &format!("#!/bin/sh\necho \"{name} $1\" >> runner.txt\nexec node \"$@\"\n"),
    );
}

#[test]
fn issue16_typescript_as_tstest_names_it_with_the_projects_runner() {
    let p = fixture("typescript");
    fake_runner(&p, "node_modules/.bin/tsx", "tsx");
    fake_runner(&p, "node_modules/.bin/tsrun", "tsrun");
    // test.browser.ts runs in Chromium (issue 18, browser_tests.rs), not by the TypeScript
    // runner; this test is about the runner, so it goes once --list has shown it.
    let listed = p.run(&["--list"]);
    let browser = listed
        .stdout
        .lines()
        .find(|l| l.starts_with("test/test.browser.ts\t"));
    assert!(
        browser.is_some_and(|l| l.contains("--headless=new") || l.contains("not installed")),
        "{}",
        listed.both()
    );
    fs::remove_file(p.join("test/test.browser.ts")).expect("rm");
    let (ran, doc) = plain_run(&p);
    assert_eq!(ran.code, 0, "{}", ran.both());
    assert_eq!(
        paths(&doc),
        ["test/math.test.ts", "test/test.basic.ts"],
        "not helpers.ts"
    );
    let used = String::from_utf8(p.read("runner.txt")).expect("utf-8");
    let mut used: Vec<&str> = used.lines().collect();
    used.sort_unstable();
    assert_eq!(used, ["tsx test/math.test.ts", "tsx test/test.basic.ts"]);

    // Without tsx, tstest's own runner.
    fs::remove_file(p.join("node_modules/.bin/tsx")).expect("rm");
    let listed = p.run(&["--list"]);
    let tsrun = p.join("node_modules/.bin/tsrun");
    assert!(
        listed.stdout.contains(&format!(
            "test/math.test.ts\t{} test/math.test.ts",
            tsrun.display()
        )),
        "{}",
        listed.both()
    );

    // tapline.toml says which.
    p.write("tapline.toml", "[run]\nts_runner = [\"node\"]\n");
    let listed = p.run(&["--list"]);
    assert!(
        listed
            .stdout
            .contains("test/math.test.ts\tnode test/math.test.ts"),
        "{}",
        listed.both()
    );
}

#[test]
fn issue16_a_file_without_tap_is_judged_as_its_harness_judges_it() {
    let p = Project::new();
    p.write("t/silent.t", "exit 0;\n")
        .write("t/pass.t", "print qq{1..1\\nok 1\\n};\n")
        .write("test/quiet.test.js", "// no tests here\n")
        .write("test/crash.test.js", "process.exit(3);\n")
        .write("test/silent.sh", "true\n");
    let (ran, doc) = plain_run(&p);
    assert_eq!(ran.code, 1, "{}", ran.both());
    let verdict = |path: &str| {
        let f = file_doc(&doc, path);
        (
            f["ok"].as_bool().expect("ok"),
            f.get("no_tests").and_then(Value::as_bool).unwrap_or(false),
            f["reasons"].clone(),
        )
    };
    assert_eq!(
        verdict("t/silent.t"),
        (
            false,
            false,
            serde_json::json!(["no TAP output (No subtests run)"])
        ),
        "prove fails it"
    );
    assert_eq!(verdict("t/pass.t"), (true, false, serde_json::json!([])));
    assert_eq!(
        verdict("test/quiet.test.js"),
        (true, true, serde_json::json!([])),
        "node: a file with no tests"
    );
    assert_eq!(
        verdict("test/crash.test.js"),
        (
            false,
            false,
            serde_json::json!(["exited with code 3", "no TAP output"])
        ),
        "a crash is a crash"
    );
    assert_eq!(
        verdict("test/silent.sh"),
        (false, false, serde_json::json!(["no TAP output"]))
    );
    assert_eq!(doc["run"]["files_passed"], 1);
    assert_eq!(doc["run"]["files_no_tests"], 1);
    assert_eq!(doc["run"]["files_failed"], 3);
}

/// A pytest module is no script to run with python3 (issue 16 failed it with a hint to write a
/// `[[suite]]`): it runs under pytest (issue 25), each test a point.
#[test]
fn issue16_a_pytest_module_runs_under_pytest() {
    if !require("issue16_a_pytest_module_runs_under_pytest", &["pytest"]) {
        return;
    }
    let p = Project::new();
    p.write(
        "tests/test_calc.py",
        "def test_adds():\n    assert 1 + 1 == 2\n",
    );
    let (ran, doc) = plain_run(&p);
    assert_eq!(ran.code, 0, "{}", ran.both());
    let file = file_doc(&doc, "tests/test_calc.py");
    assert_eq!(
        file["summary"]["asserts"][0]["name"], "test_adds",
        "{file:#}"
    );
}

#[test]
fn issue16_a_missing_and_an_empty_test_folder_say_different_things() {
    let p = Project::new();
    let missing = p.run(&[]);
    assert_eq!(missing.code, 2, "{}", missing.both());
    assert_eq!(
        missing.stderr,
        "tapline: failed to find test files: no test folder here (looked for `test/`, `tests/`, `t/`); name a folder or file, or set `test_dirs` in tapline.toml (`tapline init` writes one)\n"
    );
    p.write("pyproject.toml", "[tool.pytest.ini_options]\n");
    let pytest = p.run(&[]);
    assert_eq!(pytest.code, 2, "{}", pytest.both());
    assert_eq!(
        pytest.stderr,
        "tapline: failed to find test files: this pytest project has no test folder (`test/`, `tests/`, `t/`) and no test_*.py or *_test.py file pytest would collect\n"
    );
    fs::remove_file(p.join("pyproject.toml")).expect("rm");
    fs::create_dir(p.join("t")).expect("mkdir");
    let empty = p.run(&[]);
    assert_eq!(empty.code, 2, "{}", empty.both());
    assert_eq!(
        empty.stderr,
        "tapline: failed to find test files in `t`: the folder is empty\n"
    );
    p.write("t/notes.txt", "");
    let no_tests = p.run(&[]);
    assert_eq!(no_tests.code, 2, "{}", no_tests.both());
    assert!(
        no_tests.stderr.starts_with(
            "tapline: failed to find test files in `t`: no file there is named as a test"
        ),
        "{}",
        no_tests.both()
    );
}

#[test]
fn issue16_the_nogit_folder_ignores_itself() {
    let p = Project::new();
    p.write("t/a.t", "print qq{1..1\\nok 1\\n};\n");
    let ran = p.run(&[]);
    assert_eq!(ran.code, 0, "{}", ran.both());
    assert_eq!(p.read(".nogit/.gitignore"), b"*\n");
    if require(
        "issue16_the_nogit_folder_ignores_itself: git's view",
        &["git"],
    ) {
        let dir = tempfile::TempDir::new().expect("temp dir");
        let git = |args: &[&str]| {
            Command::new("git")
                .args(args)
                .current_dir(dir.path())
                .output()
                .expect("git runs")
        };
        assert!(git(&["init", "-q"]).status.success());
        fs::create_dir(dir.path().join("t")).expect("mkdir");
        fs::write(dir.path().join("t/a.t"), "print qq{1..1\\nok 1\\n};\n").expect("write");
        let out = assert_cmd::Command::new(env!("CARGO_BIN_EXE_tapline"))
            .current_dir(dir.path())
            .env("CI", "1")
            .arg("run")
            .output()
            .expect("tapline runs");
        assert!(out.status.success());
        let status = git(&["status", "--porcelain", "--untracked-files=all"]);
        assert_eq!(String::from_utf8_lossy(&status.stdout), "?? t/a.t\n");
    }
}

fn init(p: &Project, args: &[&str]) -> Ran {
    let out = assert_cmd::Command::new(env!("CARGO_BIN_EXE_tapline"))
        .current_dir(p.path())
        .arg("init")
        .args(args)
        .output()
        .expect("tapline runs");
    Ran::of(out, std::time::Duration::ZERO)
}

#[test]
fn issue16_init_writes_the_suites_a_repository_needs() {
    let p = fixture("polyglot");
    fs::remove_file(p.join("tapline.toml")).expect("rm");
    p.write("python/pytest.ini", "[pytest]\n");
    let ran = init(&p, &[]);
    assert_eq!(ran.code, 0, "{}", ran.both());
    assert!(
        ran.stderr.contains("tapline.toml (2 suites)"),
        "{}",
        ran.both()
    );
    let text = String::from_utf8(p.read("tapline.toml")).expect("utf-8");
    assert!(
        text.starts_with("# tapline.toml, written by `tapline init`"),
        "{text}"
    );
    assert!(
        text.contains(
            "[[suite]]\nname = \"go\"\ndir = \"go\"\ncommand = [\"go\", \"test\", \"-json\", \"./...\"]\nformat = \"go-json\"\n"
        ),
        "{text}"
    );
    assert!(
        text.contains("[[suite]]\nname = \"pytest\"\ndir = \"python\"\n"),
        "{text}"
    );
    assert!(text.contains("# A plain run walks t/"), "{text}");
    // What it wrote is a tapline.toml a run reads: the suites are listed.
    let listed = p.run(&["--list"]);
    assert_eq!(listed.code, 0, "{}", listed.both());
    assert!(listed.stdout.contains("t/numbers.t\t"), "{}", listed.both());

    // It never overwrites without being asked.
    p.write("tapline.toml", "# mine\n");
    let again = init(&p, &[]);
    assert_eq!(again.code, 2, "{}", again.both());
    assert_eq!(
        again.stderr,
        format!(
            "tapline: failed to write {}: it already exists (`tapline init --force` replaces it)\n",
            p.join("tapline.toml").display()
        )
    );
    assert_eq!(p.read("tapline.toml"), b"# mine\n");
    let forced = init(&p, &["--force"]);
    assert_eq!(forced.code, 0, "{}", forced.both());
    assert_ne!(p.read("tapline.toml"), b"# mine\n");
}
