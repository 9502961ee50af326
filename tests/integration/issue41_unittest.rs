//! Issue 41's unittest reader: an inherited test (its method defined in a base class of
//! another module, `tests/base.py`) that fails in an assertion helper a package defines
//! (`mypkg/test_tools.py`) is located where unittest's traceback names the test, the deepest
//! frame in the file of the test's method (`tests/base.py:3`), not in the helper; a test of
//! the module's own, in the module (`tests/test_one.py:11`). Recorded from real unittest
//! through tapline's runner (scripts/record-unittest.sh, test-data/producers/unittest/); the
//! known answer of the terminal's explanation, and a live run, under unittest's runner and
//! under pytest's, the same in the terminal, the log, JUnit and Markdown on every run.
use crate::util::{copy_dir, parse_cli, repo, require, unmarkdown, unxml, Project};

fn producers() -> std::path::PathBuf {
    repo().join("test-data/producers/unittest")
}

#[test]
fn issue41_unittest_inherited_test_explained_where_its_traceback_names_it() {
    let recording = std::fs::read(producers().join("test_one.tap")).expect("recording");
    let (_, stdout, stderr) = parse_cli(&["--color", "never"], &recording);
    let known =
        std::fs::read_to_string(producers().join("test_one.explained.txt")).expect("answer");
    assert_eq!(format!("{stdout}{stderr}"), known);
    // unittest's own report names the same frames.
    let own = std::fs::read_to_string(producers().join("test_one.unittest.txt")).expect("own");
    for fact in [
        "File \"tests/base.py\", line 3, in test_shared",
        "File \"tests/test_one.py\", line 11, in test_own",
    ] {
        assert!(
            own.contains(fact),
            "unittest's report lacks {fact:?}:\n{own}"
        );
    }
}

/// `pytest_too`: run under pytest (the default when it is installed), else under unittest's
/// own loader (a virtualenv without pytest).
fn live(pytest_too: bool) {
    let p = Project::new();
    copy_dir(&producers().join("src"), p.path());
    if !pytest_too {
        let venv = std::process::Command::new("python3")
            .args(["-m", "venv", "--without-pip", ".venv"])
            .current_dir(p.path())
            .output()
            .expect("python3 runs");
        assert!(venv.status.success(), "venv: {venv:?}");
    }
    let mut runs = Vec::new();
    for _ in 0..3 {
        let ran = p.run(&[
            "--no-cache",
            "--color",
            "never",
            "-o",
            "out.xml",
            "-o",
            "out.md",
        ]);
        assert_eq!(ran.code, 1, "{}", ran.both());
        let log = p.read_text(".nogit/testlogs/tests__test_one.log");
        let xml = unxml(&p.read_text("out.xml"));
        let md = unmarkdown(&p.read_text("out.md"));
        for (sink, text) in [
            ("terminal", &ran.stderr),
            ("JUnit", &xml),
            ("Markdown", &md),
        ] {
            for fact in [
                "tests/base.py:3",
                "tests/test_one.py:11",
                "'<p>X</p>' != '<p>x</p>'",
            ] {
                assert!(text.contains(fact), "{sink} lacks {fact:?}:\n{text}");
            }
            assert!(
                !text.contains("at mypkg/test_tools.py") && !text.contains("`mypkg/test_tools.py"),
                "{sink}: the helper is no test's place:\n{text}"
            );
        }
        assert!(
            log.contains(r#""file": "tests/base.py", "line": 3"#),
            "{log}"
        );
        let steady = |t: &str| -> Vec<String> {
            (t.lines())
                .filter(|l| {
                    !["ms", "s |", "time=", "timestamp=", "passed ·", " passed  "]
                        .iter()
                        .any(|v| l.contains(v))
                })
                .map(str::to_owned)
                .collect()
        };
        runs.push([steady(&ran.stderr), steady(&md), steady(&xml)]);
    }
    assert_eq!(runs[0], runs[1]);
    assert_eq!(runs[1], runs[2]);
}

#[test]
fn issue41_unittest_inherited_test_located_in_its_base_class_under_unittest() {
    if !require(
        "issue41_unittest_inherited_test_located_in_its_base_class_under_unittest",
        &["python3"],
    ) {
        return;
    }
    live(false);
}

#[test]
fn issue41_unittest_inherited_test_located_in_its_base_class_under_pytest() {
    if !require(
        "issue41_unittest_inherited_test_located_in_its_base_class_under_pytest",
        &["pytest"],
    ) {
        return;
    }
    live(true);
}
