//! The run's loopback HTTP server (127.0.0.1): serves each browser file's prepared folder and
//! its harness page, and remembers what it could not find.
//!
//! Each file is mounted on a port of its own, which no other file of the run gets, under a key
//! of its own (`http://127.0.0.1:PORT/<key>/…`). The port makes each file's page an origin of
//! its own, so that what a page keeps per origin (web storage, IndexedDB, service workers…)
//! never meets another file's, while every file stays on one site (`127.0.0.1`), whose
//! renderer process Chromium keeps from one file to the next ([`super::pages`]). A page asking
//! for `../../x` cannot leave its folder (the URL resolves inside `/`, and `..` never reaches
//! the disk). The key is 128 random bits and nothing is served outside a mount: another local
//! user who finds a port still cannot read the project through it. Every request a mount
//! could not serve (404) is noted, so that a failed import names the module that is missing
//! (`failed to load test/helper.js: 404`), which the page's own error does not: Chromium only
//! says that the entry "failed to fetch".
//!
//! HTTP/1.1, one request per connection (`Connection: close`), GET and HEAD only, nothing
//! cached (`Cache-Control: no-store`): a watch run must see a module that changed.
use std::collections::{HashMap, HashSet};
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Mutex};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// The harness page's path inside a mount.
pub(crate) const HARNESS: &str = "__tapline__/harness.html";

/// Longest request head read.
const MAX_HEAD: usize = 64 * 1024;

/// Ports bound and set aside at most, looking for one the run has not used yet.
const PORT_TRIES: usize = 64;

#[derive(Default)]
struct Mounts {
    by_id: HashMap<String, Mount>,
    /// Every port a mount of this server was given: none is given twice.
    used: HashSet<u16>,
}

struct Mount {
    dir: PathBuf,
    /// The harness page, the entry already in it.
    harness: String,
    /// Paths (inside the mount) answered with 404, in the order asked.
    missing: Vec<String>,
    /// The task accepting on the mount's port.
    task: tokio::task::JoinHandle<()>,
}

/// A mounted folder: where it is served.
pub(crate) struct Mounted {
    pub id: String,
    pub port: u16,
}

impl Mounted {
    /// The URL prefix of the mount's folder: `http://127.0.0.1:PORT/KEY/`.
    pub(crate) fn base(&self) -> String {
        format!("http://127.0.0.1:{}/{}/", self.port, self.id)
    }

    /// The mount's origin, `http://127.0.0.1:PORT`.
    pub(crate) fn origin(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }
}

/// The server: the mounted folders, each on its own port.
#[derive(Default)]
pub(crate) struct Server {
    mounts: Arc<Mutex<Mounts>>,
}

impl Server {
    /// Serves `dir` on a new port under a new key, with `harness` as its harness page.
    pub(crate) async fn mount(&self, dir: PathBuf, harness: String) -> std::io::Result<Mounted> {
        let (listener, port) = self.fresh_port().await?;
        let id = secret_key();
        let task = tokio::spawn(accept(listener, self.mounts.clone(), id.clone()));
        let mount = Mount {
            dir,
            harness,
            missing: Vec::new(),
            task,
        };
        lock(&self.mounts).by_id.insert(id.clone(), mount);
        Ok(Mounted { id, port })
    }

    /// A listener on a loopback port no mount of this server had: the system may hand a
    /// closed port out again, which would give a later file an earlier file's origin.
    async fn fresh_port(&self) -> std::io::Result<(TcpListener, u16)> {
        let mut set_aside = Vec::new();
        for _ in 0..PORT_TRIES {
            let listener = TcpListener::bind(("127.0.0.1", 0)).await?;
            let port = listener.local_addr()?.port();
            if lock(&self.mounts).used.insert(port) {
                return Ok((listener, port));
            }
            set_aside.push(listener);
        }
        Err(std::io::Error::other(
            "the system gave back only ports already used in this run",
        ))
    }

    /// The paths mount `id` answered 404 to.
    pub(crate) fn missing(&self, id: &str) -> Vec<String> {
        lock(&self.mounts)
            .by_id
            .get(id)
            .map(|m| m.missing.clone())
            .unwrap_or_default()
    }

    /// Stops serving mount `id` (its port closes).
    pub(crate) fn unmount(&self, id: &str) {
        if let Some(mount) = lock(&self.mounts).by_id.remove(id) {
            mount.task.abort();
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        for mount in lock(&self.mounts).by_id.values() {
            mount.task.abort();
        }
    }
}

fn lock(m: &Mutex<Mounts>) -> std::sync::MutexGuard<'_, Mounts> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Serves mount `id` on its own port, until the mount goes.
async fn accept(listener: TcpListener, mounts: Arc<Mutex<Mounts>>, id: String) {
    loop {
        let Ok((stream, _)) = listener.accept().await else {
            // Out of file descriptors and the like: let the pages' loads fail and retry.
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
            continue;
        };
        tokio::spawn(serve(stream, mounts.clone(), id.clone()));
    }
}

/// What a request comes to.
enum Answer {
    Found { body: Vec<u8>, kind: &'static str },
    NotFound,
    BadRequest,
}

async fn serve(mut stream: TcpStream, mounts: Arc<Mutex<Mounts>>, own: String) {
    let mut head = Vec::new();
    let mut buf = [0u8; 4096];
    while memchr::memmem::find(&head, b"\r\n\r\n").is_none() && head.len() < MAX_HEAD {
        match stream.read(&mut buf).await {
            Ok(0) | Err(_) => return,
            Ok(n) => head.extend_from_slice(&buf[..n]),
        }
    }
    let line = head.split(|&b| b == b'\r').next().unwrap_or_default();
    let line = String::from_utf8_lossy(line);
    let mut words = line.split(' ');
    let (method, target) = (words.next().unwrap_or(""), words.next().unwrap_or(""));
    let answer = if method == "GET" || method == "HEAD" {
        answer(target, &mounts, &own).await
    } else {
        Answer::BadRequest
    };
    let (status, body, kind) = match answer {
        Answer::Found { body, kind } => ("200 OK", body, kind),
        Answer::NotFound => (
            "404 Not Found",
            b"not found\n".to_vec(),
            "text/plain; charset=utf-8",
        ),
        Answer::BadRequest => (
            "400 Bad Request",
            b"bad request\n".to_vec(),
            "text/plain; charset=utf-8",
        ),
    };
    let header = format!(
        "HTTP/1.1 {status}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n",
        body.len()
    );
    let _ = stream.write_all(header.as_bytes()).await;
    if method != "HEAD" {
        let _ = stream.write_all(&body).await;
    }
    let _ = stream.shutdown().await;
}

/// What `target` is on the port of mount `own`: only that mount is served there.
async fn answer(target: &str, mounts: &Mutex<Mounts>, own: &str) -> Answer {
    let path = target.split(['?', '#']).next().unwrap_or("");
    let Some(path) = percent_decode(path) else {
        return Answer::BadRequest;
    };
    let Some((id, inside)) = path.trim_start_matches('/').split_once('/') else {
        return Answer::NotFound;
    };
    if id != own {
        return Answer::NotFound;
    }
    let dir = {
        let m = lock(mounts);
        let Some(mount) = m.by_id.get(id) else {
            return Answer::NotFound;
        };
        if inside == HARNESS {
            return Answer::Found {
                body: mount.harness.clone().into_bytes(),
                kind: "text/html; charset=utf-8",
            };
        }
        mount.dir.clone()
    };
    let found = match safe_join(&dir, inside) {
        Some(file) => tokio::fs::read(&file).await.ok(),
        None => None,
    };
    match found {
        Some(body) => Answer::Found {
            body,
            kind: content_type(inside),
        },
        None => {
            if let Some(mount) = lock(mounts).by_id.get_mut(id) {
                mount.missing.push(inside.to_owned());
            }
            Answer::NotFound
        }
    }
}

/// 128 bits no one can guess, as 32 hex digits: std's `RandomState` is seeded from the
/// operating system's randomness, and each new one differs.
fn secret_key() -> String {
    use std::hash::{BuildHasher, Hasher};
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let half = || {
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_u64(COUNTER.fetch_add(1, Ordering::Relaxed));
        h.finish()
    };
    format!("{:016x}{:016x}", half(), half())
}

/// `dir/inside`, unless `inside` tries to leave `dir`.
fn safe_join(dir: &Path, inside: &str) -> Option<PathBuf> {
    let rel = Path::new(inside);
    let normal = rel.components().all(|c| matches!(c, Component::Normal(_)));
    (normal && !inside.is_empty()).then(|| dir.join(rel))
}

/// `%20` and the like decoded; `None` when that is no UTF-8 or holds a NUL.
fn percent_decode(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok().filter(|s| !s.contains('\0'))
}

/// The content type Chromium needs: a module script must be served as JavaScript.
fn content_type(path: &str) -> &'static str {
    let ext = path.rsplit_once('.').map_or("", |(_, e)| e);
    match ext {
        "js" | "mjs" | "cjs" | "jsx" => "text/javascript; charset=utf-8",
        "json" | "map" => "application/json; charset=utf-8",
        "html" | "htm" => "text/html; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "svg" => "image/svg+xml",
        "wasm" => "application/wasm",
        "txt" => "text/plain; charset=utf-8",
        "png" => "image/png",
        _ => "application/octet-stream",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn get(port: u16, path: &str) -> (String, String) {
        let mut s = TcpStream::connect(("127.0.0.1", port))
            .await
            .expect("connect");
        s.write_all(format!("GET {path} HTTP/1.1\r\nHost: x\r\n\r\n").as_bytes())
            .await
            .expect("write");
        let mut out = String::new();
        s.read_to_string(&mut out).await.expect("read");
        let (head, body) = out.split_once("\r\n\r\n").unwrap_or((&out, ""));
        (
            head.lines().next().unwrap_or("").to_owned(),
            body.to_owned(),
        )
    }

    #[tokio::test]
    async fn serves_mounts_and_notes_what_is_missing() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::create_dir(dir.path().join("a b")).expect("mkdir");
        std::fs::write(dir.path().join("a b/m.js"), "export const x = 1;").expect("write");
        let server = Server::default();
        let m = (server.mount(dir.path().to_path_buf(), "<p>harness".into()))
            .await
            .expect("mount");
        let (id, port) = (m.id.clone(), m.port);
        let (status, body) = get(port, &format!("/{id}/a%20b/m.js?x=1")).await;
        assert_eq!(
            (status.as_str(), body.as_str()),
            ("HTTP/1.1 200 OK", "export const x = 1;")
        );
        assert_eq!(get(port, &format!("/{id}/{HARNESS}")).await.1, "<p>harness");
        assert!(get(port, &format!("/{id}/nope.js")).await.0.contains("404"));
        assert!(get(port, &format!("/{id}/../etc/passwd"))
            .await
            .0
            .contains("404"));
        assert!(get(port, "/999/a%20b/m.js").await.0.contains("404"));
        assert_eq!(server.missing(&id), ["nope.js", "../etc/passwd"]);
        assert_eq!(m.base(), format!("http://127.0.0.1:{port}/{id}/"));
        server.unmount(&id);
        tokio::task::yield_now().await;
        let gone = TcpStream::connect(("127.0.0.1", port)).await;
        assert!(gone.is_err(), "an unmounted folder's port is closed");
    }

    #[tokio::test]
    async fn each_mount_has_a_port_and_key_of_its_own_and_serves_only_its_folder() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::write(dir.path().join("m.js"), "1").expect("write");
        let server = Server::default();
        let mut ports = HashSet::new();
        let mut mounts = Vec::new();
        for _ in 0..20 {
            let m = (server.mount(dir.path().to_path_buf(), String::new()))
                .await
                .expect("mount");
            assert!(ports.insert(m.port), "a port given twice: {}", m.port);
            server.unmount(&m.id);
            mounts.push(m);
        }
        let (a, b) = (
            server
                .mount(dir.path().to_path_buf(), String::new())
                .await
                .expect("a"),
            server
                .mount(dir.path().to_path_buf(), String::new())
                .await
                .expect("b"),
        );
        assert_ne!(a.id, b.id, "every mount its own key");
        assert_eq!(a.id.len(), 32);
        assert!(get(a.port, &format!("/{}/m.js", a.id))
            .await
            .0
            .contains("200"));
        let across = get(a.port, &format!("/{}/m.js", b.id)).await.0;
        assert!(across.contains("404"), "b's folder on a's port: {across}");
        assert!(server.missing(&b.id).is_empty());
    }
}
