//! Issue 41's node-tap reader, on node-tap's own streams recorded from real tap 21 and tap 16
//! (scripts/record-node-tap.sh, test-data/producers/node-tap/): a test's logs and comments
//! before its subtests are its output, never parts of their names; tap's value fields read
//! as tap means them; places in built JavaScript mapped through the map beside it. Each in
//! the terminal, the file's log under `.nogit/testlogs/`, JUnit and Markdown.
use crate::util::{parse_cli, replay, repo, require, unmarkdown, unxml, Project};

fn recording(name: &str) -> Vec<u8> {
    std::fs::read(repo().join("test-data/producers/node-tap").join(name)).expect("recording")
}

/// The recording run as a file of a project: (terminal, log, JUnit, Markdown). The log is the
/// file's bytes (checked whole here) and its tests' record under `.nogit/testlogs/tests/`.
fn sinks(tap: &str) -> [(&'static str, String); 4] {
    let run = replay("explain", recording(tap), 1);
    let (p, ran) = (&run.project, &run.ran);
    assert_eq!(ran.code, 1, "{}", ran.both());
    let junit = p
        .read_text("out.xml")
        .replace("&quot;", "\"")
        .replace("&gt;", ">");
    [
        ("terminal", ran.stderr.clone()),
        ("log", {
            let log = p.read_text(".nogit/testlogs/explain.log");
            assert_eq!(log.as_bytes(), recording(tap), "the log keeps every byte");
            p.read_text(".nogit/testlogs/tests/explain.jsonl")
        }),
        ("JUnit", junit),
        ("Markdown", unmarkdown(&p.read_text("out.md"))),
    ]
}

/// `✗ outer > } > inner` was the name: tap prints a test's `console.log` as it is and its
/// `t.comment` as `#` lines in the test's body before its subtest's `# Subtest:`, and the last
/// such comment headed the subtest's closing point. Names come from the points and the
/// subtests' heads only; the comments stay the test's output.
#[test]
fn issue41_node_tap_logs_and_comments_are_never_parts_of_names() {
    if !require(
        "issue41_node_tap_logs_and_comments_are_never_parts_of_names",
        &["bash"],
    ) {
        return;
    }
    for (sink, text) in sinks("explain.tap") {
        for name in ["outer > inner > fails", "outer > inner"] {
            assert!(text.contains(name), "{sink} lacks {name:?}:\n{text}");
        }
        for wrong in ["} >", "commented", "logged\" >"] {
            let names: Vec<&str> = (text.lines())
                .filter(|l| l.contains("outer >") || l.contains("name=\""))
                .filter(|l| l.contains(wrong))
                .collect();
            assert!(
                names.is_empty(),
                "{sink}: {wrong:?} in a name: {names:?}\n{text}"
            );
        }
    }
}

/// `node dist/maps.js` without `--enable-source-maps` (tsc's build of src/maps.ts, its map
/// beside it): tap's `at:` and `stack:` name the built file. tapline follows the file's
/// `//# sourceMappingURL=` and says what tap says when node maps them: `src/maps.ts:17:5`,
/// the frames in the source, and tap's excerpt of the source, not of the built file.
#[test]
fn issue41_node_tap_built_places_follow_the_source_map_beside_them() {
    if !require(
        "issue41_node_tap_built_places_follow_the_source_map_beside_them",
        &["bash"],
    ) {
        return;
    }
    let dir = repo().join("test-data/producers/node-tap");
    let p = Project::new();
    for file in ["dist/maps.js", "dist/maps.js.map", "src/maps.ts"] {
        p.write(file, std::fs::read(dir.join(file)).expect("recorded build"));
    }
    p.write("maps.tap", recording("maps.tap"))
        .write("maps.sh", "cat maps.tap\nexit 1\n");
    let ran = p.run(&[
        "maps.sh",
        "--color",
        "never",
        "-o",
        "out.xml",
        "-o",
        "out.md",
        "--no-cache",
    ]);
    assert_eq!(ran.code, 1, "{}", ran.both());
    let junit = unxml(&p.read_text("out.xml"));
    for (sink, text) in [
        ("terminal", ran.stderr.clone()),
        ("JUnit", junit),
        ("Markdown", unmarkdown(&p.read_text("out.md"))),
    ] {
        for fact in [
            "src/maps.ts:17:5",
            "Test.<anonymous> (src/maps.ts:17:5)",
            "Object.<anonymous> (src/maps.ts:15:3)",
            "  t.same(moved(p, 1), { x: 2, y: 3 }, 'moves both')",
        ] {
            assert!(text.contains(fact), "{sink} lacks {fact:?}:\n{text}");
        }
        let explained = text.split("<system-out>").next().unwrap_or_default();
        assert!(!explained.contains("dist/maps.js:"), "{sink}:\n{text}");
    }
    // The log keeps what the file wrote.
    assert_eq!(
        p.read_text(".nogit/testlogs/maps.log").as_bytes(),
        recording("maps.tap")
    );
}

/// The terminal's explanation of tap 21's and tap 16's streams (`parse`), known answers.
#[test]
fn issue41_node_tap_failures_explained_as_tap_means_them() {
    for (tap, known) in [
        ("explain.tap", "explain.explained.txt"),
        ("explain16.tap", "explain16.explained.txt"),
    ] {
        let (_, stdout, stderr) = parse_cli(&["--color", "never"], &recording(tap));
        let known = String::from_utf8(recording(known)).expect("UTF-8");
        assert_eq!(format!("{stdout}{stderr}"), known, "{tap}");
    }
}

/// tap's fields with tap's meaning in every sink: `t.notSame`'s `found` and `doNotWant` (the
/// value it found is the one it did not want: both shown, no diff, where they were lost),
/// a thrown error's class from tap's `type`, `diff:` drawn as ours, each at its line.
#[test]
fn issue41_node_tap_values_read_the_same_in_every_sink() {
    if !require(
        "issue41_node_tap_values_read_the_same_in_every_sink",
        &["bash"],
    ) {
        return;
    }
    for tap in ["explain.tap", "explain16.tap"] {
        for (sink, text) in sinks(tap) {
            if sink == "log" {
                continue;
            }
            for fact in [
                "found: [1]",
                "doNotWant: [1]",
                "TypeError",
                "test/explain.js:21:5",
                "test/explain.js:26:9",
                "hello world",
                "hello there",
                "test/explain.js:18:5",
            ] {
                assert!(text.contains(fact), "{tap}: {sink} lacks {fact:?}:\n{text}");
            }
        }
    }
}
