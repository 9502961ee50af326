//! Issue 41's libtest reader: `cargo test`'s failures recorded from real libtest
//! (scripts/record-libtest.sh, test-data/producers/libtest/), explained as Rust prints them:
//! `assert_eq!`'s `left`/`right` are `Debug` text, shown as written (`3`, `"a1"`,
//! `Point { x: 1, y: 2 }`, never `"3"` or `'"a1"'`), called `left` and `right` as Rust calls
//! them (issue41_libtest_real.rs: Rust means neither as the expected one); `assert!`'s message; the location `src/lib.rs:17:9`. The known answer of the
//! terminal's explanation, and a live run the same in the terminal, the log, JUnit and
//! Markdown on every run.
use crate::util::{copy_dir, parse_cli, repo, require, unmarkdown, unxml, Project};

fn producers() -> std::path::PathBuf {
    repo().join("test-data/producers/libtest")
}

#[test]
fn issue41_libtest_values_explained_as_rust_prints_them() {
    let recording = std::fs::read(producers().join("lib.libtest.txt")).expect("recording");
    let (_, stdout, stderr) = parse_cli(
        &["--color", "never", "--input-format", "libtest"],
        &recording,
    );
    let known = std::fs::read_to_string(producers().join("lib.explained.txt")).expect("answer");
    assert_eq!(format!("{stdout}{stderr}"), known);
    // What libtest printed, value for value.
    let own = String::from_utf8_lossy(&recording);
    for (said, shown) in [
        ("  left: 3\n right: 2", "- left: 3\n    + right: 2"),
        (
            "  left: \"a1\"\n right: \"a2\"",
            "- left: \"a1\"\n    + right: \"a2\"",
        ),
        (
            "  left: Point { x: 1, y: 2 }\n right: Point { x: 1, y: 3 }",
            "- left: Point { x: 1, y: 2 }\n    + right: Point { x: 1, y: 3 }",
        ),
    ] {
        assert!(own.contains(said), "libtest printed {said:?}:\n{own}");
        assert!(known.contains(shown), "shown {shown:?}:\n{known}");
    }
}

#[test]
fn issue41_libtest_failures_read_the_same_in_every_sink() {
    if !require(
        "issue41_libtest_failures_read_the_same_in_every_sink",
        &["cargo"],
    ) {
        return;
    }
    let p = Project::new();
    copy_dir(&producers().join("src"), p.path());
    let mut runs = Vec::new();
    for _ in 0..3 {
        let out = p
            .command(&[
                "--no-cache",
                "--color",
                "never",
                "-o",
                "out.xml",
                "-o",
                "out.md",
            ])
            .env("RUST_BACKTRACE", "0")
            .env("CARGO_TARGET_DIR", p.join("target"))
            .output()
            .expect("tapline runs");
        let terminal = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(out.status.code(), Some(1), "{terminal}");
        let log = p.read_text(".nogit/testlogs/src__lib.log");
        let xml = unxml(&p.read_text("out.xml"));
        let md = unmarkdown(&p.read_text("out.md"));
        for (sink, text) in [("terminal", &terminal), ("JUnit", &xml), ("Markdown", &md)] {
            for fact in [
                "src/lib.rs:17:9",
                "left: 3",
                "right: 2",
                "right: \"a2\"",
                "left: \"a1\"",
                "right: Point { x: 1, y: 3 }",
                "src/lib.rs:37:9",
                "zero plus zero is 1",
                "assertion `left == right` failed: adding 2 and 2",
            ] {
                assert!(text.contains(fact), "{sink} lacks {fact:?}:\n{text}");
            }
            assert!(!text.contains("'\"a1\"'"), "{sink}:\n{text}");
        }
        assert!(log.contains("  left: 3\n right: 2"), "{log}");
        let steady = |t: &str| -> Vec<String> {
            (t.lines())
                .filter(|l| {
                    ![
                        "ms",
                        "s |",
                        "time=",
                        "timestamp=",
                        "passed ·",
                        " passed  ",
                        "Finished",
                        "Compiling",
                        "Running",
                        " in 0.",
                        "Blocking",
                        "(doc tests)",
                        "exited with code",
                    ]
                    .iter()
                    .any(|v| l.contains(v))
                })
                .map(str::to_owned)
                .collect()
        };
        // The doc tests' entry may finish first or last: the recap and the reports compare.
        let recap = &terminal[terminal.find("Failures:").unwrap_or(0)..];
        runs.push([steady(recap), steady(&md), steady(&xml)]);
    }
    assert_eq!(runs[0], runs[1]);
    assert_eq!(runs[1], runs[2]);
}
