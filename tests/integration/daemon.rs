//! Issue 10: `tapline serve` and its clients, as users start them: real processes, a real
//! socket, real signals.
use crate::util::daemon::{finished, passing, wait_for, Daemon, BIN};
use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};
use tempfile::TempDir;

/// Done when: 50 concurrent sends are judged right: pass, fail, and a client killed
/// mid-stream fails as cut. A stuck producer delays none of them.
#[test]
fn fifty_concurrent_sends_are_judged_right() {
    let d = Daemon::start(&["--format", "summary"]);
    // A stuck producer: its stream stays open through the whole test.
    let mut stuck = d.raw(b"SEND stuck\n1..3\nok 1\n");
    let started = Instant::now();
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..50)
            .map(|i| {
                let d = &d;
                scope.spawn(move || match i % 3 {
                    0 => {
                        let out = d.send(&format!("pass-{i}"), &passing(20));
                        assert_eq!(out.status.code(), Some(0), "pass-{i}: {out:?}");
                    }
                    1 => {
                        let tap = b"1..3\nok 1\nnot ok 2 - adds\nok 3\n";
                        let out = d.send(&format!("fail-{i}"), tap);
                        assert_eq!(out.status.code(), Some(1), "fail-{i}: {out:?}");
                        let err = String::from_utf8_lossy(&out.stderr);
                        assert!(err.contains("\"adds\""), "{err}");
                    }
                    _ => {
                        let mut child = d
                            .client(&["send", &format!("cut-{i}")])
                            .stdin(Stdio::piped())
                            .stderr(Stdio::null())
                            .spawn()
                            .expect("send");
                        let mut stdin = child.stdin.take().expect("stdin");
                        stdin.write_all(b"1..5\nok 1\nok 2\n").expect("write");
                        // Until the daemon has the points (both count as soon as their
                        // lines are read), then the client dies.
                        let name = format!("cut-{i}");
                        wait_for(|| {
                            let s = d.status();
                            s["open"].as_array().is_some_and(|open| {
                                open.iter().any(|o| o["name"] == name && o["pass"] == 2)
                            })
                        });
                        child.kill().expect("killed");
                        let _ = child.wait();
                    }
                })
            })
            .collect();
        for h in handles {
            h.join().expect("client thread");
        }
    });
    wait_for(|| finished(&d.status()).len() == 50);
    assert!(started.elapsed() < Duration::from_secs(60));
    let status = d.status();
    assert_eq!(
        status["open"].as_array().map(Vec::len),
        Some(1),
        "the stuck one"
    );
    for s in finished(&status) {
        let name = s["name"].as_str().expect("name");
        let reasons = s["reasons"].to_string();
        match name.split('-').next() {
            Some("pass") => assert_eq!(s["ok"], true, "{s}"),
            Some("fail") => {
                assert_eq!(s["ok"], false, "{s}");
                assert!(!reasons.contains("cut"), "{s}");
            }
            Some("cut") => {
                assert_eq!(s["ok"], false, "{s}");
                assert_eq!(s["pass"], 2, "{s}");
                assert!(
                    reasons.contains("cut: the connection ended before the stream was complete")
                        && reasons.contains("planned 5, ran 2"),
                    "{s}"
                );
            }
            _ => panic!("unexpected stream {s}"),
        }
    }
    stuck.write_all(b"ok 2\n").expect("still open");
    let mut d = d;
    let (code, _) = d.stop(rustix::process::Signal::TERM);
    assert_eq!(code, Some(0), "{}", d.stderr());
    let summary = d.summary();
    let files = summary["files"].as_array().expect("files");
    assert_eq!(files.len(), 51);
    let stuck_doc = files.iter().find(|f| f["path"] == "stuck").expect("stuck");
    assert_eq!(stuck_doc["ok"], false);
    assert!(
        stuck_doc["reasons"][0]
            .as_str()
            .is_some_and(|r| r.starts_with("interrupted")),
        "{stuck_doc}"
    );
    // The stuck producer is told its verdict too.
    let mut reply = String::new();
    let _ = stuck.set_read_timeout(Some(Duration::from_secs(5)));
    let _ = BufReader::new(&mut stuck).read_line(&mut reply);
    assert!(
        reply.contains("\"ok\":false") && reply.contains("interrupted"),
        "{reply}"
    );
}

/// Done when: hostile stream names are logged inside the log folder only.
#[test]
fn hostile_stream_names_are_logged_inside_the_log_folder_only() {
    let mut d = Daemon::start(&["--format", "summary"]);
    let long = "n".repeat(4096);
    let deep = "../".repeat(100) + "etc/passwd";
    let names = [
        "../x",
        "/etc/passwd",
        "a\0b",
        "..",
        "new\nline",
        long.as_str(),
        deep.as_str(),
        "../x",
    ];
    for name in names {
        // The JSON header carries any name, NUL and newline included.
        let head = format!("SEND {}\n", serde_json::json!({ "name": name }));
        let mut s = d.raw(head.as_bytes());
        s.write_all(b"1..1\nok 1 - fine\n").expect("tap");
        s.shutdown(std::net::Shutdown::Write).expect("eof");
        let mut reply = String::new();
        s.read_to_string(&mut reply).expect("verdict");
        assert!(reply.contains("\"ok\":true"), "{name:?}: {reply}");
    }
    let (code, _) = d.stop(rustix::process::Signal::TERM);
    assert_eq!(code, Some(0));
    let logs = d.path().join(".nogit/testlogs/serve");
    let mut inside: Vec<String> = std::fs::read_dir(&logs)
        .expect("log folder")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".log"))
        .collect();
    inside.sort();
    assert_eq!(inside.len(), names.len(), "{inside:?}");
    for name in &inside {
        let bytes = std::fs::read(logs.join(name)).expect("log");
        assert_eq!(bytes, b"1..1\nok 1 - fine\n");
        assert!(name.len() <= 255);
    }
    // Nothing landed anywhere else in the project.
    let mut everything = Vec::new();
    let mut stack = vec![d.path().to_path_buf()];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).expect("dir").flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                everything.push(p);
            }
        }
    }
    for p in everything {
        let rel = p.strip_prefix(d.path()).expect("inside");
        assert!(
            rel.starts_with(".nogit/testlogs/serve")
                // tapline's folder ignores itself (issue 16).
                || rel == Path::new(".nogit/.gitignore")
                || rel == Path::new("stdout")
                || rel == Path::new("stderr"),
            "stray file {}",
            rel.display()
        );
    }
    let summary = d.summary();
    let paths: Vec<&str> = summary["files"]
        .as_array()
        .expect("files")
        .iter()
        .map(|f| f["path"].as_str().expect("path"))
        .collect();
    assert_eq!(paths, names, "each stream's name is its path");
}

/// Done when: the socket is 0600 and removed on exit; a second serve on a live socket is
/// refused; SIGTERM exits 0 within a second with the reports written.
#[test]
fn the_socket_is_private_refused_twice_and_gone_after_sigterm() {
    let reports = [
        "report.xml",
        "report.json",
        "report.md",
        "report.html",
        "events.jsonl",
    ];
    let mut args = vec!["--format", "summary"];
    for r in reports {
        args.extend(["-o", r]);
    }
    let mut d = Daemon::start(&args);
    let mode = std::fs::metadata(d.socket())
        .expect("socket")
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o600);
    let second = Command::new(BIN)
        .arg("serve")
        .current_dir(d.path())
        .output()
        .expect("second serve");
    assert_eq!(second.status.code(), Some(2));
    let err = String::from_utf8_lossy(&second.stderr);
    assert!(
        err.contains(&format!(
            "another tapline serve (pid {}) is listening",
            d.pid()
        )),
        "{err}"
    );
    assert!(d.socket().exists(), "the live socket is left alone");
    assert_eq!(d.send("unit", &passing(3)).status.code(), Some(0));
    // An open stream at the signal is interrupted, and fails.
    let _open = d.raw(b"SEND open\n1..2\nok 1\n");
    wait_for(|| d.status()["open"].as_array().is_some_and(|o| o.len() == 1));
    let (code, took) = d.stop(rustix::process::Signal::TERM);
    assert_eq!(code, Some(0), "{}", d.stderr());
    assert!(took < Duration::from_secs(1), "took {took:?}");
    assert!(!d.socket().exists(), "socket removed");
    let summary = d.summary();
    assert_eq!(summary["ok"], false);
    assert_eq!(summary["files"][0]["path"], "unit");
    assert_eq!(summary["files"][0]["ok"], true);
    assert_eq!(summary["files"][1]["path"], "open");
    assert_eq!(summary["files"][1]["ok"], false);
    assert!(d.stderr().contains("1 of 2 files failed"), "{}", d.stderr());
    // Every report is written, each stream a file of it.
    for r in reports {
        let text = std::fs::read_to_string(d.path().join(r)).unwrap_or_else(|e| panic!("{r}: {e}"));
        assert!(
            text.contains("unit") && text.contains("open"),
            "{r}: {text}"
        );
    }
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.path().join("report.json")).expect("json"))
            .expect("JSON report");
    assert_eq!(json["files"][1]["path"], "open");
    assert_eq!(json["files"][1]["ok"], false);
    let xml = std::fs::read_to_string(d.path().join("report.xml")).expect("xml");
    assert!(xml.contains("interrupted"), "{xml}");
    // And a stale socket (the daemon is gone, its file is not) is replaced.
    drop(std::os::unix::net::UnixListener::bind(d.socket()).expect("stale socket"));
    let dir = d.take_dir();
    let mut again = Daemon::start_in(dir, &[]);
    let (code, _) = again.stop(rustix::process::Signal::INT);
    assert_eq!(code, Some(130), "SIGINT exits 130");
}

/// Done when: a subscriber sees every stream's events in order per stream (4 subscribers, one
/// filtered by glob).
#[test]
fn subscribers_see_every_streams_events_in_order() {
    let mut d = Daemon::start(&[]);
    let subscribers: Vec<std::thread::JoinHandle<Output>> = [None, None, None, Some("even-*")]
        .into_iter()
        .map(|glob| {
            let mut args = vec!["events"];
            if let Some(g) = glob {
                args.extend(["--stream", g]);
            }
            d.client(&args)
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .expect("events")
        })
        // Read as they go, as a subscriber does.
        .map(|child| std::thread::spawn(move || child.wait_with_output().expect("events ends")))
        .collect();
    wait_for(|| d.status()["subscribers"] == 4);
    std::thread::scope(|scope| {
        for i in 0..12 {
            let d = &d;
            scope.spawn(move || {
                let name = format!("{}-{i}", if i % 2 == 0 { "even" } else { "odd" });
                assert_eq!(d.send(&name, &passing(200)).status.code(), Some(0));
            });
        }
    });
    let (code, _) = d.stop(rustix::process::Signal::TERM);
    assert_eq!(code, Some(0));
    for (n, sub) in subscribers.into_iter().enumerate() {
        let out = sub.join().expect("events ends with the daemon");
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        let mut per_stream: std::collections::BTreeMap<String, Vec<serde_json::Value>> =
            Default::default();
        let mut saw_end = false;
        for line in out.stdout.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
            let v: serde_json::Value = serde_json::from_slice(line).expect("JSON line");
            match v["stream"].as_str() {
                Some(name) => per_stream.entry(name.to_owned()).or_default().push(v),
                None => saw_end |= v["type"] == "run_finished",
            }
        }
        assert!(saw_end, "subscriber {n} saw the daemon's end");
        let expected = if n == 3 { 6 } else { 12 };
        assert_eq!(per_stream.len(), expected, "subscriber {n}");
        for (name, events) in per_stream {
            if n == 3 {
                assert!(name.starts_with("even-"), "{name}");
            }
            assert_eq!(events[0]["type"], "file_started", "{name}");
            assert_eq!(events.last().expect("events")["type"], "file_finished");
            let ids: Vec<u64> = events
                .iter()
                .filter(|e| e["event"]["type"] == "assert")
                .map(|e| e["event"]["id"].as_u64().expect("id"))
                .collect();
            assert_eq!(ids, (1..=200).collect::<Vec<u64>>(), "{name}: in order");
        }
    }
}

/// A subscriber that stops reading is dropped with a warning; nobody waits for it.
#[test]
fn a_subscriber_that_stops_reading_is_dropped() {
    let mut d = Daemon::start(&[]);
    let _sleeper = d.raw(b"EVENTS\n");
    wait_for(|| d.status()["subscribers"] == 1);
    let started = Instant::now();
    let out = d.send("big", &passing(60_000));
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(started.elapsed() < Duration::from_secs(60));
    wait_for(|| d.status()["subscribers"] == 0);
    let (code, _) = d.stop(rustix::process::Signal::TERM);
    assert_eq!(code, Some(0));
    assert!(
        d.stderr().contains("dropped the events subscriber"),
        "{}",
        d.stderr()
    );
}

/// Done when: a TCP connection without the token is refused (loopback, ephemeral port).
#[test]
fn a_tcp_connection_without_the_token_is_refused() {
    let dir = TempDir::new().expect("temp dir");
    std::fs::create_dir(dir.path().join(".git")).expect("root");
    let token = dir.path().join("token");
    std::fs::write(&token, "s3cret-token\n").expect("token");
    let token = token.display().to_string();
    let mut d = Daemon::start_in(dir, &["--listen", "127.0.0.1:0", "--token", &token]);
    let err = d.stderr();
    let addr = err
        .lines()
        .find_map(|l| l.strip_prefix("tapline: listening on tcp "))
        .expect("the TCP address is printed")
        .to_owned();
    // Raw: a header without the token first.
    let mut s = std::net::TcpStream::connect(&addr).expect("connect");
    s.write_all(b"SEND sneaky\n1..1\nok 1\n").expect("write");
    let mut reply = String::new();
    s.read_to_string(&mut reply).expect("reply");
    assert!(
        reply.contains("\"error\"") && reply.contains("token"),
        "{reply}"
    );
    // The client without the token: refused, exit 2.
    let out = d
        .client(&["send", "also-sneaky", "--connect", &addr])
        .stdin(Stdio::null())
        .output()
        .expect("send");
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    // With it: judged.
    let tap = d.path().join("ok.tap");
    std::fs::write(&tap, passing(2)).expect("tap");
    let out = d
        .client(&[
            "send",
            "welcome",
            tap.to_str().expect("utf-8"),
            "--connect",
            &addr,
            "--token",
            &token,
        ])
        .output()
        .expect("send");
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let status = d.status();
    let names: Vec<String> = finished(&status)
        .iter()
        .map(|s| s["name"].as_str().unwrap_or_default().to_owned())
        .collect();
    assert_eq!(names, ["welcome"]);
    let (code, _) = d.stop(rustix::process::Signal::TERM);
    assert_eq!(code, Some(0));
}

/// `send` with no daemon listening exits 2 and says so.
#[test]
fn send_without_a_daemon_exits_2() {
    let dir = TempDir::new().expect("temp dir");
    std::fs::create_dir(dir.path().join(".git")).expect("root");
    let out = Command::new(BIN)
        .args(["send", "unit"])
        .current_dir(dir.path())
        .stdin(Stdio::null())
        .output()
        .expect("send");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no tapline daemon listens"));
}

/// The open stream named `name` in a status document.
fn open_stream(status: &serde_json::Value, name: &str) -> Option<serde_json::Value> {
    status["open"]
        .as_array()?
        .iter()
        .find(|o| o["name"] == name)
        .cloned()
}

/// Issue 16: `status` is current. A producer that prints `ok 1 - a`, `not ok 2 - b` and then
/// stalls is shown on `b` (counted), not on `a`; a v2 `test:started` names the test whose body
/// is running before it reports; a finished stream has no current test.
#[test]
fn status_names_the_test_a_stalled_stream_is_on() {
    let d = Daemon::start(&["--format", "summary"]);
    let _stalled = d.raw(b"SEND stall\n1..3\nok 1 - a\nnot ok 2 - b\n");
    let v2 = "SEND v2\n⟦TSTEST:PROTOCOL:2.0.0⟧\n1..2\nok 1 - first\n\
        ⟦TSTEST:EVENT:{\"type\":\"test:started\",\"name\":\"second\"}⟧\n";
    let _v2 = d.raw(v2.as_bytes());
    let mut last = serde_json::Value::Null;
    wait_for(|| {
        last = d.status();
        let on = |name, current| open_stream(&last, name).is_some_and(|o| o["current"] == current);
        on("stall", "b") && on("v2", "second")
    });
    let stall = open_stream(&last, "stall").expect("open");
    assert_eq!(
        (&stall["pass"], &stall["fail"]),
        (&1.into(), &1.into()),
        "{stall}"
    );
    let v2 = open_stream(&last, "v2").expect("open");
    assert_eq!(v2["pass"], 1, "{v2}");
    // Nothing more arrives: it stays on `b`.
    std::thread::sleep(Duration::from_millis(300));
    let stall = open_stream(&d.status(), "stall").expect("still open");
    assert_eq!(stall["current"], "b", "{stall}");

    let out = d.send("done", b"1..1\nok 1 - only\n");
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let status = d.status();
    let done = finished(&status)
        .into_iter()
        .find(|s| s["name"] == "done")
        .expect("finished");
    assert!(done.get("current").is_none(), "{done}");
}
