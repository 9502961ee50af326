//! `tapline run` end to end: the real binary, real child processes, each test in its own
//! temporary project (a `.git` folder makes it the project root). Proves issue 3's "Done when":
//! verdicts from stream and process together, diffs, crashes, timeouts, leaks, Ctrl-C,
//! logs byte for byte, rotation, machine formats, and the example suites in test-data/suites.
use crate::util::{copy_dir, file_doc, repo, require, Project, Ran, HANG};
use serde_json::Value;
use std::fs;
use std::path::Path;
use std::process::Command as StdCommand;
use std::time::{Duration, Instant};

/// Whether process `pid` is alive and still runs `program`: gone, a zombie (killed, waiting
/// for a reaper that in some sandboxes never comes) or a recycled pid all count as dead.
fn running(pid: i32, program: &str) -> bool {
    let Ok(stat) = fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return false;
    };
    // "pid (comm) S ...": the state follows the last ')'.
    let state = stat
        .rsplit_once(')')
        .and_then(|(_, rest)| rest.trim_start().chars().next());
    if matches!(state, Some('Z' | 'X' | 'x')) {
        return false;
    }
    let cmdline = fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
    let argv0 = cmdline.split(|&b| b == 0).next().unwrap_or_default();
    Path::new(std::str::from_utf8(argv0).unwrap_or_default())
        .file_name()
        .is_some_and(|name| name == program)
}

/// Polls `done` until it holds or `limit` passes; returns whether it held.
fn poll(limit: Duration, mut done: impl FnMut() -> bool) -> bool {
    let until = Instant::now() + limit;
    loop {
        if done() {
            return true;
        }
        if Instant::now() >= until {
            return false;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

const PASSING: &str = "echo 'TAP version 14'\necho '1..2'\necho 'ok 1 - one'\necho 'ok 2 - two'\n";

// ---------------------------------------------------------------- verdicts

#[test]
fn passing_file_exits_0_with_pass() {
    let p = Project::new();
    p.write("test/ok.sh", PASSING);
    let ran = p.run(&[]);
    assert_eq!(ran.code, 0, "{}", ran.both());
    let last = ran.stderr.lines().last().unwrap_or_default();
    assert!(
        last.contains("PASS"),
        "summary line: {last:?}\n{}",
        ran.both()
    );
    assert!(ran.stderr.contains("test/ok.sh"), "{}", ran.both());
    assert!(ran.stderr.contains("2 passed"), "{}", ran.both());
}

#[test]
fn failing_file_with_a_diff_exits_1_and_shows_it() {
    let p = Project::new();
    p.write(
        "test/greet.sh",
        "cat <<'TAP'\nTAP version 14\n1..2\nok 1 - connects\nnot ok 2 - greets the user\n  ---\n  \
         message: should be equal\n  wanted: Hello, world!\n  found: Hello, World!\n  ...\nTAP\n",
    );
    let ran = p.run(&[]);
    assert_eq!(ran.code, 1, "{}", ran.both());
    for want in [
        "greets the user",
        "should be equal",
        "- Expected",
        "+ Received",
        "Hello, world!",
        "Hello, World!",
        "FAIL",
    ] {
        assert!(
            ran.stderr.contains(want),
            "missing {want:?}:\n{}",
            ran.both()
        );
    }
    let minus = ran.stderr.lines().any(|l| {
        let l = l.trim_start();
        l.starts_with('-') && !l.starts_with("- Expected") && l.contains("Hello, world!")
    });
    let plus = ran.stderr.lines().any(|l| {
        let l = l.trim_start();
        l.starts_with('+') && !l.starts_with("+ Received") && l.contains("Hello, World!")
    });
    assert!(minus && plus, "a -/+ line per value:\n{}", ran.both());
}

#[test]
fn crash_by_signal_is_named() {
    let p = Project::new();
    p.write(
        "test/crash.sh",
        "ulimit -c 0\necho '1..2'\necho 'ok 1 - before the crash'\nkill -SEGV $$\necho 'ok 2 - never'\n",
    );
    let ran = p.run(&[]);
    assert_eq!(ran.code, 1, "{}", ran.both());
    assert!(ran.stderr.contains("killed by SIGSEGV"), "{}", ran.both());
}

#[test]
fn hang_is_stopped_by_the_timeout() {
    let p = Project::new();
    // Ignoring SIGTERM (inherited by `sleep`) makes the grace period end in SIGKILL.
    p.write(
        "test/hang.sh",
        "trap '' TERM\necho '1..1'\nwhile :; do sleep 1; done\n",
    );
    let ran = p.run(&["--timeout", "1s", "--grace", "200ms"]);
    assert_eq!(ran.code, 1, "{}", ran.both());
    assert!(ran.stderr.contains("timed out after 1s"), "{}", ran.both());
    assert!(
        ran.took < Duration::from_secs(10),
        "took {:?}:\n{}",
        ran.took,
        ran.both()
    );
    assert!(ran.took >= Duration::from_secs(1), "took {:?}", ran.took);
}

#[test]
fn leaked_grandchild_does_not_hold_the_run() {
    let p = Project::new();
    // `sleep` inherits stdout and outlives the script: without leak handling tapline would
    // wait 60 s for EOF.
    p.write(
        "test/leak.sh",
        "sleep 60 &\necho $! > sleep.pid\necho '1..1'\necho 'ok 1 - started a background process'\n",
    );
    let ran = p.run(&[]);
    assert!(
        ran.took < Duration::from_secs(5),
        "took {:?}:\n{}",
        ran.took,
        ran.both()
    );
    assert!(
        ran.stderr.contains("kept its output open"),
        "the leak is reported:\n{}",
        ran.both()
    );
    let pid = p.pid("sleep.pid");
    assert!(
        poll(Duration::from_secs(5), || !running(pid, "sleep")),
        "the leaked sleep {pid} is still running"
    );
    let doc: Value = {
        let ran = p.run(&["--format", "summary"]);
        ran.summary_doc()
    };
    let f = file_doc(&doc, "test/leak.sh");
    let reasons = f["reasons"].to_string();
    assert!(reasons.contains("kept its output open"), "{f:#}");
    let pid = p.pid("sleep.pid");
    assert!(poll(Duration::from_secs(5), || !running(pid, "sleep")));
}

#[test]
fn missing_plan_is_named() {
    let p = Project::new();
    p.write("test/noplan.sh", "echo 'ok 1 - one'\necho 'ok 2 - two'\n");
    let ran = p.run(&[]);
    assert_eq!(ran.code, 1, "{}", ran.both());
    assert!(ran.stderr.contains("no plan"), "{}", ran.both());
}

#[test]
fn nonzero_exit_fails_a_file_whose_tests_passed() {
    let p = Project::new();
    p.write("test/exit3.sh", format!("{PASSING}exit 3\n"));
    let ran = p.run(&[]);
    assert_eq!(ran.code, 1, "{}", ran.both());
    assert!(ran.stderr.contains("exited with code 3"), "{}", ran.both());
    assert!(ran.stderr.contains("2 passed"), "{}", ran.both());
}

#[test]
fn bail_out_fails_the_file() {
    let p = Project::new();
    p.write(
        "test/bail.sh",
        "echo '1..3'\necho 'ok 1 - connects'\necho 'Bail out! database is down'\n",
    );
    let ran = p.run(&[]);
    assert_eq!(ran.code, 1, "{}", ran.both());
    assert!(ran.stderr.contains("bailed out"), "{}", ran.both());
    assert!(ran.stderr.contains("database is down"), "{}", ran.both());
}

#[test]
fn twenty_megabytes_reach_the_log_byte_for_byte() {
    let p = Project::new();
    let mut data = b"TAP version 14\n1..1\nok 1 - prints a lot\n".to_vec();
    let mut n = 0u64;
    while data.len() < 20 * 1024 * 1024 {
        // Varied lengths, CRLF now and then, bytes that are not UTF-8, and one line far longer
        // than any line cap.
        n += 1;
        let line = format!("line {n} {}", "x".repeat((n % 200) as usize));
        data.extend_from_slice(line.as_bytes());
        if n.is_multiple_of(1000) {
            data.extend_from_slice(b" \xff\xfe\xc3");
        }
        if n == 5000 {
            data.extend(std::iter::repeat_n(b'y', 3 * 1024 * 1024));
        }
        data.extend_from_slice(if n.is_multiple_of(7) { b"\r\n" } else { b"\n" });
    }
    p.write("big.bin", &data);
    p.write("test/big.sh", "cat big.bin\n");
    let ran = p.run(&[]);
    assert_eq!(ran.code, 0, "{}", &ran.both()[..ran.both().len().min(4000)]);
    let log = p.read(".nogit/testlogs/test__big.log");
    assert_eq!(log.len(), data.len(), "log size");
    assert!(log == data, "the log differs from what the file printed");
}

#[test]
fn invalid_utf8_output_is_judged() {
    let p = Project::new();
    p.write(
        "test/latin1.sh",
        "printf '1..2\\nok 1 - caf\\351 au lait\\nok 2 - \\377\\376 raw bytes\\n'\n",
    );
    p.write(
        "test/broken.sh",
        "printf '1..2\\nok 1 - fine\\nnot ok 2 - na\\357ve \\200 bytes\\n  ---\\n  wanted: \\377\\n  found: b\\n  ...\\n'\n",
    );
    let ran = p.run(&["--format", "summary"]);
    assert_eq!(ran.code, 1, "{}", ran.both());
    let doc = ran.summary_doc();
    assert_eq!(file_doc(&doc, "test/latin1.sh")["ok"], true, "{doc:#}");
    let broken = file_doc(&doc, "test/broken.sh");
    assert_eq!(broken["ok"], false, "{doc:#}");
    assert_eq!(broken["summary"]["fail"], 1, "{broken:#}");
    assert!(ran.stderr.contains("FAIL"), "{}", ran.both());
}

// ---------------------------------------------------------------- processes

#[test]
fn ctrl_c_stops_the_run_with_130() {
    let p = Project::new();
    p.write(
        "test/a_hang.sh",
        "echo $$ > sh.pid\necho '1..2'\necho 'ok 1 - before the interrupt'\nsleep 60 &\necho $! > sleep.pid\nwait\necho 'ok 2 - never'\n",
    );
    p.write("test/b_later.sh", PASSING);
    let mut child = p.spawn_tapline(&["run", "-j", "1"], true);
    let log = p.join(".nogit/testlogs/test__a_hang.log");
    let started = poll(HANG, || {
        fs::read_to_string(&log).is_ok_and(|t| t.contains("ok 1 - before"))
            && fs::read_to_string(p.join("sleep.pid")).is_ok_and(|t| t.ends_with('\n'))
    });
    if !started {
        let _ = child.kill();
        panic!("the file never started");
    }
    let tapline = rustix::process::Pid::from_raw(child.id() as i32).expect("pid");
    rustix::process::kill_process(tapline, rustix::process::Signal::INT).expect("SIGINT");
    let mut status = None;
    poll(Duration::from_secs(30), || {
        status = child.try_wait().expect("wait");
        status.is_some()
    });
    let Some(status) = status else {
        let _ = child.kill();
        panic!("tapline did not stop after SIGINT");
    };
    let stderr = String::from_utf8_lossy(&p.read("stderr.txt")).into_owned();
    assert_eq!(status.code(), Some(130), "{status:?}\n{stderr}");
    assert!(stderr.contains("INTERRUPTED"), "{stderr}");
    assert!(stderr.contains("1 not run"), "{stderr}");
    // Issue 16: the first Ctrl-C says what it does and what a second one would, and the
    // files it kept from starting are named.
    assert!(
        stderr.contains("Stopping: terminating 1 running file (Ctrl-C again kills at once)."),
        "{stderr}"
    );
    assert!(stderr.contains("Not run: test/b_later.sh"), "{stderr}");
    let log = fs::read_to_string(&log).expect("log");
    assert!(
        log.contains("ok 1 - before the interrupt"),
        "log flushed: {log:?}"
    );
    for (file, program) in [("sh.pid", "sh"), ("sleep.pid", "sleep")] {
        let pid = p.pid(file);
        assert!(
            poll(Duration::from_secs(5), || !running(pid, program)),
            "{program} {pid} survived the interrupt"
        );
    }
    assert!(
        !p.join(".nogit/testlogs/test__b_later.log").exists(),
        "no file starts after Ctrl-C"
    );
}

#[test]
fn second_ctrl_c_kills_at_once() {
    let p = Project::new();
    // The script survives SIGTERM (its trap notes it), so only the second Ctrl-C's SIGKILL
    // can end it before the minute of grace is up.
    p.write(
        "test/stubborn.sh",
        "echo $$ > sh.pid\ntrap 'echo term > got-term' TERM\necho '1..1'\necho 'ok 1 - started'\nwhile :; do sleep 1; done\n",
    );
    let mut child = p.spawn_tapline(&["run", "--grace", "60s"], false);
    let tapline = rustix::process::Pid::from_raw(child.id() as i32).expect("pid");
    let log = p.join(".nogit/testlogs/test__stubborn.log");
    let started = poll(HANG, || {
        fs::read_to_string(&log).is_ok_and(|t| t.contains("ok 1 - started"))
    });
    let interrupted = started && {
        rustix::process::kill_process(tapline, rustix::process::Signal::INT).expect("SIGINT");
        poll(Duration::from_secs(30), || p.join("got-term").exists())
    };
    if !interrupted {
        let _ = child.kill();
        panic!("the file never started, or the first Ctrl-C sent no SIGTERM");
    }
    let second = Instant::now();
    rustix::process::kill_process(tapline, rustix::process::Signal::INT).expect("SIGINT");
    let mut status = None;
    poll(Duration::from_secs(30), || {
        status = child.try_wait().expect("wait");
        status.is_some()
    });
    let Some(status) = status else {
        let _ = child.kill();
        panic!("tapline did not stop after the second SIGINT");
    };
    assert!(
        second.elapsed() < Duration::from_secs(30),
        "{:?}",
        second.elapsed()
    );
    let stderr = String::from_utf8_lossy(&p.read("stderr.txt")).into_owned();
    assert_eq!(status.code(), Some(130), "{status:?}\n{stderr}");
    assert!(
        stderr.contains("Killing 1 running file at once."),
        "{stderr}"
    );
    let pid = p.pid("sh.pid");
    assert!(
        poll(Duration::from_secs(5), || !running(pid, "sh")),
        "sh {pid} survived two Ctrl-C"
    );
}

#[test]
fn ci_output_shows_each_file_as_it_finishes() {
    let p = Project::new();
    p.write("test/a_fast.sh", PASSING).write(
        "test/b_slow.sh",
        "echo '1..1'\nsleep 60 &\necho $! > sleep.pid\nwait\n",
    );
    let mut child = p.spawn_tapline(&["run", "-j", "2"], false);
    // Into a file (not a terminal) the report is block-buffered, yet each finished file's
    // line must be written at once, while others still run.
    let shown = poll(HANG, || {
        fs::read_to_string(p.join("stderr.txt")).is_ok_and(|t| t.contains("test/a_fast.sh"))
            && fs::read_to_string(p.join("sleep.pid")).is_ok_and(|t| t.ends_with('\n'))
    });
    let still_running = child.try_wait().expect("wait").is_none();
    let tapline = rustix::process::Pid::from_raw(child.id() as i32).expect("pid");
    let _ = rustix::process::kill_process(tapline, rustix::process::Signal::INT);
    let mut status = None;
    poll(Duration::from_secs(30), || {
        status = child.try_wait().expect("wait");
        status.is_some()
    });
    if status.is_none() {
        let _ = child.kill();
    }
    assert!(
        shown && still_running,
        "the fast file's line came only at the end"
    );
    assert_eq!(status.and_then(|s| s.code()), Some(130));
    let pid = p.pid("sleep.pid");
    assert!(poll(Duration::from_secs(5), || !running(pid, "sleep")));
}

/// The check the process tests rely on: a live process is seen, a dead one is not.
#[test]
fn running_tells_live_from_dead() {
    let mut sleep = StdCommand::new("sleep").arg("30").spawn().expect("sleep");
    let pid = sleep.id() as i32;
    assert!(
        poll(Duration::from_secs(10), || running(pid, "sleep")),
        "a running sleep is seen"
    );
    assert!(!running(pid, "perl"), "another program is not");
    sleep.kill().expect("kill");
    assert!(
        poll(Duration::from_secs(10), || !running(pid, "sleep")),
        "a zombie is dead"
    );
    sleep.wait().expect("wait");
    assert!(!running(pid, "sleep"), "a reaped process is dead");
}

#[test]
fn no_process_outlives_the_run() {
    let p = Project::new();
    // Output closed, so nothing looks leaked; the final sweep must still kill it.
    p.write(
        "test/bg.sh",
        format!("sleep 300 >/dev/null 2>&1 </dev/null &\necho $! > sleep.pid\n{PASSING}"),
    );
    let ran = p.run(&[]);
    assert_eq!(ran.code, 0, "{}", ran.both());
    let pid = p.pid("sleep.pid");
    assert!(
        poll(Duration::from_secs(5), || !running(pid, "sleep")),
        "sleep {pid} outlived the run"
    );
}

// ---------------------------------------------------------------- discovery, config

#[test]
fn list_prints_each_file_with_its_command() {
    let p = Project::new();
    p.write("test/a.sh", PASSING)
        .write("test/b.t", "print qq{1..0\\n};\n")
        .write("test/helper.py", "")
        .write("test/test_c.py", "print('1..0')\n")
        .script("test/run-me", "#!/bin/sh\necho 1..0\n")
        .write("test/notes.txt", "not a test");
    let ran = p.run(&["--list"]);
    assert_eq!(ran.code, 0, "{}", ran.both());
    let lines: Vec<&str> = ran.stdout.lines().collect();
    assert_eq!(
        lines,
        [
            "test/a.sh\tsh test/a.sh",
            "test/b.t\tperl test/b.t",
            "test/test_c.py\tpython3 test/test_c.py",
        ],
        "test/run-me runs only named (issue 38: nothing runs for being executable):\n{}",
        ran.both()
    );
    assert!(
        ran.stderr
            .contains("tapline: test/run-me: passed over: executable, but not named as a test"),
        "{}",
        ran.both()
    );
    assert!(!p.join(".nogit").exists(), "--list runs nothing");
}

#[test]
fn missing_interpreter_is_a_per_file_error() {
    let p = Project::new();
    p.write(
        "tapline.toml",
        "[[runner]]\nglob = \"*.zz\"\ncommand = [\"tapline-no-such-interpreter\", \"{}\"]\n",
    )
    .write("test/a.zz", "whatever")
    .write("test/b.sh", PASSING)
    .script("test/c", "#!/usr/bin/tapline-no-such-shell\necho 1..0\n");
    // test/c, an executable no naming rule names, runs when named (issue 38).
    let ran = p.run(&["--format", "summary", "test", "test/c"]);
    assert_eq!(ran.code, 1, "{}", ran.both());
    assert!(
        ran.stderr
            .contains("`tapline-no-such-interpreter` is not installed"),
        "{}",
        ran.both()
    );
    assert!(
        ran.stderr.contains("`/usr/bin/tapline-no-such-shell`"),
        "a missing #! interpreter is named too:\n{}",
        ran.both()
    );
    assert_eq!(file_doc(&ran.summary_doc(), "test/c")["ok"], false);
    let doc = ran.summary_doc();
    let a = file_doc(&doc, "test/a.zz");
    assert_eq!(a["ok"], false);
    assert_eq!(a["exit"], Value::Null, "never started: {a:#}");
    assert_eq!(
        file_doc(&doc, "test/b.sh")["ok"],
        true,
        "the others still run"
    );

    let listed = p.run(&["--list", "test", "test/c"]);
    assert!(
        listed
            .stdout
            .contains("test/a.zz\t`tapline-no-such-interpreter` is not installed"),
        "{}",
        listed.both()
    );
}

#[test]
fn no_test_files_is_a_usage_error() {
    let p = Project::new();
    let ran = p.run(&[]);
    assert_eq!(ran.code, 2, "{}", ran.both());
    assert_eq!(ran.stderr.lines().count(), 1, "one line:\n{}", ran.both());
    assert!(ran.stderr.starts_with("tapline: "), "{}", ran.both());

    p.write("test/README.txt", "no tests here");
    let ran = p.run(&["test"]);
    assert_eq!(ran.code, 2, "{}", ran.both());
    assert_eq!(ran.stderr.lines().count(), 1, "one line:\n{}", ran.both());
    assert!(ran.stderr.contains("`test`"), "{}", ran.both());

    let ran = p.run(&["test/nothing-*.sh"]);
    assert_eq!(ran.code, 2, "{}", ran.both());
    assert_eq!(ran.stderr.lines().count(), 1, "one line:\n{}", ran.both());
}

// ---------------------------------------------------------------- machine output

#[test]
fn format_summary_is_the_documented_json() {
    let p = Project::new();
    p.write("test/ok.sh", PASSING)
        .write("test/fail.sh", "echo '1..1'\necho 'not ok 1 - nope'\n");
    let ran = p.run(&["--format", "summary"]);
    assert_eq!(ran.code, 1, "{}", ran.both());
    let doc = ran.summary_doc();
    assert_eq!(doc["ok"], false);
    let files = doc["files"].as_array().expect("files");
    assert_eq!(files.len(), 2, "{doc:#}");
    for f in files {
        for key in [
            "path",
            "ok",
            "exit",
            "timed_out",
            "duration_ms",
            "log",
            "summary",
        ] {
            assert!(f.get(key).is_some(), "files[] lacks {key}: {f:#}");
        }
        assert!(f["duration_ms"].is_u64(), "{f:#}");
        assert_eq!(f["timed_out"], false);
        assert_eq!(f["exit"]["code"], 0, "{f:#}");
        let log = f["log"].as_str().expect("log path");
        assert!(Path::new(log).is_file(), "log {log} exists");
    }
    let ok = file_doc(&doc, "test/ok.sh");
    assert_eq!(ok["ok"], true);
    assert_eq!(ok["summary"]["ok"], true);
    assert_eq!(ok["summary"]["pass"], 2, "{ok:#}");
    let fail = file_doc(&doc, "test/fail.sh");
    assert_eq!(fail["ok"], false);
    assert_eq!(fail["summary"]["fail"], 1, "{fail:#}");
    assert!(
        fail["log"]
            .as_str()
            .is_some_and(|l| l.ends_with(".nogit/testlogs/test__fail.log")),
        "{fail:#}"
    );
    // The human report still goes to stderr.
    assert!(ran.stderr.contains("FAIL"), "{}", ran.both());
}

#[test]
fn format_jsonl_is_one_typed_event_per_line() {
    let p = Project::new();
    p.write("test/ok.sh", PASSING)
        .write("test/err.sh", format!("echo 'to stderr' >&2\n{PASSING}"));
    let ran = p.run(&["--format", "jsonl"]);
    assert_eq!(ran.code, 0, "{}", ran.both());
    let mut types = Vec::new();
    for line in ran.stdout.lines() {
        let v: Value = serde_json::from_str(line)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {line:?}\n{}", ran.both()));
        let t = v["type"]
            .as_str()
            .unwrap_or_else(|| panic!("no type: {line}"));
        types.push(t.to_owned());
    }
    assert_eq!(types.first().map(String::as_str), Some("run_started"));
    assert_eq!(types.last().map(String::as_str), Some("run_finished"));
    for t in ["file_started", "tap", "stderr", "file_finished"] {
        assert!(types.iter().any(|x| x == t), "no {t} event: {types:?}");
    }
    assert_eq!(types.iter().filter(|t| *t == "file_finished").count(), 2);
}

// ---------------------------------------------------------------- logs

#[test]
fn logs_are_named_after_the_path_and_rotate() {
    let p = Project::new();
    p.write("test/sub/x.sh", PASSING).write(
        "test/flaky.sh",
        "echo '1..1'\nif [ -f fixed ]; then echo 'ok 1 - works now'; else echo 'not ok 1 - broken'; fi\n",
    );
    let first = p.run(&[]);
    assert_eq!(first.code, 1, "{}", first.both());
    let logs = ".nogit/testlogs";
    assert_eq!(
        p.read(&format!("{logs}/test__sub__x.log")),
        b"TAP version 14\n1..2\nok 1 - one\nok 2 - two\n"
    );
    assert!(
        String::from_utf8_lossy(&p.read(&format!("{logs}/test__flaky.log")))
            .contains("not ok 1 - broken")
    );

    p.write("fixed", "");
    let second = p.run(&[]);
    assert_eq!(second.code, 0, "{}", second.both());
    assert!(
        String::from_utf8_lossy(&p.read(&format!("{logs}/previous/test__flaky.log")))
            .contains("not ok 1 - broken"),
        "the first run's log moved to previous/"
    );
    assert!(p
        .join(&format!("{logs}/previous/test__sub__x.log"))
        .is_file());
    assert!(
        String::from_utf8_lossy(&p.read(&format!("{logs}/test__flaky.log")))
            .contains("ok 1 - works now")
    );
    let fixed = second
        .stderr
        .lines()
        .find(|l| l.contains("Fixed"))
        .unwrap_or_else(|| panic!("no Fixed line:\n{}", second.both()));
    assert!(fixed.contains("test/flaky.sh"), "{fixed}");
    assert!(!fixed.contains("test/sub/x.sh"), "{fixed}");

    // And back: it is newly failing.
    fs::remove_file(p.join("fixed")).expect("rm");
    let third = p.run(&[]);
    assert_eq!(third.code, 1, "{}", third.both());
    let newly = third
        .stderr
        .lines()
        .find(|l| l.contains("Newly failing"))
        .unwrap_or_else(|| panic!("no Newly failing line:\n{}", third.both()));
    assert!(newly.contains("test/flaky.sh"), "{newly}");
}

#[test]
fn files_differing_only_in_extension_get_their_own_logs() {
    let p = Project::new();
    p.write("test/a.sh", "echo '1..1'\necho 'ok 1 - from sh'\n")
        .write("test/a.t", "print qq{1..1\\nok 1 - from perl\\n};\n");
    // Named: a walk of a folder of *.t tests takes no *.sh beside them (issue 38).
    let ran = p.run(&["--format", "summary", "test/a.sh", "test/a.t"]);
    assert_eq!(ran.code, 0, "{}", ran.both());
    let doc = ran.summary_doc();
    let sh = file_doc(&doc, "test/a.sh")["log"]
        .as_str()
        .expect("log")
        .to_owned();
    let perl = file_doc(&doc, "test/a.t")["log"]
        .as_str()
        .expect("log")
        .to_owned();
    assert!(sh.ends_with("/test__a.log"), "{sh}");
    assert!(perl.ends_with("/test__a.t.log"), "{perl}");
    assert_eq!(fs::read(&sh).expect("log"), b"1..1\nok 1 - from sh\n");
    assert_eq!(fs::read(&perl).expect("log"), b"1..1\nok 1 - from perl\n");
}

// ---------------------------------------------------------------- stderr

#[test]
fn merge_parses_stderr_as_tap() {
    let p = Project::new();
    // All TAP on stderr: stdout and stderr are separate pipes, so splitting one stream over
    // both would make the order (and the verdict) depend on scheduling.
    p.write(
        "test/stderr.sh",
        "exec 1>&2\necho 'TAP version 14'\necho '1..2'\necho 'ok 1 - one'\necho 'ok 2 - two'\n",
    );
    let plain = p.run(&[]);
    assert_eq!(plain.code, 1, "{}", plain.both());
    assert!(plain.stderr.contains("no TAP output"), "{}", plain.both());

    let merged = p.run(&["--merge"]);
    assert_eq!(merged.code, 0, "{}", merged.both());
    assert!(merged.stderr.contains("2 passed"), "{}", merged.both());
}

#[test]
fn merge_never_glues_a_partial_line_to_the_other_stream() {
    let p = Project::new();
    // The pauses make tapline read the first half of stdout's line before stderr's line
    // arrives; whatever the timing, the parser must see stdout's line whole.
    p.write(
        "test/halves.sh",
        "echo 'TAP version 14'\necho '1..1'\nprintf 'ok 1 - a name written '\nsleep 0.3\n\
         echo '# a comment on stderr' >&2\nsleep 0.3\necho 'in two writes'\n",
    );
    let ran = p.run(&["--merge", "--format", "jsonl"]);
    assert_eq!(ran.code, 0, "{}", ran.both());
    let names: Vec<String> = ran
        .stdout
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|v| v["event"]["type"] == "assert")
        .map(|v| v["event"]["name"].as_str().unwrap_or_default().to_owned())
        .collect();
    assert_eq!(names, ["a name written in two writes"], "{}", ran.both());
}

// ---------------------------------------------------------------- example suites

/// Runs `test-data/suites/<suite>` copied into a fresh project, as the README does.
fn run_suite(suite: &str) -> (Project, Ran) {
    let p = Project::new();
    let rel = format!("test-data/suites/{suite}");
    copy_dir(&repo().join(&rel), &p.join(&rel));
    let ran = p.run(&[&rel, "--format", "summary"]);
    (p, ran)
}

/// The verdict of each file of a summary document, by file name.
fn verdicts(doc: &Value) -> Vec<(String, bool)> {
    doc["files"]
        .as_array()
        .expect("files")
        .iter()
        .map(|f| {
            let path = f["path"].as_str().expect("path");
            let name = path.rsplit('/').next().expect("name").to_owned();
            (name, f["ok"].as_bool().expect("ok"))
        })
        .collect()
}

#[test]
fn suite_mixed_passes() {
    let (_p, ran) = run_suite("mixed");
    assert_eq!(ran.code, 0, "{}", ran.both());
    let doc = ran.summary_doc();
    let smoke = &file_doc(&doc, "test-data/suites/mixed/smoke.sh")["summary"];
    assert_eq!(
        smoke["skip"], 0,
        "TAPLINE=1 is set for the tests: {smoke:#}"
    );
    assert_eq!(
        verdicts(&doc),
        [
            ("smoke.sh".to_owned(), true),
            ("strings.t".to_owned(), true),
            ("test_numbers.py".to_owned(), true),
        ]
    );
    assert!(ran.stderr.contains("PASS"), "{}", ran.both());
    assert!(ran.stderr.contains("1 skipped"), "{}", ran.both());
    assert!(ran.stderr.contains("1 todo"), "{}", ran.both());
}

#[test]
fn suite_sh() {
    let (_p, ran) = run_suite("sh");
    assert_eq!(ran.code, 1, "{}", ran.both());
    let doc = ran.summary_doc();
    assert_eq!(
        verdicts(&doc),
        [
            ("fail.sh".to_owned(), false),
            ("pass.sh".to_owned(), true),
            ("subtest.sh".to_owned(), true),
        ]
    );
    for want in ["- Expected", "+ Received", "Hello, world!", "Hello, World!"] {
        assert!(
            ran.stderr.contains(want),
            "missing {want:?}:\n{}",
            ran.both()
        );
    }
    let sub = file_doc(&doc, "test-data/suites/sh/subtest.sh");
    assert_eq!(sub["summary"]["count"], 2, "{sub:#}");
}

#[test]
fn suite_perl() {
    let (_p, ran) = run_suite("perl");
    assert_eq!(ran.code, 1, "{}", ran.both());
    let doc = ran.summary_doc();
    assert_eq!(
        verdicts(&doc),
        [
            ("basic.t".to_owned(), true),
            ("fail.t".to_owned(), false),
            ("subtest.t".to_owned(), true),
        ]
    );
    // The stream's counts are tap-parser's: `pass` counts every `ok` line, skips included.
    let basic = &file_doc(&doc, "test-data/suites/perl/basic.t")["summary"];
    assert_eq!(
        (
            &basic["ok"],
            &basic["pass"],
            &basic["fail"],
            &basic["skip"],
            &basic["todo"]
        ),
        (
            &Value::from(true),
            &Value::from(3),
            &Value::from(1),
            &Value::from(1),
            &Value::from(1)
        ),
        "{basic:#}"
    );
    assert!(
        ran.stderr.contains("doubles every number"),
        "{}",
        ran.both()
    );
    // Test::More explains the failure on stderr. Which point the report files it under
    // depends on whether tapline reads the stdout or the stderr pipe first, so only the log,
    // which keeps both streams, is checked here.
    let fail = file_doc(&doc, "test-data/suites/perl/fail.t");
    let log = fs::read_to_string(fail["log"].as_str().expect("log")).expect("read log");
    assert!(log.contains("not ok 2 - doubles every number"), "{log}");
    assert!(log.contains("$expected->[2] = '7'"), "{log}");
}

#[test]
fn suite_python() {
    let (p, ran) = run_suite("python");
    assert_eq!(ran.code, 1, "{}", ran.both());
    let doc = ran.summary_doc();
    assert_eq!(
        verdicts(&doc),
        [
            ("test_fail.py".to_owned(), false),
            ("test_pass.py".to_owned(), true),
        ],
        "taplib.py is a helper, not a test"
    );
    for want in ["- Expected", "+ Received", "\"age\": 36", "\"age\": \"36\""] {
        assert!(
            ran.stderr.contains(want),
            "missing {want:?}:\n{}",
            ran.both()
        );
    }
    assert!(
        !p.join("test-data/suites/python/__pycache__").exists(),
        "the suite leaves no bytecode behind"
    );
}

#[test]
fn suite_node() {
    if !require("suite_node", &["node"]) {
        return;
    }
    let (_p, ran) = run_suite("node");
    assert_eq!(ran.code, 1, "{}", ran.both());
    let doc = ran.summary_doc();
    assert_eq!(
        verdicts(&doc),
        [
            ("fail.js".to_owned(), false),
            ("pass.js".to_owned(), true),
            ("v2.js".to_owned(), false),
        ]
    );
    for want in [
        "\"hi-there\"",
        "\"hi,-there!\"",
        "\"tls\": false",
        "\"tls\": true",
    ] {
        assert!(
            ran.stderr.contains(want),
            "missing {want:?}:\n{}",
            ran.both()
        );
    }
    let v2 = &file_doc(&doc, "test-data/suites/node/v2.js")["summary"];
    assert_eq!(
        (&v2["pass"], &v2["fail"]),
        (&Value::from(1), &Value::from(1)),
        "{v2:#}"
    );
}

#[test]
fn suite_v2() {
    let (_p, ran) = run_suite("v2");
    assert_eq!(ran.code, 1, "{}", ran.both());
    let doc = ran.summary_doc();
    assert_eq!(
        verdicts(&doc),
        [
            ("errors.sh".to_owned(), false),
            ("pass.sh".to_owned(), true)
        ]
    );
    for want in [
        "- Expected",
        "+ Received",
        "\"tls\": false",
        "\"tls\": true",
        "test/config.ts:42",
        "AssertionError: Expected values to be strictly deep-equal",
        "  12ms",
    ] {
        assert!(
            ran.stderr.contains(want),
            "missing {want:?}:\n{}",
            ran.both()
        );
    }
    let errors = &file_doc(&doc, "test-data/suites/v2/errors.sh")["summary"];
    assert_eq!(
        (&errors["pass"], &errors["fail"], &errors["skip"]),
        (&Value::from(2), &Value::from(1), &Value::from(1)),
        "{errors:#}"
    );
}
