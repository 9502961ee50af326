//! #39: a node-tap file counts its tests as tap's own summary counts them (tap-parser's
//! `emitAssert`, tap 16 and 18+ alike): every assertion at every depth, a subtest's own point
//! only where it says more than its inside (an empty, skipped or todo subtest). Before, tapline
//! counted the file's top-level points, as prove counts (jackspeak: 35 where tap says 155).
//! The per-file line, the summary, JUnit's cases and the jsonl's tallies agree; verdicts do not
//! change.
use crate::util::{npm, repo, require, Project};

/// A tap file whose counts differ by rule: tap's own run of it (tap 21.0.1) says
/// `# { total: 7, pass: 5, todo: 1, skip: 1 }`; its top-level points are 5.
const COUNT_TEST: &str = "import t from 'tap'

t.test('parent', t => {
  t.ok(true, 'one')
  t.test('child', t => {
    t.equal(1, 1, 'two')
    t.equal(2, 2, 'three')
    t.end()
  })
  t.end()
})
t.test('skipped', { skip: 'not today' }, t => t.end())
t.todo('later')
t.test('empty', t => t.end())
t.pass('top level')
";

#[test]
fn issue39_a_tap_21_file_counts_its_assertions_as_tap_does() {
    let test = "issue39_a_tap_21_file_counts_its_assertions_as_tap_does";
    let package = r#"{"name":"tapline-tap-fixture","private":true}"#;
    let Some(modules) = npm::installed(test, "tap", package, "tap@21.0.1", "tap/package.json")
    else {
        return;
    };
    let p = npm::copy_of(&repo().join("test-data/suites/tap-basic"), Some(&modules));
    p.write("test/count.test.js", COUNT_TEST);
    let ran = p.run(&["test/count.test.js", "-o", "r.xml", "-o", "r.jsonl"]);
    let out = ran.both();
    assert_eq!(ran.code, 0, "{out}");
    assert!(
        out.contains("✓ test/count.test.js  5 passed, 1 skipped, 1 todo"),
        "tap's own total is 7: {out}"
    );
    assert!(
        out.contains("1 file · 5 passed, 1 skipped, 1 todo"),
        "{out}"
    );
    // JUnit's cases are the same seven, named as tap names them.
    let xml = String::from_utf8_lossy(&p.read("r.xml")).into_owned();
    assert!(xml.contains(r#"tests="7" skipped="2""#), "{xml}");
    assert!(
        xml.contains(r#"<testcase name="parent &gt; child &gt; two""#),
        "{xml}"
    );
    let jsonl = String::from_utf8_lossy(&p.read("r.jsonl")).into_owned();
    let finished: serde_json::Value = (jsonl.lines())
        .filter_map(|l| serde_json::from_str(l).ok())
        .find(|e: &serde_json::Value| e["type"] == "run_finished")
        .expect("run_finished");
    let tests = &finished["summary"]["tests"];
    assert_eq!(
        (&tests["pass"], &tests["skip"], &tests["todo"]),
        (&5.into(), &1.into(), &1.into()),
        "{finished}"
    );
}

/// A project whose script runs tap, with no tap installed (as tap 16, which cannot list): its
/// files are still tap's, counted as tap counts. The file prints what tap 16's libtap prints.
fn tap16_project(failing: bool) -> Project {
    let p = Project::new();
    p.write(
        "package.json",
        r#"{"name":"t","private":true,"scripts":{"test":"tap"}}"#,
    );
    let inner = if failing { "not ok 2 - b" } else { "ok 2 - b" };
    let outer = if failing {
        "not ok 1 - group"
    } else {
        "ok 1 - group"
    };
    let tap = format!(
        "TAP version 13\n# Subtest: group\n    ok 1 - a\n    {inner}\n    ok 3 - c # SKIP later\n    1..3\n{outer} # time=1ms\n\nok 2 - top\n1..2\n"
    );
    p.write(
        "test/a.js",
        format!(
            "process.stdout.write({tap:?})\nprocess.exitCode = {}\n",
            u8::from(failing)
        ),
    );
    p
}

#[test]
fn issue39_a_tap_16_file_counts_its_assertions_and_keeps_its_verdict() {
    let test = "issue39_a_tap_16_file_counts_its_assertions_and_keeps_its_verdict";
    if !require(test, &["node"]) {
        return;
    }
    let ran = tap16_project(false).run(&[]);
    let out = ran.both();
    assert_eq!(ran.code, 0, "{out}");
    assert!(
        out.contains("✓ test/a.js  3 passed, 1 skipped"),
        "a, b, c and top, not group and top: {out}"
    );
    // A failing assertion fails its file once: the subtest's own `not ok` only sums it up.
    let ran = tap16_project(true).run(&[]);
    let out = ran.both();
    assert_eq!(ran.code, 1, "{out}");
    assert!(
        out.contains("✗ test/a.js  1 failed, 2 passed, 1 skipped"),
        "{out}"
    );
    assert!(
        out.contains("group > b"),
        "the failure by tap's name: {out}"
    );
}
