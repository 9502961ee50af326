//! Issue 41's tape reader, on tape's stream recorded from real tape 5 running an ES module
//! (scripts/record-tape.sh, test-data/producers/tape/): tape's `at:` is a `file://` URL there,
//! and the location is the file's place, never the URL; tape's values are object-inspect's
//! text (`'it\'s here'` is the string `it's here`, not quoted twice). The terminal's known
//! answer, and the same facts in the file's log, JUnit and Markdown.
use crate::util::{parse_cli, replay, repo, require, unmarkdown, unxml, Project};

fn recording(name: &str) -> Vec<u8> {
    std::fs::read(repo().join("test-data/producers/tape").join(name)).expect("recording")
}

#[test]
fn issue41_tape_failures_explained_as_tape_means_them() {
    let (_, stdout, stderr) = parse_cli(&["--color", "never"], &recording("explain.tap"));
    let known = String::from_utf8(recording("explain.explained.txt")).expect("UTF-8");
    assert_eq!(format!("{stdout}{stderr}"), known);
}

#[test]
fn issue41_tape_locations_are_places_not_urls_in_every_sink() {
    if !require(
        "issue41_tape_locations_are_places_not_urls_in_every_sink",
        &["bash"],
    ) {
        return;
    }
    let run = replay("explain", recording("explain.tap"), 1);
    let (p, ran) = (&run.project, &run.ran);
    assert_eq!(ran.code, 1, "{}", ran.both());
    let junit = unxml(&p.read_text("out.xml"));
    let md = unmarkdown(&p.read_text("out.md"));
    for (sink, text) in [
        ("terminal", ran.stderr.clone()),
        ("JUnit", junit),
        ("Markdown", md),
    ] {
        for fact in [
            "/tmp/tapline-record-tape/test/explain.mjs:7:5",
            "/tmp/tapline-record-tape/test/explain.mjs:8:5",
            "/tmp/tapline-record-tape/test/explain.mjs:13:5",
            "\"it's there\"",
            "\"it's here\"",
            "/boom/",
            "operator equal",
        ] {
            assert!(text.contains(fact), "{sink} lacks {fact:?}:\n{text}");
        }
        for wrong in [
            "at file://",
            "location: file://",
            "› strings > quoted string  at file:",
        ] {
            assert!(!text.contains(wrong), "{sink} has {wrong:?}:\n{text}");
        }
        let located: Vec<&str> = (text.lines())
            .filter(|l| l.contains("file:///tmp/tapline-record-tape/test/explain.mjs:7:5"))
            .filter(|l| !l.contains("Test.<anonymous>"))
            .collect();
        assert!(
            located.is_empty(),
            "{sink}: a URL as a location: {located:?}"
        );
    }
}

/// tape prints the next test's `# name` and then dies of an error thrown in it: node writes
/// the stack to stderr after that heading. The stack is kept, as the file's output, and is not
/// the failure before it (whose message, class and location it took: `boom`, `TypeError`,
/// the crash's frame), though the parser gives the heading only at the end of the stream.
#[test]
fn issue41_tape_a_crash_after_the_next_heading_is_not_the_failure_before_it() {
    if !require(
        "issue41_tape_a_crash_after_the_next_heading_is_not_the_failure_before_it",
        &["bash"],
    ) {
        return;
    }
    let p = Project::new();
    p.write(
        "a.tap",
        "TAP version 13\n# first\nnot ok 1 fails\n  ---\n    operator: equal\n    expected: 1\n    \
         actual:   2\n    at: Test.<anonymous> (/x/t.js:2:5)\n  ...\n# thrown\n",
    )
    .write(
        "t.sh",
        "cat a.tap\nsleep 0.3\necho 'TypeError: boom' >&2\n\
         echo '    at Test.<anonymous> (/x/t.js:3:5)' >&2\nexit 1\n",
    );
    let ran = p.run(&["t.sh", "--color", "never", "--no-cache", "-o", "out.xml"]);
    assert_eq!(ran.code, 1, "{}", ran.both());
    let failure = ran
        .stderr
        .split("✗ first > fails")
        .nth(1)
        .unwrap_or_default();
    let failure = failure.split("\n  output:").next().unwrap_or_default();
    assert!(failure.contains("at /x/t.js:2:5"), "{}", ran.stderr);
    assert!(!failure.contains("boom"), "{}", ran.stderr);
    assert!(!failure.contains("TypeError"), "{}", ran.stderr);
    assert!(
        ran.stderr.contains("  │ TypeError: boom\n"),
        "{}",
        ran.stderr
    );
    let junit = p.read_text("out.xml");
    let body = junit.split("<failure").nth(1).unwrap_or_default();
    let body = body.split("</failure>").next().unwrap_or_default();
    assert!(!body.contains("boom"), "{junit}");
}
