//! Where the daemon listens: the Unix socket (created 0600; a stale one replaced, a live one
//! refused naming its daemon's pid; removed on exit) and the optional TCP listener.
use std::io::{self, BufRead, BufReader, Write};
use std::net::SocketAddr;
use std::os::unix::fs::{FileTypeExt, MetadataExt, PermissionsExt};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::time::Duration;

#[derive(Debug, thiserror::Error)]
pub enum BindError {
    #[error("failed to listen on {path}: another tapline serve{pid} is listening there")]
    Live { path: PathBuf, pid: String },
    #[error("failed to listen on {path}: it exists and is not a socket")]
    NotASocket { path: PathBuf },
    #[error("failed to {action} {path}: {source}")]
    Io {
        action: &'static str,
        path: PathBuf,
        source: io::Error,
    },
    #[error("failed to listen on {addr}: a non-loopback address needs --token FILE")]
    NeedsToken { addr: SocketAddr },
    #[error("failed to listen on {addr}: a non-loopback address needs TLS (--tls-cert FILE --tls-key FILE)")]
    NeedsTls { addr: SocketAddr },
}

/// The daemon's Unix socket, bound; [`UnixSocket::remove`] deletes it if it is still ours.
#[derive(Debug)]
pub struct UnixSocket {
    pub listener: UnixListener,
    pub path: PathBuf,
    /// (device, inode) of the socket file we created: another daemon's is never removed.
    id: (u64, u64),
}

impl UnixSocket {
    /// Binds `path` with mode 0600, replacing a stale socket a dead daemon left behind.
    pub fn bind(path: &Path) -> Result<UnixSocket, BindError> {
        let io = |action, source| BindError::Io {
            action,
            path: path.to_path_buf(),
            source,
        };
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            crate::state::nogit::create_dir_all(parent).map_err(|e| BindError::Io {
                action: "create",
                path: parent.to_path_buf(),
                source: e,
            })?;
        }
        match std::fs::symlink_metadata(path) {
            Ok(meta) if !meta.file_type().is_socket() => {
                return Err(BindError::NotASocket {
                    path: path.to_path_buf(),
                })
            }
            Ok(_) => match UnixStream::connect(path) {
                Ok(stream) => {
                    let pid = live_pid(stream).map_or_else(String::new, |p| format!(" (pid {p})"));
                    return Err(BindError::Live {
                        path: path.to_path_buf(),
                        pid,
                    });
                }
                Err(e) if e.kind() == io::ErrorKind::ConnectionRefused => {
                    std::fs::remove_file(path).map_err(|e| io("remove the stale socket", e))?;
                }
                Err(e) => return Err(io("connect to the existing socket", e)),
            },
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(io("inspect", e)),
        }
        // Created 0600 from the start: a window with looser permissions would let another user
        // connect. Nothing else runs yet, so the process-wide umask is safe to borrow.
        let old = rustix::process::umask(rustix::fs::Mode::from_raw_mode(0o177));
        let bound = UnixListener::bind(path);
        rustix::process::umask(old);
        let listener = bound.map_err(|e| {
            if e.kind() == io::ErrorKind::AddrInUse {
                BindError::Live {
                    path: path.to_path_buf(),
                    pid: String::new(),
                }
            } else {
                io("listen on", e)
            }
        })?;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))
            .map_err(|e| io("set the permissions of", e))?;
        let meta = std::fs::symlink_metadata(path).map_err(|e| io("inspect", e))?;
        Ok(UnixSocket {
            listener,
            path: path.to_path_buf(),
            id: (meta.dev(), meta.ino()),
        })
    }

    /// Deletes the socket file, unless another daemon has replaced it meanwhile.
    pub fn remove(&self) {
        if let Ok(meta) = std::fs::symlink_metadata(&self.path) {
            if (meta.dev(), meta.ino()) == self.id {
                let _ = std::fs::remove_file(&self.path);
            }
        }
    }
}

impl Drop for UnixSocket {
    fn drop(&mut self) {
        self.remove();
    }
}

/// Asks a live daemon for its pid (STATUS), waiting at most a second.
fn live_pid(mut stream: UnixStream) -> Option<u64> {
    let wait = Some(Duration::from_secs(1));
    stream.set_read_timeout(wait).ok()?;
    stream.set_write_timeout(wait).ok()?;
    stream
        .write_all(&super::wire::header_line(&super::wire::Request::Status))
        .ok()?;
    let mut line = Vec::new();
    BufReader::new(stream).read_until(b'\n', &mut line).ok()?;
    let doc: serde_json::Value = serde_json::from_slice(&line).ok()?;
    doc.get("pid")?.as_u64()
}

/// Binds the TCP listener; a non-loopback address needs a token, and TLS so that the token
/// never crosses a network in clear.
pub fn bind_tcp(
    addr: SocketAddr,
    has_token: bool,
    has_tls: bool,
) -> Result<std::net::TcpListener, BindError> {
    if !super::tls::plain_allowed(addr) && !has_tls {
        return Err(BindError::NeedsTls { addr });
    }
    if !addr.ip().is_loopback() && !has_token {
        return Err(BindError::NeedsToken { addr });
    }
    let listener = std::net::TcpListener::bind(addr).map_err(|e| BindError::Io {
        action: "listen on",
        path: PathBuf::from(addr.to_string()),
        source: e,
    })?;
    Ok(listener)
}

/// The token a `--token FILE` holds: its content without surrounding whitespace.
pub fn read_token(file: &Path) -> Result<String, String> {
    let text = std::fs::read_to_string(file)
        .map_err(|e| format!("failed to read the token file {}: {e}", file.display()))?;
    let token = text.trim();
    if token.is_empty() {
        return Err(format!("the token file {} is empty", file.display()));
    }
    if token.contains(['\n', '\r']) {
        return Err(format!(
            "the token file {} holds more than one line",
            file.display()
        ));
    }
    Ok(token.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_socket_is_private_and_removed() {
        let tmp = tempfile::TempDir::new().expect("temp dir");
        let path = tmp.path().join("sub/d.sock");
        let s = UnixSocket::bind(&path).expect("bound");
        let meta = std::fs::metadata(&path).expect("exists");
        assert_eq!(meta.permissions().mode() & 0o777, 0o600);
        drop(s);
        assert!(!path.exists());
    }

    #[test]
    fn a_stale_socket_is_replaced_and_a_live_one_refused() {
        let tmp = tempfile::TempDir::new().expect("temp dir");
        let path = tmp.path().join("d.sock");
        drop(UnixListener::bind(&path).expect("stale"));
        assert!(path.exists(), "a dropped listener leaves its file");
        let live = UnixSocket::bind(&path).expect("stale replaced");
        let err = UnixSocket::bind(&path).expect_err("live refused");
        assert!(matches!(err, BindError::Live { .. }), "{err}");
        assert!(err.to_string().contains("another tapline serve"), "{err}");
        drop(live);
        assert!(!path.exists());
    }

    #[test]
    fn a_plain_file_is_never_replaced() {
        let tmp = tempfile::TempDir::new().expect("temp dir");
        let path = tmp.path().join("d.sock");
        std::fs::write(&path, "mine").expect("write");
        let err = UnixSocket::bind(&path).expect_err("refused");
        assert!(matches!(err, BindError::NotASocket { .. }));
        assert_eq!(std::fs::read(&path).expect("kept"), b"mine");
    }

    #[test]
    fn non_loopback_needs_a_token() {
        let addr: SocketAddr = "0.0.0.0:0".parse().expect("addr");
        assert!(matches!(
            bind_tcp(addr, false, true),
            Err(BindError::NeedsToken { .. })
        ));
        let l = bind_tcp("127.0.0.1:0".parse().expect("addr"), false, false).expect("loopback");
        assert!(l.local_addr().expect("addr").port() > 0);
    }

    #[test]
    fn non_loopback_needs_tls_even_with_a_token() {
        let addr: SocketAddr = "0.0.0.0:0".parse().expect("addr");
        let err = bind_tcp(addr, true, false).expect_err("refused");
        assert!(matches!(err, BindError::NeedsTls { .. }));
        assert!(
            err.to_string().contains("--tls-cert FILE --tls-key FILE"),
            "{err}"
        );
        let err = bind_tcp(addr, false, false).expect_err("refused");
        assert!(
            matches!(err, BindError::NeedsTls { .. }),
            "TLS is said first"
        );
    }

    #[test]
    fn tokens_are_read_trimmed() {
        let tmp = tempfile::TempDir::new().expect("temp dir");
        let f = tmp.path().join("t");
        std::fs::write(&f, "abc\n").expect("write");
        assert_eq!(read_token(&f), Ok("abc".into()));
        std::fs::write(&f, "  \n").expect("write");
        assert!(read_token(&f).is_err());
        assert!(read_token(&tmp.path().join("none")).is_err());
    }
}
