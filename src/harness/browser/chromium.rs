//! Finding Chromium, starting one per run over `--remote-debugging-pipe`, and making sure no
//! Chromium process outlives it.
//!
//! Chromium is started in its own process group (so one `killpg` reaches its zygote, GPU and
//! renderer processes), with `PR_SET_PDEATHSIG` = SIGKILL (so tapline dying, even by SIGKILL,
//! takes the browser with it; its helpers then lose their IPC channel and exit), with a
//! profile folder of its own under the run's scratch folder (removed afterwards), and with
//! background throttling off: every page of a run is a background tab of a headless browser,
//! and throttled timers would slow a test down to one timer a second (karma#598).
//!
//! `--no-sandbox` is passed only when tapline runs as root, where Chromium refuses to start
//! with its sandbox; `--list` shows it on the browser files' command line.
//!
//! `PR_SET_PDEATHSIG` fires when the *thread* that started Chromium ends, not the process:
//! `tapline run` and watch mode drive their runs on a current-thread runtime, so that thread
//! is the one that lives as long as the run. (Crashpad's handlers, which Debian's Chromium
//! starts whatever the switches say, leave the group; they exit once the browser is gone.)
//!
//! Teardown follows [`super::super::supervise`]: the group is SIGKILLed while its leader is
//! still unreaped (a zombie keeps the group id reserved), then the leader is reaped and the
//! profile removed once the group is empty.
use super::cdp::Cdp;
use crate::util::which;
use rustix::process::{Pid, Signal};
use serde_json::json;
use std::ffi::{OsStr, OsString};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::AsyncReadExt;

/// Longest wait for a starting Chromium to answer on its pipe: on a loaded machine a cold
/// start takes seconds.
pub(crate) const START_DEADLINE: Duration = Duration::from_secs(60);

/// The names Chromium goes by on PATH, tried in order.
const NAMES: &[&str] = &[
    "chromium",
    "chromium-browser",
    "google-chrome",
    "google-chrome-stable",
];

/// What a missing Chromium's error adds: how to get one.
pub const INSTALL_HINT: &str = "install Chromium (Debian/Ubuntu: `apt-get install chromium`), or name its binary in $TAPLINE_CHROMIUM or `[run] browser` in tapline.toml";

/// `tapline.toml`'s keys this room renamed (old, new), read by the configuration through the
/// registry: `[run] chromium` was the first name of `[run] browser`, which says what it is for
/// rather than which browser it is today.
pub(crate) const RENAMED_KEYS: &[(&str, &str)] = &[("run.chromium", "run.browser")];

/// The Chromium a run uses: `$TAPLINE_CHROMIUM`, else `[run] browser`, else the first of
/// `chromium`, `chromium-browser`, `google-chrome` on PATH. `Err` names what was looked for.
pub fn find(configured: Option<&Path>) -> Result<PathBuf, String> {
    if let Some(path) = std::env::var_os("TAPLINE_CHROMIUM").filter(|p| !p.is_empty()) {
        return existing(PathBuf::from(path), "$TAPLINE_CHROMIUM");
    }
    if let Some(path) = configured {
        return existing(path.to_path_buf(), "[run] browser");
    }
    NAMES
        .iter()
        .find_map(|name| in_taplines_folder(OsStr::new(name)))
        .ok_or_else(|| "chromium".to_owned())
}

/// `program` found from where Chromium runs: tapline's own folder, which the empty path names,
/// so a relative PATH entry or path is taken from there and what is found stays as relative as
/// it was given.
fn in_taplines_folder(program: &OsStr) -> Option<PathBuf> {
    which::find(program, Path::new(""))
}

fn existing(path: PathBuf, from: &str) -> Result<PathBuf, String> {
    in_taplines_folder(path.as_os_str()).ok_or_else(|| format!("{} (from {from})", path.display()))
}

/// Whether Chromium must run without its sandbox: it refuses to start as root with it.
pub fn needs_no_sandbox() -> bool {
    rustix::process::geteuid().is_root()
}

/// The switches every run starts Chromium with (the profile folder comes on top).
pub fn switches() -> Vec<&'static str> {
    let mut s = vec![
        "--headless=new",
        "--remote-debugging-pipe",
        "--disable-background-timer-throttling",
        "--disable-renderer-backgrounding",
        "--disable-backgrounding-occluded-windows",
        "--no-first-run",
        "--no-default-browser-check",
        "--disable-gpu",
        "--disable-extensions",
        "--disable-dev-shm-usage",
        "--mute-audio",
        // Crashpad's handlers leave the process group: none is started.
        "--disable-crash-reporter",
        "--disable-breakpad",
    ];
    if needs_no_sandbox() {
        s.push("--no-sandbox");
    }
    s
}

/// A running Chromium: its DevTools client, and the process group to end.
pub(crate) struct Chromium {
    pub cdp: Cdp,
    /// Its pages between files ([`super::pages`]).
    pub(crate) idle: super::pages::Idle,
    pub binary: PathBuf,
    pid: Pid,
    child: tokio::sync::Mutex<Option<tokio::process::Child>>,
    profile: PathBuf,
    /// The end of what Chromium wrote to stderr, for the error when it fails.
    stderr_tail: Arc<Mutex<Vec<u8>>>,
    ended: std::sync::atomic::AtomicBool,
}

/// Bytes of Chromium's stderr kept for an error message.
const STDERR_TAIL: usize = 4096;

impl Chromium {
    /// Starts `binary` with its profile in `profile` and its temporary files in `tmp` (when
    /// short enough: Chromium puts a socket there, and a socket's path has at most 107 bytes),
    /// and waits until it answers.
    pub(crate) async fn start(
        binary: &Path,
        profile: PathBuf,
        tmp: &Path,
    ) -> Result<Arc<Chromium>, String> {
        let failed = |e: &dyn std::fmt::Display| {
            format!("failed to start Chromium ({}): {e}", binary.display())
        };
        std::fs::create_dir_all(&profile).map_err(|e| failed(&e))?;
        // Chromium's own temporary files (a killed Chromium leaves them) go with the run's.
        // Its socket there is `org.chromium.Chromium.XXXXXX/SingletonSocket`: 46 bytes more.
        let own_tmp = tmp.as_os_str().len() + 46 < 100;
        if own_tmp {
            std::fs::create_dir_all(tmp).map_err(|e| failed(&e))?;
        }
        let (to_read, to_write) = pipe().map_err(|e| failed(&e))?;
        let (from_read, from_write) = pipe().map_err(|e| failed(&e))?;
        let mut command = tokio::process::Command::new(binary);
        command
            .args(switches())
            .arg(flag("--user-data-dir=", &profile))
            .arg("about:blank")
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .process_group(0)
            .kill_on_drop(false);
        if own_tmp {
            command.env("TMPDIR", tmp);
        }
        let (in_fd, out_fd) = (to_read.as_raw_fd(), from_write.as_raw_fd());
        // SAFETY: the closure only makes system calls (prctl, fcntl, dup2), which are
        // async-signal-safe, and touches no memory shared with the parent.
        unsafe {
            command.pre_exec(move || child_fds(in_fd, out_fd));
        }
        let mut child = command.spawn().map_err(|e| failed(&e))?;
        drop((to_read, from_write));
        let pid = child
            .id()
            .and_then(|id| Pid::from_raw(id as i32))
            .ok_or_else(|| failed(&"no pid"))?;
        let stderr_tail = Arc::new(Mutex::new(Vec::new()));
        if let Some(stderr) = child.stderr.take() {
            tokio::spawn(keep_tail(stderr, stderr_tail.clone()));
        }
        let writer =
            tokio::net::unix::pipe::Sender::from_owned_fd(to_write).map_err(|e| failed(&e))?;
        let reader =
            tokio::net::unix::pipe::Receiver::from_owned_fd(from_read).map_err(|e| failed(&e))?;
        let cdp = Cdp::start(writer, reader);
        let chromium = Arc::new(Chromium {
            cdp,
            idle: Default::default(),
            binary: binary.to_path_buf(),
            pid,
            child: tokio::sync::Mutex::new(Some(child)),
            profile,
            stderr_tail,
            ended: Default::default(),
        });
        chromium.first_answer().await.map_err(|why| failed(&why))?;
        Ok(chromium)
    }

    /// Waits until the browser answers on the pipe; ends it and says why when it does not.
    async fn first_answer(&self) -> Result<(), String> {
        let answer = tokio::time::timeout(
            START_DEADLINE,
            self.cdp.call("", "Browser.getVersion", json!({})),
        );
        match answer.await {
            Ok(Ok(_)) => Ok(()),
            Ok(Err(_)) => {
                let why = self.exit_status().await;
                let tail = self.stderr_tail();
                self.end().await;
                Err(format!("{why}{tail}"))
            }
            Err(_) => {
                self.end().await;
                Err(format!(
                    "no answer on the DevTools pipe within {}s",
                    START_DEADLINE.as_secs()
                ))
            }
        }
    }

    /// How Chromium ended, once it has (waiting up to a second): `exited with code 1`,
    /// `killed by SIGKILL`. Looked at without reaping, so the group id stays reserved.
    pub(crate) async fn exit_status(&self) -> String {
        use rustix::process::{WaitId, WaitIdOptions};
        for _ in 0..20 {
            let options = WaitIdOptions::EXITED | WaitIdOptions::NOWAIT | WaitIdOptions::NOHANG;
            if let Ok(Some(status)) = rustix::process::waitid(WaitId::Pid(self.pid), options) {
                let exit = match (status.exit_status(), status.terminating_signal()) {
                    (Some(code), _) => crate::supervise::Exit::Code(code),
                    (None, Some(sig)) => crate::supervise::Exit::Signal(sig),
                    _ => break,
                };
                return exit.to_string();
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        "its DevTools pipe closed".to_owned()
    }

    /// The end of Chromium's stderr, as `: <last lines>` (empty when it said nothing).
    fn stderr_tail(&self) -> String {
        let tail = self
            .stderr_tail
            .lock()
            .map(|t| t.clone())
            .unwrap_or_default();
        let text = String::from_utf8_lossy(&tail);
        let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
        let last = lines[lines.len().saturating_sub(3)..].join(" | ");
        if last.is_empty() {
            String::new()
        } else {
            format!(": {last}")
        }
    }

    /// Kills the whole group, reaps the browser and removes its profile. Idempotent.
    pub(crate) async fn end(&self) {
        if self.ended.swap(true, std::sync::atomic::Ordering::SeqCst) {
            return;
        }
        // Asked first, Chromium closes cleanly (and quickly); the SIGKILL then only reaches
        // what did not.
        let close = self.cdp.call("", "Browser.close", json!({}));
        let _ = tokio::time::timeout(Duration::from_secs(2), close).await;
        // The leader is not reaped yet, so the group id is still ours.
        let _ = rustix::process::kill_process_group(self.pid, Signal::KILL);
        if let Some(mut child) = self.child.lock().await.take() {
            let _ = tokio::time::timeout(Duration::from_secs(5), child.wait()).await;
        }
        // Helpers reparented away from the leader still die of the SIGKILL; wait until none
        // of the group runs before removing the profile they write to. Zombies write nothing:
        // waiting for their reaping cost up to 2 s per run where PID 1 reaps slowly.
        for _ in 0..100 {
            if !group_runs(self.pid) {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        remove_profile(&self.profile);
    }
}

impl Drop for Chromium {
    /// The last resort when [`Chromium::end`] was not awaited (a panic, a cancelled run):
    /// nothing of the group survives, and the profile goes.
    fn drop(&mut self) {
        if !self.ended.swap(true, std::sync::atomic::Ordering::SeqCst) {
            let _ = rustix::process::kill_process_group(self.pid, Signal::KILL);
            if let Ok(mut child) = self.child.try_lock() {
                if let Some(child) = child.as_mut() {
                    // Reaped by tokio's orphan queue once dropped.
                    let _ = child.start_kill();
                }
            }
            remove_profile(&self.profile);
        }
    }
}

/// Whether a process of group `pgid` is still running (not a zombie), from /proc; true where
/// /proc cannot be read, so the caller waits as it would for a live group.
fn group_runs(pgid: Pid) -> bool {
    if rustix::process::test_kill_process_group(pgid).is_err() {
        return false;
    }
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return true;
    };
    let pgid = pgid.as_raw_nonzero().get();
    entries.flatten().any(|entry| {
        let name = entry.file_name();
        let Some(pid) = name
            .to_str()
            .filter(|n| n.bytes().all(|b| b.is_ascii_digit()))
        else {
            return false;
        };
        std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .ok()
            .and_then(|stat| running_in_group(&stat))
            .is_some_and(|group| group == pgid)
    })
}

/// The process group of a `/proc/PID/stat` line whose process is not a zombie (or dead).
fn running_in_group(stat: &str) -> Option<i32> {
    // `pid (comm) state ppid pgrp …`: comm may hold spaces and parentheses; the last `)` ends it.
    let rest = &stat[stat.rfind(')')? + 1..];
    let mut fields = rest.split_ascii_whitespace();
    let state = fields.next()?;
    let pgrp = fields.nth(1)?.parse().ok()?;
    (!matches!(state, "Z" | "X" | "x")).then_some(pgrp)
}

fn remove_profile(profile: &Path) {
    // A helper still writing as it dies can refill a folder being removed: try again.
    for _ in 0..5 {
        match std::fs::remove_dir_all(profile) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                std::thread::sleep(Duration::from_millis(20))
            }
            _ => return,
        }
    }
}

fn flag(name: &str, path: &Path) -> OsString {
    let mut f = OsString::from(name);
    f.push(path);
    f
}

fn pipe() -> std::io::Result<(OwnedFd, OwnedFd)> {
    rustix::pipe::pipe_with(rustix::pipe::PipeFlags::CLOEXEC).map_err(std::io::Error::from)
}

/// In the child before exec: die with the parent, and put the pipe's ends at fds 3 (Chromium
/// reads) and 4 (Chromium writes). The ends are first copied above 10, so that a `dup2` onto
/// its own number (which would keep close-on-exec) cannot happen.
fn child_fds(read_fd: i32, write_fd: i32) -> std::io::Result<()> {
    rustix::process::set_parent_process_death_signal(Some(Signal::KILL))?;
    // SAFETY: both are open in the child (inherited from the parent, close-on-exec).
    let (read_end, write_end) = unsafe { (borrowed(read_fd), borrowed(write_fd)) };
    let high_read = rustix::io::fcntl_dupfd_cloexec(&*read_end, 10)?;
    let high_write = rustix::io::fcntl_dupfd_cloexec(&*write_end, 10)?;
    // SAFETY: 3 and 4 are taken over on purpose; whatever was there is replaced by dup2.
    let (mut three, mut four) = unsafe { (borrowed(3), borrowed(4)) };
    rustix::io::dup2(&high_read, &mut three)?;
    rustix::io::dup2(&high_write, &mut four)?;
    Ok(())
}

/// An fd as an `OwnedFd` that is never closed by this code.
///
/// # Safety
/// `fd` must be open.
unsafe fn borrowed(fd: i32) -> std::mem::ManuallyDrop<OwnedFd> {
    std::mem::ManuallyDrop::new(OwnedFd::from_raw_fd(fd))
}

/// Keeps the last [`STDERR_TAIL`] bytes of Chromium's stderr (it writes warnings there all
/// the time; only a failed start shows them).
async fn keep_tail(mut stderr: tokio::process::ChildStderr, tail: Arc<Mutex<Vec<u8>>>) {
    let mut buf = vec![0u8; 8192];
    while let Ok(n) = stderr.read(&mut buf).await {
        if n == 0 {
            break;
        }
        if let Ok(mut t) = tail.lock() {
            t.extend_from_slice(&buf[..n]);
            let excess = t.len().saturating_sub(STDERR_TAIL);
            t.drain(..excess);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stat_line_gives_the_group_of_a_running_process_only() {
        let running = "4242 (chrome (renderer)) S 1 4200 4200 0 -1 4194560 100";
        assert_eq!(running_in_group(running), Some(4200));
        let zombie = "4243 (chrome) Z 1 4200 4200 0 -1 4194560 100";
        assert_eq!(running_in_group(zombie), None);
        assert_eq!(running_in_group("garbage"), None);
    }

    #[test]
    fn a_group_runs_while_a_member_runs_and_not_once_only_zombies_are_left() {
        use std::os::unix::process::CommandExt;
        let mut child = std::process::Command::new("sleep")
            .arg("30")
            .process_group(0)
            .spawn()
            .expect("sleep");
        let pid = Pid::from_raw(child.id() as i32).expect("a pid");
        assert!(group_runs(pid));
        let _ = rustix::process::kill_process_group(pid, Signal::KILL);
        // Not reaped yet: a zombie keeps the group in existence, but nothing of it runs.
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while group_runs(pid) {
            assert!(std::time::Instant::now() < deadline, "the group still runs");
            std::thread::sleep(Duration::from_millis(10));
        }
        assert!(rustix::process::test_kill_process_group(pid).is_ok());
        let _ = child.wait();
    }
}
