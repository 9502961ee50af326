//! Issue 41 for vitest and jest, run through their adapters (tapline's own reporters): a failing
//! `expect(x).toBe(y)` / `toEqual` reads the matcher's message once (jest's message without
//! its own `Expected:`/`Received:` lines and diff, which tapline draws from the values),
//! expected/actual as the values they are (`3` a number, vitest's and jest's meaning of the
//! sides), the assertion's line in the source (TypeScript's, through vitest's source maps),
//! the stack without the runner's frames, and a thrown error its class and message. Recorded
//! by scripts/record-harness-tap.sh (test-data/producers/{vitest,jest}/): the known answers of
//! the terminal's explanation, the same facts in the log, JUnit and Markdown, and bare runs of
//! the vitest and jest suites.
use crate::util::{npm, parse_cli, replay, repo, require, unmarkdown, Project, Ran};

fn producer(harness: &str, name: &str) -> String {
    std::fs::read_to_string(repo().join("test-data/producers").join(harness).join(name))
        .expect("recorded file")
}

#[test]
fn issue41_vitest_jest_failures_explained_as_their_reporters_mean_them() {
    for harness in ["vitest", "jest"] {
        let (_, stdout, stderr) = parse_cli(
            &["--color", "never"],
            producer(harness, "explain.tap").as_bytes(),
        );
        assert_eq!(
            format!("{stdout}{stderr}"),
            producer(harness, "explain.explained.txt"),
            "{harness}"
        );
    }
}

/// The terminal, JUnit (its failures, without the stream in `<system-out>`) and Markdown of
/// a run, and its log.
fn sinks(p: &Project, ran: &Ran, log: &str) -> Vec<(&'static str, String)> {
    let junit = [
        ("&quot;", "\""),
        ("&apos;", "'"),
        ("&lt;", "<"),
        ("&gt;", ">"),
    ]
    .iter()
    .fold(p.read_text("out.xml"), |t, (e, c)| t.replace(e, c));
    let junit = junit
        .split("<system-out>")
        .next()
        .unwrap_or_default()
        .to_owned();
    vec![
        ("terminal", ran.stderr.clone()),
        ("JUnit", junit),
        ("Markdown", unmarkdown(&p.read_text("out.md"))),
        ("log", p.read_text(log)),
    ]
}

/// What each harness's own reporter prints of the four failures: the message, the location
/// and the two values of `toBe(3)` on 2 (a number on each side, never `"3"`).
fn facts(harness: &str, file: &str) -> Vec<String> {
    let (ext, lines) = match harness {
        "vitest" => ("ts", ["19:17", "24:18", "28:47", "9:24"]),
        _ => ("js", ["12:17", "17:18", "21:47", "2:24"]),
    };
    let mut facts: Vec<String> = lines.iter().map(|l| format!("{file}.{ext}:{l}")).collect();
    facts.extend(
        [
            "Cannot read properties of undefined (reading 'name')",
            "TypeError",
            "\"hello world\"",
            "\"hello bob\"",
        ]
        .map(str::to_owned),
    );
    facts.push(
        match harness {
            "vitest" => "expected 2 to be 3 // Object.is equality",
            _ => "expect(received).toBe(expected) // Object.is equality",
        }
        .to_owned(),
    );
    facts
}

fn check_explained(sink: &str, text: &str, harness: &str, file: &str) {
    for fact in facts(harness, file) {
        // The log is the reporter's YAML: its strings are written as JavaScript prints them.
        if sink == "log" && fact.contains("hello") {
            continue;
        }
        assert!(text.contains(&fact), "{sink} lacks {fact:?}:\n{text}");
    }
    if sink == "log" {
        return;
    }
    for (side, value) in [("Expected", "3"), ("Received", "2")] {
        assert!(
            text.contains(&format!("{side}: {value}")),
            "{sink}: {side} the number {value}:\n{text}"
        );
        assert!(
            !text.contains(&format!("{side}: \"{value}\"")),
            "{sink}: {side} a string:\n{text}"
        );
    }
    // jest's own `Expected: 3` under its message goes: the values are the diff.
    assert!(
        !text.contains("Expected: 3\nReceived: 2"),
        "{sink}:\n{text}"
    );
    assert!(!text.contains("Expected  - 1"), "{sink}:\n{text}");
    assert!(
        !text.contains("new Promise (<anonymous>)"),
        "{sink}:\n{text}"
    );
    // The diff once: ours.
    assert_eq!(text.matches("\"ops\",").count(), 1, "{sink}:\n{text}");
}

#[test]
fn issue41_vitest_jest_failures_read_the_same_in_every_sink() {
    if !require(
        "issue41_vitest_jest_failures_read_the_same_in_every_sink",
        &["bash"],
    ) {
        return;
    }
    for harness in ["vitest", "jest"] {
        let run = replay("explain", producer(harness, "explain.tap"), 1);
        let (p, ran) = (&run.project, &run.ran);
        assert_eq!(ran.code, 1, "{}", ran.both());
        for (sink, text) in sinks(p, ran, ".nogit/testlogs/explain.log") {
            // The recording's paths are absolute, in the recording's own project.
            let file = format!("/tmp/tapline-record-{harness}/test/explain.test");
            check_explained(sink, &text, harness, &file);
        }
    }
}

/// A bare run of a vitest project (TypeScript, test-data/suites/vitest-basic) and a jest one
/// (test-data/suites/jest-basic) holding the recorded test file: the same explanation,
/// located in the project.
#[test]
fn issue41_vitest_jest_a_bare_run_explains_as_the_harness_does() {
    let test = "issue41_vitest_jest_a_bare_run_explains_as_the_harness_does";
    for (harness, name) in [
        ("vitest", "test/explain.test.ts"),
        ("jest", "test/explain.spec.js"),
    ] {
        let suite = format!("{harness}-basic");
        let Some(dir) = npm::suite(test, &suite, &[&format!("{harness}/package.json")]) else {
            return;
        };
        let p = npm::copy_of(&dir, Some(&dir.join("node_modules")));
        let src = if harness == "vitest" {
            "explain.test.ts"
        } else {
            "explain.test.js"
        };
        p.write(name, producer(harness, &format!("src/{src}")));
        let ran = p.run(&[
            name,
            "--no-cache",
            "--color",
            "never",
            "-o",
            "out.xml",
            "-o",
            "out.md",
        ]);
        assert_eq!(ran.code, 1, "{harness}: {}", ran.both());
        let log = format!(
            ".nogit/testlogs/{}.log",
            name.trim_end_matches(".ts")
                .trim_end_matches(".js")
                .replace('/', "__")
        );
        let file = name.rsplit_once('.').map(|(f, _)| f).unwrap_or(name);
        for (sink, text) in sinks(&p, &ran, &log) {
            let text = text.replace(&format!("{}/", p.path().display()), "");
            check_explained(sink, &text, harness, file);
        }
    }
}
