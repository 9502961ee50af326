//! tstest projects run as tstest runs them (issue 29): a folder's `00init` module runs first
//! in each of that folder's files (node under the project's tsx, and Chromium), a failing one
//! fails them with its error, it is in their traces; `*.para__N.*` files of one group run at
//! the same time and the other files one at a time; `--tag` selects files by their tags.
use crate::util::browser::path_without_esbuild;
use crate::util::{file_doc, require, tool, Project};
use serde_json::Value;
use std::fs;

/// Counts its runs in the process (a global) and in `init-runs.txt` (node only: a page has no
/// files), as a real `00init.ts` sets global state up.
const INIT: &str = r#"const g = globalThis as any;
g.initRuns = (g.initRuns ?? 0) + 1;
const fs = g.process?.getBuiltinModule?.('fs');
fs?.appendFileSync('init-runs.txt', 'ran\n');
"#;

/// A test that passes when the folder's init ran exactly once before it.
const SEES_INIT_ONCE: &str = r#"const n = (globalThis as any).initRuns;
console.log('1..1');
console.log(n === 1 ? 'ok 1 - 00init ran once before me' : `not ok 1 - 00init ran ${n} times`);
"#;

/// A test that passes when no init ran before it.
const SEES_NO_INIT: &str = r#"const n = (globalThis as any).initRuns;
console.log('1..1');
console.log(n === undefined ? 'ok 1 - no 00init ran' : `not ok 1 - 00init ran ${n} times`);
"#;

/// A project whose `npm test` is `tstest test/`, TypeScript running under the real tsx.
fn tstest_project() -> Project {
    let p = Project::new();
    p.write(
        "package.json",
        r#"{"name": "fixture", "scripts": {"test": "tstest test/"}}"#,
    );
    fs::create_dir_all(p.join("node_modules/.bin")).expect("mkdir");
    std::os::unix::fs::symlink(tool("tsx"), p.join("node_modules/.bin/tsx")).expect("symlink");
    p
}

/// The sandbox's private `/tmp` hides a tsx kept under `/tmp` (a checkout there keeps its
/// tools in `target/ci-tools`): the project then gets its own copy of the packages tsx runs
/// from, inside the folder the sandbox binds.
fn own_tsx(p: &Project) {
    let real = fs::canonicalize(tool("tsx")).expect("tsx's real path");
    if !real.starts_with("/tmp") {
        return;
    }
    let modules = real
        .ancestors()
        .find(|a| a.file_name().is_some_and(|n| n == "node_modules"))
        .expect("tsx lives in a node_modules");
    let inner = real.strip_prefix(modules).expect("inside node_modules");
    fs::remove_dir_all(p.join("node_modules")).expect("rm node_modules");
    let copied = std::process::Command::new("cp")
        .arg("-a")
        .arg(modules)
        .arg(p.join("node_modules"))
        .status()
        .expect("cp runs");
    assert!(copied.success(), "copy {}", modules.display());
    let bin = p.join("node_modules/.bin/tsx");
    if fs::symlink_metadata(&bin).is_err() {
        fs::create_dir_all(p.join("node_modules/.bin")).expect("mkdir .bin");
        std::os::unix::fs::symlink(std::path::Path::new("..").join(inner), &bin)
            .expect("symlink tsx");
    }
}

fn reasons(doc: &Value, path: &str) -> String {
    file_doc(doc, path)["reasons"].to_string()
}

#[test]
fn issue29_a_folders_00init_runs_first_in_each_of_its_files_only() {
    let test = "issue29_a_folders_00init_runs_first_in_each_of_its_files_only";
    if !require(test, &["node", "tsx"]) {
        return;
    }
    let p = tstest_project();
    p.write("test/00init.ts", INIT)
        .write("test/test.a.ts", SEES_INIT_ONCE)
        .write("test/test.b.ts", SEES_INIT_ONCE)
        .write("test/sub/test.c.ts", SEES_NO_INIT);
    let ran = p.run(&["--format", "summary"]);
    let doc = ran.summary_doc();
    assert_eq!(ran.code, 0, "{}", ran.both());
    assert_eq!(doc["files"].as_array().map(Vec::len), Some(3), "{doc:#}");
    assert_eq!(
        p.read_text("init-runs.txt"),
        "ran\nran\n",
        "once per file of its folder"
    );
}

#[test]
fn issue29_a_failing_00init_fails_its_folders_files_with_its_error() {
    let test = "issue29_a_failing_00init_fails_its_folders_files_with_its_error";
    if !require(test, &["node", "tsx"]) {
        return;
    }
    let p = tstest_project();
    p.write("test/00init.ts", "throw new Error('no database here');\n")
        .write("test/test.a.ts", SEES_INIT_ONCE)
        .write("test/test.b.ts", SEES_INIT_ONCE)
        .write("test/sub/test.c.ts", SEES_NO_INIT);
    let ran = p.run(&["--format", "summary"]);
    let doc = ran.summary_doc();
    assert_eq!(ran.code, 1, "{}", ran.both());
    for file in ["test/test.a.ts", "test/test.b.ts"] {
        assert_eq!(file_doc(&doc, file)["ok"], false, "{doc:#}");
        assert!(
            reasons(&doc, file).contains("test/00init.ts failed: Error: no database here"),
            "{file}: {}",
            reasons(&doc, file)
        );
    }
    // Not a bail-out of the run: the other folder's file ran and passed.
    assert_eq!(file_doc(&doc, "test/sub/test.c.ts")["ok"], true, "{doc:#}");
}

/// Plain node files: `00init.js` is no test of its own, runs first, and is in the traces.
#[test]
fn issue29_00init_is_in_its_folders_traces_and_no_test() {
    let test = "issue29_00init_is_in_its_folders_traces_and_no_test";
    if !require(test, &["node"]) {
        return;
    }
    let p = Project::new();
    p.write(
        "test/00init.js",
        "globalThis.initRuns = (globalThis.initRuns ?? 0) + 1;\n",
    )
    .write(
        "test/a.test.js",
        "console.log('1..1');\n\
             console.log(globalThis.initRuns === 1 ? 'ok 1 - init' : 'not ok 1 - init');\n",
    )
    .write("other/b.test.js", "console.log('1..1\\nok 1 - b');\n");
    let ran = p.run(&["--format", "summary", "test", "other"]);
    let doc = ran.summary_doc();
    assert_eq!(ran.code, 0, "{}", ran.both());
    let paths: Vec<&str> = doc["files"]
        .as_array()
        .expect("files")
        .iter()
        .filter_map(|f| f["path"].as_str())
        .collect();
    assert_eq!(paths.len(), 2, "00init.js is not a test: {paths:?}");
    let ran = p.run(&["--affected-by", "test/00init.js", "--", "test", "other"]);
    assert_eq!(ran.code, 0, "{}", ran.both());
    assert!(
        ran.stderr
            .contains("1 of 2 test files affected by test/00init.js")
            && ran.stderr.contains("test/a.test.js  loaded test/00init.js"),
        "{}",
        ran.both()
    );
}

/// A stand-in for tsx that records when each file started and ended, around node.
const TIMING_RUNNER: &str = "#!/bin/sh\n\
    echo \"start $1 $(date +%s%N)\" >> times.txt\n\
    node \"$@\"; code=$?\n\
    echo \"end $1 $(date +%s%N)\" >> times.txt\n\
    exit $code\n";

/// Sleeps a second, then passes (plain JavaScript: the runner above is node).
const SLEEPS: &str = "setTimeout(() => console.log('1..1\\nok 1 - slept'), 1000);\n";

fn spans(times: &str) -> std::collections::BTreeMap<String, (u128, u128)> {
    let mut out = std::collections::BTreeMap::new();
    for line in times.lines() {
        let words: Vec<&str> = line.split(' ').collect();
        let [what, file, at] = words[..] else {
            panic!("bad line {line}")
        };
        let at: u128 = at.parse().expect("nanoseconds");
        let span = out.entry(file.to_owned()).or_insert((0, 0));
        if what == "start" {
            span.0 = at;
        } else {
            span.1 = at;
        }
    }
    out
}

fn overlap(a: (u128, u128), b: (u128, u128)) -> bool {
    a.0 < b.1 && b.0 < a.1
}

#[test]
fn issue29_para_groups_run_together_and_the_rest_alone() {
    let test = "issue29_para_groups_run_together_and_the_rest_alone";
    if !require(test, &["node"]) {
        return;
    }
    let p = Project::new();
    p.write(
        "package.json",
        r#"{"name": "fixture", "scripts": {"test": "tstest test/"}}"#,
    )
    .script("node_modules/.bin/tsx", TIMING_RUNNER)
    .write("test/test.a.para__1.ts", SLEEPS)
    .write("test/test.b.para__1.ts", SLEEPS)
    .write("test/test.c.ts", SLEEPS)
    .write("test/test.e.ts", SLEEPS);
    let ran = p.run(&["-j2", "--no-history"]);
    assert_eq!(ran.code, 0, "{}", ran.both());
    let s = spans(&p.read_text("times.txt"));
    let (a, b) = (s["test/test.a.para__1.ts"], s["test/test.b.para__1.ts"]);
    let (c, d) = (s["test/test.c.ts"], s["test/test.e.ts"]);
    assert!(overlap(a, b), "one group runs together: {s:?}");
    assert!(
        !overlap(c, d),
        "the other files one at a time, as tstest: {s:?}"
    );
    for plain in [c, d] {
        assert!(!overlap(plain, a) && !overlap(plain, b), "{s:?}");
        assert!(
            plain.1 <= a.0.min(b.0),
            "plain files first, as tstest: {s:?}"
        );
    }
}

#[test]
fn issue29_a_browser_files_00init_is_bundled_ahead_of_it() {
    let test = "issue29_a_browser_files_00init_is_bundled_ahead_of_it";
    if !require(test, &["chromium", "esbuild"]) {
        return;
    }
    let p = Project::new();
    p.write(
        "package.json",
        r#"{"name": "fixture", "scripts": {"test": "tstest test/"}}"#,
    )
    .write("test/00init.ts", INIT)
    .write("test/test.a.browser.ts", SEES_INIT_ONCE)
    .write("test/test.b.browser.ts", SEES_INIT_ONCE)
    .write("test/sub/test.c.browser.ts", SEES_NO_INIT);
    let mut path = std::ffi::OsString::from(tool("esbuild").parent().expect("esbuild's folder"));
    path.push(":");
    path.push(path_without_esbuild());
    let out = p
        .command(&["--format", "summary"])
        .env("PATH", &path)
        .env("TAPLINE_CHROMIUM", tool("chromium"))
        .output()
        .expect("tapline runs");
    let doc: Value = serde_json::from_slice(&out.stdout).expect("summary JSON");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{doc:#}\n{stderr}");
    assert_eq!(doc["files"].as_array().map(Vec::len), Some(3), "{doc:#}");
    // The bundle's inputs hold the init: a change to it affects its folder's files only.
    let out = p
        .command(&["--affected-by", "test/00init.ts"])
        .env("PATH", &path)
        .env("TAPLINE_CHROMIUM", tool("chromium"))
        .output()
        .expect("tapline runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("2 of 3 test files affected by test/00init.ts")
            && stderr.contains("test/test.a.browser.ts  loaded test/00init.ts"),
        "{stderr}"
    );
    // A failing init fails the page with its error, where it was thrown.
    p.write(
        "test/bad/00init.ts",
        "throw new Error('no database here');\n",
    )
    .write("test/bad/test.f.browser.ts", SEES_INIT_ONCE);
    let out = p
        .command(&["--format", "summary", "test/bad"])
        .env("PATH", &path)
        .env("TAPLINE_CHROMIUM", tool("chromium"))
        .output()
        .expect("tapline runs");
    let doc: Value = serde_json::from_slice(&out.stdout).expect("summary JSON");
    assert!(
        reasons(&doc, "test/bad/test.f.browser.ts")
            .contains("Error: no database here (test/bad/00init.ts:1:7)"),
        "{doc:#}"
    );
    // Without esbuild the init cannot run ahead of the file: it fails, saying why.
    p.write(
        "test/test.e.browser.js",
        "console.log('1..1\\nok 1 - x');\n",
    );
    let out = p
        .command(&["--format", "summary", "test/test.e.browser.js"])
        .env("PATH", path_without_esbuild())
        .env("TAPLINE_CHROMIUM", tool("chromium"))
        .output()
        .expect("tapline runs");
    let doc: Value = serde_json::from_slice(&out.stdout).expect("summary JSON");
    assert!(
        reasons(&doc, "test/test.e.browser.js")
            .contains("00init.ts runs ahead of it only in a bundle"),
        "{doc:#}"
    );
}

/// A file that declares `tags` the way tapbundle's tests do, and passes.
fn tagged(tags: &str) -> String {
    format!(
        "const tap = {{ tags: (...t) => ({{ test: () => t }}) }};\n\
         tap.tags({tags}).test('x', () => {{}});\n\
         console.log('1..1\\nok 1 - x');\n"
    )
}

#[test]
fn issue29_tag_selects_the_files_that_declare_it() {
    let test = "issue29_tag_selects_the_files_that_declare_it";
    if !require(test, &["node"]) {
        return;
    }
    let p = Project::new();
    p.write("test/db.test.js", tagged("'db', \"slow\""))
        .write("test/unit.test.js", tagged("'unit'"))
        .write("test/none.test.js", "console.log('1..1\\nok 1 - x');\n")
        .write(
            "test/env.test.js",
            "const tap = { tags() {} };\ntap.tags('env');\n\
             console.log('1..1');\n\
             console.log(process.env.TSTEST_FILTER_TAGS === 'env,db' ? 'ok 1' : 'not ok 1');\n",
        );
    let paths = |args: &[&str]| -> Vec<String> {
        let ran = p.run(&[&["--format", "summary", "--no-history"], args].concat());
        assert_eq!(ran.code, 0, "{}", ran.both());
        let doc = ran.summary_doc();
        let mut paths: Vec<String> = doc["files"]
            .as_array()
            .expect("files")
            .iter()
            .filter_map(|f| f["path"].as_str().map(str::to_owned))
            .collect();
        paths.sort();
        paths
    };
    assert_eq!(paths(&["--tag", "slow"]), ["test/db.test.js"]);
    assert_eq!(
        paths(&["--tag", "unit", "--tag", "db"]),
        ["test/db.test.js", "test/unit.test.js"]
    );
    // The tags go on to the files, as tstest passes them to tapbundle.
    assert_eq!(
        paths(&["--tag", "env", "--tag", "db"]),
        ["test/db.test.js", "test/env.test.js"]
    );
    let ran = p.run(&["--tag", "nothing"]);
    assert_eq!(ran.code, 2, "no file declares it: {}", ran.both());
    assert!(
        ran.stderr.contains("no test file selected"),
        "{}",
        ran.both()
    );
}

/// Under `--sandbox` (a private `/tmp`, which hides tapline's temp folder) the init still runs
/// first: its hook goes on the command line instead.
#[test]
fn issue29_00init_runs_first_inside_the_sandbox() {
    let test = "issue29_00init_runs_first_inside_the_sandbox";
    if !require(test, &["bwrap", "node", "tsx"]) {
        return;
    }
    let p = tstest_project();
    own_tsx(&p);
    p.write("test/00init.ts", "(globalThis as any).initRuns = 1;\n")
        .write("test/test.a.ts", SEES_INIT_ONCE);
    let ran = p.run(&["--sandbox", "--format", "summary", "--no-history"]);
    let doc = ran.summary_doc();
    assert_eq!(ran.code, 0, "{}", ran.both());
    assert_eq!(file_doc(&doc, "test/test.a.ts")["ok"], true, "{doc:#}");
}
