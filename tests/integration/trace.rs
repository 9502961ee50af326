//! Issue 19: dependency traces. Each language's hook records the project files a test loaded
//! (and nothing outside the project), adds nothing to its output, and never fails it; breaking
//! a library file fails only test files whose trace holds it (the mutation check, on the
//! suites of test-data/suites/traced); `--affected-by` and `--changed` select the same files.
use crate::util::{copy_dir, repo, require, Project, Ran};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::Path;

/// test-data/suites/traced/<lang> as a fresh project.
fn suite(lang: &str) -> Project {
    let p = Project::new();
    copy_dir(&repo().join("test-data/suites/traced").join(lang), p.path());
    p
}

/// The stored traces: each test file's project files.
fn traces(p: &Project) -> BTreeMap<String, Vec<String>> {
    let dir = p.join(".nogit/testlogs/traces");
    let mut out = BTreeMap::new();
    for entry in fs::read_dir(&dir).into_iter().flatten().flatten() {
        let text = fs::read_to_string(entry.path()).expect("read trace");
        let mut lines = text.lines();
        let test = lines
            .next()
            .and_then(|l| l.strip_prefix("test "))
            .expect("a test line")
            .to_owned();
        out.insert(test, lines.map(str::to_owned).collect());
    }
    out
}

fn expect(list: &[(&str, &[&str])]) -> BTreeMap<String, Vec<String>> {
    list.iter()
        .map(|(t, files)| (t.to_string(), files.iter().map(|f| f.to_string()).collect()))
        .collect()
}

fn passes(ran: &Ran) {
    assert_eq!(ran.code, 0, "{}", ran.both());
}

fn perl_traces() -> BTreeMap<String, Vec<String>> {
    expect(&[
        ("t/cart.t", &["lib/Shop/Cart.pm", "lib/Shop/Price.pm"]),
        // Loaded in a forked child only.
        ("t/fork.t", &["lib/Shop/Price.pm"]),
        ("t/name.t", &["lib/Shop/Name.pm", "t/lib/Helper.pm"]),
        ("t/price.t", &["lib/Shop/Price.pm"]),
        // Loaded by a perl the test started.
        ("t/sub.t", &["lib/Shop/Name.pm"]),
        // `#!perl -T`: PERL5OPT is ignored, the hook goes on the command line.
        ("t/taint.t", &["lib/Shop/Name.pm"]),
    ])
}

#[test]
fn issue19_perl_traces_name_the_project_files_each_test_loaded_with_and_without_taint() {
    if !require(
        "issue19_perl_traces_name_the_project_files_each_test_loaded_with_and_without_taint",
        &["perl"],
    ) {
        return;
    }
    let p = suite("perl");
    passes(&p.run(&[]));
    assert_eq!(traces(&p), perl_traces());
}

#[test]
fn issue19_node_traces_name_commonjs_and_es_module_loads() {
    if !require(
        "issue19_node_traces_name_commonjs_and_es_module_loads",
        &["node"],
    ) {
        return;
    }
    let cjs = suite("node-cjs");
    passes(&cjs.run(&[]));
    assert_eq!(
        traces(&cjs),
        expect(&[
            (
                "test/cart.test.js",
                &["lib/cart.js", "lib/price.js", "test/cart.test.js"]
            ),
            (
                "test/price.test.js",
                &["lib/price.js", "test/price.test.js"]
            ),
            ("test/sub.test.js", &["lib/name.js", "test/sub.test.js"]),
        ])
    );
    let esm = suite("node-esm");
    passes(&esm.run(&[]));
    assert_eq!(
        traces(&esm),
        expect(&[
            (
                "test/cart.test.js",
                &["lib/cart.js", "lib/price.js", "test/cart.test.js"]
            ),
            // A dynamic import().
            ("test/name.test.js", &["lib/name.js", "test/name.test.js"]),
            (
                "test/price.test.js",
                &["lib/price.js", "test/price.test.js"]
            ),
        ])
    );
}

#[test]
fn issue19_python_traces_name_the_modules_loaded() {
    if !require(
        "issue19_python_traces_name_the_modules_loaded",
        &["python3"],
    ) {
        return;
    }
    let p = suite("python");
    passes(&p.run(&[]));
    assert_eq!(
        traces(&p),
        expect(&[
            (
                "tests/test_cart.py",
                &["shop/__init__.py", "shop/cart.py", "shop/price.py"]
            ),
            (
                "tests/test_price.py",
                &["shop/__init__.py", "shop/price.py"]
            ),
            ("tests/test_sub.py", &["shop/__init__.py", "shop/name.py"]),
        ])
    );
}

/// A sitecustomize of the project's own still runs under the hook that shadows it, and the
/// hook's folder is not left on sys.path.
#[test]
fn issue19_python_hook_hands_over_to_the_projects_sitecustomize() {
    if !require(
        "issue19_python_hook_hands_over_to_the_projects_sitecustomize",
        &["python3"],
    ) {
        return;
    }
    let p = Project::new();
    p.write(
        "site/sitecustomize.py",
        "import builtins\nbuiltins.CUSTOMIZED = True\n",
    );
    p.write(
        "tests/test_site.py",
        "import sys\nok = getattr(__builtins__, 'CUSTOMIZED', False) and not any('tapline-trace' in x for x in sys.path)\nprint('1..1')\nprint('ok 1' if ok else 'not ok 1')\n",
    );
    let site = p.join("site");
    let env = format!("PYTHONPATH={}", site.display());
    passes(&p.run(&["--env", &env]));
    assert_eq!(traces(&p).len(), 1, "{:?}", traces(&p));
}

#[test]
fn issue19_a_go_suite_is_traced_by_go_list() {
    if !require("issue19_a_go_suite_is_traced_by_go_list", &["go"]) {
        return;
    }
    let p = Project::new();
    copy_dir(
        &repo().join("test-data/suites/polyglot/go"),
        &p.join("gomod"),
    );
    p.write(
        "tapline.toml",
        "[[suite]]\nname = \"go\"\ndir = \"gomod\"\ncommand = [\"go\", \"test\", \"-json\", \"./...\"]\nformat = \"go-json\"\n",
    );
    let ran = p.command(&[]).env("GOFLAGS", "-mod=mod").output();
    let out = ran.expect("tapline runs");
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    // go.mod is no package file: a change to it runs everything anyway.
    assert_eq!(
        traces(&p),
        expect(&[("go", &["gomod/greet/greet.go", "gomod/greet/greet_test.go"])])
    );
}

/// Every file's log (every byte it wrote), by name, under `dir`.
fn logs(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    fs::read_dir(dir)
        .expect("log folder")
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "log"))
        .map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            (name, fs::read(e.path()).expect("read log"))
        })
        .collect()
}

#[test]
fn issue19_tracing_adds_nothing_to_a_tests_output() {
    for lang in ["perl", "node-cjs", "node-esm", "python"] {
        let program = match lang {
            "perl" => "perl",
            "python" => "python3",
            _ => "node",
        };
        if !require(
            &format!("issue19_tracing_adds_nothing_to_a_tests_output: its {program} files"),
            &[program],
        ) {
            continue;
        }
        let p = suite(lang);
        passes(&p.run(&["--log-dir", "traced", "--merge"]));
        passes(&p.run(&["--log-dir", "plain", "--merge", "--no-trace"]));
        let traced = logs(&p.join("traced"));
        assert!(!traced.is_empty(), "{lang}: no logs");
        assert_eq!(traced, logs(&p.join("plain")), "{lang}");
        assert!(p.join("traced/traces").is_dir(), "{lang}: traced");
        assert!(
            !p.join("plain/traces").exists(),
            "{lang}: --no-trace records none"
        );
    }
}

#[test]
fn issue19_trace_false_in_tapline_toml_records_none() {
    if !require(
        "issue19_trace_false_in_tapline_toml_records_none",
        &["perl"],
    ) {
        return;
    }
    let p = suite("perl");
    p.write("tapline.toml", "[run]\ntrace = false\n");
    passes(&p.run(&[]));
    assert!(!p.join(".nogit/testlogs/traces").exists());
}

/// Each test makes the trace file a folder, which no hook can append to: the test still
/// passes, and the file's earlier trace is gone (no trace: it may depend on anything).
#[test]
fn issue19_a_trace_the_hook_cannot_write_does_not_fail_the_test() {
    let cases = [
        (
            "perl",
            "t/block.t",
            "mkdir $ENV{TAPLINE_TRACE_OUT} if $ENV{BLOCK};\nprint \"1..1\\nok 1\\n\";\n",
        ),
        (
            "node",
            "test/block.test.js",
            "if (process.env.BLOCK) require('fs').mkdirSync(process.env.TAPLINE_TRACE_OUT);\nconsole.log('1..1\\nok 1');\n",
        ),
        (
            "python3",
            "tests/test_block.py",
            "import os\nif os.environ.get('BLOCK'): os.mkdir(os.environ['TAPLINE_TRACE_OUT'])\nprint('1..1')\nprint('ok 1')\n",
        ),
    ];
    for (program, file, text) in cases {
        if !require(
            &format!(
                "issue19_a_trace_the_hook_cannot_write_does_not_fail_the_test: its {program} files"
            ),
            &[program],
        ) {
            continue;
        }
        let p = Project::new();
        p.write(file, text);
        passes(&p.run(&[]));
        assert_eq!(traces(&p).len(), 1, "{program}: traced when it can write");
        let ran = p.run(&["--env", "BLOCK=1", "--merge", "-v"]);
        passes(&ran);
        assert!(!ran.stderr.contains("TaplineTrace"), "{}", ran.both());
        assert_eq!(traces(&p), BTreeMap::new(), "{program}: no trace now");
    }
}

/// The files a `--format summary` run ran, and those of them that failed.
fn ran_and_failed(ran: &Ran) -> (BTreeSet<String>, BTreeSet<String>) {
    let doc: Value = ran.summary_doc();
    let files = doc["files"].as_array().cloned().unwrap_or_default();
    let path = |f: &Value| f["path"].as_str().unwrap_or_default().to_owned();
    (
        files.iter().map(path).collect(),
        files
            .iter()
            .filter(|f| f["ok"] == false)
            .map(path)
            .collect(),
    )
}

/// The mutation check: each library file broken in turn (it dies as it loads), every test
/// file that then fails must be among those `--affected-by` that file selects; and the
/// selection must be narrower than everything for some file, or it proves nothing.
fn mutation_check(lang: &str, libs: &[&str], breaker: &str) {
    let p = suite(lang);
    passes(&p.run(&[]));
    let mut narrower = false;
    for lib in libs {
        let clean = p.read(lib);
        let mut broken = breaker.as_bytes().to_vec();
        broken.extend(&clean);
        p.write(lib, &broken);
        let all = p.run(&["--no-trace", "--format", "summary"]);
        let (everything, failed) = ran_and_failed(&all);
        let picked = p.run(&["--no-trace", "--format", "summary", "--affected-by", lib]);
        let (selected, _) = ran_and_failed(&picked);
        p.write(lib, &clean);
        assert!(!failed.is_empty(), "{lang}: breaking {lib} failed nothing");
        assert!(
            failed.is_subset(&selected),
            "{lang}: breaking {lib} failed {failed:?}, but only {selected:?} were selected\n{}",
            picked.both()
        );
        narrower |= selected.len() < everything.len();
    }
    assert!(narrower, "{lang}: every selection ran everything");
}

#[test]
fn issue19_mutation_check_perl() {
    if require("issue19_mutation_check_perl", &["perl"]) {
        mutation_check(
            "perl",
            &[
                "lib/Shop/Price.pm",
                "lib/Shop/Cart.pm",
                "lib/Shop/Name.pm",
                "t/lib/Helper.pm",
            ],
            "die qq{mutated\\n};\n",
        );
    }
}

#[test]
fn issue19_mutation_check_node() {
    if require("issue19_mutation_check_node", &["node"]) {
        let libs = ["lib/price.js", "lib/cart.js", "lib/name.js"];
        mutation_check("node-cjs", &libs, "throw new Error('mutated');\n");
        mutation_check("node-esm", &libs, "throw new Error('mutated');\n");
    }
}

#[test]
fn issue19_mutation_check_python() {
    if require("issue19_mutation_check_python", &["python3"]) {
        mutation_check(
            "python",
            &[
                "shop/price.py",
                "shop/cart.py",
                "shop/name.py",
                "shop/__init__.py",
            ],
            "raise RuntimeError('mutated')\n",
        );
    }
}

fn git(p: &Project, args: &[&str]) {
    let out = std::process::Command::new("git")
        .args([
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "-c",
            "init.defaultBranch=main",
        ])
        .args(args)
        .current_dir(p.path())
        .output()
        .expect("git runs");
    assert!(out.status.success(), "git {args:?}: {out:?}");
}

/// The `tapline: N of M test files affected by …` note's file lines.
fn noted(ran: &Ran) -> Vec<String> {
    ran.stderr
        .lines()
        .filter(|l| l.starts_with("  t/"))
        .map(|l| l.trim().split("  ").next().unwrap_or_default().to_owned())
        .collect()
}

#[test]
fn issue19_affected_by_and_changed_select_the_same_files() {
    if !require(
        "issue19_affected_by_and_changed_select_the_same_files",
        &["perl", "git"],
    ) {
        return;
    }
    let p = suite("perl");
    fs::remove_dir(p.join(".git")).expect("rm the marker .git");
    git(&p, &["init", "-q"]);
    git(&p, &["add", "-A"]);
    git(&p, &["commit", "-qm", "base"]);
    git(&p, &["checkout", "-qb", "feature"]);
    passes(&p.run(&[]));

    // Nothing changed yet: nothing to run, and that is no failure.
    let none = p.run(&["--changed"]);
    passes(&none);
    assert!(
        none.stderr.contains("0 of 6 test files affected"),
        "{}",
        none.both()
    );

    let mut text = p.read("lib/Shop/Price.pm");
    text.extend(b"# edited\n");
    p.write("lib/Shop/Price.pm", &text);
    let by_path = p.run(&["--affected-by", "lib/Shop/Price.pm"]);
    let by_git = p.run(&["--changed"]);
    let by_rev = p.run(&["--changed", "HEAD"]);
    passes(&by_path);
    let files = noted(&by_path);
    assert_eq!(
        files,
        ["t/cart.t", "t/fork.t", "t/price.t"],
        "{}",
        by_path.both()
    );
    assert!(
        by_path
            .stderr
            .contains("t/cart.t  loaded lib/Shop/Price.pm"),
        "{}",
        by_path.both()
    );
    assert_eq!(noted(&by_git), files, "{}", by_git.both());
    assert_eq!(noted(&by_rev), files, "{}", by_rev.both());
    assert!(
        by_git.stderr.contains("changes since main"),
        "{}",
        by_git.both()
    );

    // An untracked file that shapes every run runs everything.
    p.write("cpanfile", "requires 'strict';\n");
    let all = p.run(&["--changed"]);
    assert_eq!(noted(&all).len(), 6, "{}", all.both());

    let bad = p.run(&["--changed", "no-such-rev"]);
    assert_eq!(bad.code, 2, "{}", bad.both());
    assert!(
        bad.stderr.contains("no such git revision"),
        "{}",
        bad.both()
    );
}
