//! Issue 16: `tapline run`'s live state is current. A file that prints `ok 1 - a`,
//! `not ok 2 - b` and then stalls is shown on `b`, counted, while it sleeps, not on `a`: in the
//! live region on a real terminal (a pty from util-linux `script`), and in `--format jsonl`.
use crate::util::{require, Project};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// How long the file stalls: long enough to see the region drawn while it sleeps.
const STALL_S: u64 = 6;

#[test]
fn the_live_region_names_the_test_a_stalled_file_is_on() {
    // util-linux `script` gives this test its terminal.
    if !require(
        "the_live_region_names_the_test_a_stalled_file_is_on",
        &["script"],
    ) {
        return;
    }
    let p = Project::new();
    p.script(
        "test/stall.sh",
        &format!(
            "#!/bin/sh\necho 1..3\necho 'ok 1 - a'\necho 'not ok 2 - b'\nsleep {STALL_S}\n\
             echo 'ok 3 - c'\n"
        ),
    );
    let typescript = p.join("typescript");
    let tapline = env!("CARGO_BIN_EXE_tapline");
    let command = format!("{tapline} run test/stall.sh --no-history --no-logs --color never");
    let mut child = Command::new("script")
        .args(["-qfec", &command])
        .arg(&typescript)
        .current_dir(p.path())
        .env_remove("CI")
        .env_remove("GITHUB_ACTIONS")
        .env("TERM", "xterm")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("script starts");
    // The region is redrawn every 80 ms; within the stall it must show `b` and its failure.
    let deadline = Instant::now() + Duration::from_secs(STALL_S - 1);
    let mut seen = String::new();
    while Instant::now() < deadline {
        seen =
            String::from_utf8_lossy(&std::fs::read(&typescript).unwrap_or_default()).into_owned();
        if seen.contains("test/stall.sh  › b") {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let status = child.wait().expect("script ends");
    assert!(
        seen.contains("test/stall.sh  › b"),
        "while the file sleeps the region names `b`:\n{seen}"
    );
    assert!(
        seen.contains("1 passed · 1 failed"),
        "and counts it:\n{seen}"
    );
    assert!(
        !seen.contains("✗ test/stall.sh"),
        "seen before the file finished:\n{seen}"
    );
    assert_eq!(status.code(), Some(1), "the file fails (`not ok 2`)");
}

/// The same stall seen by a program reading `tapline run --format jsonl`: the `assert_begin`
/// of `b` arrives while the file sleeps, before `b`'s `assert` (which waits for the next line).
#[test]
fn run_jsonl_announces_the_point_a_stalled_file_is_on() {
    let p = Project::new();
    p.script(
        "test/stall.sh",
        &format!(
            "#!/bin/sh\necho 1..3\necho 'ok 1 - a'\necho 'not ok 2 - b'\nsleep {STALL_S}\n\
             echo 'ok 3 - c'\n"
        ),
    );
    let mut child = Command::new(env!("CARGO_BIN_EXE_tapline"))
        .args(["run", "test/stall.sh", "--no-history", "--no-logs"])
        .args(["--format", "jsonl"])
        .current_dir(p.path())
        .env("CI", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("tapline starts");
    let stdout = child.stdout.take().expect("stdout");
    let (tx, rx) = std::sync::mpsc::channel();
    let reader = std::thread::spawn(move || {
        use std::io::BufRead;
        for line in std::io::BufReader::new(stdout)
            .lines()
            .map_while(Result::ok)
        {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let deadline = Instant::now() + Duration::from_secs(STALL_S - 1);
    let mut events: Vec<serde_json::Value> = Vec::new();
    let announced_b = |events: &[serde_json::Value]| {
        events
            .iter()
            .any(|e| e["event"]["type"] == "assert_begin" && e["event"]["name"] == "b")
    };
    while !announced_b(&events) {
        let left = deadline.saturating_duration_since(Instant::now());
        let Ok(line) = rx.recv_timeout(left) else {
            break;
        };
        events.push(serde_json::from_str(&line).expect("a JSON line"));
    }
    let seen: Vec<String> = events.iter().map(|e| e.to_string()).collect();
    assert!(
        announced_b(&events),
        "b is announced while the file sleeps:\n{}",
        seen.join("\n")
    );
    assert!(
        !events
            .iter()
            .any(|e| e["event"]["type"] == "assert" && e["event"]["name"] == "b"),
        "b's assert waits for the next line:\n{}",
        seen.join("\n")
    );
    let status = child.wait().expect("tapline ends");
    reader.join().expect("reader");
    assert_eq!(status.code(), Some(1));
}
