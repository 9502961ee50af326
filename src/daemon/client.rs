//! The daemon's clients: `send` (streams bytes as they come and waits for the verdict),
//! `events` (copies the event feed), `status` (one document). Plain blocking I/O; TCP with TLS
//! when the daemon is not on loopback or a CA is given ([`super::tls`]).
use super::tls::{self, TlsClient, TlsStream};
use super::wire::{self, Request, VerdictReply};
use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::{Shutdown, TcpStream};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

/// Which daemon to talk to.
#[derive(Debug, Clone)]
pub enum Target {
    Unix(PathBuf),
    Tcp {
        addr: String,
        token: Option<String>,
        /// TLS, and whom to trust; `None`: plain TCP (loopback only).
        tls: Option<TlsClient>,
    },
}

impl Target {
    /// A daemon at `HOST:PORT`: TLS trusting `ca` when given, else TLS trusting the system's
    /// roots when the host is not loopback (a token never crosses a network in clear), else
    /// plain TCP.
    pub fn tcp(addr: &str, token: Option<&Path>, ca: Option<&Path>) -> Result<Target, String> {
        let (host, _) = tls::split_host_port(addr)?;
        let tls = if ca.is_some() || !tls::is_loopback_host(host) {
            Some(TlsClient::new(addr, tls::client_config(ca)?)?)
        } else {
            None
        };
        let token = token.map(super::socket::read_token).transpose()?;
        Ok(Target::Tcp {
            addr: addr.to_owned(),
            token,
            tls,
        })
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    /// Nobody listens there (exit 2): one line that says how to start one.
    #[error(
        "no tapline daemon listens on {target} ({}); start one with `tapline serve`",
        plain(source)
    )]
    NoDaemon { target: String, source: io::Error },
    /// The daemon refused the request, or the exchange broke.
    #[error("{0}")]
    Failed(String),
    /// Reading the input failed.
    #[error("failed to read the input: {0}")]
    Input(io::Error),
}

/// `no such file or directory`: the error as a clause, without its `(os error 2)` tail.
fn plain(e: &io::Error) -> String {
    let text = e.to_string();
    let text = text.find(" (os error").map_or(&text[..], |i| &text[..i]);
    let mut chars = text.chars();
    chars
        .next()
        .map(|c| c.to_lowercase().chain(chars).collect())
        .unwrap_or_default()
}

/// How long a TLS reader holds the connection before letting a writer in: one TLS session
/// cannot be split into a reading and a writing half as a socket can.
const TLS_READ_SLICE: Duration = Duration::from_millis(50);

/// A connection to the daemon.
pub(crate) enum Conn {
    Unix(UnixStream),
    Tcp(TcpStream),
    /// Shared by the writer and the reply's reader, each taking turns.
    Tls(Arc<Mutex<TlsStream>>),
}

impl Conn {
    fn try_clone(&self) -> io::Result<Conn> {
        Ok(match self {
            Conn::Unix(s) => Conn::Unix(s.try_clone()?),
            Conn::Tcp(s) => Conn::Tcp(s.try_clone()?),
            Conn::Tls(s) => Conn::Tls(s.clone()),
        })
    }
    /// The end of what this side sends (TLS: its `close_notify`); the reply can still come.
    pub(crate) fn shutdown_write(&self) -> io::Result<()> {
        match self {
            Conn::Unix(s) => s.shutdown(Shutdown::Write),
            Conn::Tcp(s) => s.shutdown(Shutdown::Write),
            Conn::Tls(s) => {
                let mut s = s.lock().unwrap_or_else(PoisonError::into_inner);
                s.conn.send_close_notify();
                s.flush()
            }
        }
    }
    /// Writes that wait longer than `wait` fail (a daemon that stopped reading).
    pub(crate) fn set_write_timeout(&self, wait: Option<Duration>) -> io::Result<()> {
        match self {
            Conn::Unix(s) => s.set_write_timeout(wait),
            Conn::Tcp(s) => s.set_write_timeout(wait),
            Conn::Tls(s) => (s.lock().unwrap_or_else(PoisonError::into_inner))
                .sock
                .set_write_timeout(wait),
        }
    }
}

impl Read for Conn {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Conn::Unix(s) => s.read(buf),
            Conn::Tcp(s) => s.read(buf),
            Conn::Tls(s) => loop {
                let mut s = s.lock().unwrap_or_else(PoisonError::into_inner);
                match s.read(buf) {
                    Err(e)
                        if matches!(
                            e.kind(),
                            io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                        ) =>
                    {
                        drop(s);
                        std::thread::yield_now();
                    }
                    // A daemon that closed without its `close_notify` (killed) ends the
                    // stream as a closed socket does; every message is a whole line anyway.
                    Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(0),
                    r => return r,
                }
            },
        }
    }
}

impl Write for Conn {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Conn::Unix(s) => s.write(buf),
            Conn::Tcp(s) => s.write(buf),
            Conn::Tls(s) => {
                let mut s = s.lock().unwrap_or_else(PoisonError::into_inner);
                let n = s.write(buf)?;
                // rustls holds the records until flushed: out at once, as the sockets do.
                s.flush()?;
                Ok(n)
            }
        }
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl std::fmt::Display for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Target::Unix(p) => write!(f, "{}", p.display()),
            Target::Tcp { addr, .. } => write!(f, "{addr}"),
        }
    }
}

/// Connects and sends the token (TCP) and the header line.
pub(crate) fn open(target: &Target, req: &Request) -> Result<Conn, ClientError> {
    let no_daemon = |source| ClientError::NoDaemon {
        target: target.to_string(),
        source,
    };
    let mut conn = match target {
        Target::Unix(path) => Conn::Unix(UnixStream::connect(path).map_err(no_daemon)?),
        Target::Tcp { addr, tls, .. } => {
            let s = tls::connect_tcp(addr, tls::HANDSHAKE_WAIT).map_err(no_daemon)?;
            let _ = s.set_nodelay(true);
            match tls {
                None => Conn::Tcp(s),
                Some(tls) => {
                    let mut s = tls::handshake(s, tls, addr).map_err(ClientError::Failed)?;
                    // Readers take turns with writers ([`TLS_READ_SLICE`]).
                    (s.sock.set_read_timeout(Some(TLS_READ_SLICE)))
                        .map_err(|e| ClientError::Failed(format!("failed to set up TLS: {e}")))?;
                    let _ = s.flush();
                    Conn::Tls(Arc::new(Mutex::new(s)))
                }
            }
        }
    };
    let mut head = Vec::new();
    if let Target::Tcp {
        token: Some(token), ..
    } = target
    {
        head.extend_from_slice(&wire::token_line(token));
    }
    head.extend_from_slice(&wire::header_line(req));
    conn.write_all(&head)
        .map_err(|e| ClientError::Failed(format!("failed to send the header: {e}")))?;
    Ok(conn)
}

/// Streams `input` to the daemon as stream `name`, chunk by chunk as it arrives, and returns
/// the daemon's verdict on it.
pub fn send(
    target: &Target,
    name: &str,
    meta: Option<serde_json::Value>,
    input: &mut dyn Read,
) -> Result<VerdictReply, ClientError> {
    let req = Request::Send {
        name: name.to_owned(),
        meta,
    };
    let mut conn = open(target, &req)?;
    // The reply may come early (a refusal, or the daemon stopping): read it alongside.
    let reader = conn
        .try_clone()
        .map_err(|e| ClientError::Failed(format!("failed to read the connection: {e}")))?;
    let replies = std::thread::spawn(move || {
        let mut line = Vec::new();
        let read = BufReader::new(reader).read_until(b'\n', &mut line);
        read.map(|_| line)
    });
    let mut buf = vec![0u8; 64 * 1024];
    let mut input_error = None;
    loop {
        let n = match input.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => {
                input_error = Some(e);
                break;
            }
        };
        // A daemon that hung up has answered (or died): its reply, if any, says which.
        if conn.write_all(&buf[..n]).is_err() {
            break;
        }
    }
    if let Some(e) = input_error {
        // Without its end the stream is judged cut; the input error is what the user needs.
        let _ = conn.shutdown_write();
        let _ = replies.join();
        return Err(ClientError::Input(e));
    }
    let _ = conn.shutdown_write();
    let line = replies
        .join()
        .map_err(|_| ClientError::Failed("the reply reader failed".into()))?
        .map_err(|e| ClientError::Failed(format!("failed to read the verdict: {e}")))?;
    if line.is_empty() {
        return Err(ClientError::Failed(
            "the daemon closed the connection without a verdict".into(),
        ));
    }
    wire::parse_reply(&line).map_err(ClientError::Failed)
}

/// Copies the daemon's event feed to `out` until the daemon stops. Returns whether the daemon
/// dropped this subscriber for falling behind.
pub fn events(
    target: &Target,
    glob: Option<&str>,
    out: &mut dyn Write,
) -> Result<bool, ClientError> {
    let req = Request::Events {
        glob: glob.map(str::to_owned),
    };
    let conn = open(target, &req)?;
    let mut lines = BufReader::with_capacity(64 * 1024, conn);
    let mut line = Vec::new();
    let mut first = true;
    let mut dropped = false;
    loop {
        line.clear();
        match lines.read_until(b'\n', &mut line) {
            Ok(0) => break,
            Ok(_) => {}
            Err(e) => {
                return Err(ClientError::Failed(format!(
                    "failed to read the events: {e}"
                )))
            }
        }
        if std::mem::take(&mut first) && line.starts_with(b"{\"error\"") {
            let why = wire::parse_reply(&line).err().unwrap_or_default();
            return Err(ClientError::Failed(why));
        }
        if line.starts_with(b"{\"stream\":null,\"type\":\"dropped\"") {
            dropped = true;
        }
        out.write_all(&line)
            .map_err(|e| ClientError::Failed(format!("failed to write the events: {e}")))?;
        if lines.buffer().is_empty() {
            out.flush()
                .map_err(|e| ClientError::Failed(format!("failed to write the events: {e}")))?;
        }
    }
    out.flush()
        .map_err(|e| ClientError::Failed(format!("failed to write the events: {e}")))?;
    Ok(dropped)
}

/// The daemon's status document.
pub fn status(target: &Target) -> Result<serde_json::Value, ClientError> {
    let mut conn = open(target, &Request::Status)?;
    let mut doc = Vec::new();
    conn.read_to_end(&mut doc)
        .map_err(|e| ClientError::Failed(format!("failed to read the status: {e}")))?;
    let v: serde_json::Value = serde_json::from_slice(&doc)
        .map_err(|e| ClientError::Failed(format!("unreadable status from the daemon: {e}")))?;
    if let Some(err) = v.get("error").and_then(|e| e.as_str()) {
        return Err(ClientError::Failed(err.to_owned()));
    }
    Ok(v)
}
