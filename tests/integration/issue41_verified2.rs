//! Issue 41's readers checked on real projects with `scripts/verify-explained.py` (docs/failures.md,
//! "Checked on real projects"): what that found, each in a small project of the same shape.
//!
//! - go (BurntSushi/toml): a table test that logs its counts after its subtests
//!   (`toml_test.go:377: skipped: 17`) failed through them; its own entries are its output, not
//!   a failure located at its last log line.
//! - unittest (Python-Markdown): `assertMultiLineEqual`'s message is its `first != second`
//!   line; the ndiff unittest prints under it is the diff tapline draws from the two values,
//!   shown once.
use crate::util::{require, unmarkdown, unxml, Project};
use serde_json::Value;

/// The failures a run's jsonl explained, in order.
fn failures(jsonl: &str) -> Vec<Value> {
    (jsonl.lines())
        .filter(|l| l.starts_with(r#"{"type":"explained""#))
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .map(|v| v["explained"].clone())
        .filter(|e| e["kind"] == "failure")
        .collect()
}

fn named<'a>(failures: &'a [Value], last: &str) -> &'a Value {
    (failures.iter())
        .find(|e| e["path"].as_array().and_then(|p| p.last()) == Some(&Value::from(last)))
        .unwrap_or_else(|| panic!("no failure {last:?} in {failures:#?}"))
}

const GO_TEST: &str = r#"package table

import "testing"

func TestTable(t *testing.T) {
	passed := 0
	for _, c := range []struct{ in, want string }{{"a", "a"}, {"b", "B"}} {
		t.Run(c.in, func(t *testing.T) {
			if c.in != c.want {
				t.Errorf("got %q, want %q", c.in, c.want)
				return
			}
			passed++
		})
	}
	t.Logf("valid: passed %d", passed)
	t.Logf("skipped: 0")
}
"#;

#[test]
fn issue41_verified2_go_parent_whose_subtests_failed_keeps_its_logs_as_output() {
    if !require(
        "issue41_verified2_go_parent_whose_subtests_failed_keeps_its_logs_as_output",
        &["go"],
    ) {
        return;
    }
    let p = Project::new();
    p.write("go.mod", "module example.com/table\n\ngo 1.19\n");
    p.write("table_test.go", GO_TEST);
    let out = p
        .command(&[
            "--no-cache",
            "--color",
            "never",
            "--format",
            "jsonl",
            "-o",
            "out.xml",
            "-o",
            "out.md",
        ])
        .env("GOFLAGS", "-mod=mod")
        .env("GOPROXY", "off")
        .env("GOTOOLCHAIN", "local")
        .output()
        .expect("tapline runs");
    let jsonl = String::from_utf8_lossy(&out.stdout);
    let terminal = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{terminal}");
    let all = failures(&jsonl);
    let b = named(&all, "b");
    assert_eq!(b["location"], "table_test.go:10", "{b:#}");
    assert_eq!(b["message"], r#"got "b", want "B""#, "{b:#}");
    // The parent's log lines are what it printed, not a failure at its last one.
    let parent = named(&all, "TestTable");
    assert!(parent["location"].is_null(), "{parent:#}");
    assert!(parent["message"].is_null(), "{parent:#}");
    let output = parent["output"].to_string();
    assert!(
        output.contains("valid: passed 1") && output.contains("skipped: 0"),
        "{parent:#}"
    );
    let xml = unxml(&p.read_text("out.xml"));
    let md = unmarkdown(&p.read_text("out.md"));
    for (sink, text) in [("terminal", &*terminal), ("JUnit", &xml), ("Markdown", &md)] {
        assert!(text.contains("table_test.go:10"), "{sink}:\n{text}");
        assert!(text.contains("valid: passed 1"), "{sink}:\n{text}");
    }
}

const UNITTEST: &str = r#"import unittest


def render(text):
    return "<p><strong><i>%s</i></strong></p>" % text


class TestRender(unittest.TestCase):
    def test_strong_em(self):
        self.assertMultiLineEqual(render("x"), "<p><strong><em>x</em></strong></p>")

    def test_list(self):
        self.assertEqual([1, 2, 3], [1, 2, 4], "the third")
"#;

#[test]
fn issue41_verified2_unittest_message_leaves_the_ndiff_to_the_diff() {
    if !require(
        "issue41_verified2_unittest_message_leaves_the_ndiff_to_the_diff",
        &["python3"],
    ) {
        return;
    }
    let p = Project::new();
    p.write("tests/test_render.py", UNITTEST);
    // A virtualenv without pytest: the file runs under unittest's own loader.
    let venv = std::process::Command::new("python3")
        .args(["-m", "venv", "--without-pip", ".venv"])
        .current_dir(p.path())
        .output()
        .expect("python3 runs");
    assert!(venv.status.success(), "venv: {venv:?}");
    let ran = p.run(&[
        "--no-cache",
        "--color",
        "never",
        "--format",
        "jsonl",
        "-o",
        "out.xml",
        "-o",
        "out.md",
    ]);
    assert_eq!(ran.code, 1, "{}", ran.both());
    let all = failures(&ran.stdout);
    let strong = named(&all, "TestRender.test_strong_em");
    assert_eq!(
        strong["message"],
        "AssertionError: '<p><strong><i>x</i></strong></p>' != '<p><strong><em>x</em></strong></p>'",
        "{strong:#}"
    );
    assert_eq!(strong["location"], "tests/test_render.py:10", "{strong:#}");
    let list = named(&all, "TestRender.test_list");
    let message = list["message"].as_str().unwrap_or_default();
    assert!(
        message.starts_with("AssertionError: Lists differ: [1, 2, 3] != [1, 2, 4]")
            && message.contains("First differing element 2:")
            && message.ends_with(" : the third"),
        "{list:#}"
    );
    let xml = unxml(&p.read_text("out.xml"));
    let md = unmarkdown(&p.read_text("out.md"));
    for (sink, text) in [
        ("terminal", &ran.stderr),
        ("JUnit", &xml),
        ("Markdown", &md),
    ] {
        // The diff once, drawn from the values: no ndiff `?` marks, no bare `- <p>` line.
        assert!(!text.contains("?      "), "{sink}:\n{text}");
        assert!(!text.contains("- <p>"), "{sink}:\n{text}");
        assert!(!text.contains("- [1, 2, 3]"), "{sink}:\n{text}");
        // The diff's expected side (Markdown signs it `+`, GitHub's colour for it).
        assert!(
            text.contains(r#" "<p><strong><em>x</em></strong></p>""#),
            "{sink}:\n{text}"
        );
    }
}
