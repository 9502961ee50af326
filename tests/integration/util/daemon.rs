//! A `tapline serve` daemon in a temporary project, started as users start it, for the
//! daemon, forwarding and TLS tests.
use std::io::Write;
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};
use tempfile::TempDir;

pub(crate) const BIN: &str = env!("CARGO_BIN_EXE_tapline");

/// A daemon started in a temp project, killed (by its pid) if a test leaves it running.
pub(crate) struct Daemon {
    dir: Option<TempDir>,
    child: Option<Child>,
}

impl Daemon {
    pub(crate) fn start(extra: &[&str]) -> Daemon {
        let dir = TempDir::new().expect("temp dir");
        std::fs::create_dir(dir.path().join(".git")).expect("project root");
        Self::start_in(dir, extra)
    }

    pub(crate) fn start_in(dir: TempDir, extra: &[&str]) -> Daemon {
        let out = std::fs::File::create(dir.path().join("stdout")).expect("stdout file");
        let err = std::fs::File::create(dir.path().join("stderr")).expect("stderr file");
        let child = Command::new(BIN)
            .arg("serve")
            .args(["--color", "never"])
            .args(extra)
            .current_dir(dir.path())
            .env_remove("CI")
            .stdin(Stdio::null())
            .stdout(out)
            .stderr(err)
            .spawn()
            .expect("serve starts");
        let d = Daemon {
            dir: Some(dir),
            child: Some(child),
        };
        d.wait_ready();
        d
    }

    pub(crate) fn path(&self) -> &Path {
        self.dir.as_ref().expect("the project").path()
    }

    /// The project folder, for a next daemon (this one has exited).
    pub(crate) fn take_dir(&mut self) -> TempDir {
        self.dir.take().expect("the project")
    }

    pub(crate) fn socket(&self) -> PathBuf {
        self.path().join(".nogit/tapline.sock")
    }

    pub(crate) fn pid(&self) -> u32 {
        self.child.as_ref().expect("running").id()
    }

    /// Ready once `status` answers (signal handlers are installed before it can).
    fn wait_ready(&self) {
        let deadline = Instant::now() + Duration::from_secs(20);
        while Instant::now() < deadline {
            if self.try_status().is_some() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        panic!("daemon not ready: {}", self.stderr());
    }

    pub(crate) fn try_status(&self) -> Option<serde_json::Value> {
        let out = self.client(&["status"]).output().ok()?;
        out.status
            .success()
            .then(|| serde_json::from_slice(&out.stdout).ok())?
    }

    pub(crate) fn status(&self) -> serde_json::Value {
        self.try_status().expect("status answers")
    }

    pub(crate) fn client(&self, args: &[&str]) -> Command {
        let mut c = Command::new(BIN);
        c.args(args).current_dir(self.path());
        c
    }

    pub(crate) fn send(&self, name: &str, tap: &[u8]) -> Output {
        let mut child = self
            .client(&["send", name])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("send starts");
        let mut stdin = child.stdin.take().expect("stdin");
        let tap = tap.to_vec();
        let writer = std::thread::spawn(move || {
            let _ = stdin.write_all(&tap);
        });
        let out = child.wait_with_output().expect("send ends");
        writer.join().expect("writer");
        out
    }

    pub(crate) fn signal(&self, sig: rustix::process::Signal) {
        let pid = rustix::process::Pid::from_raw(self.pid() as i32).expect("pid");
        rustix::process::kill_process(pid, sig).expect("signal sent");
    }

    /// Sends `sig` and waits for the daemon to exit: (exit code, time it took).
    pub(crate) fn stop(&mut self, sig: rustix::process::Signal) -> (Option<i32>, Duration) {
        let started = Instant::now();
        self.signal(sig);
        let mut child = self.child.take().expect("running");
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            if let Some(status) = child.try_wait().expect("wait") {
                return (status.code(), started.elapsed());
            }
            if Instant::now() > deadline {
                let _ = child.kill();
                panic!("daemon did not exit: {}", self.stderr());
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    pub(crate) fn stdout(&self) -> String {
        std::fs::read_to_string(self.path().join("stdout")).unwrap_or_default()
    }

    pub(crate) fn stderr(&self) -> String {
        std::fs::read_to_string(self.path().join("stderr")).unwrap_or_default()
    }

    pub(crate) fn summary(&self) -> serde_json::Value {
        serde_json::from_str(&self.stdout()).expect("summary document on stdout")
    }

    /// A raw connection that sends `head` and whatever follows.
    pub(crate) fn raw(&self, head: &[u8]) -> UnixStream {
        let mut s = UnixStream::connect(self.socket()).expect("connect");
        s.write_all(head).expect("header");
        s
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

pub(crate) fn passing(n: usize) -> Vec<u8> {
    let mut tap = format!("TAP version 14\n1..{n}\n");
    for i in 1..=n {
        tap.push_str(&format!("ok {i} - point {i}\n"));
    }
    tap.into_bytes()
}

pub(crate) fn finished(status: &serde_json::Value) -> Vec<serde_json::Value> {
    status["finished"].as_array().cloned().unwrap_or_default()
}

pub(crate) fn wait_for(mut ready: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while !ready() {
        assert!(Instant::now() < deadline, "timed out waiting");
        std::thread::sleep(Duration::from_millis(20));
    }
}
