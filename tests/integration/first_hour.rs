//! Issue 16, "the first hour": what a new user meets first must be trustworthy. Each class
//! the issue names has its regression tests here (verdicts of input with no TAP, small sharp
//! edges of the command line); the other classes live with their subsystems.
use crate::util::Project;
use std::io::Write;
use std::process::{Command, Output, Stdio};

/// `tapline parse ARGS` with `input` on stdin.
fn parse(args: &[&str], input: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_tapline"))
        .arg("parse")
        .args(args)
        .env("NO_COLOR", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("failed to start tapline");
    let mut stdin = child.stdin.take().expect("stdin is piped");
    stdin.write_all(input).expect("failed to write the input");
    drop(stdin);
    child
        .wait_with_output()
        .expect("failed to wait for tapline")
}

fn text(o: &Output) -> String {
    format!(
        "exit {:?}\n--- stdout\n{}--- stderr\n{}",
        o.status.code(),
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// Bytes no producer would print: a fixed pseudo-random sequence (no newline-free TAP can hide
/// in it, and the test is the same on every run).
fn random_bytes(n: usize) -> Vec<u8> {
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect()
}

// ------------------------------------------------------------ 1. no TAP is not a pass

#[test]
fn input_without_tap_fails_parse_with_one_named_reason() {
    let cases: [(&str, Vec<u8>); 6] = [
        ("empty input", Vec::new()),
        ("random bytes", random_bytes(4096)),
        ("text that is not TAP", b"hello\nworld\n".to_vec()),
        (
            "only comments and blank lines",
            b"# starting\n\n# done\n".to_vec(),
        ),
        ("only a version line", b"TAP version 14\n".to_vec()),
        (
            "only a pragma",
            b"TAP version 14\npragma +strict\n".to_vec(),
        ),
    ];
    for (what, input) in cases {
        let o = parse(&[], &input);
        assert_eq!(o.status.code(), Some(1), "{what}: {}", text(&o));
        assert!(
            String::from_utf8_lossy(&o.stdout).contains("no TAP output"),
            "{what}: {}",
            text(&o)
        );
        let s = parse(&["--format", "summary"], &input);
        let doc: serde_json::Value = serde_json::from_slice(&s.stdout).expect("summary is JSON");
        assert_eq!(doc["ok"], false, "{what}");
        assert_eq!(
            doc["reasons"],
            serde_json::json!(["no TAP output"]),
            "{what}"
        );
        assert_eq!(
            doc["plan"],
            serde_json::Value::Null,
            "{what}: there was no plan"
        );
    }
}

#[test]
fn output_of_a_command_that_was_not_found_fails_parse() {
    let o = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "tapline-no-such-command-16 2>/dev/null | '{}' parse --format jsonl",
            env!("CARGO_BIN_EXE_tapline")
        ))
        .output()
        .expect("failed to run sh");
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let jsonl = String::from_utf8_lossy(&o.stdout);
    assert!(jsonl.contains(r#""kind":"no_output""#), "{jsonl}");
}

#[test]
fn a_skip_all_plan_and_a_bail_out_are_tap() {
    let skip_all = parse(&[], b"1..0\n");
    assert_eq!(skip_all.status.code(), Some(0), "{}", text(&skip_all));
    let skip_all = parse(&[], b"1..0 # nothing to do here\n");
    assert_eq!(skip_all.status.code(), Some(0), "{}", text(&skip_all));
    // A bail out fails, but for its own reason: it is TAP.
    let bail = parse(&["--format", "summary"], b"Bail out! no database\n");
    assert_eq!(bail.status.code(), Some(1), "{}", text(&bail));
    let doc: serde_json::Value = serde_json::from_slice(&bail.stdout).expect("summary is JSON");
    assert_eq!(
        doc["reasons"],
        serde_json::json!(["bailed out: no database"])
    );
    // Points inside a subtest whose parent never closed it: TAP, failing as unterminated.
    let child = parse(
        &["--format", "summary"],
        b"# Subtest: a\n    1..1\n    ok 1\n",
    );
    let doc: serde_json::Value = serde_json::from_slice(&child.stdout).expect("summary is JSON");
    let reasons = doc["reasons"].to_string();
    assert!(!reasons.contains("no TAP output"), "{reasons}");
}

#[test]
fn allow_empty_keeps_the_reference_answer() {
    for input in [&b""[..], b"# only a comment\n"] {
        let o = parse(&["--allow-empty"], input);
        assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    }
    // It excuses silence, not failures.
    let o = parse(&["--allow-empty"], b"1..1\nnot ok 1\n");
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
}

#[test]
fn a_test_file_printing_only_a_version_line_fails_the_run() {
    let p = Project::new();
    p.write("test/version.sh", "echo 'TAP version 14'\n");
    p.write("test/silent.sh", "exit 0\n");
    let r = p.run(&["--format", "summary"]);
    assert_eq!(r.code, 1, "{}", r.both());
    let doc = r.summary_doc();
    for f in doc["files"].as_array().expect("files[]") {
        assert_eq!(f["ok"], false, "{f}");
        assert_eq!(f["reasons"], serde_json::json!(["no TAP output"]), "{f}");
    }
}

// ------------------------------------------------------------ 8. small sharp edges

/// The `jobs` a run reports in its `run_started` event.
fn jobs_of(r: &crate::util::Ran) -> u64 {
    let started = r
        .stdout
        .lines()
        .find(|l| l.contains(r#""type":"run_started""#))
        .unwrap_or_else(|| panic!("no run_started:\n{}", r.both()));
    let v: serde_json::Value = serde_json::from_str(started).expect("jsonl");
    v["jobs"].as_u64().expect("jobs")
}

#[test]
fn zero_jobs_means_the_number_of_cores() {
    let cores = std::thread::available_parallelism().map_or(2, usize::from) as u64;
    let p = Project::new();
    p.write("test/a.sh", "echo 1..1; echo ok 1\n");
    let r = p.run(&["-j", "0", "--format", "jsonl"]);
    assert_eq!(r.code, 0, "{}", r.both());
    assert_eq!(jobs_of(&r), cores);
    p.write("tapline.toml", "[run]\njobs = 0\n");
    assert_eq!(jobs_of(&p.run(&["--format", "jsonl"])), cores);
    // `-j 0` on the command line wins over the file's number, as any flag does.
    p.write("tapline.toml", "[run]\njobs = 1\n");
    assert_eq!(jobs_of(&p.run(&["-j", "0", "--format", "jsonl"])), cores);
    assert_eq!(jobs_of(&p.run(&["--format", "jsonl"])), 1);
}

#[test]
fn a_size_without_its_unit_is_refused() {
    let p = Project::new();
    p.write("test/a.sh", "echo 1..1; echo ok 1\n");
    for flag in ["--max-memory", "--max-output"] {
        let r = p.run(&[flag, "256"]);
        assert_eq!(r.code, 2, "{flag}: {}", r.both());
        assert_eq!(r.stderr.lines().count(), 1, "{}", r.both());
        assert!(r.stderr.contains("unit"), "{}", r.both());
    }
    let r = p.run(&["--max-memory", "256M"]);
    assert_eq!(r.code, 0, "{}", r.both());
    p.write("tapline.toml", "[run]\nmax_memory = 256\n");
    let r = p.run(&[]);
    assert_eq!(r.code, 2, "{}", r.both());
    assert!(r.stderr.contains("tapline.toml:2:"), "{}", r.both());
}

#[test]
fn files_a_max_fail_kept_from_starting_are_named() {
    let p = Project::new();
    p.write("test/a.sh", "echo 1..1; echo 'not ok 1 - broken'\n");
    p.write("test/b.sh", "echo 1..1; echo ok 1\n");
    p.write("test/c.sh", "echo 1..1; echo ok 1\n");
    let r = p.run(&["--max-fail", "1", "-j", "1", "--order", "declared"]);
    assert_eq!(r.code, 1, "{}", r.both());
    assert!(
        r.stderr.contains("Not run: test/b.sh, test/c.sh\n"),
        "{}",
        r.both()
    );
    // Quiet keeps them too: they are what a user reruns.
    let r = p.run(&["--max-fail", "1", "-j", "1", "--order", "declared", "-q"]);
    assert!(
        r.stderr.contains("Not run: test/b.sh, test/c.sh\n"),
        "{}",
        r.both()
    );
}

#[test]
fn counts_read_right_in_the_singular() {
    let p = Project::new();
    p.write("test/a.sh", "echo 1..1; echo 'not ok 1 - broken'\n");
    let r = p.run(&[]);
    assert!(
        r.stderr.contains("✗ FAIL  1 of 1 file failed"),
        "{}",
        r.both()
    );
    let o = parse(&[], b"1..1\nok 1 - one\n");
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("✓ PASS  1 passed (1 test)"), "{out}");
}

#[test]
fn parse_counts_the_leaf_tests_of_go_and_junit_input() {
    let repo = crate::util::repo();
    for (file, line) in [
        (
            "test-data/formats/go-test.jsonl",
            "✗ FAIL  2 failed, 9 passed, 2 skipped (13 tests;",
        ),
        (
            "test-data/formats/pytest.xml",
            "✗ FAIL  4 failed, 5 passed, 1 skipped, 1 todo (11 tests;",
        ),
    ] {
        let input = std::fs::read(repo.join(file)).expect("test data");
        let o = parse(&[], &input);
        let out = String::from_utf8_lossy(&o.stdout);
        assert!(out.contains(line), "{file}:\n{out}");
    }
}

#[test]
fn man_writes_a_page_per_command_with_every_option() {
    let dir = tempfile::tempdir().expect("tempdir");
    let pages = dir.path().join("man1");
    let o = Command::new(env!("CARGO_BIN_EXE_tapline"))
        .args(["man", "--dir"])
        .arg(&pages)
        .output()
        .expect("tapline man");
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    for command in [
        "run", "parse", "history", "report", "serve", "send", "events", "status",
    ] {
        let page = std::fs::read_to_string(pages.join(format!("tapline-{command}.1")))
            .unwrap_or_else(|e| panic!("tapline-{command}.1: {e}"));
        let help = Command::new(env!("CARGO_BIN_EXE_tapline"))
            .args([command, "--help"])
            .output()
            .expect("--help");
        let help = String::from_utf8_lossy(&help.stdout).into_owned();
        let options: Vec<&str> = help
            .split(|c: char| c.is_whitespace() || c == ',' || c == '[' || c == '=')
            .filter(|w| w.starts_with("--") && w.len() > 2)
            .collect();
        assert!(options.len() > 1, "{command}: {help}");
        for option in options {
            // roff writes `-` as `\-`.
            let roff = option.replace('-', "\\-");
            assert!(page.contains(&roff), "tapline-{command}.1 lacks {option}");
        }
    }
    assert!(pages.join("tapline.1").is_file());
}

#[test]
fn a_closed_stdout_is_a_quiet_exit_everywhere() {
    let run = |args: &[&str]| {
        let (reader, writer) = std::io::pipe().expect("pipe");
        drop(reader);
        Command::new(env!("CARGO_BIN_EXE_tapline"))
            .args(args)
            .stdout(writer)
            .stderr(Stdio::piped())
            .output()
            .expect("tapline")
    };
    for args in [
        &["completions", "bash"][..],
        &["man"],
        &["man", "run"],
        &["parse", "--format", "jsonl", "/dev/null"],
    ] {
        let o = run(args);
        assert!(
            o.status.code() == Some(0) || (args[0] == "parse" && o.status.code() == Some(1)),
            "{args:?}: {}",
            text(&o)
        );
        assert!(o.stderr.is_empty(), "{args:?}: {}", text(&o));
    }
}
