//! Issue 17: `tapline run --forward ADDR`, every shard's files in one daemon's live view,
//! the shard's own run untouched: real daemons, real runs, a daemon killed mid-run.
use crate::util::daemon::{finished, wait_for, Daemon};
use crate::util::Project;
use serde_json::Value;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Files that pass, fail by their TAP, fail by their exit code, and hold a subtest.
pub(crate) fn mixed_project() -> Project {
    let p = Project::new();
    for i in 1..=3 {
        p.write(
            &format!("test/pass{i}.sh"),
            format!("echo 1..2\necho 'ok 1 - first {i}'\necho 'ok 2 - second # SKIP later'\n"),
        );
    }
    p.write(
        "test/tapfail.sh",
        "echo 1..2\necho 'not ok 1 - adds'\necho '  ---'\necho '  message: 1 != 2'\necho '  ...'\necho 'ok 2'\n",
    );
    p.write(
        "test/exitfail.sh",
        "echo 1..1\necho 'ok 1 - fine'\nexit 3\n",
    );
    p.write(
        "test/sub.sh",
        "echo 'TAP version 14'\necho 1..1\necho '    # Subtest: group'\necho '    1..1'\necho '    ok 1 - inner'\necho 'ok 1 - group'\n",
    );
    p
}

/// A summary report without what differs between two runs: times, hosts, places, logs.
pub(crate) fn normalised(doc: &str) -> Value {
    let mut doc: Value = serde_json::from_str(doc).expect("json report");
    for f in doc["files"].as_array_mut().expect("files") {
        for k in ["duration_ms", "log"] {
            f.as_object_mut().map(|o| o.remove(k));
        }
    }
    if let Some(run) = doc["run"].as_object_mut() {
        for k in [
            "duration_ms",
            "duration",
            "started_ms",
            "host",
            "cwd",
            "command",
            "slowest",
        ] {
            run.remove(k);
        }
    }
    doc
}

/// Each file of a run's summary report: (path, ok, failed points). (Passes are not compared:
/// the report's count a SKIP point as passed too, the daemon's status only as a skip.)
pub(crate) fn verdicts(doc: &Value) -> Vec<(String, bool, u64)> {
    let mut v: Vec<_> = doc["files"]
        .as_array()
        .expect("files")
        .iter()
        .map(|f| {
            (
                f["path"].as_str().unwrap_or_default().to_owned(),
                f["ok"].as_bool().unwrap_or_default(),
                f["summary"]["fail"].as_u64().unwrap_or_default(),
            )
        })
        .collect();
    v.sort();
    v
}

/// The daemon's finished streams as (name, ok, failed points), once `n` have finished.
pub(crate) fn daemon_verdicts(status: impl Fn() -> Value, n: usize) -> Vec<(String, bool, u64)> {
    wait_for(|| finished(&status()).len() >= n);
    let mut v: Vec<_> = finished(&status())
        .iter()
        .map(|s| {
            (
                s["name"].as_str().unwrap_or_default().to_owned(),
                s["ok"].as_bool().unwrap_or_default(),
                s["fail"].as_u64().unwrap_or_default(),
            )
        })
        .collect();
    v.sort();
    v
}

/// The run's verdicts as the daemon names them: `shard 1/1: path`.
pub(crate) fn as_streams(run: &[(String, bool, u64)]) -> Vec<(String, bool, u64)> {
    run.iter()
        .map(|(p, ok, fail)| (format!("shard 1/1: {p}"), *ok, *fail))
        .collect()
}

/// Done when: a run forwarding to a live serve: the daemon's `status` and `events` see every
/// file under the shard's name with the run's verdict; the run's own report and exit code are
/// what they are without `--forward`.
#[test]
fn every_file_reaches_a_live_serve_with_the_runs_verdict() {
    let mut d = Daemon::start(&[]);
    let events = d
        .client(&["events"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("events");
    wait_for(|| d.status()["subscribers"] == 1);
    let p = mixed_project();
    let socket = d.socket().display().to_string();
    let plain = p.run(&["--partition", "slice:1/1", "-o", "plain.json"]);
    let fwd = p.run(&[
        "--partition",
        "slice:1/1",
        "--forward",
        &socket,
        "-o",
        "fwd.json",
    ]);
    assert_eq!(fwd.code, 1, "{}", fwd.both());
    assert_eq!(fwd.code, plain.code);
    assert!(!fwd.stderr.contains("warning"), "{}", fwd.both());
    let report = normalised(&p.read_text("fwd.json"));
    assert_eq!(report, normalised(&p.read_text("plain.json")));

    let run = verdicts(&report);
    assert_eq!(run.len(), 6);
    let seen = daemon_verdicts(|| d.status(), 6);
    assert_eq!(seen, as_streams(&run));
    // The stream says why the run failed a file whose TAP passed.
    let status = d.status();
    let exitfail = finished(&status)
        .into_iter()
        .find(|s| s["name"] == "shard 1/1: test/exitfail.sh")
        .expect("exitfail forwarded");
    assert_eq!(
        exitfail["reasons"][0], "bailed out: tapline run: exited with code 3",
        "{exitfail}"
    );
    assert_eq!(exitfail["meta"]["shard"], "1/1", "{exitfail}");
    let pass1 = finished(&status)
        .into_iter()
        .find(|s| s["name"] == "shard 1/1: test/pass1.sh")
        .expect("pass1 forwarded");
    assert_eq!(
        (&pass1["pass"], &pass1["skip"]),
        (&1.into(), &1.into()),
        "{pass1}"
    );
    assert_eq!(exitfail["meta"]["file"], "test/exitfail.sh", "{exitfail}");

    let (code, _) = d.stop(rustix::process::Signal::TERM);
    assert_eq!(code, Some(0));
    let out = events.wait_with_output().expect("events ends");
    let lines: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("event line"))
        .collect();
    let finished_streams: Vec<&str> = lines
        .iter()
        .filter(|l| l["type"] == "file_finished")
        .filter_map(|l| l["stream"].as_str())
        .collect();
    assert_eq!(finished_streams.len(), 6, "{lines:?}");
    assert!(finished_streams
        .iter()
        .all(|s| s.starts_with("shard 1/1: test/")));
    let inner = lines.iter().any(|l| {
        l["type"] == "tap" && l["event"]["type"] == "assert" && l["event"]["name"] == "inner"
    });
    assert!(inner, "the subtest's point is forwarded");
}

/// Done when: a run whose daemon is killed mid-run still passes (or fails) as it would, with
/// the same reports, and says so in one warning line; a daemon absent from the start too.
#[test]
fn a_daemon_that_goes_away_never_changes_the_run() {
    let p = Project::new();
    for i in 1..=4 {
        p.write(
            &format!("test/slow{i}.sh"),
            format!("echo 1..2\necho 'ok 1 - begins {i}'\nsleep 0.4\necho 'ok 2 - ends {i}'\n"),
        );
    }
    let plain = p.run(&["-j", "1", "-o", "plain.json"]);
    assert_eq!(plain.code, 0, "{}", plain.both());

    let d = Daemon::start(&[]);
    let socket = d.socket().display().to_string();
    let run = Command::new(env!("CARGO_BIN_EXE_tapline"))
        .current_dir(p.path())
        .env("CI", "1")
        .env("NO_COLOR", "1")
        .args(["run", "-j", "1", "--forward", &socket, "-o", "fwd.json"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run starts");
    // Killed (no goodbye) while the run's first file is open in it.
    wait_for(|| {
        let s = d.status();
        s["open"].as_array().is_some_and(|o| !o.is_empty()) || !finished(&s).is_empty()
    });
    d.signal(rustix::process::Signal::KILL);
    let started = Instant::now();
    let out = run.wait_with_output().expect("run ends");
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "{:?}",
        started.elapsed()
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let warnings: Vec<&str> = stderr.lines().filter(|l| l.contains("--forward")).collect();
    assert_eq!(warnings.len(), 1, "{stderr}");
    assert!(
        warnings[0].starts_with("tapline: warning: --forward to "),
        "{stderr}"
    );
    assert_eq!(
        normalised(&p.read_text("fwd.json")),
        normalised(&p.read_text("plain.json"))
    );

    // No daemon at all: the same run, one line saying so.
    let absent = p.run(&["-j", "1", "--forward", &socket, "-o", "absent.json"]);
    assert_eq!(absent.code, 0, "{}", absent.both());
    let warnings: Vec<&str> = absent
        .stderr
        .lines()
        .filter(|l| l.contains("--forward"))
        .collect();
    assert_eq!(warnings.len(), 1, "{}", absent.both());
    assert!(
        warnings[0].contains("no tapline daemon listens"),
        "{}",
        absent.both()
    );
    assert_eq!(
        normalised(&p.read_text("absent.json")),
        normalised(&p.read_text("plain.json"))
    );
}

/// Done when: a bad `--forward-token` file is a usage error (exit 2) before anything runs;
/// a Unix socket takes no token.
#[test]
fn forward_flags_that_cannot_work_are_usage_errors() {
    let p = mixed_project();
    let r = p.run(&[
        "--forward",
        "127.0.0.1:9",
        "--forward-token",
        "missing-token",
    ]);
    assert_eq!(r.code, 2, "{}", r.both());
    assert!(
        r.stderr.contains("failed to read the token file"),
        "{}",
        r.both()
    );
    let r = p.run(&["--forward", "d.sock", "--forward-token", "missing-token"]);
    assert_eq!(r.code, 2, "{}", r.both());
    assert!(
        r.stderr.contains("a Unix socket takes no --forward-token"),
        "{}",
        r.both()
    );
}

/// Done when: a daemon that stops reading never slows the run: the run ends with its own
/// verdict and reports, the file it fell behind on is cut short in the daemon's view, and the
/// run waits at most its 5 s for the queue at the end.
#[test]
fn a_daemon_that_stops_reading_never_holds_the_run() {
    use std::io::{BufRead, BufReader, Write};
    use std::os::unix::net::UnixListener;
    let p = Project::new();
    // About 20 MiB of TAP, faster than anyone reads it: more than the sockets and the
    // forwarder's queue (8 MiB) hold.
    let name = "a point whose name is long enough to weigh ".repeat(4);
    p.write(
        "t/big.t",
        format!("print \"1..100000\\n\"; print \"ok $_ - {name}\\n\" for 1..100000;\n"),
    );
    let plain = p.run(&["-o", "plain.json"]);
    assert_eq!(plain.code, 0, "{}", plain.both());

    let socket = p.join("stuck.sock");
    let listener = UnixListener::bind(&socket).expect("bind");
    // Answers STATUS; takes SEND connections and never reads them.
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for conn in listener.incoming() {
            let Ok(conn) = conn else { break };
            let mut line = String::new();
            let mut reader = BufReader::new(conn.try_clone().expect("clone"));
            let _ = reader.read_line(&mut line);
            if line.starts_with("STATUS") {
                let _ = (&conn).write_all(b"{\"pid\": 1}\n");
            } else {
                held.push((conn, reader));
            }
        }
    });
    let socket = socket.display().to_string();
    let started = Instant::now();
    let fwd = p.run(&["--forward", &socket, "-o", "fwd.json"]);
    let took = started.elapsed();
    assert_eq!(fwd.code, 0, "{}", fwd.both());
    assert_eq!(
        normalised(&p.read_text("fwd.json")),
        normalised(&p.read_text("plain.json"))
    );
    assert!(
        fwd.stderr
            .contains("--forward fell behind the run: 1 file(s) were cut short"),
        "{}",
        fwd.both()
    );
    assert!(
        took < plain.took + Duration::from_secs(15),
        "{took:?} vs {:?}",
        plain.took
    );
}
