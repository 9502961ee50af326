//! Issue 40, item 6: a busted project (`.busted`) runs with no configuration of tapline's:
//! the files `.busted`'s ROOT and pattern select, each as `busted -o TAP FILE` from the
//! project root (busted reading `.busted`'s options itself), failures named once (busted's
//! `# FILE @ LINE: name` announcements are not headings) and explained from busted's comments
//! (location, message, `Expected:`/`Passed in:` diffed).
use crate::util::{file_doc, require, Project};
use serde_json::json;

/// `.busted` selects `tests/*_check.lua` with an `lpath` of `src/`, verbose (its
/// announcements on); a helper beside the checks is not one.
fn project() -> Project {
    let p = Project::new();
    p.write(
        ".busted",
        "local unused = function() return 1 end\nreturn {\n  _all = { lpath = 'src/?.lua' },\n  default = {\n    verbose = true,\n    ROOT = {'tests'},\n    pattern = '_check%.lua$',\n  },\n}\n",
    );
    p.write(
        "src/calc.lua",
        "local M = {}\nfunction M.add(a, b) return a + b end\nfunction M.pair(a) return { a, a } end\nreturn M\n",
    );
    p.write(
        "tests/add_check.lua",
        "local calc = require('calc')\ndescribe('calc', function()\n  it('adds', function()\n    assert.are.equal(4, calc.add(2, 2))\n  end)\n  it('pairs', function()\n    assert.are.same({1, 1}, calc.pair(1))\n  end)\nend)\n",
    );
    p.write(
        "tests/more_check.lua",
        "local calc = require('calc')\ndescribe('more', function()\n  it('adds three', function()\n    assert.are.equal(3, calc.add(1, 2))\n  end)\nend)\n",
    );
    p.write("tests/helper.lua", "error('a helper is never run')\n");
    p
}

#[test]
fn issue40_busted_project_runs_busteds_files_through_busted() {
    if !require(
        "issue40_busted_project_runs_busteds_files_through_busted",
        &["busted"],
    ) {
        return;
    }
    let p = project();
    let listed = p.run(&["--list"]);
    assert_eq!(listed.code, 0, "{}", listed.both());
    assert!(
        listed
            .stdout
            .contains("tests/add_check.lua\tbusted -o TAP tests/add_check.lua"),
        "{}",
        listed.both()
    );
    assert!(!listed.stdout.contains("helper.lua"), "{}", listed.stdout);
    let ran = p.run(&["--format", "summary"]);
    assert_eq!(ran.code, 0, "{}", ran.both());
    let doc = ran.summary_doc();
    let files: Vec<&str> = doc["files"]
        .as_array()
        .expect("files")
        .iter()
        .filter_map(|f| f["path"].as_str())
        .collect();
    assert_eq!(files.len(), 2, "{files:?}");
    let add = file_doc(&doc, "tests/add_check.lua");
    assert_eq!(
        add["tests"],
        json!({"pass": 2, "fail": 0, "skip": 0, "todo": 0})
    );
}

#[test]
fn issue40_busted_failures_are_named_once_and_diffed() {
    if !require(
        "issue40_busted_failures_are_named_once_and_diffed",
        &["busted"],
    ) {
        return;
    }
    let p = project();
    // The planted bug: add subtracts, pair repeats wrong.
    p.write(
        "src/calc.lua",
        "local M = {}\nfunction M.add(a, b) return a - b end\nfunction M.pair(a) return { a, a + 1 } end\nreturn M\n",
    );
    let ran = p.run(&["--format", "summary", "-o", "r.xml"]);
    assert_eq!(ran.code, 1, "{}", ran.both());
    let doc = ran.summary_doc();
    let add = file_doc(&doc, "tests/add_check.lua");
    assert_eq!(
        add["tests"],
        json!({"pass": 0, "fail": 2, "skip": 0, "todo": 0})
    );
    let failures = add["failures"].as_array().expect("failures");
    let adds = &failures[0];
    assert_eq!(adds["path"], json!(["calc adds"]), "named once: {adds:#}");
    assert_eq!(adds["location"], "tests/add_check.lua:4");
    assert_eq!(adds["message"], "Expected objects to be equal.");
    assert_eq!((&adds["expected"], &adds["actual"]), (&json!(4), &json!(0)));
    assert!(
        adds["output"].as_array().is_none_or(|o| o.is_empty()),
        "the next test's announcement is no failure's output: {adds:#}"
    );
    let pairs = &failures[1];
    assert_eq!(pairs["path"], json!(["calc pairs"]));
    let (expected, actual) = (pairs["expected"].to_string(), pairs["actual"].to_string());
    assert!(!expected.contains("0x"), "no table address: {expected}");
    assert!(
        expected.contains("*[2] = 1") && actual.contains("*[2] = 2"),
        "{expected} {actual}"
    );
    let junit = p.read_text("r.xml");
    assert!(junit.contains(r#"<testcase name="calc adds""#), "{junit}");
    assert!(!ran.stderr.contains("@ 3: calc adds >"), "{}", ran.stderr);
}

/// From the `ROOT` folder, or naming it, a run takes the same files as from the root: busted's
/// pattern, not the walk's `*_spec.lua`.
#[test]
fn issue40_busted_from_its_root_folder_or_naming_it_runs_the_same_files() {
    if !require(
        "issue40_busted_from_its_root_folder_or_naming_it_runs_the_same_files",
        &["busted"],
    ) {
        return;
    }
    let p = project();
    let paths = |stdout: &[u8]| -> Vec<String> {
        let doc: serde_json::Value = serde_json::from_slice(stdout).expect("summary JSON");
        doc["files"]
            .as_array()
            .expect("files")
            .iter()
            .filter_map(|f| f["path"].as_str().map(str::to_owned))
            .collect()
    };
    let want = ["tests/add_check.lua", "tests/more_check.lua"];
    let named = p.run(&["--format", "summary", "tests"]);
    assert_eq!(named.code, 0, "{}", named.both());
    assert_eq!(paths(named.stdout.as_bytes()), want);
    let inside = assert_cmd::Command::new(env!("CARGO_BIN_EXE_tapline"))
        .current_dir(p.join("tests"))
        .env("NO_COLOR", "1")
        .args(["run", "--format", "summary"])
        .output()
        .expect("tapline runs");
    assert_eq!(inside.status.code(), Some(0), "{inside:?}");
    assert_eq!(paths(&inside.stdout), want);
}
