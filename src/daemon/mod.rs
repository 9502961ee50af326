//! `tapline serve`: the reporter daemon. Producers stream TAP over a Unix socket (or TCP) into
//! one live view, per-stream logs and the run's reports; subscribers follow every event.
//!
//! The daemon is one open-ended run whose files are its streams, so every run sink works
//! unchanged. One dispatcher ([`dispatch::Dispatcher`]) owns the state in one `select!`, fed by
//! a task per connection through a bounded channel: a stream is parsed in its own task (a slow
//! or stuck one delays nobody), and one whose events are not taken stops being read.
//! When no message is waiting the dispatcher flushes the sinks, so `--format jsonl` on a pipe
//! follows the streams live.
//! The wire protocol is written in `protocol-spec/daemon.md`.
pub mod client;
mod conn;
pub(crate) mod dispatch;
pub mod forward;
mod judge;
pub mod socket;
pub(crate) mod stream;
pub mod tls;
pub mod wire;

use crate::event::run::RunSummary;
use crate::report::sink::RunSink;
use crate::state::logs::LogDir;
use conn::Shared;
use std::io;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::signal::unix::{signal, SignalKind};
use tokio::sync::{mpsc, watch};

/// How often the live region is redrawn.
const TICK: Duration = Duration::from_millis(80);
/// Messages from connection tasks waiting for the dispatcher (each at most one 8 KiB slice's
/// events, [`crate::event::collect::EVENT_SLICE`]): small, so the events in flight stay a few MiB; a
/// stream that waits for a slot holds its own message, and reads nothing more meanwhile.
const QUEUE: usize = 32;
/// How long a stopping daemon waits for connection tasks to send their last lines.
const HANGUP_WAIT: Duration = Duration::from_millis(300);

/// Where and how the daemon listens and records.
pub struct ServeSettings {
    pub unix: socket::UnixSocket,
    pub tcp: Option<std::net::TcpListener>,
    /// Every TCP connection must present it first.
    pub token: Option<String>,
    /// The TCP listener speaks TLS (`--tls-cert`/`--tls-key`).
    pub tls: Option<Arc<rustls::ServerConfig>>,
    pub log_dir: Option<LogDir>,
    /// Redraw the terminal's live region.
    pub live: bool,
}

/// What stopped the daemon.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    Terminate,
    Interrupt,
}

pub struct Served {
    pub summary: RunSummary,
    pub stop: Stop,
}

/// Runs the daemon until SIGTERM or SIGINT, feeding `sink`; `warn` gets one-line warnings.
pub async fn serve(
    settings: ServeSettings,
    sink: &mut dyn RunSink,
    warn: &mut dyn FnMut(&str),
) -> io::Result<Served> {
    let mut sigint = signal(SignalKind::interrupt())?;
    let mut sigterm = signal(SignalKind::terminate())?;
    let ServeSettings {
        unix,
        tcp,
        token,
        tls,
        log_dir,
        live,
    } = settings;
    let (tx, mut rx) = mpsc::channel(QUEUE);
    let (stop_tx, stop_rx) = watch::channel(false);
    let (alive_tx, mut alive_rx) = mpsc::channel::<()>(1);
    let shared = Shared {
        tx,
        stop: stop_rx,
        alive: alive_tx,
    };
    let (accepting, listening) = accept(&unix, tcp, token, tls, &shared)?;
    let mut d = dispatch::Dispatcher::new(sink, log_dir, listening)?;
    let mut tick = tokio::time::interval(TICK);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    let stop = loop {
        tokio::select! {
            Some(msg) = rx.recv() => d.handle(msg)?,
            _ = sigterm.recv() => break Stop::Terminate,
            _ = sigint.recv() => break Stop::Interrupt,
            _ = tick.tick(), if live => d.tick(Instant::now())?,
            // Every other task has had its turn since: flushed if no message came meanwhile.
            () = tokio::task::yield_now(), if d.unflushed() => {
                if rx.is_empty() {
                    d.flush()?;
                }
            }
        }
        for w in d.warnings.drain(..) {
            warn(&w);
        }
    };
    // Stop accepting (the socket goes at once), then let open streams end as interrupted.
    for task in &accepting {
        task.abort();
    }
    drop(unix);
    let _ = stop_tx.send(true);
    let deadline = tokio::time::Instant::now() + dispatch::STOP_GRACE;
    while d.open_streams() > 0 {
        tokio::select! {
            Some(msg) = rx.recv() => d.handle(msg)?,
            _ = tokio::time::sleep_until(deadline) => break,
        }
    }
    d.abandon_open()?;
    let interrupted = d.open_streams_were_interrupted();
    let summary = d.finish(interrupted)?;
    drop(rx);
    drop(shared);
    for task in accepting {
        let _ = task.await;
    }
    // Subscribers drain their queues and hang up; producers answer their verdicts.
    let _ = tokio::time::timeout(HANGUP_WAIT, alive_rx.recv()).await;
    Ok(Served { summary, stop })
}

/// A task accepting connections on each listener, and the addresses they listen on.
fn accept(
    unix: &socket::UnixSocket,
    tcp: Option<std::net::TcpListener>,
    token: Option<String>,
    tls: Option<Arc<rustls::ServerConfig>>,
    shared: &Shared,
) -> io::Result<(Vec<tokio::task::JoinHandle<()>>, Vec<String>)> {
    let mut listening = vec![unix.path.display().to_string()];
    let mut accepting = Vec::new();
    let unix_listener = unix.listener.try_clone()?;
    unix_listener.set_nonblocking(true)?;
    let unix_listener = tokio::net::UnixListener::from_std(unix_listener)?;
    accepting.push(tokio::spawn(accept_unix(unix_listener, shared.clone())));
    if let Some(l) = tcp {
        listening.push(l.local_addr()?.to_string());
        l.set_nonblocking(true)?;
        let l = tokio::net::TcpListener::from_std(l)?;
        let token = token.map(Arc::<str>::from);
        let tls = tls.map(tokio_rustls::TlsAcceptor::from);
        accepting.push(tokio::spawn(accept_tcp(l, token, tls, shared.clone())));
    }
    Ok((accepting, listening))
}

async fn accept_unix(l: tokio::net::UnixListener, shared: Shared) {
    loop {
        match l.accept().await {
            Ok((conn, _)) => {
                let shared = shared.clone();
                tokio::spawn(conn::handle(conn, "unix socket".into(), None, shared));
            }
            // Out of descriptors, most likely: let some connections end.
            Err(_) => tokio::time::sleep(Duration::from_millis(50)).await,
        }
    }
}

async fn accept_tcp(
    l: tokio::net::TcpListener,
    token: Option<Arc<str>>,
    tls: Option<tokio_rustls::TlsAcceptor>,
    shared: Shared,
) {
    loop {
        match l.accept().await {
            Ok((conn, peer)) => {
                let _ = conn.set_nodelay(true);
                let shared = shared.clone();
                let token = token.clone();
                let peer = format!("tcp {peer}");
                match tls.clone() {
                    None => tokio::spawn(conn::handle(conn, peer, token, shared)),
                    Some(tls) => tokio::spawn(accept_tls(conn, tls, peer, token, shared)),
                };
            }
            Err(_) => tokio::time::sleep(Duration::from_millis(50)).await,
        }
    }
}

/// A TLS connection's handshake, within the header's time, then the connection as any other.
/// A client that speaks plain TCP (its first byte opens no TLS record) is told so in clear:
/// one line, not a hang.
async fn accept_tls(
    mut conn: tokio::net::TcpStream,
    tls: tokio_rustls::TlsAcceptor,
    peer: String,
    token: Option<Arc<str>>,
    shared: Shared,
) {
    use tokio::io::AsyncWriteExt;
    let mut first = [0u8; 1];
    match tokio::time::timeout(conn::HEADER_WAIT, conn.peek(&mut first)).await {
        Ok(Ok(1)) if first[0] == tls::TLS_HANDSHAKE_BYTE => {}
        Ok(Ok(1)) => {
            let why = "refused: this daemon speaks TLS on TCP (connect with --tls-ca FILE)";
            let _ = conn.write_all(&wire::error_line(why)).await;
            let _ = conn.shutdown().await;
            return;
        }
        _ => return,
    }
    let Ok(Ok(conn)) = tokio::time::timeout(conn::HEADER_WAIT, tls.accept(conn)).await else {
        // A failed handshake: the client's TLS says why on its side.
        return;
    };
    conn::handle(conn, peer.replacen("tcp ", "tls ", 1), token, shared).await;
}
