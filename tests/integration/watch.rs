//! `tapline run --watch`, driven for real: a session in a temp project, commands on its piped
//! stdin, `--format jsonl` on stdout telling which files each run started, files edited on
//! disk. Every wait polls with a generous deadline, so a loaded machine is slow, not flaky.
use crate::util::{require, tool};
use serde_json::Value;
use std::fs::{self, OpenOptions};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};
use tempfile::TempDir;

/// How long anything may take before a test gives up.
const DEADLINE: Duration = Duration::from_secs(30);
/// How long a change that must start nothing gets to (wrongly) start something: many
/// debounce periods.
const QUIET: Duration = Duration::from_millis(1500);

/// A test file: records its pid, passes (or fails), optionally sleeps first.
fn script(ok: bool, sleep: Option<&str>) -> String {
    let sleep = sleep
        .map(|s| format!("sleep {s} & echo $! >> \"$PIDS\"; wait\n"))
        .unwrap_or_default();
    let verdict = if ok { "ok" } else { "not ok" };
    format!("echo $$ >> \"$PIDS\"\n{sleep}echo 1..1\necho '{verdict} 1 - it'\n")
}

/// The run tests' project (`crate::util::Project`), with a `tapline.toml`, and a folder beside
/// it that is never watched.
pub(crate) struct Project {
    inner: crate::util::Project,
    /// Outside the project, so writing it changes nothing watched.
    aux: TempDir,
}

impl Project {
    pub(crate) fn new(files: &[(&str, &str)]) -> Project {
        let inner = crate::util::Project::new();
        inner.write("tapline.toml", "");
        let aux = TempDir::new().expect("temp dir");
        let p = Project { inner, aux };
        for (path, text) in files {
            p.write(path, text);
        }
        p
    }

    fn root(&self) -> &std::path::Path {
        self.inner.path()
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.inner.join(rel)
    }

    pub(crate) fn write(&self, rel: &str, text: &str) {
        self.inner.write(rel, text);
    }

    /// Appends a comment: a content change that keeps a script working.
    fn edit(&self, rel: &str) {
        let mut f = OpenOptions::new()
            .append(true)
            .open(self.path(rel))
            .expect("open");
        // One write(2), so one change (two could land in two debounced batches).
        f.write_all(b"# edited\n").expect("append");
    }

    fn pids_file(&self) -> PathBuf {
        self.aux.path().join("pids")
    }

    fn recorded_pids(&self) -> Vec<i32> {
        fs::read_to_string(self.pids_file())
            .unwrap_or_default()
            .lines()
            .filter_map(|l| l.trim().parse().ok())
            .collect()
    }
}

static SESSIONS: AtomicUsize = AtomicUsize::new(0);

/// A running `tapline run --watch`.
pub(crate) struct Session {
    child: Child,
    stdin: Option<ChildStdin>,
    events: Arc<Mutex<Vec<Value>>>,
    stderr: Arc<Mutex<String>>,
    /// In every child's environment: finds whatever the session left running.
    marker: String,
}

impl Session {
    pub(crate) fn start(project: &Project, args: &[&str]) -> Session {
        Session::start_with(project, args, Stdio::piped())
    }

    fn start_with(project: &Project, args: &[&str], stdout: Stdio) -> Session {
        let marker = format!(
            "{}-{}",
            std::process::id(),
            SESSIONS.fetch_add(1, Ordering::Relaxed)
        );
        let mut child = Command::new(env!("CARGO_BIN_EXE_tapline"))
            .args([
                "run",
                "--watch",
                "--debounce",
                "100ms",
                "--grace",
                "1s",
                "--color",
                "never",
                "--format",
                "jsonl",
            ])
            .args(args)
            .current_dir(project.root())
            .env("PIDS", project.pids_file())
            .env("TAPLINE_WATCH_MARKER", &marker)
            .env_remove("CI")
            .stdin(Stdio::piped())
            .stdout(stdout)
            .stderr(Stdio::piped())
            .spawn()
            .expect("tapline starts");
        let events = Arc::new(Mutex::new(Vec::new()));
        if let Some(out) = child.stdout.take() {
            let events = events.clone();
            thread::spawn(move || {
                for line in BufReader::new(out).lines() {
                    let Ok(line) = line else { break };
                    let v: Value = serde_json::from_str(&line).expect("a JSON line");
                    events.lock().expect("lock").push(v);
                }
            });
        }
        let stderr = Arc::new(Mutex::new(String::new()));
        {
            let mut err = child.stderr.take().expect("stderr");
            let stderr = stderr.clone();
            thread::spawn(move || {
                let mut buf = [0u8; 4096];
                while let Ok(n) = err.read(&mut buf) {
                    if n == 0 {
                        break;
                    }
                    stderr
                        .lock()
                        .expect("lock")
                        .push_str(&String::from_utf8_lossy(&buf[..n]));
                }
            });
        }
        Session {
            stdin: child.stdin.take(),
            child,
            events,
            stderr,
            marker,
        }
    }

    fn pid(&self) -> i32 {
        self.child.id() as i32
    }

    pub(crate) fn stderr(&self) -> String {
        self.stderr.lock().expect("lock").clone()
    }

    fn events(&self) -> Vec<Value> {
        self.events.lock().expect("lock").clone()
    }

    /// Polls `cond` until it holds; panics with the session's output after the deadline.
    fn wait(&self, what: &str, cond: impl Fn(&Session) -> bool) {
        let start = Instant::now();
        while !cond(self) {
            if start.elapsed() > DEADLINE {
                panic!(
                    "timed out waiting for {what}\n--- events:\n{}\n--- stderr:\n{}",
                    self.events()
                        .iter()
                        .map(short)
                        .collect::<Vec<_>>()
                        .join("\n"),
                    self.stderr()
                );
            }
            thread::sleep(Duration::from_millis(20));
        }
    }

    fn of_type(&self, kind: &str) -> Vec<Value> {
        self.events()
            .into_iter()
            .filter(|e| e["type"] == kind)
            .collect()
    }

    /// The last run number started (0: none yet).
    fn runs_started(&self) -> u64 {
        self.of_type("run_started")
            .iter()
            .filter_map(|e| e["run"].as_u64())
            .max()
            .unwrap_or(0)
    }

    fn finished(&self, run: u64) -> Option<Value> {
        self.of_type("run_finished")
            .into_iter()
            .find(|e| e["run"] == run)
    }

    pub(crate) fn wait_finished(&self, run: u64) -> Value {
        self.wait(&format!("run {run} to finish"), |s| {
            s.finished(run).is_some()
        });
        self.finished(run).expect("finished")
    }

    /// The files run `run` started, in order.
    fn files(&self, run: u64) -> Vec<String> {
        self.of_type("file_started")
            .iter()
            .filter(|e| e["run"] == run)
            .map(|e| e["file"]["rel"].as_str().expect("rel").to_owned())
            .collect()
    }

    /// Asserts that no run after `run` starts within [`QUIET`].
    fn assert_no_run_after(&self, run: u64, why: &str) {
        thread::sleep(QUIET);
        assert_eq!(
            self.runs_started(),
            run,
            "{why} started a run\n--- stderr:\n{}",
            self.stderr()
        );
    }

    fn send(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        writeln!(stdin, "{line}").expect("write to tapline");
        stdin.flush().expect("flush");
    }

    /// Waits for tapline to exit; its exit code.
    fn wait_exit(&mut self) -> i32 {
        let start = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().expect("try_wait") {
                return status.code().unwrap_or(-1);
            }
            if start.elapsed() > DEADLINE {
                panic!("tapline did not exit\n--- stderr:\n{}", self.stderr());
            }
            thread::sleep(Duration::from_millis(20));
        }
    }

    pub(crate) fn quit(&mut self) -> i32 {
        self.send("q");
        self.wait_exit()
    }

    /// Processes carrying this session's marker, tapline itself aside: whatever it started
    /// and left running.
    fn leftovers(&self) -> Vec<i32> {
        let needle = format!("TAPLINE_WATCH_MARKER={}\0", self.marker);
        let mut found = Vec::new();
        for entry in fs::read_dir("/proc").expect("/proc").flatten() {
            let Some(pid) = entry
                .file_name()
                .to_str()
                .and_then(|n| n.parse::<i32>().ok())
            else {
                continue;
            };
            if pid == self.pid() {
                continue;
            }
            let Ok(env) = fs::read(entry.path().join("environ")) else {
                continue;
            };
            if env.windows(needle.len()).any(|w| w == needle.as_bytes()) {
                found.push(pid);
            }
        }
        found
    }

    /// Processes whose parent is tapline, zombies included.
    fn children(&self) -> Vec<String> {
        let mut found = Vec::new();
        for entry in fs::read_dir("/proc").expect("/proc").flatten() {
            let Ok(stat) = fs::read_to_string(entry.path().join("stat")) else {
                continue;
            };
            // pid (comm) state ppid …; comm may hold spaces and parentheses.
            let Some(rest) = stat.rfind(')').map(|i| &stat[i + 1..]) else {
                continue;
            };
            let fields: Vec<&str> = rest.split_whitespace().collect();
            if fields.get(1).and_then(|p| p.parse::<i32>().ok()) == Some(self.pid()) {
                found.push(stat.trim().to_owned());
            }
        }
        found
    }

    pub(crate) fn assert_nothing_left(&self, project: &Project) {
        // A killed process can take a moment to disappear from /proc.
        let start = Instant::now();
        while !self.leftovers().is_empty() && start.elapsed() < Duration::from_secs(5) {
            thread::sleep(Duration::from_millis(50));
        }
        let left = self.leftovers();
        let alive: Vec<i32> = project
            .recorded_pids()
            .into_iter()
            .filter(|pid| left.contains(pid))
            .collect();
        assert!(
            left.is_empty(),
            "processes left running: {left:?} (of the recorded ones: {alive:?})\n{}",
            left.iter()
                .map(|p| fs::read_to_string(format!("/proc/{p}/stat")).unwrap_or_default())
                .collect::<String>()
        );
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        if self.child.try_wait().ok().flatten().is_none() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
        // Whatever a failed test left behind goes too.
        for pid in self.leftovers() {
            if let Some(pid) = rustix::process::Pid::from_raw(pid) {
                let _ = rustix::process::kill_process(pid, rustix::process::Signal::KILL);
            }
        }
    }
}

/// An event, abridged for failure messages.
fn short(e: &Value) -> String {
    let mut s = format!("{} run {}", e["type"], e["run"]);
    if let Some(rel) = e["file"]["rel"].as_str() {
        s.push_str(&format!(" {rel}"));
    }
    s
}

fn wait_for(what: &str, cond: impl Fn() -> bool) {
    let start = Instant::now();
    while !cond() {
        assert!(start.elapsed() < DEADLINE, "timed out waiting for {what}");
        thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn an_edited_test_file_reruns_alone_another_change_reruns_all_failing_first() {
    let p = Project::new(&[
        ("test/a.sh", &script(true, None)),
        ("test/b.sh", &script(false, None)),
        ("lib/x.txt", "x\n"),
    ]);
    let mut s = Session::start(&p, &[]);
    s.wait_finished(1);
    assert_eq!(s.files(1), ["test/a.sh", "test/b.sh"]);

    p.edit("test/a.sh");
    s.wait_finished(2);
    assert_eq!(s.files(2), ["test/a.sh"], "only the edited test file");

    p.edit("lib/x.txt");
    s.wait_finished(3);
    assert_eq!(
        s.files(3),
        ["test/b.sh", "test/a.sh"],
        "everything, the failing file first"
    );

    p.write("test/c.sh", &script(true, None));
    s.wait_finished(4);
    assert_eq!(s.files(4), ["test/c.sh"], "a new test file is a test file");

    // The help line follows the summary on stderr after `run_finished` is on stdout: waited
    // for, not raced (this test failed when it read stderr between the two).
    wait_for("a help line under each of the four summaries", || {
        s.stderr().matches("watching · ").count() >= 4
    });
    let err = s.stderr();
    for header in [
        "── run 1 ─",
        "── run 2 · triggered by test/a.sh ─",
        "── run 3 · triggered by lib/x.txt ─",
        "── run 4 · triggered by test/c.sh ─",
    ] {
        assert!(err.contains(header), "no `{header}` in:\n{err}");
    }
    assert!(
        err.matches("watching · ").count() >= 4,
        "a help line under each summary:\n{err}"
    );
    assert_eq!(s.quit(), 0);
    s.assert_nothing_left(&p);
}

#[test]
fn new_folders_are_watched() {
    let p = Project::new(&[("test/a.sh", &script(true, None))]);
    let mut s = Session::start(&p, &[]);
    s.wait_finished(1);
    p.write("test/sub/new.sh", &script(true, None));
    s.wait("a run with test/sub/new.sh", |s| {
        (2..=s.runs_started()).any(|run| {
            s.finished(run).is_some() && s.files(run).contains(&"test/sub/new.sh".to_owned())
        })
    });
    let last = s.runs_started();
    s.wait_finished(last);
    p.edit("test/sub/new.sh");
    s.wait_finished(last + 1);
    assert_eq!(s.files(last + 1), ["test/sub/new.sh"]);
    assert_eq!(s.quit(), 0);
}

#[test]
fn an_edit_during_a_run_cancels_and_restarts_it() {
    let p = Project::new(&[
        ("test/a.sh", &script(true, None)),
        ("test/slow.sh", &script(true, Some("30"))),
        ("lib/x.txt", "x\n"),
    ]);
    let mut s = Session::start(&p, &[]);
    // Both of the slow file's processes (sh and its sleep) are up.
    wait_for("the slow file to start", || p.recorded_pids().len() >= 3);
    p.edit("lib/x.txt");
    let first = s.wait_finished(1);
    assert_eq!(first["summary"]["interrupted"], true, "{first}");
    let slow = s
        .of_type("file_finished")
        .into_iter()
        .find(|e| e["run"] == 1 && e["result"]["cancelled"] == true);
    assert!(slow.is_some(), "the slow file was cancelled");
    s.wait("run 2 to start the slow file again", |s| {
        s.files(2).contains(&"test/slow.sh".to_owned())
    });
    assert_eq!(s.files(2), ["test/a.sh", "test/slow.sh"]);
    let err = s.stderr();
    assert!(
        err.contains("── run 2 · triggered by lib/x.txt · restarts run 1 ─"),
        "{err}"
    );

    // Editing the slow test file itself restarts it too: only the cancelled run's files and
    // the edited one run.
    p.edit("test/slow.sh");
    let second = s.wait_finished(2);
    assert_eq!(second["summary"]["interrupted"], true, "{second}");
    s.wait("run 3 to start", |s| s.files(3).len() == 2);

    // Quitting mid-run stops the run and leaves nothing behind.
    assert_eq!(s.quit(), 0);
    assert!(s.finished(3).is_some(), "the run ended before tapline did");
    s.assert_nothing_left(&p);
}

#[test]
fn ignored_paths_and_changes_that_change_nothing_trigger_nothing() {
    let p = Project::new(&[
        ("test/a.sh", &script(true, None)),
        (".gitignore", "build/\n*.out\n"),
        ("build/keep", ""),
        ("docs/keep", ""),
        ("node_modules/m/keep", ""),
        ("target/keep", ""),
        (".git/HEAD", "ref: refs/heads/main\n"),
        ("sub/keep", ""),
        ("lib/x.txt", "x\n"),
    ]);
    let mut s = Session::start(&p, &["--watch-ignore", "docs/**,*.tmp"]);
    s.wait_finished(1);
    for path in [
        "build/x.o",
        "build/new/deep.o",
        "a.out",
        "sub/b.out",
        "docs/readme.md",
        "docs/new/page.md",
        "test/notes.tmp",
        "node_modules/m/index.js",
        "target/debug/x",
        ".git/index",
        "test/.a.sh.swp",
    ] {
        p.write(path, "changed\n");
    }
    // Metadata only, and reads. Setting only the mtime is reported as a write (IN_MODIFY):
    // the contents tell it changed nothing.
    let a = p.path("test/a.sh");
    let file = OpenOptions::new().append(true).open(&a).expect("open");
    let now = std::time::SystemTime::now();
    file.set_modified(now).expect("set mtime");
    file.set_times(fs::FileTimes::new().set_accessed(now).set_modified(now))
        .expect("touch");
    drop(file);
    // A save without changes.
    fs::write(&a, fs::read(&a).expect("read")).expect("rewrite");
    let mut perms = fs::metadata(&a).expect("stat").permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
    fs::set_permissions(&a, perms).expect("chmod");
    fs::read(&a).expect("read");
    s.assert_no_run_after(1, "an ignored path, a metadata change or a read");

    // The watcher is alive all the same.
    p.edit("lib/x.txt");
    s.wait_finished(2);
    assert_eq!(s.quit(), 0);
}

#[test]
fn writing_logs_and_the_own_output_file_triggers_nothing() {
    let p = Project::new(&[
        ("test/a.sh", &script(true, None)),
        ("test/b.sh", &script(false, None)),
    ]);
    let mut s = Session::start(&p, &[]);
    // The first run creates `.nogit/testlogs`, later ones rotate it.
    s.wait_finished(1);
    assert!(p.path(".nogit/testlogs/test__a.log").is_file());
    s.assert_no_run_after(1, "writing the logs");
    s.send("a");
    s.wait_finished(2);
    assert!(p.path(".nogit/testlogs/previous/test__a.log").is_file());
    s.assert_no_run_after(2, "rotating the logs");
    assert_eq!(s.quit(), 0);

    // stdout redirected into the project: writing it is tapline's own doing.
    let out = fs::File::create(p.path("events.jsonl")).expect("create");
    let mut s = Session::start_with(&p, &[], Stdio::from(out));
    s.wait("the first run's help line", |s| {
        s.stderr().contains("watching · ")
    });
    thread::sleep(QUIET);
    let err = s.stderr();
    assert!(!err.contains("── run 2"), "{err}");
    assert_eq!(s.quit(), 0);
    let events = fs::read_to_string(p.path("events.jsonl")).expect("read");
    assert!(events.contains("\"run_finished\""), "{events}");
}

#[test]
fn stdin_commands_pick_files() {
    let p = Project::new(&[
        ("test/a.sh", &script(true, None)),
        ("test/b.sh", &script(false, None)),
        ("test/sub/c.sh", &script(true, None)),
    ]);
    let mut s = Session::start(&p, &[]);
    s.wait_finished(1);
    s.send("f");
    s.wait_finished(2);
    assert_eq!(s.files(2), ["test/b.sh"]);
    s.send("p sub");
    s.wait_finished(3);
    assert_eq!(s.files(3), ["test/sub/c.sh"]);
    s.send("p *.sh");
    s.wait_finished(4);
    assert_eq!(s.files(4), ["test/b.sh", "test/a.sh", "test/sub/c.sh"]);
    s.send("p nothing-matches");
    s.send("a");
    s.wait_finished(5);
    assert_eq!(s.files(5).len(), 3);
    let err = s.stderr();
    assert!(
        err.contains("no test file matches `nothing-matches`"),
        "{err}"
    );
    assert!(err.contains("── run 2 · failing files (f) ─"), "{err}");
    assert!(
        err.contains("── run 3 · files matching `sub` (p) ─"),
        "{err}"
    );
    assert!(err.contains("── run 5 · all files (a) ─"), "{err}");
    assert_eq!(s.quit(), 0);
}

#[test]
fn fifty_edit_cycles_leave_no_child_behind() {
    // a.sh leaves a background process behind, b.sh takes a while: half the edits land
    // during a run and cancel it.
    let leaver = "echo $$ >> \"$PIDS\"\nsleep 30 >/dev/null 2>&1 &\necho $! >> \"$PIDS\"\necho 1..1\necho 'ok 1 - it'\n";
    let p = Project::new(&[
        ("test/a.sh", leaver),
        ("test/b.sh", &script(true, Some("0.3"))),
    ]);
    let mut s = Session::start(&p, &["-j", "2"]);
    s.wait_finished(1);
    for cycle in 0..50 {
        let before = s.runs_started();
        p.edit(if cycle % 3 == 0 {
            "test/b.sh"
        } else {
            "test/a.sh"
        });
        s.wait(&format!("cycle {cycle}'s run to start"), |s| {
            s.runs_started() > before
        });
        if cycle % 2 == 1 {
            let run = s.runs_started();
            s.wait_finished(run);
        }
    }
    // Settled: the last run finished and nothing else is coming.
    s.wait("the session to settle", |s| {
        let last = s.runs_started();
        s.finished(last).is_some()
    });
    let last = s.runs_started();
    assert!(last >= 40, "{last} runs for 50 edits");
    assert!(
        s.of_type("run_finished")
            .iter()
            .any(|e| e["summary"]["interrupted"] == true),
        "some edits landed during a run and cancelled it"
    );
    s.assert_no_run_after(last, "nothing");
    assert!(
        s.children().is_empty(),
        "tapline has children (or zombies) while idle: {:?}",
        s.children()
    );
    assert!(p.recorded_pids().len() >= 100, "the files ran");
    s.assert_nothing_left(&p);
    assert_eq!(s.quit(), 0);
    s.assert_nothing_left(&p);
}

#[test]
fn ctrl_c_quits_with_130_and_leaves_nothing_running() {
    let p = Project::new(&[("test/slow.sh", &script(true, Some("30")))]);
    let mut s = Session::start(&p, &[]);
    wait_for("the slow file to start", || p.recorded_pids().len() >= 2);
    let pid = rustix::process::Pid::from_raw(s.pid()).expect("pid");
    rustix::process::kill_process(pid, rustix::process::Signal::INT).expect("SIGINT");
    assert_eq!(s.wait_exit(), 130);
    s.assert_nothing_left(&p);
}

#[test]
fn end_of_input_quits_cleanly() {
    let p = Project::new(&[("test/slow.sh", &script(true, Some("30")))]);
    let mut s = Session::start(&p, &[]);
    wait_for("the slow file to start", || p.recorded_pids().len() >= 2);
    drop(s.stdin.take());
    assert_eq!(s.wait_exit(), 0);
    s.wait("run 1's end", |s| s.finished(1).is_some());
    let events = s.events();
    assert_eq!(
        events.last().map(|e| e["type"].clone()),
        Some("run_finished".into()),
        "the run was ended, and reported"
    );
    s.assert_nothing_left(&p);
}

#[test]
fn bad_watch_options_are_usage_errors() {
    let p = Project::new(&[("test/a.sh", &script(true, None))]);
    for (args, expected) in [
        (&["-w", "--debounce", "soon"][..], "invalid --debounce"),
        (
            &["-w", "--watch-ignore", "a["][..],
            "invalid --watch-ignore glob `a[`",
        ),
        (&["--debounce", "1s"][..], "--watch"),
        (&["-w", "--list"][..], "cannot be used with"),
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_tapline"))
            .arg("run")
            .args(args)
            .current_dir(p.root())
            .stdin(Stdio::null())
            .output()
            .expect("runs");
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(expected), "{args:?}: {err}");
    }
}

/// The text of run `run`'s section of the terminal output (its header to the next one).
fn section(err: &str, run: u64) -> String {
    let start = err
        .find(&format!("── run {run} "))
        .unwrap_or_else(|| panic!("no run {run} in:\n{err}"));
    let rest = &err[start..];
    let skip = "── run ".len();
    let end = rest[skip..]
        .find("── run ")
        .map_or(rest.len(), |i| i + skip);
    rest[..end].to_owned()
}

/// A test that writes into the project: appends to a counter file in the root, or writes a
/// new file each run.
fn writer(line: &str) -> String {
    format!("echo $$ >> \"$PIDS\"\n{line}\necho 1..1\necho 'ok 1 - wrote'\n")
}

#[test]
fn a_test_writing_into_the_project_cannot_make_the_session_rerun_itself() {
    let p = Project::new(&[
        ("test/counter.sh", &writer("echo run >> counter.txt")),
        ("test/fresh.sh", &writer("echo new > \"fresh-$$.txt\"")),
        ("lib/x.txt", "x\n"),
    ]);
    let mut s = Session::start(&p, &[]);
    s.wait("the loop to be named", |s| {
        s.stderr().contains("not re-running")
    });
    let last = s.runs_started();
    assert!(last <= 3, "{last} runs without an edit:\n{}", s.stderr());
    s.wait_finished(last);
    s.assert_no_run_after(last, "the tests' own writes, once named,");
    // What a run writes may ripen into one batch or two: the second batch's file is then
    // named on an "also changed during run N" line after the note, which may come later.
    s.wait("the new file to be named", |s| {
        let err = s.stderr();
        err.find("not re-running")
            .is_some_and(|at| err[at..].contains("fresh-"))
    });
    let err = s.stderr();
    let note = &err[err.find("not re-running").expect("the note")..];
    for expected in ["counter.txt", "fresh-", "--watch-ignore", ".gitignore"] {
        assert!(
            note.contains(expected),
            "no `{expected}` in the note:\n{err}"
        );
    }
    // (What a run writes may ripen into one batch or two.)
    let two = section(&err, 2);
    assert!(
        two.contains("triggered by counter.txt") || two.contains("triggered by fresh-"),
        "run 2 was the first the tests' writes started:\n{err}"
    );

    // The user's edit still runs, and what the tests write during that run starts nothing,
    // the new file they create included.
    p.edit("lib/x.txt");
    s.wait_finished(last + 1);
    assert_eq!(s.files(last + 1), ["test/counter.sh", "test/fresh.sh"]);
    s.assert_no_run_after(last + 1, "the tests' writes during a run the user started");

    // A paused path changed between runs is the user's change: it runs.
    p.write("counter.txt", "reset by hand\n");
    s.wait_finished(last + 2);
    s.assert_no_run_after(
        last + 2,
        "the tests' writes after a hand edit of counter.txt",
    );
    let err = s.stderr();
    assert!(
        err.contains(&format!("── run {} · triggered by counter.txt ─", last + 2)),
        "{err}"
    );
    assert_eq!(
        err.matches("not re-running").count(),
        1,
        "named once:\n{err}"
    );
    assert_eq!(s.quit(), 0);
}

/// The JSON file `rel` once it holds `want`, or what it holds after 10 s (`null`: no JSON).
/// A run's state is saved once its end is told (the summary does not wait for the save), so
/// a reader that saw `run_finished` waits for the file to catch up.
fn settled_json(p: &Project, rel: &str, want: &Value) -> Value {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let got = fs::read_to_string(p.path(rel))
            .ok()
            .and_then(|text| serde_json::from_str::<Value>(&text).ok())
            .unwrap_or(Value::Null);
        if got == *want || Instant::now() > deadline {
            return got;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn verdicts_json_keeps_the_files_a_rerun_did_not_run() {
    let p = Project::new(&[
        ("test/a.sh", &script(false, None)),
        ("test/b.sh", &script(true, None)),
    ]);
    let verdicts = |want: Value| settled_json(&p, ".nogit/testlogs/verdicts.json", &want);
    let mut s = Session::start(&p, &[]);
    s.wait_finished(1);
    let first = serde_json::json!({"test/a.sh": false, "test/b.sh": true});
    assert_eq!(verdicts(first.clone()), first);

    p.edit("test/b.sh");
    let second = s.wait_finished(2);
    assert_eq!(s.files(2), ["test/b.sh"]);
    assert_eq!(
        second["summary"]["fixed"],
        serde_json::json!([]),
        "{second}"
    );
    assert_eq!(
        second["summary"]["newly_failing"],
        serde_json::json!([]),
        "{second}"
    );
    assert_eq!(
        verdicts(first.clone()),
        first,
        "the failing file's verdict survives a re-run of another"
    );

    p.write("test/a.sh", &script(true, None));
    let third = s.wait_finished(3);
    assert_eq!(s.files(3), ["test/a.sh"]);
    assert_eq!(
        third["summary"]["fixed"],
        serde_json::json!(["test/a.sh"]),
        "{third}"
    );
    let fixed = serde_json::json!({"test/a.sh": true, "test/b.sh": true});
    assert_eq!(verdicts(fixed.clone()), fixed);
    assert!(section(&s.stderr(), 3).contains("Fixed: test/a.sh"));
    assert_eq!(s.quit(), 0);
}

#[test]
fn a_run_cancelled_by_a_change_reads_as_cancelled() {
    let p = Project::new(&[("test/a.sh", &script(true, None)), ("lib/x.txt", "x\n")]);
    // Slow only while the flag (outside the project) exists.
    let flag = p.aux.path().join("slow");
    p.write(
        "test/slow.sh",
        &format!(
            "echo $$ >> \"$PIDS\"\nif [ -e '{}' ]; then sleep 30 & echo $! >> \"$PIDS\"; wait; fi\n\
             echo 1..1\necho 'ok 1 - it'\n",
            flag.display()
        ),
    );
    let verdicts_in = |rel: &str| -> Value {
        serde_json::from_str(&fs::read_to_string(p.path(rel)).expect("verdicts")).expect("JSON")
    };
    let verdicts = || verdicts_in(".nogit/testlogs/verdicts.json");
    let both_pass = serde_json::json!({"test/a.sh": true, "test/slow.sh": true});
    let mut s = Session::start(&p, &[]);
    s.wait_finished(1);
    assert_eq!(
        settled_json(&p, ".nogit/testlogs/verdicts.json", &both_pass),
        both_pass
    );

    fs::write(&flag, "").expect("flag");
    let before = p.recorded_pids().len();
    s.send("a");
    // a.sh, slow.sh and its sleep.
    wait_for("the slow file to sleep", || {
        p.recorded_pids().len() >= before + 3
    });
    p.edit("lib/x.txt");
    let second = s.wait_finished(2);
    let summary = &second["summary"];
    assert_eq!(summary["interrupted"], true, "{second}");
    assert_eq!(summary["files_failed"], 0, "{second}");
    assert_eq!(summary["files_cancelled"], 1, "{second}");
    assert_eq!(summary["newly_failing"], serde_json::json!([]), "{second}");

    // Run 3 restarts it (and sleeps again), having moved run 2's verdicts to previous/.
    s.wait("run 3 to start the slow file", |s| {
        s.files(3).contains(&"test/slow.sh".to_owned())
    });
    assert_eq!(
        verdicts_in(".nogit/testlogs/previous/verdicts.json"),
        both_pass,
        "a cancelled file keeps its verdict"
    );
    let err = s.stderr();
    let two = section(&err, 2);
    assert!(!two.contains("Failures:"), "{two}");
    assert!(
        two.contains("Cancelled (stopped before the end): test/slow.sh"),
        "{two}"
    );
    assert!(
        two.contains("⊘ INTERRUPTED  1 of 2 files passed · 1 cancelled"),
        "{two}"
    );

    // Quitting cancels run 3: still nothing recorded as failed.
    assert_eq!(s.quit(), 0);
    assert_eq!(verdicts(), both_pass);
    let history = fs::read_to_string(p.path(".nogit/testlogs/history.jsonl")).expect("history");
    let records: Vec<Value> = history
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect();
    assert!(
        records.iter().all(|r| r["verdict"] == "passed"),
        "{history}"
    );
    assert_eq!(
        records
            .iter()
            .filter(|r| r["path"] == "test/slow.sh")
            .count(),
        1,
        "only the finished run of slow.sh is recorded:\n{history}"
    );
    s.assert_nothing_left(&p);
}

/// Issue 19: with the traces of the first run, an edit to a library module re-runs only the
/// test files that loaded it (through a helper, a subprocess or a forked child too), the
/// header says why, and `a` still runs everything.
#[test]
fn issue19_an_edited_module_reruns_only_the_files_whose_trace_holds_it() {
    let suite = crate::util::repo().join("test-data/suites/traced/perl");
    let mut files = Vec::new();
    for rel in [
        "lib/Shop/Price.pm",
        "lib/Shop/Cart.pm",
        "lib/Shop/Name.pm",
        "t/lib/Helper.pm",
        "t/price.t",
        "t/cart.t",
        "t/name.t",
        "t/taint.t",
        "t/sub.t",
        "t/fork.t",
    ] {
        let text = fs::read_to_string(suite.join(rel)).expect("read the suite");
        files.push((rel, text));
    }
    let listed: Vec<(&str, &str)> = files.iter().map(|(r, t)| (*r, t.as_str())).collect();
    let p = Project::new(&listed);
    let mut s = Session::start(&p, &[]);
    s.wait_finished(1);
    assert_eq!(s.files(1).len(), 6);

    p.edit("lib/Shop/Name.pm");
    s.wait_finished(2);
    let mut ran = s.files(2);
    ran.sort();
    assert_eq!(ran, ["t/name.t", "t/sub.t", "t/taint.t"]);

    p.edit("lib/Shop/Price.pm");
    s.wait_finished(3);
    let mut ran = s.files(3);
    ran.sort();
    assert_eq!(ran, ["t/cart.t", "t/fork.t", "t/price.t"]);

    s.send("a");
    s.wait_finished(4);
    assert_eq!(s.files(4).len(), 6, "a still runs everything");

    let err = s.stderr();
    for line in [
        "── run 2 · triggered by lib/Shop/Name.pm ─",
        "   t/name.t  loaded lib/Shop/Name.pm",
        "   t/fork.t  loaded lib/Shop/Price.pm",
    ] {
        assert!(err.contains(line), "no `{line}` in:\n{err}");
    }
    assert_eq!(s.quit(), 0);
}

/// Appends a JavaScript comment: a content change that keeps a module working.
fn edit_js(p: &Project, rel: &str) {
    let mut f = OpenOptions::new()
        .append(true)
        .open(p.path(rel))
        .expect("open");
    f.write_all(b"// edited\n").expect("append");
}

#[test]
fn a_change_to_a_module_in_a_browser_files_bundle_reruns_that_file() {
    let test = "a_change_to_a_module_in_a_browser_files_bundle_reruns_that_file";
    if !require(test, &["chromium", "esbuild"]) {
        return;
    }
    let (chromium, esbuild) = (tool("chromium"), tool("esbuild"));
    let page = |lib: &str| {
        format!("import {{ v }} from '../lib/{lib}';\nconsole.log('1..1');\nconsole.log(`ok 1 - ${{v}}`);\n")
    };
    let p = Project::new(&[
        ("test/a.browser.js", &page("x.js")),
        ("test/b.browser.js", &page("y.js")),
        ("test/c.sh", &script(true, None)),
        ("lib/x.js", "export const v = 'x';\n"),
        ("lib/y.js", "export const v = 'y';\n"),
        ("README.md", "# p\n"),
    ]);
    // The project's own esbuild, as `npm install --save-dev esbuild` leaves it.
    fs::create_dir_all(p.path("node_modules/.bin")).expect("mkdir");
    std::os::unix::fs::symlink(&esbuild, p.path("node_modules/.bin/esbuild")).expect("link");
    fs::write(
        p.path("tapline.toml"),
        format!("[run]\nbrowser = {:?}\n", chromium.display().to_string()),
    )
    .expect("write");
    let sorted = |mut files: Vec<String>| {
        files.sort();
        files
    };
    let mut s = Session::start(&p, &[]);
    s.wait_finished(1);
    assert_eq!(
        sorted(s.files(1)),
        ["test/a.browser.js", "test/b.browser.js", "test/c.sh"]
    );
    assert_eq!(
        s.finished(1).expect("run 1")["summary"]["ok"],
        true,
        "{}",
        s.stderr()
    );

    edit_js(&p, "lib/x.js");
    s.wait_finished(2);
    assert_eq!(
        sorted(s.files(2)),
        ["test/a.browser.js", "test/c.sh"],
        "the file whose bundle holds lib/x.js, and the file nothing is known of"
    );
    edit_js(&p, "lib/y.js");
    s.wait_finished(3);
    assert_eq!(sorted(s.files(3)), ["test/b.browser.js", "test/c.sh"]);

    p.edit("README.md");
    s.wait_finished(4);
    assert_eq!(
        sorted(s.files(4)),
        ["test/a.browser.js", "test/b.browser.js", "test/c.sh"],
        "a change no bundle holds runs everything"
    );
    assert!(
        s.stderr().contains("── run 2 · triggered by lib/x.js ─"),
        "{}",
        s.stderr()
    );
    assert_eq!(s.quit(), 0);
    s.assert_nothing_left(&p);
}

/// Issue 27: `-t` with `--watch` narrows every run to the matching tests (through bats'
/// `--filter`); `t PATTERN` changes it, `t` alone clears it; `F` runs only the tests that
/// failed last time. Each test logs its name to a file outside the project.
#[test]
fn issue27_watch_keys_pick_tests_by_name_and_failing_tests() {
    if !require(
        "issue27_watch_keys_pick_tests_by_name_and_failing_tests",
        &["bats"],
    ) {
        return;
    }
    let p = Project::new(&[]);
    let log = p.aux.path().join("ran");
    let fail = p.aux.path().join("fail");
    fs::write(&fail, "").expect("write the fail flag");
    let bats = |tests: &[(&str, bool)]| -> String {
        tests
            .iter()
            .map(|(name, may_fail)| {
                let check = match may_fail {
                    true => format!("  [ ! -e '{}' ]\n", fail.display()),
                    false => String::new(),
                };
                format!(
                    "@test \"{name}\" {{\n  echo '{name}' >> '{}'\n{check}}}\n\n",
                    log.display()
                )
            })
            .collect()
    };
    p.write(
        "test/words.bats",
        &bats(&[("joins", false), ("splits", true)]),
    );
    p.write("test/other.bats", &bats(&[("unrelated", false)]));
    let ran = || -> Vec<String> {
        let text = fs::read_to_string(&log).unwrap_or_default();
        let _ = fs::remove_file(&log);
        let mut names: Vec<String> = text.lines().map(str::to_owned).collect();
        names.sort();
        names
    };
    let mut s = Session::start(&p, &["-t", "joins"]);
    s.wait_finished(1);
    assert_eq!(s.files(1), ["test/words.bats"], "{}", s.stderr());
    assert_eq!(ran(), ["joins"]);
    s.send("t");
    let all = s.wait_finished(2);
    assert_eq!(all["summary"]["ok"], false, "splits fails");
    assert_eq!(ran(), ["joins", "splits", "unrelated"]);
    s.send("F");
    s.wait_finished(3);
    assert_eq!(s.files(3), ["test/words.bats"], "{}", s.stderr());
    assert_eq!(ran(), ["splits"]);
    s.send("t /^unrelated$/");
    s.wait_finished(4);
    assert_eq!(s.files(4), ["test/other.bats"], "{}", s.stderr());
    assert_eq!(ran(), ["unrelated"]);
    s.send("t /(/");
    s.send("a");
    s.wait_finished(5);
    assert_eq!(ran(), ["unrelated"], "the bad pattern changed nothing");
    let err = s.stderr();
    assert!(err.contains("── run 1 · tests matching `joins` ─"), "{err}");
    assert!(err.contains("── run 2 · all tests (t cleared) ─"), "{err}");
    assert!(err.contains("── run 3 · failing tests (F) ─"), "{err}");
    assert!(
        err.contains("── run 4 · test pattern (t) · tests matching `/^unrelated$/` ─"),
        "{err}"
    );
    assert!(err.contains("failed to read -t /(/"), "{err}");
    assert_eq!(s.quit(), 0);
}

/// Issue 26: at a run's end watch mode keeps a warm worker with tape loaded for the next edit
/// (src/run/warm/spares.rs). The edit's file runs in it, so its process was up before the
/// edit, and a module edited meanwhile is still loaded afresh: the worker loaded only tape.
/// The ready worker ends with the session.
#[test]
fn issue26_a_ready_warm_worker_runs_the_next_edit_and_sees_an_edited_module() {
    let test = "issue26_a_ready_warm_worker_runs_the_next_edit_and_sees_an_edited_module";
    let Some(modules) = crate::warm::tape_node_modules(test) else {
        return;
    };
    // Each run appends its process's pid and age (s) at the file's start.
    let file = "var test = require('tape');\n\
        var v = require('../lib/val').v;\n\
        require('fs').appendFileSync(process.env.PIDS + '.age', process.pid + ' ' + process.uptime() + '\\n');\n\
        test('val', function (t) { t.equal(v, 1); t.end(); });\n";
    let p = Project::new(&[("lib/val.js", "exports.v = 1;\n"), ("test/a.js", file)]);
    std::os::unix::fs::symlink(&modules, p.path("node_modules")).expect("symlink node_modules");
    let mut s = Session::start(&p, &[]);
    let first = s.wait_finished(1);
    assert_eq!(first["summary"]["ok"], true, "{first}\n{}", s.stderr());
    // An editor's pause: the ready worker is up long before the edit.
    let pause = Duration::from_secs(3);
    thread::sleep(pause);
    p.write("lib/val.js", "exports.v = 2;\n");
    let second = s.wait_finished(2);
    assert_eq!(second["summary"]["ok"], false, "the edit is seen: {second}");
    let ages: Vec<(String, f64)> = fs::read_to_string(format!("{}.age", p.pids_file().display()))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| {
            let (pid, age) = l.split_once(' ')?;
            Some((pid.to_owned(), age.parse().ok()?))
        })
        .collect();
    assert_eq!(ages.len(), 2, "{ages:?}");
    assert_ne!(ages[0].0, ages[1].0, "a new process for the edit: {ages:?}");
    assert!(
        ages[1].1 > pause.as_secs_f64() * 0.6,
        "the edit's file ran in a worker started before the edit: {ages:?}"
    );
    s.quit();
    s.assert_nothing_left(&p);
}
