//! Issue 41's tstest reader: smartexpect (tapbundle 5's `expect`) throws a plain `Error` whose
//! message is all it says of the values, `Expected value to be true, but got false`, recorded
//! from real tapbundle 5.6.3 and smartexpect 1.6.1 (scripts/record-tapbundle.sh,
//! test-data/producers/tapbundle/smartexpect.tap). Where the message names both sides of an
//! equality they are the failure's expected and actual, with smartexpect's meaning (`expect(x)`
//! is what it got), in the jsonl explanation, the terminal, JUnit and Markdown; a relation
//! (`to be greater than 5, but got 2`) and `toEqual` (which prints no actual value) keep their
//! message alone, and a test's own error with the same words is not read as smartexpect's.
use crate::util::{replay, repo, require, Project};
use serde_json::{json, Value};

fn recording() -> Vec<u8> {
    std::fs::read(repo().join("test-data/producers/tapbundle/smartexpect.tap")).expect("recording")
}

/// What one one-file run of `tap` gave: each failure's jsonl explanation by name, and the
/// terminal, JUnit and Markdown reports.
struct Reports {
    failures: Vec<(String, Value)>,
    terminal: String,
    junit: String,
    markdown: String,
}

fn run(test: &str, tap: Vec<u8>) -> Option<Reports> {
    if !require(test, &["bash"]) {
        return None;
    }
    let run = replay("t", &tap, 0);
    let ran = &run.ran;
    assert_eq!(ran.code, 1, "{}", ran.both());
    let mut failures = Vec::new();
    let jsonl = run.jsonl();
    let events = jsonl
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok());
    for event in events {
        let Some(f) = event.get("explained").filter(|e| e["kind"] == "failure") else {
            continue;
        };
        let name = f["path"].as_array().and_then(|p| p.last()).cloned();
        let name = name.and_then(|n| n.as_str().map(str::to_owned));
        failures.push((name.unwrap_or_default(), f.clone()));
    }
    let [(_, terminal), (_, junit), (_, markdown)] = run.sinks();
    Some(Reports {
        failures,
        terminal,
        junit,
        markdown,
    })
}

impl Reports {
    fn failure(&self, name: &str) -> &Value {
        self.failures
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, f)| f)
            .unwrap_or_else(|| panic!("no explanation of {name:?}: {:?}", self.failures))
    }

    /// `(expected, actual)` of a failure, `None` when it has no values.
    fn values(&self, name: &str) -> Option<(Value, Value)> {
        let f = self.failure(name);
        match (f.get("expected"), f.get("actual")) {
            (Some(e), Some(a)) if !(e.is_null() && a.is_null()) => Some((e.clone(), a.clone())),
            _ => None,
        }
    }
}

/// `undefined` as the jsonl writes a JavaScript word JSON has no value for.
fn undefined() -> Value {
    json!({"$tapline::bare": "undefined", "$tapline::type": "undefined"})
}

#[test]
fn issue41_tstest_smartexpect_values_read_from_its_but_got_message() {
    let name = "issue41_tstest_smartexpect_values_read_from_its_but_got_message";
    let Some(r) = run(name, recording()) else {
        return;
    };
    for (failure, expected, actual) in [
        ("is true", json!(true), json!(false)),
        ("is false", json!(false), json!(["a", "b"])),
        ("is null at a path", json!(null), json!({"on": "yes"})),
        ("is undefined", undefined(), json!("tapline")),
        // The expected string holds smartexpect's own `, but got `.
        (
            "property equals",
            json!("tapline, but got more"),
            json!("tapline"),
        ),
        ("has a length", json!(3), json!(2)),
        // Not escaped by smartexpect: the string between the quotes.
        (
            "a string with quotes and a backslash",
            json!(null),
            json!("say \"hi\" \\ there"),
        ),
    ] {
        assert_eq!(r.values(failure), Some((expected, actual)), "{failure:?}");
        let location = r.failure(failure)["location"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        assert!(
            location.contains("test/smartexpect.ts:"),
            "{failure:?} at the test's line: {location:?}"
        );
    }
    // A relation and `toEqual` (no actual value printed) say it in their message alone.
    for (failure, message) in [
        (
            "is greater than",
            "Expected value to be greater than 5, but got 2",
        ),
        (
            "equals an object",
            "Expected value to equal {\"on\":\"no\"}",
        ),
    ] {
        assert_eq!(r.values(failure), None, "{failure:?}");
        assert_eq!(r.failure(failure)["message"], json!(message));
    }
    // Every sink draws the diff of the values read: `is true`'s two sides.
    for (sink, text) in [
        ("terminal", &r.terminal),
        ("JUnit", &r.junit),
        ("Markdown", &r.markdown),
    ] {
        for fact in [
            "Expected value to be true, but got false",
            "test/smartexpect.ts:10:30",
            "Expected: true",
            "Received: false",
            "\"tapline, but got more\"",
        ] {
            assert!(text.contains(fact), "{sink} lacks {fact:?}:\n{text}");
        }
    }
}

#[test]
fn issue41_tstest_a_tests_own_error_in_smartexpects_words_keeps_its_message() {
    let name = "issue41_tstest_a_tests_own_error_in_smartexpects_words_keeps_its_message";
    let tap = b"1..1\nnot ok 1 - mine # time=0ms\n\
Error: Expected value to be true, but got false\n    \
at TapTest.testFunction (/w/test/a.ts:3:9)\n    \
at TapTest.run (/w/node_modules/@push.rocks/tapbundle/ts/tapbundle.classes.taptest.ts:53:42)\n"
        .to_vec();
    let Some(r) = run(name, tap) else {
        return;
    };
    assert_eq!(r.values("mine"), None);
    assert_eq!(
        r.failure("mine")["message"],
        json!("Expected value to be true, but got false")
    );
}

/// pushrocks/smartstring's `"test": "(tstest test/)"`, as gitzone projects write it: the
/// subshell's parentheses wrap the command tapline follows, so the files run as tstest runs
/// them (one at a time, in its order) and the run says which script it follows. Before, the
/// words `(tstest` and `test/)` named no harness: the files ran side by side, in a different
/// order each run.
#[test]
fn issue41_tstest_a_script_in_a_subshell_group_is_followed() {
    let p = Project::new();
    p.write(
        "package.json",
        r#"{"name": "fixture", "scripts": {"test": "(tstest test/)"}}"#,
    )
    .script("node_modules/.bin/tsrun", "echo 1..1; echo ok 1\n")
    .write("test/test.a.ts", "")
    .write("test/test.b.ts", "");
    let ran = p.run(&["--list"]);
    assert_eq!(ran.code, 0, "{}", ran.both());
    assert!(
        ran.stderr
            .contains("following package.json scripts.test (`(tstest test/)`)"),
        "{}",
        ran.both()
    );
    assert!(ran.stdout.contains("test/test.a.ts\t"), "{}", ran.both());
}
