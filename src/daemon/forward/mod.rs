//! `tapline run --forward ADDR`: each file of the run also goes to a `tapline serve`, as a
//! `SEND` stream named after it (`shard 2/4: t/a.t`), so the shards of a sharded run can be
//! watched live in one place.
//!
//! A [`RunSink`] beside the run's others: it writes each file's events back as TAP
//! ([`render`]) and hands them, through a bounded queue, to a thread that owns the
//! connections ([`link`]). It never blocks the run and never changes it: a queue that is full
//! cuts that file's forwarded stream short (it ends with a `Bail out!` saying so); a daemon
//! absent at the start, refusing, or gone mid-run is one warning line on stderr, and the run
//! goes on without forwarding, its reports and exit code as they would be.
mod link;
mod render;

use super::client::Target;
use super::judge;
use crate::event::run::{FileResult, RunEvent};
use crate::report::sink::RunSink;
use std::collections::HashMap;
use std::io;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{self, SyncSender, TrySendError};
use std::sync::Arc;

/// Messages the run may queue ahead of the connection thread.
const QUEUE: usize = 4096;
/// TAP bytes the run may queue ahead of the connection thread: past them, the daemon has
/// fallen behind (a slow network, a daemon that stopped reading) and files are cut short
/// rather than held in memory.
const QUEUED_BYTES: usize = 8 * 1024 * 1024;
/// A file's rendered TAP is handed over once this much has gathered (and whenever the run
/// goes quiet: [`RunSink::flush`]).
const FLUSH_AT: usize = 32 * 1024;

/// Where `--forward` sends: a Unix socket path, or `HOST:PORT`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ForwardAddr {
    Unix(PathBuf),
    Tcp(String),
}

impl ForwardAddr {
    /// `HOST:PORT` (a numeric port, no `/`) is TCP; anything else is a socket's path
    /// (`./d.sock`, `/run/tapline.sock`, `tapline.sock`).
    pub fn parse(s: &str) -> ForwardAddr {
        if !s.contains('/') && super::tls::split_host_port(s).is_ok() {
            ForwardAddr::Tcp(s.to_owned())
        } else {
            ForwardAddr::Unix(PathBuf::from(s))
        }
    }
}

/// What the connection thread is told, in the run's order.
pub(crate) enum Msg {
    Open {
        key: u64,
        name: String,
        meta: serde_json::Value,
    },
    Bytes {
        key: u64,
        bytes: Vec<u8>,
    },
    /// The file's end: `trailer` is what the daemon needs beyond its TAP to judge it as the run
    /// did; `lost`: some of its TAP was dropped (the queue was full).
    Close {
        key: u64,
        trailer: Vec<u8>,
        lost: bool,
    },
}

/// A file being forwarded.
struct Open {
    key: u64,
    buf: Vec<u8>,
    /// Some of its TAP could not be queued: nothing more of it is sent.
    lost: bool,
}

/// The sink of `--forward`.
pub struct Forward {
    /// `None` once the thread has given up (no daemon): nothing is rendered any more.
    tx: Option<SyncSender<Msg>>,
    thread: Option<link::Handle>,
    files: HashMap<usize, Open>,
    next_key: u64,
    /// `shard M/N`, from the run's shard header.
    shard: Option<(usize, usize)>,
    host: Option<String>,
    run: u64,
    /// Inside a `--runs N` series: each run's files are streams of their own.
    series: bool,
    /// Files cut short because the queue was full.
    lost: usize,
    /// TAP bytes queued and not yet written by the thread.
    queued: Arc<AtomicUsize>,
}

impl Forward {
    /// Starts the connection thread.
    pub fn start(target: Target) -> Forward {
        let (tx, rx) = mpsc::sync_channel(QUEUE);
        let queued = Arc::new(AtomicUsize::new(0));
        let thread = link::spawn(target, rx, queued.clone());
        Forward {
            tx: Some(tx),
            thread: Some(thread),
            files: HashMap::new(),
            next_key: 0,
            shard: None,
            host: None,
            run: 1,
            series: false,
            lost: 0,
            queued,
        }
    }

    /// Waits (at most [`link::DRAIN_WAIT`]) for the last files to reach the daemon.
    pub fn finish(&mut self) {
        let keys: Vec<usize> = self.files.keys().copied().collect();
        for file in keys {
            self.close(file, None);
        }
        self.tx = None;
        if let Some(warning) = self.thread.take().and_then(link::Handle::finish) {
            crate::say!("tapline: warning: {warning}");
        }
        if self.lost > 0 {
            crate::say!(
                "tapline: warning: --forward fell behind the run: {} file(s) were cut short in the daemon's view (the run's own reports have them whole)",
                self.lost
            );
            self.lost = 0;
        }
    }

    fn stream_name(&self, rel: &str, attempt: u32) -> String {
        let mut name = match self.shard {
            Some((m, n)) => format!("shard {m}/{n}: {rel}"),
            None => rel.to_owned(),
        };
        if attempt > 1 {
            name.push_str(&format!(" (attempt {attempt})"));
        }
        if self.series {
            name.push_str(&format!(" (run {})", self.run));
        }
        name
    }

    /// Queues `msg`; false when the queue is full. A thread that has given up turns
    /// forwarding off.
    fn push(&mut self, msg: Msg) -> bool {
        let Some(tx) = &self.tx else { return true };
        let bytes = match &msg {
            Msg::Bytes { bytes, .. } => bytes.len(),
            _ => 0,
        };
        if bytes > 0 && self.queued.load(Ordering::Relaxed) + bytes > QUEUED_BYTES {
            return false;
        }
        self.queued.fetch_add(bytes, Ordering::Relaxed);
        match tx.try_send(msg) {
            Ok(()) => true,
            Err(TrySendError::Full(_)) => {
                self.queued.fetch_sub(bytes, Ordering::Relaxed);
                false
            }
            Err(TrySendError::Disconnected(_)) => {
                self.tx = None;
                self.files.clear();
                true
            }
        }
    }

    fn started(&mut self, rel: &str, index: usize, attempt: u32) {
        if self.tx.is_none() {
            return;
        }
        let key = self.next_key;
        self.next_key += 1;
        let name = self.stream_name(rel, attempt);
        let mut meta = serde_json::json!({"file": rel, "attempt": attempt, "run": self.run});
        if let Some((m, n)) = self.shard {
            meta["shard"] = format!("{m}/{n}").into();
        }
        if let Some(host) = &self.host {
            meta["host"] = host.clone().into();
        }
        let lost = !self.push(Msg::Open { key, name, meta });
        if lost {
            self.lost += 1;
        }
        let buf = Vec::new();
        self.files.insert(index, Open { key, buf, lost });
    }

    /// Hands a file's gathered TAP over; a full queue loses the file.
    fn hand_over(&mut self, index: usize) {
        let Some(open) = self.files.get_mut(&index) else {
            return;
        };
        if open.buf.is_empty() || open.lost {
            open.buf.clear();
            return;
        }
        let (key, bytes) = (open.key, std::mem::take(&mut open.buf));
        if !self.push(Msg::Bytes { key, bytes }) {
            if let Some(open) = self.files.get_mut(&index) {
                open.lost = true;
                self.lost += 1;
            }
        }
    }

    fn close(&mut self, index: usize, result: Option<&FileResult>) {
        self.hand_over(index);
        let Some(open) = self.files.remove(&index) else {
            return;
        };
        let trailer = result.map(trailer).unwrap_or_default();
        // Not queued: the thread closes what is still open as cut short when the run ends.
        let _ = self.push(Msg::Close {
            key: open.key,
            trailer,
            lost: open.lost || result.is_none(),
        });
    }
}

/// What the daemon needs after a file's TAP to judge it as the run did. Its TAP alone can
/// pass where the run failed the file (an exit code, a leaked process) or be cut where the run
/// knows why (a timeout, an interruption): then a `Bail out!` carries the run's reasons. A
/// file that failed by its TAP needs nothing: the daemon sees the same failures.
fn trailer(result: &FileResult) -> Vec<u8> {
    if result.cached {
        return b"1..0 # SKIP cached: passed in an earlier run, not run again (--cache)\n".to_vec();
    }
    if result.ok && result.no_tests {
        return b"1..0 # SKIP no tests\n".to_vec();
    }
    let tap_ends_it = !result.verdict.ok && !judge::incomplete(&result.verdict, false);
    if result.ok || tap_ends_it || result.verdict.bailout.is_some() {
        return Vec::new();
    }
    let reasons =
        crate::event::run::FailureReason::join(&result.reasons, "; ").replace(['\n', '\r'], " ");
    format!("Bail out! tapline run: {reasons}\n").into_bytes()
}

impl RunSink for Forward {
    fn on(&mut self, ev: &RunEvent) -> io::Result<()> {
        match ev {
            RunEvent::Shard(h) => self.shard = Some((h.index, h.total)),
            RunEvent::SeriesStarted { .. } => self.series = true,
            RunEvent::RunStarted { run, host, .. } => {
                self.run = *run;
                self.host.clone_from(host);
            }
            RunEvent::FileStarted { file, .. } => self.started(&file.rel, file.index, file.attempt),
            RunEvent::Tap { file, event, .. } => {
                if let Some(open) = self.files.get_mut(file).filter(|o| !o.lost) {
                    render::event(&mut open.buf, event);
                    if open.buf.len() >= FLUSH_AT {
                        self.hand_over(*file);
                    }
                }
            }
            RunEvent::AttemptFailed { file, result, .. }
            | RunEvent::FileFinished { file, result, .. } => self.close(*file, Some(result)),
            _ => {}
        }
        Ok(())
    }

    fn flush(&mut self) -> io::Result<()> {
        let pending: Vec<usize> = (self.files.iter())
            .filter(|(_, o)| !o.buf.is_empty())
            .map(|(i, _)| *i)
            .collect();
        for index in pending {
            self.hand_over(index);
        }
        Ok(())
    }
}

impl Drop for Forward {
    fn drop(&mut self) {
        self.finish();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::Verdict;
    use std::time::Duration;

    #[test]
    fn addresses_are_tcp_or_a_socket_path() {
        let tcp = |s: &str| ForwardAddr::Tcp(s.into());
        let unix = |s: &str| ForwardAddr::Unix(s.into());
        assert_eq!(ForwardAddr::parse("127.0.0.1:7357"), tcp("127.0.0.1:7357"));
        assert_eq!(ForwardAddr::parse("ci.example:80"), tcp("ci.example:80"));
        assert_eq!(ForwardAddr::parse("[::1]:80"), tcp("[::1]:80"));
        assert_eq!(ForwardAddr::parse("/run/t.sock"), unix("/run/t.sock"));
        assert_eq!(ForwardAddr::parse("./a:80"), unix("./a:80"));
        assert_eq!(ForwardAddr::parse("tapline.sock"), unix("tapline.sock"));
        assert_eq!(ForwardAddr::parse("host:port"), unix("host:port"));
    }

    fn result(ok: bool, verdict_ok: bool, planned: u64, ran: u64) -> FileResult {
        let mut verdict = Verdict::none();
        verdict.ok = verdict_ok;
        verdict.count = ran;
        verdict.plan = Some(crate::event::Plan {
            start: 1,
            end: planned,
            skip_all: false,
            reason: None,
        });
        FileResult {
            ok,
            verdict,
            ..FileResult::failed(vec!["exited with code 3".into()], Duration::ZERO)
        }
    }

    #[test]
    fn the_daemon_is_told_only_what_the_tap_does_not_say() {
        // Passed: nothing to add.
        assert!(trailer(&result(true, true, 2, 2)).is_empty());
        // Its TAP failed, complete: the daemon sees the same failure.
        assert!(trailer(&result(false, false, 2, 2)).is_empty());
        // TAP fine, process failed: the run's reasons.
        assert_eq!(
            trailer(&result(false, true, 2, 2)),
            b"Bail out! tapline run: exited with code 3\n"
        );
        // Cut short (a timeout): the reasons instead of the daemon's "cut".
        assert!(trailer(&result(false, false, 5, 2)).starts_with(b"Bail out! tapline run: "));
        let mut cached = result(true, true, 0, 0);
        cached.cached = true;
        assert!(trailer(&cached).starts_with(b"1..0 # SKIP cached"));
    }
}
