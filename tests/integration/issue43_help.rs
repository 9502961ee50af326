//! #43: help as a newcomer meets it: a mistyped command or flag names the one meant, the
//! commands are listed in the order a user meets them, `-h` is a line per flag under headings
//! and `--help` the whole text, `-w`'s help names every key the watch bar shows, and the
//! daemon's `status` reads as lines.
use crate::util::daemon::{finished, wait_for, Daemon};
use assert_cmd::Command;
use std::io::{BufRead, BufReader};
use std::process::Stdio;
use std::time::Duration;

fn tapline(args: &[&str]) -> (i32, String) {
    let out = Command::cargo_bin("tapline")
        .expect("binary built")
        .args(args)
        .output()
        .expect("tapline runs");
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    (out.status.code().unwrap_or(-1), text)
}

#[test]
fn issue43_a_mistyped_command_or_flag_names_the_one_meant() {
    for (typed, meant) in [
        ("rnu", "run"),
        ("lsit", "list"),
        ("prase", "parse"),
        ("hsitory", "history"),
    ] {
        let (code, text) = tapline(&[typed]);
        assert_eq!(code, 2, "{text}");
        assert!(
            text.contains(&format!("a similar subcommand exists: '{meant}'")),
            "{typed}: {text}"
        );
    }
    // Nothing near: no tip at all.
    let (code, text) = tapline(&["xyzzy"]);
    assert_eq!(code, 2, "{text}");
    assert!(!text.contains("tip:"), "{text}");
    let (code, text) = tapline(&["run", "--fail-fsat"]);
    assert_eq!(code, 2, "{text}");
    assert!(text.contains("'--fail-fast'"), "{text}");
}

#[test]
fn issue43_commands_are_listed_in_the_order_a_user_meets_them() {
    let (code, text) = tapline(&["--help"]);
    assert_eq!(code, 0, "{text}");
    let at = |name: &str| {
        text.find(&format!("\n  {name} "))
            .unwrap_or_else(|| panic!("{name} not listed: {text}"))
    };
    // Running, listing and setting up first; what earlier runs left; other producers'
    // streams (`parse`) and the daemon after; the shell helpers last.
    let order = [
        "run",
        "list",
        "init",
        "history",
        "report",
        "coverage",
        "parse",
        "serve",
        "send",
        "status",
        "events",
        "completions",
        "man",
    ];
    for pair in order.windows(2) {
        assert!(at(pair[0]) < at(pair[1]), "{pair:?}: {text}");
    }
}

#[test]
fn issue43_run_help_puts_its_flags_under_headings() {
    let (code, text) = tapline(&["run", "--help"]);
    assert_eq!(code, 0, "{text}");
    for heading in [
        "Selection:",
        "Execution:",
        "Output:",
        "Reports:",
        "Watch:",
        "History:",
        "Limits and sandbox:",
    ] {
        assert!(
            text.contains(&format!("\n{heading}\n")),
            "{heading}: {text}"
        );
    }
    // Under `Options:` only help itself is left.
    let options = text.split("\nOptions:\n").nth(1).expect("Options:");
    let options = options.split("\n\n").next().unwrap_or_default();
    let flags = options.lines().filter(|l| l.trim_start().starts_with('-'));
    assert_eq!(flags.count(), 1, "{options}");
}

#[test]
fn issue43_short_help_is_a_line_per_flag_and_long_help_the_whole_text() {
    let (code, short) = tapline(&["run", "-h"]);
    assert_eq!(code, 0, "{short}");
    let (code, long) = tapline(&["run", "--help"]);
    assert_eq!(code, 0, "{long}");
    assert!(
        short.lines().count() * 2 < long.lines().count(),
        "-h:\n{short}\n--help:\n{long}"
    );
    // Under the headings, every line of `-h` names its flag: no flag's text runs over a line.
    let flags = short.split("\nOptions:\n").nth(1).expect("Options:");
    for line in flags.lines().filter(|l| !l.is_empty() && !l.ends_with(':')) {
        assert!(line.trim_start().starts_with('-'), "{line:?} in:\n{short}");
        assert!(line.chars().count() <= 110, "{line:?} is long");
    }
    // The detail is in `--help` only, and said once there.
    for detail in ["round-robin", "Kubernetes Indexed Jobs", "RLIMIT_DATA"] {
        assert!(!short.contains(detail), "{detail} in -h");
        assert_eq!(
            long.matches(detail).count(),
            1,
            "{detail} in --help:\n{long}"
        );
    }
    // Every command's `-h` tells where the rest is.
    for command in ["run", "list", "parse", "serve", "status", "history"] {
        let (code, text) = tapline(&[command, "-h"]);
        assert_eq!(code, 0, "{text}");
        assert!(text.contains("see more with '--help'"), "{command}: {text}");
    }
}

/// The keys of the watch bar, as a real session prints it on a piped stdin (`a all · f failing
/// · …`), are each in `-w`'s help, and its terminal keys too (`a/Enter`).
#[test]
fn issue43_watch_help_names_every_key_the_watch_bar_shows() {
    let p = crate::util::Project::new();
    p.script("test/a.sh", "#!/bin/sh\necho 1..1\necho ok 1 - it\n");
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_tapline"))
        .args(["run", "-w", "test/a.sh"])
        .current_dir(p.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("tapline run -w");
    let stderr = child.stderr.take().expect("stderr");
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if line.contains("watching · ") {
                let _ = tx.send(line);
                return;
            }
        }
    });
    let bar = rx.recv_timeout(Duration::from_secs(60));
    drop(child.stdin.take());
    let _ = child.kill();
    let _ = child.wait();
    let bar = bar.expect("the watch bar");
    let keys: Vec<&str> = bar
        .split(" · ")
        .skip(1)
        .filter_map(|item| item.trim_start_matches("stdin: ").split_whitespace().next())
        .collect();
    assert!(keys.len() >= 6, "{bar}");
    let (code, help) = tapline(&["run", "--help"]);
    assert_eq!(code, 0, "{help}");
    let watch = help
        .split("-w, --watch")
        .nth(1)
        .and_then(|t| t.split("\n\n      --").next())
        .expect("-w's help");
    for key in keys.iter().chain(&["Enter"]) {
        assert!(
            watch.contains(&format!("`{key}`")),
            "{key} of {bar:?} in:\n{watch}"
        );
    }
    // The terminal's own bar names `a/Enter`, `F`, `t` too.
    for key in ["Enter", "a", "f", "F", "p", "t", "q"] {
        assert!(watch.contains(&format!("`{key}`")), "{key} in:\n{watch}");
    }
}

/// `tapline status` reads as lines (`--format human`, the default on a terminal); piped, it is
/// the JSON scripts read, as before.
#[test]
fn issue43_status_reads_as_lines_and_stays_json_for_scripts() {
    let d = Daemon::start(&[]);
    assert_eq!(
        d.send("unit", b"1..2\nok 1 - adds\nok 2 - subtracts\n")
            .status
            .code(),
        Some(0)
    );
    let failed = d.send("e2e", b"1..2\nok 1 - logs in\nnot ok 2 - logs out\n");
    assert_eq!(failed.status.code(), Some(1));
    wait_for(|| finished(&d.status()).len() == 2);
    let out = d
        .client(&["status", "--format", "human"])
        .output()
        .expect("status");
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(text.starts_with("tapline daemon (pid "), "{text}");
    assert!(text.contains("\nfinished: 2\n"), "{text}");
    assert!(text.contains("✓ unit  2 passed, 0 failed · "), "{text}");
    assert!(text.contains("✗ e2e   1 passed, 1 failed · "), "{text}");
    assert!(!text.contains('{'), "{text}");
    // Piped, with no --format: JSON, as scripts read it.
    let out = d.client(&["status"]).output().expect("status");
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(finished(&doc).len(), 2, "{doc}");

    // On a terminal, lines.
    if !crate::util::require(
        "issue43_status_reads_as_lines_and_stays_json_for_scripts",
        &["script"],
    ) {
        return;
    }
    let socket = d.socket();
    let out = std::process::Command::new("script")
        .args([
            "-qec",
            &format!(
                "'{}' status --socket '{}'",
                env!("CARGO_BIN_EXE_tapline"),
                socket.display()
            ),
            "/dev/null",
        ])
        .stdin(Stdio::null())
        .output()
        .expect("script runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("finished: 2"), "{text}");
    assert!(!text.contains("\"finished\""), "{text}");
}

/// `send` (and every client) with no daemon: one plain line naming the socket, the OS's words
/// as a clause (not `(os error 2)`), and how to start one; exit 2.
#[test]
fn issue43_send_without_a_daemon_is_one_plain_line_saying_how_to_start_one() {
    let dir = tempfile::tempdir().expect("tempdir");
    for client in [&["send", "unit"][..], &["status"], &["events"]] {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_tapline"))
            .args(client)
            .current_dir(dir.path())
            .stdin(Stdio::null())
            .output()
            .expect("tapline runs");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{client:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{client:?}: {err}");
        assert!(
            err.contains(
                "tapline.sock (no such file or directory); start one with `tapline serve`"
            ),
            "{client:?}: {err}"
        );
        assert!(!err.contains("os error"), "{client:?}: {err}");
    }
}

/// The note `parse` gives on a terminal (issue43_words) is for a terminal only: a pipe, a file
/// or `-` read as before, nothing said.
#[test]
fn issue43_parse_says_nothing_more_when_stdin_is_a_pipe() {
    for args in [&["parse"][..], &["parse", "-"]] {
        let out = Command::cargo_bin("tapline")
            .expect("binary built")
            .args(args)
            .write_stdin("1..1\nok 1 - adds\n")
            .output()
            .expect("tapline runs");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{err}");
        assert!(!err.contains("reading a stream"), "{err}");
        assert!(!err.contains("Ctrl-D"), "{err}");
    }
}
