//! Issue 41's tape reader, on tape's stream recorded from real tape 5 running an ES module
//! (scripts/record-tape.sh, test-data/producers/tape/): tape's `at:` is a `file://` URL there,
//! and the location is the file's place, never the URL; tape's values are object-inspect's
//! text (`'it\'s here'` is the string `it's here`, not quoted twice). The terminal's known
//! answer, and the same facts in the file's log, JUnit and Markdown.
use crate::util::{parse_cli, repo, require, Project};

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
    let p = Project::new();
    p.write("explain.tap", recording("explain.tap"))
        .write("explain.sh", "cat explain.tap\nexit 1\n");
    let ran = p.run(&[
        "explain.sh",
        "--color",
        "never",
        "-o",
        "out.xml",
        "-o",
        "out.md",
        "--no-cache",
    ]);
    assert_eq!(ran.code, 1, "{}", ran.both());
    assert_eq!(
        p.read_text(".nogit/testlogs/explain.log").as_bytes(),
        recording("explain.tap"),
        "the log keeps every byte"
    );
    let junit = (p.read_text("out.xml"))
        .replace("&quot;", "\"")
        .replace("&apos;", "'")
        .replace("&lt;", "<")
        .replace("&gt;", ">");
    let md = (p.read_text("out.md"))
        .replace("\\[", "[")
        .replace("\\]", "]")
        .replace("\\_", "_")
        .replace("\\<", "<")
        .replace("\\>", ">")
        .replace("&gt;", ">");
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
