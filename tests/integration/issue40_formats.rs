//! Issue 40, item 6: a `[[runner]]` rule's `format = "exit-status"` (no TAP: the exit status
//! is the verdict, one test named after the file) and `format = "json-result"` (one JSON
//! result line at the end, counted and explained), seen by every sink as a TAP file is.
use crate::util::{file_doc, require, unmet, Project};
use serde_json::{json, Value};

const RULES: &str = r#"
[[runner]]
glob = "checks/*.sh"
command = "sh {}"
format = "exit-status"

[[runner]]
glob = "skills/*.sh"
command = "sh {}"
format = "json-result"
"#;

fn project() -> Project {
    let p = Project::new();
    p.write("tapline.toml", RULES);
    p.write("checks/good.sh", "echo all fine\n");
    p.write(
        "checks/bad.sh",
        "echo line one\necho to stderr >&2\nexit 3\n",
    );
    p.write(
        "skills/counted.sh",
        "echo loading\necho '{\"success\": true, \"result\": {\"passed\": 3, \"failed\": 0}}'\n",
    );
    p.write(
        "skills/broken.sh",
        r#"echo loading broken
printf '%s\n' '{"success": false, "error": "expected 2 to be 3", "stack": "AssertionError: expected 2 to be 3\n    at check (node:internal/assert:1:1)\n    at run (skills/broken.sh:9:5)"}'
"#,
    );
    p
}

fn failure(doc: &Value, path: &str) -> Value {
    file_doc(doc, path)["failures"][0].clone()
}

#[test]
fn issue40_exit_status_files_are_one_test_judged_by_their_exit() {
    let p = project();
    let ran = p.run(&["--format", "summary", "-o", "r.xml", "-o", "r.md", "checks"]);
    assert_eq!(ran.code, 1, "{}", ran.both());
    let doc = ran.summary_doc();
    let good = file_doc(&doc, "checks/good.sh");
    assert_eq!(
        good["tests"],
        json!({"pass": 1, "fail": 0, "skip": 0, "todo": 0})
    );
    assert_eq!(good["ok"], true, "exit 0 passes though no TAP was printed");
    let bad = file_doc(&doc, "checks/bad.sh");
    assert_eq!(
        bad["tests"],
        json!({"pass": 0, "fail": 1, "skip": 0, "todo": 0})
    );
    let f = failure(&doc, "checks/bad.sh");
    assert_eq!(f["path"], json!(["checks/bad.sh"]), "named after the file");
    assert_eq!(f["message"], "exited with code 3");
    assert_eq!(
        f["output"],
        json!(["line one", "to stderr"]),
        "its output under it"
    );
    let junit = p.read_text("r.xml");
    assert!(
        junit.contains(r#"<testcase name="checks/bad.sh""#)
            && junit.contains(r#"<failure message="exited with code 3""#),
        "{junit}"
    );
    assert!(p.read_text("r.md").contains("exited with code 3"));
    let history = p.read_text(".nogit/testlogs/history.jsonl");
    assert!(
        history.contains(r#""path":"checks/good.sh","attempt":1,"verdict":"passed""#),
        "{history}"
    );
    assert!(p
        .read_text(".nogit/testlogs/checks__bad.log")
        .contains("line one"));
}

#[test]
fn issue40_json_result_files_are_counted_and_explained() {
    let p = project();
    let ran = p.run(&["--format", "summary", "-o", "r.xml", "skills"]);
    assert_eq!(ran.code, 1, "{}", ran.both());
    let doc = ran.summary_doc();
    let counted = file_doc(&doc, "skills/counted.sh");
    assert_eq!(
        counted["tests"],
        json!({"pass": 3, "fail": 0, "skip": 0, "todo": 0})
    );
    assert_eq!(counted["ok"], true);
    let f = failure(&doc, "skills/broken.sh");
    assert_eq!(f["message"], "expected 2 to be 3");
    assert_eq!(
        f["location"], "skills/broken.sh:9:5",
        "the stack's first own frame"
    );
    assert!(
        f["stack"].as_str().is_some_and(|s| s.contains("at run")),
        "{f:#}"
    );
    assert_eq!(
        f["output"],
        json!(["loading broken"]),
        "the output before the line"
    );
    let junit = p.read_text("r.xml");
    assert!(
        junit.contains(r#"<testcase name="skills/counted.sh #3""#),
        "{junit}"
    );
    assert!(
        !p.read_text(".nogit/testlogs/skills__counted.log")
            .is_empty(),
        "the log keeps everything, the result line too"
    );
}

#[test]
fn issue40_a_missing_or_disagreeing_json_result_fails_saying_why() {
    let p = project();
    p.write("skills/silent.sh", "echo no result here\n");
    p.write("skills/garbled.sh", "echo '{\"success\": \"maybe\"}'\n");
    p.write(
        "skills/exits.sh",
        "echo '{\"success\": true, \"result\": {\"passed\": 1}}'\nexit 4\n",
    );
    p.write(
        "skills/contradicts.sh",
        "echo '{\"success\": true, \"result\": {\"passed\": 1, \"failed\": 1}}'\n",
    );
    let ran = p.run(&["--format", "summary", "skills"]);
    assert_eq!(ran.code, 1, "{}", ran.both());
    let doc = ran.summary_doc();
    let reasons = |path: &str| {
        let file = file_doc(&doc, path);
        assert_eq!(file["ok"], false, "{path}: {file:#}");
        file["reasons"].to_string()
    };
    assert!(
        reasons("skills/silent.sh")
            .contains("failed to read the JSON result line: the output does not end with one"),
        "{}",
        reasons("skills/silent.sh")
    );
    assert!(reasons("skills/garbled.sh").contains("`success` is not true or false"));
    assert!(
        reasons("skills/exits.sh").contains("exited with code 4"),
        "exit status disagrees"
    );
    assert!(reasons("skills/contradicts.sh").contains("says success, but 1 test failed"));
}

#[test]
fn issue40_an_unknown_runner_format_is_one_line_config_error() {
    let p = Project::new();
    p.write(
        "tapline.toml",
        "[[runner]]\nglob = \"*.x\"\ncommand = \"sh {}\"\nformat = \"exitstatus\"\n",
    );
    p.write("a.x", "exit 0\n");
    let ran = p.run(&["a.x"]);
    assert_eq!(ran.code, 2, "{}", ran.both());
    let said = ran.stderr.trim();
    assert_eq!(said.lines().count(), 1, "{said}");
    assert!(
        said.contains("failed to read format `exitstatus`: expected tap, go-json, junit, libtest, exit-status or json-result"),
        "{said}"
    );
}

// --- test binaries named by a `[[runner]]` (docs/configuration.md, "Test binaries") ---

/// Compiles `source` (written to `src_rel`) into `bin/NAME` with `compiler` and `libs`; false
/// (the test then returns) when the header `header` is missing.
fn built(p: &Project, test: &str, compiler: &str, header: &str, package: &str) -> bool {
    if !require(test, &[compiler]) {
        return false;
    }
    if !std::path::Path::new(header).is_file() {
        unmet(
            test,
            &format!("{header} (Debian {package}, which .ci/run installs)"),
        );
        return false;
    }
    std::fs::create_dir_all(p.join("bin")).expect("bin/");
    true
}

fn compile(p: &Project, compiler: &str, args: &[&str]) {
    let out = std::process::Command::new(compiler)
        .args(args)
        .current_dir(p.path())
        .output()
        .expect("the compiler runs");
    assert!(out.status.success(), "{compiler} {args:?}: {out:?}");
}

#[test]
fn issue40_a_criterion_binary_runs_by_a_runner_rule() {
    let test = "issue40_a_criterion_binary_runs_by_a_runner_rule";
    let p = Project::new();
    if !built(
        &p,
        test,
        "cc",
        "/usr/include/criterion/criterion.h",
        "libcriterion-dev",
    ) {
        return;
    }
    p.write(
        "math.c",
        "#include <criterion/criterion.h>\nTest(math, adds) { cr_assert_eq(2 + 2, 4); }\nTest(math, fails) { cr_assert_eq(2 + 2, 5, \"two and two\"); }\n",
    );
    compile(&p, "cc", &["math.c", "-o", "bin/math_test", "-lcriterion"]);
    p.write(
        "tapline.toml",
        "[[runner]]\nglob = \"bin/*_test\"\ncommand = \"{} --tap=-\"\n",
    );
    let ran = p.run(&["--format", "summary", "bin/math_test"]);
    assert_eq!(ran.code, 1, "{}", ran.both());
    let doc = ran.summary_doc();
    let file = file_doc(&doc, "bin/math_test");
    assert_eq!(
        file["tests"],
        json!({"pass": 1, "fail": 1, "skip": 0, "todo": 0})
    );
    let f = &file["failures"][0];
    assert!(f["path"].to_string().contains("math::fails"), "{f:#}");
}

#[test]
fn issue40_a_catch2_binary_runs_by_a_runner_rule() {
    let test = "issue40_a_catch2_binary_runs_by_a_runner_rule";
    let p = Project::new();
    if !built(&p, test, "g++", "/usr/include/catch2/catch.hpp", "catch2") {
        return;
    }
    p.write(
        "math.cpp",
        "#define CATCH_CONFIG_MAIN\n#include <catch2/catch.hpp>\n#include <catch2/catch_reporter_tap.hpp>\nTEST_CASE(\"adds\") { REQUIRE(2 + 2 == 4); }\nTEST_CASE(\"fails\") { int four = 2 + 2; REQUIRE(four == 5); }\n",
    );
    compile(&p, "g++", &["-O0", "math.cpp", "-o", "bin/math_test"]);
    p.write(
        "tapline.toml",
        "[[runner]]\nglob = \"bin/*_test\"\ncommand = \"{} --reporter tap\"\n",
    );
    let ran = p.run(&["--format", "summary", "bin/math_test"]);
    assert_eq!(ran.code, 1, "{}", ran.both());
    let doc = ran.summary_doc();
    let file = file_doc(&doc, "bin/math_test");
    assert_eq!(
        file["tests"],
        json!({"pass": 1, "fail": 1, "skip": 0, "todo": 0})
    );
    let f = &file["failures"][0];
    assert_eq!(
        f["path"],
        json!(["fails", "four == 5 for: 4 == 5"]),
        "{f:#}"
    );
}

#[test]
fn issue40_a_googletest_binary_is_judged_by_its_exit_status() {
    let test = "issue40_a_googletest_binary_is_judged_by_its_exit_status";
    let p = Project::new();
    if !built(
        &p,
        test,
        "g++",
        "/usr/include/gtest/gtest.h",
        "libgtest-dev",
    ) {
        return;
    }
    p.write(
        "math.cpp",
        "#include <gtest/gtest.h>\nTEST(Math, Adds) { EXPECT_EQ(2 + 2, 4); }\nTEST(Math, Fails) { EXPECT_EQ(2 + 2, 5); }\n",
    );
    compile(
        &p,
        "g++",
        &[
            "math.cpp",
            "-o",
            "bin/math_test",
            "-lgtest",
            "-lgtest_main",
            "-pthread",
        ],
    );
    p.write(
        "tapline.toml",
        "[[runner]]\nglob = \"bin/*_test\"\ncommand = \"{}\"\nformat = \"exit-status\"\n",
    );
    let ran = p.run(&["--format", "summary", "bin/math_test"]);
    assert_eq!(ran.code, 1, "{}", ran.both());
    let doc = ran.summary_doc();
    let file = file_doc(&doc, "bin/math_test");
    assert_eq!(
        file["tests"],
        json!({"pass": 0, "fail": 1, "skip": 0, "todo": 0})
    );
    let f = &file["failures"][0];
    assert_eq!(f["message"], "exited with code 1");
    assert!(
        f["output"].to_string().contains("[  FAILED  ] Math.Fails"),
        "googletest's own report under the failure: {f:#}"
    );
}
