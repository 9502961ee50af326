//! Issue 16: machine output reaches its reader while things happen (`--format jsonl` into a
//! pipe from `run`, `parse` and `serve`, and `tapline events`), and `run`'s memory stays
//! bounded however fast a child prints, while its log keeps every byte. Real processes; their
//! stdout is read line by line as it arrives.
use crate::util::Project;
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_tapline");

/// Longest wait for a line that should come; only a hang gets near it.
const PATIENCE: Duration = Duration::from_secs(60);

/// A child's stdout, read on a thread: each line with the moment it was read.
struct Lines {
    rx: mpsc::Receiver<(Instant, String)>,
    seen: Vec<String>,
}

impl Lines {
    fn of(out: impl Read + Send + 'static) -> Lines {
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(out).lines() {
                let Ok(line) = line else { return };
                if tx.send((Instant::now(), line)).is_err() {
                    return;
                }
            }
        });
        Lines {
            rx,
            seen: Vec::new(),
        }
    }

    /// The moment the first line (from here on) containing `needle` arrived, and the line.
    fn until(&mut self, needle: &str) -> (Instant, String) {
        let deadline = Instant::now() + PATIENCE;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.rx.recv_timeout(left) {
                Ok((at, line)) => {
                    self.seen.push(line.clone());
                    if line.contains(needle) {
                        return (at, line);
                    }
                }
                Err(_) => panic!(
                    "no line with {needle} came; lines so far:\n{:#?}",
                    self.seen
                ),
            }
        }
    }
}

fn tapline(dir: &std::path::Path, args: &[&str]) -> Command {
    let mut c = Command::new(BIN);
    c.current_dir(dir)
        .env("CI", "1")
        .env("NO_COLOR", "1")
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    c
}

/// Kills (by its pid) a child a failed test leaves running.
struct Reaped(Child);

impl Drop for Reaped {
    fn drop(&mut self) {
        if matches!(self.0.try_wait(), Ok(None)) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
}

#[test]
fn run_jsonl_into_a_pipe_tells_a_file_started_while_it_still_sleeps() {
    let p = Project::new();
    p.script("t/slow.sh", "#!/bin/sh\necho 1..1\nsleep 3\necho ok 1\n");
    let mut child = Reaped(
        tapline(p.path(), &["run", "--format", "jsonl", "--no-logs", "t/"])
            .spawn()
            .expect("tapline runs"),
    );
    let mut lines = Lines::of(child.0.stdout.take().expect("stdout"));
    let (run_started, _) = lines.until(r#""type":"run_started""#);
    let (file_started, line) = lines.until(r#""type":"file_started""#);
    assert!(line.contains("t/slow.sh"), "{line}");
    let after = file_started - run_started;
    assert!(
        after < Duration::from_millis(500),
        "file_started came {after:?} after run_started"
    );
    // The plan, printed before the sleep, is read while the file sleeps.
    let (plan, _) = lines.until(r#""type":"plan""#);
    let (finished, _) = lines.until(r#""type":"file_finished""#);
    assert!(
        finished - plan > Duration::from_secs(2),
        "the plan came {:?} before the file's end: not while it slept",
        finished - plan
    );
    lines.until(r#""type":"run_finished""#);
    assert!(child.0.wait().expect("tapline exits").success());
}

#[test]
fn parse_jsonl_tells_each_line_while_stdin_is_still_open() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut child = Reaped(
        tapline(dir.path(), &["parse", "--format", "jsonl"])
            .stdin(Stdio::piped())
            .spawn()
            .expect("tapline parses"),
    );
    let mut stdin = child.0.stdin.take().expect("stdin");
    let mut lines = Lines::of(child.0.stdout.take().expect("stdout"));
    stdin
        .write_all(b"TAP version 14\n1..2\n# starting\n")
        .expect("first lines");
    stdin.flush().expect("flush");
    // Nothing more is written until these are read back: they must come while stdin is open.
    lines.until(r#""type":"version""#);
    lines.until(r#""type":"plan""#);
    lines.until(r#""type":"comment""#);
    // A point is told once the next line shows it has no YAML block; the output after it
    // comes with it.
    stdin
        .write_all(b"ok 1 - one\n# between\nok 2 - two\n")
        .expect("the points");
    lines.until(r#""name":"one""#);
    lines.until(r#""text":"between""#);
    drop(stdin);
    lines.until(r#""name":"two""#);
    lines.until(r#""type":"end""#);
    assert!(child.0.wait().expect("tapline exits").success());
}

/// Waits until `serve` in `dir` answers `status`.
fn wait_ready(dir: &std::path::Path) {
    let deadline = Instant::now() + PATIENCE;
    while Instant::now() < deadline {
        let out = tapline(dir, &["status"]).output().expect("status runs");
        if out.status.success() {
            return;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    panic!("the daemon never answered status");
}

#[test]
fn serve_jsonl_and_events_follow_a_stream_while_it_is_open() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::create_dir(dir.path().join(".git")).expect("project root");
    let mut serve = Reaped(
        tapline(
            dir.path(),
            &["serve", "--format", "jsonl", "--color", "never"],
        )
        .env_remove("CI")
        .spawn()
        .expect("serve starts"),
    );
    let mut served = Lines::of(serve.0.stdout.take().expect("stdout"));
    wait_ready(dir.path());
    let mut events = Reaped(tapline(dir.path(), &["events"]).spawn().expect("events"));
    let mut followed = Lines::of(events.0.stdout.take().expect("stdout"));
    // The subscriber is in once the daemon says so in its status.
    let deadline = Instant::now() + PATIENCE;
    loop {
        let out = tapline(dir.path(), &["status"]).output().expect("status");
        let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_default();
        if doc["subscribers"].as_u64().unwrap_or(0) > 0 || Instant::now() > deadline {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let mut send = Reaped(
        tapline(dir.path(), &["send", "slow-stream"])
            .stdin(Stdio::piped())
            .spawn()
            .expect("send starts"),
    );
    let mut stdin = send.0.stdin.take().expect("stdin");
    stdin
        .write_all(b"TAP version 14\n1..2\n# under way\n")
        .expect("first lines");
    stdin.flush().expect("flush");
    // The stream is still open: what it sent so far is out, on both.
    let (_, line) = served.until(r#""type":"file_started""#);
    assert!(line.contains("slow-stream"), "{line}");
    served.until(r#""text":"under way""#);
    followed.until(r#""text":"under way""#);
    stdin.write_all(b"ok 1\nok 2\n").expect("the points");
    drop(stdin);
    assert!(send.0.wait().expect("send ends").success());
    served.until(r#""type":"file_finished""#);
    followed.until(r#""type":"file_finished""#);
    let pid = rustix::process::Pid::from_raw(serve.0.id() as i32).expect("pid");
    rustix::process::kill_process(pid, rustix::process::Signal::TERM).expect("SIGTERM");
    served.until(r#""type":"run_finished""#);
    let _ = serve.0.wait();
    let _ = events.0.wait();
}

/// The peak resident memory of `child` (VmHWM), sampled until it exits.
fn peak_rss_kib(child: &mut Child) -> u64 {
    let status = format!("/proc/{}/status", child.id());
    let mut peak = 0;
    let deadline = Instant::now() + Duration::from_secs(600);
    while matches!(child.try_wait(), Ok(None)) && Instant::now() < deadline {
        let hwm = std::fs::read_to_string(&status).ok().and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        });
        peak = peak.max(hwm.unwrap_or(0));
        std::thread::sleep(Duration::from_millis(20));
    }
    peak
}

/// A child that prints 100 MB of `#` comments as fast as it can: the reader waits for the
/// parser and the reports (the pipe fills, the child waits) instead of queueing events.
#[test]
fn a_fast_flood_of_comments_keeps_run_under_64_mib_and_the_log_keeps_every_byte() {
    const FLOOD: u64 = 100_000_000;
    // 50 bytes with its newline: the flood ends on a whole line.
    let comment = "# a comment the test prints, again and again ....";
    assert_eq!(FLOOD % (comment.len() as u64 + 1), 0);
    let p = Project::new();
    p.script(
        "t/flood.sh",
        &format!(
            "#!/bin/sh\necho 1..2\necho ok 1 - before\n\
             yes '{comment}' | head -c {FLOOD}\n\
             echo ok 2 - after\n\
             # the peak is reached before this pause, in which it is read\nsleep 0.5\n"
        ),
    );
    let mut child = Reaped(
        tapline(p.path(), &["run", "-o", "r.xml", "-o", "r.html", "t/"])
            .stdout(Stdio::null())
            .spawn()
            .expect("tapline runs"),
    );
    let peak = peak_rss_kib(&mut child.0);
    let status = child.0.wait().expect("tapline exits");
    assert!(status.success(), "{status:?}");
    assert!(peak > 0, "the peak could not be read");
    assert!(
        peak < 64 * 1024,
        "tapline run peaked at {} MiB",
        peak / 1024
    );
    let log = p.join(".nogit/testlogs/t__flood.log");
    let tap = "1..2\nok 1 - before\nok 2 - after\n".len() as u64;
    let size = std::fs::metadata(&log).expect("the log").len();
    assert_eq!(size, FLOOD + tap, "the log lost bytes");
}

/// Output held for one test point is capped in the reports, with a note of what was left
/// out; the log has every line.
#[test]
fn output_held_for_one_point_is_capped_with_a_note_and_the_log_keeps_it_all() {
    let p = Project::new();
    p.script(
        "t/chatty.sh",
        "#!/bin/sh\necho 1..1\n\
         i=0; while [ $i -lt 300 ]; do printf 'before-%04d\\n' $i; i=$((i+1)); done\n\
         echo 'not ok 1 - talks a lot'\n\
         i=0; while [ $i -lt 300 ]; do printf '# after-%04d\\n' $i; i=$((i+1)); done\n",
    );
    let ran = p.run(&["-o", "r.md", "t/"]);
    assert_eq!(ran.code, 1, "{}", ran.both());
    let md = String::from_utf8(p.read("r.md")).expect("utf-8");
    assert!(
        md.contains("… 200 earlier lines not kept (the log has every line)"),
        "{md}"
    );
    assert!(
        md.contains("before-0200") && md.contains("before-0299"),
        "{md}"
    );
    assert!(!md.contains("before-0199"), "{md}");
    assert!(
        md.contains("# after-0000") && md.contains("# after-0099"),
        "{md}"
    );
    assert!(!md.contains("# after-0100"), "{md}");
    assert!(md.contains("… 200 later lines not shown"), "{md}");
    // The terminal shows the same explanation, bounded the same way, and says so.
    assert!(ran.stderr.contains("# after-0099"), "{}", ran.both());
    assert!(!ran.stderr.contains("# after-0100"), "{}", ran.both());
    assert!(
        ran.stderr.contains("… 200 later lines not shown"),
        "{}",
        ran.both()
    );
    let log = String::from_utf8(p.read(".nogit/testlogs/t__chatty.log")).expect("utf-8");
    for n in 0..300 {
        assert!(log.contains(&format!("before-{n:04}\n")), "before-{n:04}");
        assert!(log.contains(&format!("# after-{n:04}\n")), "after-{n:04}");
    }
}

/// A point waits for the YAML block that may follow it, and holds the lines after it until
/// then; a flood of them does not wait with it: the point is settled and the lines stream.
#[test]
fn a_flood_of_lines_after_a_point_is_not_held_behind_it() {
    use tapline::event::Event;
    let mut parser = tapline::protocol::Parser::new(Vec::<Event<'static>>::new());
    parser.feed(b"1..2\nok 1 - before the flood\n");
    // More than the parser holds behind a point (16 Ki lines).
    let lines = 20_000;
    for _ in 0..lines {
        parser.feed(b"# flood\n");
    }
    let told = parser.sink();
    let point = told
        .iter()
        .position(|e| matches!(e, Event::Assert(a) if a.name == "before the flood"));
    let point = point.expect("the point is told while the flood goes on");
    let comments = told.iter().filter(|e| matches!(e, Event::Comment { .. }));
    assert!(comments.count() >= lines - 1, "the flood is told too");
    assert!(told[point + 1..]
        .iter()
        .all(|e| matches!(e, Event::Comment { .. })));
    parser.feed(b"ok 2 - after\n");
    let events = parser.finish();
    let Some(Event::End { verdict }) = events.last() else {
        panic!("no end")
    };
    assert!(verdict.ok, "{:?}", verdict.reasons);
    assert_eq!(verdict.count, 2);
}
