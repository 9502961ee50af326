//! Issue 40, Rust: a bare `tapline run` in a crate or workspace runs `cargo test` on stable,
//! one entry per test binary (the lib's unit tests, each `tests/*.rs`, the doc tests), each
//! libtest test a point, a failure explained by its panic (message, `left`/`right`,
//! location); a PATH names binaries; `-t` and `--only-failed` go through libtest's filter;
//! `tapline list` lists what libtest lists. Fixture: test-data/suites/rust-basic (src/lib.rs:
//! 2 pass, 1 fails an `assert_eq!`, 1 ignored; tests/api.rs: 1 pass; 1 doc test), run from a
//! temporary copy so that cargo's target/ stays out of the repository.
use crate::util::{copy_dir, file_doc, repo, require, Project, Ran};
use serde_json::{json, Value};

/// A copy of the fixture, a project of its own.
fn crate_copy() -> Project {
    let p = Project::new();
    copy_dir(&repo().join("test-data/suites/rust-basic"), p.path());
    p
}

/// `tapline run ARGS --format summary` in `dir` of `p` (no backtraces: the same output every
/// time).
fn run_in(p: &Project, dir: &str, args: &[&str]) -> (Ran, Value) {
    let mut argv = vec!["--no-history", "--format", "summary"];
    argv.extend_from_slice(args);
    let mut cmd = p.command(&argv);
    cmd.current_dir(p.join(dir)).env("RUST_BACKTRACE", "0");
    let ran = Ran::of(cmd.output().expect("tapline runs"), Default::default());
    let doc = ran.summary_doc();
    (ran, doc)
}

fn run(p: &Project, args: &[&str]) -> (Ran, Value) {
    run_in(p, "", args)
}

/// The files of a summary, by path, in the order reported.
fn paths(doc: &Value) -> Vec<String> {
    let mut out: Vec<String> = (doc["files"].as_array().into_iter().flatten())
        .filter_map(|f| f["path"].as_str().map(str::to_owned))
        .collect();
    out.sort();
    out
}

/// A file's (pass, fail, skip).
fn counts(doc: &Value, path: &str) -> (u64, u64, u64) {
    let t = &file_doc(doc, path)["tests"];
    let n = |k: &str| t[k].as_u64().unwrap_or(u64::MAX);
    (n("pass"), n("fail"), n("skip"))
}

/// `cargo test --no-fail-fast`'s own totals: the sums of its `test result:` lines' passed,
/// failed and ignored.
fn cargo_totals(p: &Project) -> (u64, u64, u64) {
    let out = std::process::Command::new("cargo")
        .args(["test", "--no-fail-fast"])
        .current_dir(p.path())
        .env("RUST_BACKTRACE", "0")
        .output()
        .expect("cargo runs");
    let text = String::from_utf8_lossy(&out.stdout);
    let mut sums = (0, 0, 0);
    for line in text.lines().filter(|l| l.starts_with("test result: ")) {
        let n = |word: &str| -> u64 {
            let before = line.split(&format!(" {word}")).next().unwrap_or_default();
            let digits = before.rsplit([' ', ';']).next().unwrap_or_default();
            digits
                .parse()
                .unwrap_or_else(|_| panic!("{word} in {line}"))
        };
        sums.0 += n("passed");
        sums.1 += n("failed");
        sums.2 += n("ignored");
    }
    sums
}

#[test]
fn issue40_rust_a_bare_run_runs_each_test_binary_as_cargo_test_does() {
    if !require(
        "issue40_rust_a_bare_run_runs_each_test_binary_as_cargo_test_does",
        &["cargo"],
    ) {
        return;
    }
    let p = crate_copy();
    let (ran, doc) = run(&p, &[]);
    assert_eq!(ran.code, 1, "{}", ran.both());
    assert_eq!(
        paths(&doc),
        ["src/lib.rs", "src/lib.rs (doc tests)", "tests/api.rs"],
        "{}",
        ran.both()
    );
    assert_eq!(file_doc(&doc, "src/lib.rs")["ok"], false);
    assert_eq!(counts(&doc, "src/lib.rs"), (2, 1, 1), "{}", ran.both());
    assert_eq!(file_doc(&doc, "tests/api.rs")["ok"], true);
    assert_eq!(counts(&doc, "tests/api.rs"), (1, 0, 0));
    assert_eq!(file_doc(&doc, "src/lib.rs (doc tests)")["ok"], true);
    assert_eq!(counts(&doc, "src/lib.rs (doc tests)"), (1, 0, 0));
    // The failure: assert_eq!(sub(5, 3), 2) found 8, at its line.
    let failure = &file_doc(&doc, "src/lib.rs")["failures"][0];
    assert_eq!(failure["path"][0], "tests::subtracts", "{failure:#}");
    assert_eq!(failure["location"], "src/lib.rs:28:9", "{failure:#}");
    assert_eq!(failure["message"], "assertion `left == right` failed");
    // libtest's `Debug` text, shown as Rust printed it (issue 41): `2`, not `"2"`; the sides
    // called as Rust calls them.
    assert_eq!(
        failure["diff"],
        json!(["- left: 8", "+ right: 2"]),
        "{failure:#}"
    );
    // cargo test's own count is tapline's.
    let total = |k: &str| -> u64 {
        (doc["files"].as_array().into_iter().flatten())
            .map(|f| f["tests"][k].as_u64().unwrap_or(0))
            .sum()
    };
    assert_eq!(
        (total("pass"), total("fail"), total("skip")),
        cargo_totals(&p),
        "{}",
        ran.both()
    );
    // Each binary has its own log.
    assert!(p.join(".nogit/testlogs/tests__api.log").is_file());
}

#[test]
fn issue40_rust_a_path_or_a_subfolder_runs_those_binaries() {
    if !require(
        "issue40_rust_a_path_or_a_subfolder_runs_those_binaries",
        &["cargo"],
    ) {
        return;
    }
    let p = crate_copy();
    let (ran, doc) = run(&p, &["tests/api.rs"]);
    assert_eq!(ran.code, 0, "{}", ran.both());
    assert_eq!(paths(&doc), ["tests/api.rs"], "{}", ran.both());
    // From tests/: the crate's root is the project (Cargo.toml), its tests/ binaries run.
    let (ran, doc) = run_in(&p, "tests", &[]);
    assert_eq!(ran.code, 0, "{}", ran.both());
    assert_eq!(paths(&doc), ["tests/api.rs"], "{}", ran.both());
    assert_eq!(counts(&doc, "tests/api.rs"), (1, 0, 0));
    assert!(
        !p.join("tests/.nogit").exists(),
        "logs go under the root's .nogit"
    );
}

#[test]
fn issue40_rust_t_and_only_failed_narrow_through_libtests_filter() {
    if !require(
        "issue40_rust_t_and_only_failed_narrow_through_libtests_filter",
        &["cargo"],
    ) {
        return;
    }
    let p = crate_copy();
    let (ran, doc) = run(&p, &["-t", "adds"]);
    assert_eq!(ran.code, 0, "{}", ran.both());
    // libtest's substring filter: tests::adds and adds_from_outside, nothing else.
    assert_eq!(counts(&doc, "src/lib.rs"), (1, 0, 0), "{}", ran.both());
    assert_eq!(counts(&doc, "tests/api.rs"), (1, 0, 0), "{}", ran.both());
    // --only-failed after a whole run: the one failed test, by its exact name.
    let out = p
        .command(&[])
        .env("RUST_BACKTRACE", "0")
        .output()
        .expect("tapline runs");
    assert_eq!(out.status.code(), Some(1));
    let (ran, doc) = run(&p, &["--only-failed"]);
    assert_eq!(ran.code, 1, "{}", ran.both());
    assert_eq!(paths(&doc), ["src/lib.rs"], "{}", ran.both());
    assert_eq!(counts(&doc, "src/lib.rs"), (0, 1, 0), "{}", ran.both());
}

#[test]
fn issue40_rust_a_binary_that_does_not_build_fails_with_the_compilers_error() {
    if !require(
        "issue40_rust_a_binary_that_does_not_build_fails_with_the_compilers_error",
        &["cargo"],
    ) {
        return;
    }
    let p = crate_copy();
    p.write(
        "tests/broken.rs",
        "#[test]\nfn nope() {\n    let _x: i32 = \"a\";\n}\n",
    );
    let (ran, doc) = run(&p, &[]);
    assert_eq!(ran.code, 1, "{}", ran.both());
    let broken = file_doc(&doc, "tests/broken.rs");
    assert_eq!(broken["ok"], false, "{}", ran.both());
    let reasons = broken["reasons"].to_string();
    assert!(
        reasons.contains("error[E0308]: mismatched types at tests/broken.rs:3:19"),
        "{reasons}"
    );
    // The other binaries still ran.
    assert_eq!(counts(&doc, "tests/api.rs"), (1, 0, 0), "{}", ran.both());
}

#[test]
fn issue40_rust_a_crash_fails_the_binary_naming_the_test_that_ran() {
    if !require(
        "issue40_rust_a_crash_fails_the_binary_naming_the_test_that_ran",
        &["cargo"],
    ) {
        return;
    }
    let p = crate_copy();
    p.write(
        "tests/crash.rs",
        "#[test]\nfn fine() {}\n\n#[test]\nfn aborts() {\n    std::process::abort();\n}\n",
    );
    // One test thread: libtest names a test as it starts.
    let (ran, doc) = run_env(&p, &["tests/crash.rs"], &[("RUST_TEST_THREADS", "1")]);
    assert_eq!(ran.code, 1, "{}", ran.both());
    let crash = file_doc(&doc, "tests/crash.rs");
    let failure = &crash["failures"][0];
    assert_eq!(failure["path"][0], "aborts", "{}", ran.both());
    let message = failure["message"].as_str().unwrap_or_default();
    assert!(message.contains("SIGABRT"), "{message}");
}

/// [`run`] with variables set.
fn run_env(p: &Project, args: &[&str], env: &[(&str, &str)]) -> (Ran, Value) {
    let mut argv = vec!["--no-history", "--format", "summary"];
    argv.extend_from_slice(args);
    let mut cmd = p.command(&argv);
    cmd.env("RUST_BACKTRACE", "0");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let ran = Ran::of(cmd.output().expect("tapline runs"), Default::default());
    let doc = ran.summary_doc();
    (ran, doc)
}

#[test]
fn issue40_rust_a_workspace_runs_its_default_members() {
    if !require(
        "issue40_rust_a_workspace_runs_its_default_members",
        &["cargo"],
    ) {
        return;
    }
    let p = Project::new();
    p.write(
        "Cargo.toml",
        "[workspace]\nmembers = [\"crates/a\", \"crates/b\"]\ndefault-members = [\"crates/a\"]\nresolver = \"2\"\n",
    );
    for m in ["a", "b"] {
        p.write(
            &format!("crates/{m}/Cargo.toml"),
            format!("[package]\nname = \"{m}\"\nversion = \"0.1.0\"\nedition = \"2021\"\n"),
        );
        p.write(
            &format!("crates/{m}/src/lib.rs"),
            "#[test]\nfn works() {\n    assert!(std::path::Path::new(env!(\"CARGO_MANIFEST_DIR\")).join(\"Cargo.toml\").is_file());\n}\n",
        );
    }
    let (ran, doc) = run(&p, &[]);
    assert_eq!(ran.code, 0, "{}", ran.both());
    // `cargo test` at the root tests the default members: a's lib and its doc tests.
    assert_eq!(
        paths(&doc),
        ["crates/a/src/lib.rs", "crates/a/src/lib.rs (doc tests)"],
        "{}",
        ran.both()
    );
    assert_eq!(counts(&doc, "crates/a/src/lib.rs"), (1, 0, 0));
    // In b's folder, b (cargo's package there).
    let (ran, doc) = run_in(&p, "crates/b", &[]);
    assert_eq!(ran.code, 0, "{}", ran.both());
    assert_eq!(
        paths(&doc),
        ["src/lib.rs", "src/lib.rs (doc tests)"],
        "{}",
        ran.both()
    );
}

#[test]
fn issue40_rust_list_lists_what_libtest_lists() {
    if !require("issue40_rust_list_lists_what_libtest_lists", &["cargo"]) {
        return;
    }
    let p = crate_copy();
    let ran = p.tapline(&["list"]);
    assert_eq!(ran.code, 0, "{}", ran.both());
    for line in [
        "src/lib.rs > tests::adds",
        "src/lib.rs > tests::overflows",
        "src/lib.rs > tests::slow",
        "src/lib.rs > tests::subtracts",
        "tests/api.rs > adds_from_outside",
        "src/lib.rs (doc tests) > src/lib.rs - add (line 5)",
    ] {
        assert!(
            ran.stdout.lines().any(|l| l == line),
            "{line}: {}",
            ran.both()
        );
    }
    // What stands for a binary's tests before it is built gives way to libtest's names.
    assert!(!ran.stdout.contains("once built"), "{}", ran.both());
    assert!(ran.stdout.contains("6 tests in 3 files"), "{}", ran.both());
}

#[test]
fn issue40_rust_a_dependency_named_as_the_crate_selects_no_other() {
    if !require(
        "issue40_rust_a_dependency_named_as_the_crate_selects_no_other",
        &["cargo"],
    ) {
        return;
    }
    // As in dtolnay/itoa, whose dev-dependencies pull in an itoa of the registry: `-p itoa`
    // is ambiguous there, and cargo refuses it.
    let p = Project::new();
    p.write(
        "Cargo.toml",
        "[package]\nname = \"twin\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n\
         [dev-dependencies]\nold = { package = \"twin\", path = \"vendor/twin\" }\n\n\
         [workspace]\nexclude = [\"vendor\"]\n",
    );
    p.write(
        "vendor/twin/Cargo.toml",
        "[package]\nname = \"twin\"\nversion = \"0.2.0\"\nedition = \"2021\"\n",
    );
    p.write("vendor/twin/src/lib.rs", "pub fn one() -> u8 {\n    1\n}\n");
    p.write(
        "src/lib.rs",
        "#[test]\nfn uses_the_other_twin() {\n    assert_eq!(old::one(), 1);\n}\n",
    );
    let (ran, doc) = run(&p, &[]);
    assert_eq!(ran.code, 0, "{}", ran.both());
    assert_eq!(counts(&doc, "src/lib.rs"), (1, 0, 0), "{}", ran.both());
}

#[test]
fn issue40_rust_a_nextest_project_runs_through_nextest() {
    if !require(
        "issue40_rust_a_nextest_project_runs_through_nextest",
        &["cargo", "cargo-nextest"],
    ) {
        return;
    }
    let p = crate_copy();
    p.write(
        ".config/nextest.toml",
        "[profile.default]\nslow-timeout = \"60s\"\n",
    );
    // cargo-nextest where .ci/run put it (after PATH), on the child's PATH.
    let nextest = crate::util::tool("cargo-nextest");
    let dir = nextest.parent().expect("a folder").to_owned();
    let path = std::env::var_os("PATH").unwrap_or_default();
    let mut dirs: Vec<std::path::PathBuf> = std::env::split_paths(&path).collect();
    dirs.push(dir);
    let path = std::env::join_paths(dirs).expect("a PATH");
    let path = path.to_string_lossy().into_owned();
    let listed = p
        .command(&["--list"])
        .env("PATH", &path)
        .output()
        .expect("tapline runs");
    let listed = String::from_utf8_lossy(&listed.stdout).into_owned();
    assert!(listed.contains("cargo nextest run"), "{listed}");
    let (ran, doc) = run_env(&p, &[], &[("PATH", &path)]);
    assert_eq!(ran.code, 1, "{}", ran.both());
    assert_eq!(
        paths(&doc),
        ["src/lib.rs", "src/lib.rs (doc tests)", "tests/api.rs"],
        "{}",
        ran.both()
    );
    // nextest's counts are cargo test's; the doc tests still run through cargo test.
    assert_eq!(counts(&doc, "src/lib.rs"), (2, 1, 1), "{}", ran.both());
    assert_eq!(counts(&doc, "tests/api.rs"), (1, 0, 0), "{}", ran.both());
    assert_eq!(counts(&doc, "src/lib.rs (doc tests)"), (1, 0, 0));
    let failure = &file_doc(&doc, "src/lib.rs")["failures"][0];
    assert_eq!(failure["location"], "src/lib.rs:28:9", "{failure:#}");
    assert_eq!(failure["diff"][1], "+ right: 2", "{failure:#}");
}
