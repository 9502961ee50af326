//! Issue 41's go reader: failures recorded from real `go test -json` (scripts/record-go.sh,
//! test-data/producers/go/), explained as go's own report means them: a `t.Errorf`'s
//! `calc_test.go:13: add(1, 1) = 1, want 2` is the message `add(1, 1) = 1, want 2` at
//! `calc_test.go:13` (the test's earlier `t.Log` lines its output), a package that does not
//! build says the compiler's `broken/broken_test.go:7:2: undefined: undefinedHelper` at that
//! place, and a panic's `panic: …` lines come first, at the test's frame of the goroutine's
//! stack. The known answers of the terminal's explanation (`<pkg>.explained.txt`), and the
//! same facts from a live run in the terminal, the log, JUnit and Markdown.
use crate::util::{copy_dir, parse_cli, repo, require, unmarkdown, unxml, Project};

fn producers() -> std::path::PathBuf {
    repo().join("test-data/producers/go")
}

#[test]
fn issue41_go_failures_explained_as_go_means_them() {
    for pkg in ["calc", "broken", "crash"] {
        let recording = std::fs::read(producers().join(format!("{pkg}.jsonl"))).expect("rec");
        let (_, stdout, stderr) = parse_cli(&["--color", "never"], &recording);
        let known = std::fs::read_to_string(producers().join(format!("{pkg}.explained.txt")))
            .expect("known answer");
        assert_eq!(format!("{stdout}{stderr}"), known, "{pkg}");
    }
}

/// go's own report of the same packages (`<pkg>.go.txt`) prints each message and place the
/// explanation gives.
#[test]
fn issue41_go_known_answers_agree_with_gos_own_report() {
    for (pkg, facts) in [
        (
            "calc",
            &[
                "calc_test.go:13: add(1, 1) = 1, want 2",
                "calc_test.go:20: second problem:",
            ][..],
        ),
        (
            "broken",
            &["broken/broken_test.go:7:2: undefined: undefinedHelper"][..],
        ),
        (
            "crash",
            &[
                "panic: assignment to entry in nil map",
                "/w/crash/crash_test.go:10",
            ][..],
        ),
    ] {
        let own = std::fs::read_to_string(producers().join(format!("{pkg}.go.txt"))).expect("go");
        for fact in facts {
            assert!(
                own.contains(fact),
                "go's report of {pkg} lacks {fact:?}:\n{own}"
            );
        }
    }
}

#[test]
fn issue41_go_failures_read_the_same_in_every_sink() {
    if !require("issue41_go_failures_read_the_same_in_every_sink", &["go"]) {
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
            .env("GOFLAGS", "-mod=mod")
            .env("GOPROXY", "off")
            .env("GOTOOLCHAIN", "local")
            .output()
            .expect("tapline runs");
        let terminal = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(out.status.code(), Some(1), "{terminal}");
        let mut logs = String::new();
        for pkg in ["calc", "broken", "crash"] {
            logs.push_str(&p.read_text(&format!(".nogit/testlogs/{pkg}.log")));
        }
        let xml = unxml(&p.read_text("out.xml"));
        let md = unmarkdown(&p.read_text("out.md"));
        for (sink, text) in [("terminal", &terminal), ("JUnit", &xml), ("Markdown", &md)] {
            for fact in [
                "calc/calc_test.go:13",
                "add(1, 1) = 1, want 2",
                "calc/calc_test.go:20",
                "second problem:",
                "calc/calc_test.go:25",
                "got \"a\", want \"b\"",
                "broken/broken_test.go:7:2",
                "undefined: undefinedHelper",
                "crash/crash_test.go:10",
                "panic: assignment to entry in nil map",
            ] {
                assert!(text.contains(fact), "{sink} lacks {fact:?}:\n{text}");
            }
        }
        // The message comes before the test's log lines, the panic before its goroutines.
        let panic = terminal.find("panic: assignment to entry in nil map");
        let goroutine = terminal.find("goroutine ");
        assert!(panic < goroutine, "{terminal}");
        assert!(
            terminal.contains("at calc/calc_test.go:13\n    add(1, 1) = 1, want 2"),
            "{terminal}"
        );
        // The log keeps go's own lines.
        for fact in [
            "calc_test.go:13: add(1, 1) = 1, want 2",
            "undefined: undefinedHelper",
        ] {
            assert!(logs.contains(fact), "the log lacks {fact:?}:\n{logs}");
        }
        // Files finish in any order: the recap and the reports, less their timings, are the
        // same on every run.
        let recap = terminal[terminal.find("Failures:").unwrap_or(0)..].to_owned();
        runs.push([recap, md, xml].map(|text| steady(&text)));
    }
    assert_eq!(runs[0], runs[1]);
    assert_eq!(runs[1], runs[2]);
}

/// `text` less the lines that differ between runs of the same tests (timings, addresses).
fn steady(text: &str) -> Vec<String> {
    let varies = |l: &str| {
        [
            "ms",
            "s |",
            "0x",
            "goroutine ",
            "time=",
            "timestamp=",
            "passed ·",
            " passed  ",
        ]
        .iter()
        .any(|v| l.contains(v))
    };
    text.lines()
        .filter(|l| !varies(l))
        .map(str::to_owned)
        .collect()
}
