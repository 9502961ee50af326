//! TLS on the daemon's TCP: the server's certificate and key (`serve --tls-cert/--tls-key`),
//! the clients' trust (`--tls-ca FILE`, else the system's roots), and which addresses need it
//! (every non-loopback one: a token never crosses a network in clear).
//!
//! rustls with graviola's crypto (pure Rust and Rust assembly: no C compiler), PEM files read
//! by `rustls-pki-types`. Clients are blocking (`TlsStream`); the server side is async
//! (`tokio-rustls`), in [`super::accept_tcp`].
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName};
use rustls::{ClientConfig, ClientConnection, RootCertStore, ServerConfig, StreamOwned};
use std::io;
use std::net::{IpAddr, SocketAddr, TcpStream, ToSocketAddrs};
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

/// How long a client waits for the TCP connection and then for the TLS handshake: a daemon
/// that does not speak TLS (or is stuck) is one clear line, never a hang.
pub const HANDSHAKE_WAIT: Duration = Duration::from_secs(5);

/// The first byte of every TLS record a client opens with (a handshake record).
pub const TLS_HANDSHAKE_BYTE: u8 = 0x16;

/// The blocking client side of a TLS connection.
pub type TlsStream = StreamOwned<ClientConnection, TcpStream>;

fn provider() -> Arc<rustls::crypto::CryptoProvider> {
    Arc::new(rustls_graviola::default_provider())
}

fn certs(file: &Path, what: &str) -> Result<Vec<CertificateDer<'static>>, String> {
    let fail = |e: &dyn std::fmt::Display| format!("failed to read {what} {}: {e}", file.display());
    let certs = CertificateDer::pem_file_iter(file)
        .map_err(|e| fail(&e))?
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| fail(&e))?;
    if certs.is_empty() {
        return Err(fail(&"no PEM certificate in it"));
    }
    Ok(certs)
}

/// The daemon's TLS settings from its certificate chain and private key (PEM files).
pub fn server_config(cert: &Path, key: &Path) -> Result<Arc<ServerConfig>, String> {
    let chain = certs(cert, "the TLS certificate")?;
    let key = PrivateKeyDer::from_pem_file(key)
        .map_err(|e| format!("failed to read the TLS key {}: {e}", key.display()))?;
    let config = ServerConfig::builder_with_provider(provider())
        .with_safe_default_protocol_versions()
        .map_err(|e| format!("failed to set up TLS: {e}"))?
        .with_no_client_auth()
        .with_single_cert(chain, key)
        .map_err(|e| format!("failed to use the TLS certificate and key: {e}"))?;
    Ok(Arc::new(config))
}

/// A client's TLS settings: trusting the CA certificates of `ca` (PEM), else the system's.
pub fn client_config(ca: Option<&Path>) -> Result<Arc<ClientConfig>, String> {
    let mut roots = RootCertStore::empty();
    match ca {
        Some(file) => {
            for cert in certs(file, "the TLS CA file")? {
                roots.add(cert).map_err(|e| {
                    format!("failed to use the TLS CA file {}: {e}", file.display())
                })?;
            }
        }
        None => {
            let found = rustls_native_certs::load_native_certs();
            // Unreadable system certificates are skipped as every TLS client skips them.
            let (added, _) = roots.add_parsable_certificates(found.certs);
            if added == 0 {
                return Err(
                    "failed to set up TLS: no system root certificates found (give --tls-ca FILE)"
                        .into(),
                );
            }
        }
    }
    let config = ClientConfig::builder_with_provider(provider())
        .with_safe_default_protocol_versions()
        .map_err(|e| format!("failed to set up TLS: {e}"))?
        .with_root_certificates(roots)
        .with_no_client_auth();
    Ok(Arc::new(config))
}

/// `HOST:PORT` (`[v6]:PORT` for an IPv6 address) split into host and port.
pub fn split_host_port(addr: &str) -> Result<(&str, u16), String> {
    let bad = || format!("invalid address {addr:?}: expected HOST:PORT");
    let (host, port) = addr.rsplit_once(':').ok_or_else(bad)?;
    let port: u16 = port.parse().map_err(|_| bad())?;
    let host = match host.strip_prefix('[') {
        Some(v6) => v6.strip_suffix(']').ok_or_else(bad)?,
        None if host.contains(':') => return Err(bad()),
        None => host,
    };
    if host.is_empty() {
        return Err(bad());
    }
    Ok((host, port))
}

/// Whether `host` names this machine's loopback: `localhost` (and `*.localhost`, which
/// resolvers keep on the machine), `127.0.0.0/8`, `::1`. Anything else may cross a network.
pub fn is_loopback_host(host: &str) -> bool {
    let host = host.trim_end_matches('.');
    if host.eq_ignore_ascii_case("localhost") || host.to_ascii_lowercase().ends_with(".localhost") {
        return true;
    }
    host.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

/// Whom a client's TLS connection must show it is, and what it trusts.
#[derive(Clone)]
pub struct TlsClient {
    pub config: Arc<ClientConfig>,
    pub name: ServerName<'static>,
}

impl std::fmt::Debug for TlsClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "TlsClient({:?})", self.name)
    }
}

impl TlsClient {
    /// For the daemon at `addr` (`HOST:PORT`): the host is the name its certificate must hold.
    pub fn new(addr: &str, config: Arc<ClientConfig>) -> Result<TlsClient, String> {
        let (host, _) = split_host_port(addr)?;
        let name = ServerName::try_from(host.to_owned())
            .map_err(|e| format!("invalid address {addr:?} for TLS: {e}"))?;
        Ok(TlsClient { config, name })
    }
}

/// Connects to `addr`, trying each address it resolves to, each within `wait`.
pub fn connect_tcp(addr: &str, wait: Duration) -> io::Result<TcpStream> {
    let mut last = io::Error::new(io::ErrorKind::NotFound, "the name resolves to no address");
    for a in addr.to_socket_addrs()? {
        match TcpStream::connect_timeout(&a, wait) {
            Ok(s) => return Ok(s),
            Err(e) => last = e,
        }
    }
    Err(last)
}

/// Runs the TLS handshake on `tcp` within [`HANDSHAKE_WAIT`]. A daemon serving plain TCP
/// (or nothing) fails here with a line that says what to check.
pub fn handshake(tcp: TcpStream, tls: &TlsClient, addr: &str) -> Result<TlsStream, String> {
    let fail = |e: &dyn std::fmt::Display| {
        format!("failed to set up TLS with {addr}: {e} (is it a tapline serve with --tls-cert?)")
    };
    let untrusted = |e: &dyn std::fmt::Display| {
        format!("failed to set up TLS with {addr}: {e} (is --tls-ca the CA that signed its certificate?)")
    };
    let conn = ClientConnection::new(tls.config.clone(), tls.name.clone()).map_err(|e| fail(&e))?;
    tcp.set_read_timeout(Some(HANDSHAKE_WAIT))
        .and_then(|()| tcp.set_write_timeout(Some(HANDSHAKE_WAIT)))
        .map_err(|e| fail(&e))?;
    let mut stream = StreamOwned::new(conn, tcp);
    while stream.conn.is_handshaking() {
        match stream.conn.complete_io(&mut stream.sock) {
            Ok(_) => {}
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                ) =>
            {
                return Err(fail(&format_args!(
                    "no TLS answer within {}s",
                    HANDSHAKE_WAIT.as_secs()
                )))
            }
            Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => {
                return Err(fail(&"the daemon closed the connection"))
            }
            Err(e) if is_certificate_error(&e) => return Err(untrusted(&e)),
            Err(e) => return Err(fail(&e)),
        }
    }
    stream
        .sock
        .set_read_timeout(None)
        .and_then(|()| stream.sock.set_write_timeout(None))
        .map_err(|e| fail(&e))?;
    Ok(stream)
}

/// The daemon answered in TLS, with a certificate this client does not trust.
fn is_certificate_error(e: &io::Error) -> bool {
    e.get_ref()
        .and_then(|inner| inner.downcast_ref::<rustls::Error>())
        .is_some_and(|r| matches!(r, rustls::Error::InvalidCertificate(_)))
}

/// Whether a TCP listener on `addr` may serve without TLS: only on loopback.
pub fn plain_allowed(addr: SocketAddr) -> bool {
    addr.ip().is_loopback()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_split_into_host_and_port() {
        assert_eq!(split_host_port("127.0.0.1:7357"), Ok(("127.0.0.1", 7357)));
        assert_eq!(split_host_port("ci.example:80"), Ok(("ci.example", 80)));
        assert_eq!(split_host_port("[::1]:9"), Ok(("::1", 9)));
        for bad in [
            "127.0.0.1",
            "host:",
            ":80",
            "::1:80",
            "[::1:80",
            "h:99999",
            "h:x",
        ] {
            assert!(split_host_port(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn only_loopback_hosts_may_go_without_tls() {
        for host in [
            "127.0.0.1",
            "127.4.5.6",
            "::1",
            "localhost",
            "LOCALHOST.",
            "a.localhost",
        ] {
            assert!(is_loopback_host(host), "{host}");
        }
        for host in [
            "10.0.0.1",
            "0.0.0.0",
            "::",
            "ci.example",
            "localhost.example",
            "::ffff:8.8.8.8",
        ] {
            assert!(!is_loopback_host(host), "{host}");
        }
        assert!(plain_allowed("127.0.0.1:0".parse().expect("addr")));
        assert!(!plain_allowed("0.0.0.0:0".parse().expect("addr")));
        assert!(!plain_allowed("[::]:0".parse().expect("addr")));
    }

    #[test]
    fn missing_or_empty_pem_files_are_one_line_errors() {
        let tmp = tempfile::TempDir::new().expect("temp dir");
        let empty = tmp.path().join("empty.pem");
        std::fs::write(&empty, "").expect("write");
        let e = client_config(Some(&empty)).expect_err("no certificate");
        assert!(e.contains("no PEM certificate"), "{e}");
        let e = client_config(Some(&tmp.path().join("none.pem"))).expect_err("missing");
        assert!(e.starts_with("failed to read the TLS CA file"), "{e}");
        let e = server_config(&empty, &empty).expect_err("no certificate");
        assert!(e.starts_with("failed to read the TLS certificate"), "{e}");
    }
}
