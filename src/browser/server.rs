//! The run's loopback HTTP server (127.0.0.1, port 0): serves each browser file's prepared
//! folder and its harness page, and remembers what it could not find.
//!
//! Each file is mounted under a key of its own (`/<key>/…`), so that files prepared into
//! different folders share one server and one origin, while a page asking for `../../x` cannot
//! leave its folder (the URL resolves inside `/`, and `..` never reaches the disk). The key is
//! 128 random bits and nothing is served outside a mount: another local user who finds the
//! port still cannot read the project through it. Every
//! request a mount could not serve (404) is noted, so that a failed import names the module
//! that is missing (`failed to load test/helper.js: 404`), which the page's own error does
//! not: Chromium only says that the entry "failed to fetch".
//!
//! HTTP/1.1, one request per connection (`Connection: close`), GET and HEAD only, nothing
//! cached (`Cache-Control: no-store`): a watch run must see a module that changed.
use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Mutex};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// The harness page's path inside a mount.
pub(crate) const HARNESS: &str = "__tapline__/harness.html";

/// Longest request head read.
const MAX_HEAD: usize = 64 * 1024;

#[derive(Default)]
struct Mounts {
    by_id: HashMap<String, Mount>,
}

struct Mount {
    dir: PathBuf,
    /// The harness page, the entry already in it.
    harness: String,
    /// Paths (inside the mount) answered with 404, in the order asked.
    missing: Vec<String>,
}

/// The server: the port it listens on, and the mounted folders.
pub(crate) struct Server {
    pub port: u16,
    mounts: Arc<Mutex<Mounts>>,
    task: tokio::task::JoinHandle<()>,
}

impl Server {
    pub(crate) async fn start() -> std::io::Result<Server> {
        let listener = TcpListener::bind(("127.0.0.1", 0)).await?;
        let port = listener.local_addr()?.port();
        let mounts = Arc::new(Mutex::new(Mounts::default()));
        let task = tokio::spawn(accept(listener, mounts.clone()));
        Ok(Server { port, mounts, task })
    }

    /// Serves `dir` under a new number (`http://127.0.0.1:PORT/N/`) with `harness` as its
    /// harness page; returns the number.
    pub(crate) fn mount(&self, dir: PathBuf, harness: String) -> String {
        let id = secret_key();
        let mount = Mount {
            dir,
            harness,
            missing: Vec::new(),
        };
        lock(&self.mounts).by_id.insert(id.clone(), mount);
        id
    }

    /// The paths mount `id` answered 404 to.
    pub(crate) fn missing(&self, id: &str) -> Vec<String> {
        lock(&self.mounts)
            .by_id
            .get(id)
            .map(|m| m.missing.clone())
            .unwrap_or_default()
    }

    pub(crate) fn unmount(&self, id: &str) {
        lock(&self.mounts).by_id.remove(id);
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.task.abort();
    }
}

fn lock(m: &Mutex<Mounts>) -> std::sync::MutexGuard<'_, Mounts> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

async fn accept(listener: TcpListener, mounts: Arc<Mutex<Mounts>>) {
    loop {
        let Ok((stream, _)) = listener.accept().await else {
            // Out of file descriptors and the like: let the pages' loads fail and retry.
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
            continue;
        };
        tokio::spawn(serve(stream, mounts.clone()));
    }
}

/// What a request comes to.
enum Answer {
    Found { body: Vec<u8>, kind: &'static str },
    NotFound,
    BadRequest,
}

async fn serve(mut stream: TcpStream, mounts: Arc<Mutex<Mounts>>) {
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
        answer(target, &mounts).await
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

async fn answer(target: &str, mounts: &Mutex<Mounts>) -> Answer {
    let path = target.split(['?', '#']).next().unwrap_or("");
    let Some(path) = percent_decode(path) else {
        return Answer::BadRequest;
    };
    let Some((id, inside)) = path.trim_start_matches('/').split_once('/') else {
        return Answer::NotFound;
    };
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
        let server = Server::start().await.expect("server");
        let id = server.mount(dir.path().to_path_buf(), "<p>harness".into());
        let (status, body) = get(server.port, &format!("/{id}/a%20b/m.js?x=1")).await;
        assert_eq!(
            (status.as_str(), body.as_str()),
            ("HTTP/1.1 200 OK", "export const x = 1;")
        );
        assert_eq!(
            get(server.port, &format!("/{id}/{HARNESS}")).await.1,
            "<p>harness"
        );
        assert!(get(server.port, &format!("/{id}/nope.js"))
            .await
            .0
            .contains("404"));
        assert!(get(server.port, &format!("/{id}/../etc/passwd"))
            .await
            .0
            .contains("404"));
        assert!(get(server.port, "/999/a%20b/m.js").await.0.contains("404"));
        assert_eq!(server.missing(&id), ["nope.js", "../etc/passwd"]);
        let other = server.mount(dir.path().to_path_buf(), String::new());
        assert_eq!((id.len(), other.len()), (32, 32));
        assert_ne!(id, other, "every mount its own key");
        server.unmount(&id);
        assert!(get(server.port, &format!("/{id}/a%20b/m.js"))
            .await
            .0
            .contains("404"));
    }
}
