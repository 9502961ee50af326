//! Issue 17: the daemon's TCP with TLS, against certificates made here with the `openssl`
//! command (a CA, and a server certificate for 127.0.0.1 and localhost signed by it). Every
//! test `require`s `openssl`.
use crate::util::daemon::{finished, passing, Daemon};
use crate::util::{require, unmet};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use tempfile::TempDir;

/// A CA and a server certificate it signed, in a temp folder.
pub(crate) struct Certs {
    _dir: TempDir,
    pub ca: PathBuf,
    pub cert: PathBuf,
    pub key: PathBuf,
    /// A second CA that signed nothing here: trusting it is trusting the wrong one.
    pub other_ca: PathBuf,
}

fn openssl(dir: &Path, args: &[&str]) {
    let out = Command::new("openssl")
        .args(args)
        .current_dir(dir)
        .output()
        .expect("openssl runs");
    assert!(out.status.success(), "openssl {args:?}: {out:?}");
}

fn make_ca(dir: &Path, name: &str) {
    let (key, pem) = (format!("{name}.key"), format!("{name}.pem"));
    let subj = format!("/CN=tapline test {name}");
    openssl(
        dir,
        &[
            "genpkey",
            "-algorithm",
            "EC",
            "-pkeyopt",
            "ec_paramgen_curve:P-256",
            "-out",
            &key,
        ],
    );
    openssl(
        dir,
        &[
            "req",
            "-x509",
            "-new",
            "-key",
            &key,
            "-out",
            &pem,
            "-days",
            "2",
            "-subj",
            &subj,
            "-addext",
            "basicConstraints=critical,CA:TRUE",
            "-addext",
            "keyUsage=critical,keyCertSign,cRLSign",
        ],
    );
}

/// The certificates, or `None` when `test` cannot go on without `openssl` (`require`).
pub(crate) fn certs(test: &str) -> Option<Certs> {
    if !require(test, &["openssl"]) {
        return None;
    }
    let dir = TempDir::new().expect("temp dir");
    let p = dir.path();
    make_ca(p, "ca");
    make_ca(p, "other");
    openssl(
        p,
        &[
            "genpkey",
            "-algorithm",
            "EC",
            "-pkeyopt",
            "ec_paramgen_curve:P-256",
            "-out",
            "server.key",
        ],
    );
    openssl(
        p,
        &[
            "req",
            "-new",
            "-key",
            "server.key",
            "-out",
            "server.csr",
            "-subj",
            "/CN=localhost",
        ],
    );
    std::fs::write(
        p.join("ext.cnf"),
        "basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\n\
         extendedKeyUsage=serverAuth\nsubjectAltName=IP:127.0.0.1,DNS:localhost\n",
    )
    .expect("extensions");
    openssl(
        p,
        &[
            "x509",
            "-req",
            "-in",
            "server.csr",
            "-CA",
            "ca.pem",
            "-CAkey",
            "ca.key",
            "-CAcreateserial",
            "-out",
            "server.pem",
            "-days",
            "2",
            "-extfile",
            "ext.cnf",
        ],
    );
    Some(Certs {
        ca: p.join("ca.pem"),
        cert: p.join("server.pem"),
        key: p.join("server.key"),
        other_ca: p.join("other.pem"),
        _dir: dir,
    })
}

/// A daemon listening with TLS on loopback (any free port) with a token; its address and
/// token file.
pub(crate) fn tls_daemon(c: &Certs) -> (Daemon, String, String) {
    let dir = TempDir::new().expect("temp dir");
    std::fs::create_dir(dir.path().join(".git")).expect("root");
    let token = dir.path().join("token");
    std::fs::write(&token, "s3cret-token\n").expect("token");
    let token = token.display().to_string();
    let (cert, key) = (c.cert.display().to_string(), c.key.display().to_string());
    let d = Daemon::start_in(
        dir,
        &[
            "--listen",
            "127.0.0.1:0",
            "--token",
            &token,
            "--tls-cert",
            &cert,
            "--tls-key",
            &key,
        ],
    );
    let addr = d
        .stderr()
        .lines()
        .find_map(|l| l.strip_prefix("tapline: listening on tcp "))
        .and_then(|l| l.strip_suffix(" (TLS)"))
        .expect("the TLS address is printed")
        .to_owned();
    (d, addr, token)
}

fn stderr_of(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Done when: `send --connect --tls-ca` reaches a TLS daemon on loopback; `status` and
/// `events` too.
#[test]
fn clients_reach_a_tls_daemon_with_its_ca() {
    let Some(c) = certs("clients_reach_a_tls_daemon_with_its_ca") else {
        return;
    };
    let (mut d, addr, token) = tls_daemon(&c);
    let ca = c.ca.display().to_string();
    let tap = d.path().join("ok.tap");
    std::fs::write(&tap, passing(3)).expect("tap");
    let tap = tap.display().to_string();
    let target = ["--connect", &addr, "--token", &token, "--tls-ca", &ca];
    let out = d
        .client(&[&["send", "over-tls", &tap][..], &target].concat())
        .output()
        .expect("send");
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(
        stderr_of(&out).contains("over-tls: passed (3 passed, 0 failed)"),
        "{out:?}"
    );
    // `localhost` is in the certificate too.
    let port = addr.rsplit_once(':').expect("port").1;
    let by_name = format!("localhost:{port}");
    let out = d
        .client(&[
            "status",
            "--connect",
            &by_name,
            "--token",
            &token,
            "--tls-ca",
            &ca,
        ])
        .output()
        .expect("status");
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let status: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    let done = finished(&status);
    assert_eq!(done.len(), 1, "{status}");
    assert_eq!(done[0]["name"], "over-tls");
    assert!(
        done[0]["peer"]
            .as_str()
            .unwrap_or_default()
            .starts_with("tls 127.0.0.1:"),
        "{status}"
    );
    // A subscriber over TLS sees the daemon's end.
    let events = d
        .client(&[&["events"][..], &target].concat())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("events");
    crate::util::daemon::wait_for(|| d.status()["subscribers"] == 1);
    let (code, _) = d.stop(rustix::process::Signal::TERM);
    assert_eq!(code, Some(0));
    let out = events.wait_with_output().expect("events ends");
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("\"type\":\"run_finished\""),
        "{out:?}"
    );
}

/// Done when: without the CA (or trusting another) the client refuses the daemon in one line.
#[test]
fn a_daemon_whose_certificate_is_not_trusted_is_refused() {
    let Some(c) = certs("a_daemon_whose_certificate_is_not_trusted_is_refused") else {
        return;
    };
    let (d, addr, token) = tls_daemon(&c);
    let other = c.other_ca.display().to_string();
    let out = d
        .client(&[
            "status",
            "--connect",
            &addr,
            "--token",
            &token,
            "--tls-ca",
            &other,
        ])
        .output()
        .expect("status");
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let err = stderr_of(&out);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("failed to set up TLS with") && err.contains("certificate"),
        "{err}"
    );
    assert!(finished(&d.status()).is_empty());
}

/// Done when: a plain client to a TLS daemon fails clearly and at once, never hangs; and a
/// TLS client to a plain daemon too.
#[test]
fn plain_and_tls_mismatches_fail_clearly_without_hanging() {
    let Some(c) = certs("plain_and_tls_mismatches_fail_clearly_without_hanging") else {
        return;
    };
    let (d, addr, token) = tls_daemon(&c);
    let started = Instant::now();
    let out = d
        .client(&["send", "plain", "--connect", &addr, "--token", &token])
        .stdin(Stdio::null())
        .output()
        .expect("send");
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let err = stderr_of(&out);
    assert!(
        err.contains("this daemon speaks TLS") && err.contains("--tls-ca"),
        "{err}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );

    // The other way round: a daemon serving plain TCP, a client asking for TLS.
    let dir = TempDir::new().expect("temp dir");
    std::fs::create_dir(dir.path().join(".git")).expect("root");
    let plain = Daemon::start_in(dir, &["--listen", "127.0.0.1:0"]);
    let plain_addr = plain
        .stderr()
        .lines()
        .find_map(|l| l.strip_prefix("tapline: listening on tcp "))
        .expect("address")
        .to_owned();
    let ca = c.ca.display().to_string();
    let started = Instant::now();
    let out = plain
        .client(&["status", "--connect", &plain_addr, "--tls-ca", &ca])
        .output()
        .expect("status");
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let err = stderr_of(&out);
    assert!(err.contains("failed to set up TLS with"), "{err}");
    assert!(
        started.elapsed() < Duration::from_secs(12),
        "{:?}",
        started.elapsed()
    );
}

/// Done when: the token is never sent in clear to a TLS daemon: what a raw plain connection
/// reads back is the refusal, and the token file's content never reaches its log.
#[test]
fn a_raw_plain_connection_to_a_tls_daemon_is_told_so() {
    let Some(c) = certs("a_raw_plain_connection_to_a_tls_daemon_is_told_so") else {
        return;
    };
    let (d, addr, _) = tls_daemon(&c);
    let mut s = std::net::TcpStream::connect(&addr).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(10)))
        .expect("timeout");
    s.write_all(b"STATUS\n").expect("write");
    let mut reply = String::new();
    s.read_to_string(&mut reply).expect("reply");
    assert!(
        reply.starts_with("{\"error\"") && reply.contains("speaks TLS"),
        "{reply}"
    );
    assert!(finished(&d.status()).is_empty());
}

/// Done when: serve refuses a non-loopback TCP address without TLS, one line, exit 2.
#[test]
fn serve_refuses_a_non_loopback_address_without_tls() {
    let dir = TempDir::new().expect("temp dir");
    std::fs::create_dir(dir.path().join(".git")).expect("root");
    let token = dir.path().join("token");
    std::fs::write(&token, "t\n").expect("token");
    let out = Command::new(env!("CARGO_BIN_EXE_tapline"))
        .args(["serve", "--listen", "0.0.0.0:0", "--token"])
        .arg(&token)
        .current_dir(dir.path())
        .output()
        .expect("serve");
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let err = stderr_of(&out);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("needs TLS (--tls-cert FILE --tls-key FILE)"),
        "{err}"
    );
}

/// Done when: a client to a non-loopback address uses TLS with the system's roots, so its
/// token never goes out in clear: against a plain listener on this machine's own non-loopback
/// address (when it has one) the client fails the TLS setup instead of sending.
#[test]
fn a_non_loopback_address_means_tls_with_the_system_roots() {
    let Some(ip) = non_loopback_ip() else {
        unmet(
            "a_non_loopback_address_means_tls_with_the_system_roots",
            "this machine has no non-loopback address (CI's runner has one)",
        );
        return;
    };
    let listener = std::net::TcpListener::bind((ip, 0)).expect("bind");
    let addr = listener.local_addr().expect("addr");
    listener.set_nonblocking(true).expect("nonblocking");
    let seen = std::thread::spawn(move || {
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if let Ok((mut s, _)) = listener.accept() {
                s.set_nonblocking(false).expect("blocking");
                s.set_read_timeout(Some(Duration::from_secs(10)))
                    .expect("timeout");
                let mut first = [0u8; 1];
                let _ = s.read_exact(&mut first);
                return Some(first[0]);
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        None
    });
    let dir = TempDir::new().expect("temp dir");
    let token = dir.path().join("token");
    std::fs::write(&token, "never-in-clear\n").expect("token");
    let out = Command::new(env!("CARGO_BIN_EXE_tapline"))
        .args(["status", "--connect", &addr.to_string(), "--token"])
        .arg(&token)
        .current_dir(dir.path())
        .output()
        .expect("status");
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    match seen.join().expect("listener") {
        Some(first) => assert_eq!(first, 0x16, "the first byte opens a TLS handshake"),
        // A machine without system roots refuses before it connects: nothing went out.
        None => assert!(
            stderr_of(&out).contains("no system root certificates"),
            "{out:?}"
        ),
    }
}

/// This machine's first non-loopback IPv4 address, as the routing table would pick it.
fn non_loopback_ip() -> Option<std::net::IpAddr> {
    let s = std::net::UdpSocket::bind("0.0.0.0:0").ok()?;
    // No packet is sent: connecting a UDP socket only picks the source address.
    s.connect("192.0.2.1:9").ok()?;
    let ip = s.local_addr().ok()?.ip();
    (!ip.is_loopback() && !ip.is_unspecified()).then_some(ip)
}

/// Done when: `run --forward HOST:PORT` over TLS reaches the daemon with every file; without
/// the CA the run is the same, with one warning line.
#[test]
fn run_forward_over_tls_reaches_the_daemon() {
    use crate::forward::{as_streams, daemon_verdicts, mixed_project, normalised, verdicts};
    let Some(c) = certs("run_forward_over_tls_reaches_the_daemon") else {
        return;
    };
    let (d, addr, token) = tls_daemon(&c);
    let ca = c.ca.display().to_string();
    let p = mixed_project();
    let fwd = p.run(&[
        "--partition",
        "slice:1/1",
        "--forward",
        &addr,
        "--forward-token",
        &token,
        "--forward-tls-ca",
        &ca,
        "-o",
        "fwd.json",
    ]);
    assert_eq!(fwd.code, 1, "{}", fwd.both());
    assert!(!fwd.stderr.contains("warning"), "{}", fwd.both());
    let run = verdicts(&normalised(&p.read_text("fwd.json")));
    let seen = daemon_verdicts(|| d.status(), run.len());
    assert_eq!(seen, as_streams(&run));
    assert!(finished(&d.status()).iter().all(|s| s["peer"]
        .as_str()
        .unwrap_or_default()
        .starts_with("tls 127.0.0.1:")));

    let other = c.other_ca.display().to_string();
    let untrusted = p.run(&[
        "--partition",
        "slice:1/1",
        "--forward",
        &addr,
        "--forward-token",
        &token,
        "--forward-tls-ca",
        &other,
        "-o",
        "untrusted.json",
    ]);
    assert_eq!(untrusted.code, 1, "{}", untrusted.both());
    let warnings: Vec<&str> = untrusted
        .stderr
        .lines()
        .filter(|l| l.contains("--forward"))
        .collect();
    assert_eq!(warnings.len(), 1, "{}", untrusted.both());
    assert!(
        warnings[0].contains("failed to set up TLS"),
        "{}",
        untrusted.both()
    );
    assert_eq!(
        normalised(&p.read_text("untrusted.json")),
        normalised(&p.read_text("fwd.json"))
    );
    assert_eq!(
        finished(&d.status()).len(),
        run.len(),
        "nothing more arrived"
    );
}
