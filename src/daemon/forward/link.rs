//! The connection thread of `--forward`: one `SEND` connection per file being forwarded, fed
//! from the sink's queue. It asks the daemon's `STATUS` first (reachable, token accepted, TLS
//! trusted); any failure, then or later, is one warning line and the end of forwarding.
use super::Msg;
use crate::daemon::client::{self, Conn, Target};
use crate::daemon::wire::Request;
use std::collections::HashMap;
use std::io::Write;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

/// The longest a run's end waits for its last files to reach the daemon.
pub(crate) const DRAIN_WAIT: Duration = Duration::from_secs(5);
/// A write the daemon does not take within this long means it is stuck: forwarding stops.
const WRITE_WAIT: Duration = Duration::from_secs(10);
/// Ends a stream whose TAP was not all forwarded, so the daemon fails it for that reason.
const CUT_SHORT: &[u8] =
    b"\nBail out! tapline run --forward fell behind: the rest of this file was not forwarded\n";

pub(crate) struct Handle {
    done: Receiver<()>,
    /// The thread's warning, said by the run's own thread: the terminal report holds stderr
    /// for the whole run, so another thread printing would wait for the run to end.
    warning: Arc<Mutex<Option<String>>>,
    target: String,
}

impl Handle {
    /// Waits for the thread to have sent everything queued, at most [`DRAIN_WAIT`]; the
    /// warning line, if forwarding failed.
    pub(crate) fn finish(self) -> Option<String> {
        if let Err(mpsc::RecvTimeoutError::Timeout) = self.done.recv_timeout(DRAIN_WAIT) {
            return Some(format!(
                "--forward to {}: the daemon did not take the last files within {}s",
                self.target,
                DRAIN_WAIT.as_secs()
            ));
        }
        (self.warning.lock().unwrap_or_else(PoisonError::into_inner)).take()
    }
}

pub(crate) fn spawn(target: Target, rx: Receiver<Msg>, queued: Arc<AtomicUsize>) -> Handle {
    let (done_tx, done) = mpsc::channel();
    let warning = Arc::new(Mutex::new(None));
    let said = warning.clone();
    let label = target.to_string();
    let spawned = std::thread::Builder::new()
        .name("tapline-forward".into())
        .spawn(move || {
            if let Err(what) = forward(&target, rx, &queued) {
                let line = format!("--forward to {target}: {what}; the run went on without it");
                *said.lock().unwrap_or_else(PoisonError::into_inner) = Some(line);
            }
            let _ = done_tx.send(());
        });
    if let Err(e) = spawned {
        let line = format!("--forward: failed to start its thread: {e}");
        *warning.lock().unwrap_or_else(PoisonError::into_inner) = Some(line);
    }
    Handle {
        done,
        warning,
        target: label,
    }
}

/// Runs until the sink hangs up (the run's end) or the daemon fails (why, then).
fn forward(target: &Target, rx: Receiver<Msg>, queued: &AtomicUsize) -> Result<(), String> {
    client::status(target).map_err(|e| e.to_string())?;
    let mut conns: HashMap<u64, Conn> = HashMap::new();
    for msg in rx {
        let sent = match msg {
            Msg::Open { key, name, meta } => open(target, name, meta).map(|c| {
                conns.insert(key, c);
            }),
            Msg::Bytes { key, bytes } => {
                let written = match conns.get_mut(&key) {
                    Some(c) => c
                        .write_all(&bytes)
                        .map_err(|e| format!("lost the daemon: {e}")),
                    None => Ok(()),
                };
                queued.fetch_sub(bytes.len(), Ordering::Relaxed);
                written
            }
            Msg::Close { key, trailer, lost } => match conns.remove(&key) {
                Some(c) => close(c, &trailer, lost),
                None => Ok(()),
            },
        };
        sent?;
    }
    // Files the run ended without finishing (or whose end did not fit the queue).
    for (_, c) in conns {
        let _ = close(c, b"", true);
    }
    Ok(())
}

fn open(target: &Target, name: String, meta: serde_json::Value) -> Result<Conn, String> {
    let req = Request::Send {
        name,
        meta: Some(meta),
    };
    let conn = client::open(target, &req).map_err(|e| e.to_string())?;
    conn.set_write_timeout(Some(WRITE_WAIT))
        .map_err(|e| format!("failed to set up the connection: {e}"))?;
    Ok(conn)
}

/// Ends a stream: the trailer, then this side's end. The daemon judges it at that EOF; its
/// verdict line is not waited for (the run has its own).
fn close(mut c: Conn, trailer: &[u8], lost: bool) -> Result<(), String> {
    let lost_the_daemon = |e: std::io::Error| format!("lost the daemon: {e}");
    if lost {
        c.write_all(CUT_SHORT).map_err(lost_the_daemon)?;
    } else if !trailer.is_empty() {
        c.write_all(trailer).map_err(lost_the_daemon)?;
    }
    c.shutdown_write().map_err(lost_the_daemon)
}
