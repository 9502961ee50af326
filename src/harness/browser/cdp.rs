//! A small DevTools-protocol client over Chromium's `--remote-debugging-pipe`: requests with
//! their replies, and events routed by the flat session they belong to.
//!
//! Why not a crate: chromiumoxide (the well-kept one) speaks only the WebSocket port, so it
//! would open a port any local process could drive, and it brings a generated protocol of
//! several hundred thousand lines to every cold build. The pipe needs none of that: Chromium
//! reads NUL-terminated JSON messages from its fd 3 and writes them to its fd 4, and tapline
//! uses a dozen methods, written here as `serde_json::Value`s.
//!
//! One reader task owns the pipe from Chromium. A reply (it carries the request's `id`) goes
//! to the request's waiter; an event goes to the channel of its `sessionId` (flat sessions,
//! `Target.attachToTarget` with `flatten: true`), or to the browser's channel when it has
//! none. Event channels are unbounded: a page's console is drained by its file task, which
//! waits on the run's bounded channels, and a bounded channel here would let one slow page
//! stop the replies every other page waits for. A page's output is bounded by its timeout.
//! When the pipe closes (Chromium exited) every waiter gets [`CdpError::Closed`] and every
//! event channel ends, which is how a page learns that its browser is gone.
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::sync::{mpsc, oneshot};

/// An event: its method and params, in the order Chromium sent it.
#[derive(Debug, Clone)]
pub(crate) struct CdpEvent {
    pub method: String,
    pub params: Value,
}

#[derive(Debug, Clone, thiserror::Error, PartialEq, Eq)]
pub(crate) enum CdpError {
    /// The pipe closed: Chromium exited (or was killed).
    #[error("Chromium closed the DevTools pipe")]
    Closed,
    /// Chromium answered with an error.
    #[error("{method}: {message}")]
    Protocol { method: String, message: String },
}

type Replies = HashMap<u64, (String, oneshot::Sender<Result<Value, CdpError>>)>;

#[derive(Default)]
struct Routes {
    replies: Replies,
    /// Per session id; the empty id is the browser's own.
    sessions: HashMap<String, mpsc::UnboundedSender<CdpEvent>>,
    /// Set once the pipe has closed: nothing more will come.
    closed: bool,
}

/// The client: cheap to clone, shared by the browser and every page driver.
#[derive(Clone)]
pub(crate) struct Cdp {
    next_id: Arc<AtomicU64>,
    routes: Arc<Mutex<Routes>>,
    writer: mpsc::UnboundedSender<Vec<u8>>,
}

impl Cdp {
    /// A client writing to `to_chromium` and reading `from_chromium`. Events of no session
    /// (the browser's own) are dropped unless someone subscribes to the session "".
    pub(crate) fn start<W, R>(to_chromium: W, from_chromium: R) -> Cdp
    where
        W: AsyncWrite + Unpin + Send + 'static,
        R: AsyncRead + Unpin + Send + 'static,
    {
        let (writer, outbox) = mpsc::unbounded_channel();
        let cdp = Cdp {
            next_id: Arc::new(AtomicU64::new(1)),
            routes: Arc::new(Mutex::new(Routes::default())),
            writer,
        };
        tokio::spawn(write_loop(to_chromium, outbox));
        tokio::spawn(read_loop(from_chromium, cdp.routes.clone()));
        cdp
    }

    /// Sends `method` (to `session`, or the browser when empty) and waits for its reply.
    pub(crate) async fn call(
        &self,
        session: &str,
        method: &str,
        params: Value,
    ) -> Result<Value, CdpError> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = oneshot::channel();
        {
            let mut routes = lock(&self.routes);
            if routes.closed {
                return Err(CdpError::Closed);
            }
            routes.replies.insert(id, (method.to_owned(), tx));
        }
        let mut message = json!({ "id": id, "method": method, "params": params });
        if !session.is_empty() {
            message["sessionId"] = Value::String(session.to_owned());
        }
        let mut bytes = serde_json::to_vec(&message).unwrap_or_default();
        bytes.push(0);
        if self.writer.send(bytes).is_err() {
            lock(&self.routes).replies.remove(&id);
            return Err(CdpError::Closed);
        }
        rx.await.unwrap_or(Err(CdpError::Closed))
    }

    /// The events of `session` from now on (the browser's for ""). A closed pipe gives a
    /// channel that ends at once.
    pub(crate) fn subscribe(&self, session: &str) -> mpsc::UnboundedReceiver<CdpEvent> {
        let (tx, rx) = mpsc::unbounded_channel();
        let mut routes = lock(&self.routes);
        if !routes.closed {
            routes.sessions.insert(session.to_owned(), tx);
        }
        rx
    }

    /// Stops routing `session`'s events (its page is done).
    pub(crate) fn unsubscribe(&self, session: &str) {
        lock(&self.routes).sessions.remove(session);
    }

    /// Whether the pipe has closed.
    pub(crate) fn is_closed(&self) -> bool {
        lock(&self.routes).closed
    }
}

/// The routes stay consistent whatever panicked while holding them: each update is one insert
/// or remove.
fn lock(routes: &Mutex<Routes>) -> std::sync::MutexGuard<'_, Routes> {
    routes
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

async fn write_loop<W: AsyncWrite + Unpin>(
    mut pipe: W,
    mut outbox: mpsc::UnboundedReceiver<Vec<u8>>,
) {
    while let Some(bytes) = outbox.recv().await {
        if pipe.write_all(&bytes).await.is_err() {
            // Chromium is gone: the reader sees the pipe close and fails every waiter.
            return;
        }
    }
}

async fn read_loop<R: AsyncRead + Unpin>(mut pipe: R, routes: Arc<Mutex<Routes>>) {
    let mut pending: Vec<u8> = Vec::new();
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = match pipe.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        let mut start = 0;
        let bytes = &buf[..n];
        while let Some(at) = memchr::memchr(0, &bytes[start..]) {
            pending.extend_from_slice(&bytes[start..start + at]);
            dispatch(&pending, &routes);
            pending.clear();
            start += at + 1;
        }
        pending.extend_from_slice(&bytes[start..]);
    }
    let mut routes = lock(&routes);
    routes.closed = true;
    for (_, (_, waiter)) in routes.replies.drain() {
        let _ = waiter.send(Err(CdpError::Closed));
    }
    routes.sessions.clear();
}

/// Routes one message. Chromium only sends JSON objects; anything else is dropped.
fn dispatch(message: &[u8], routes: &Mutex<Routes>) {
    let Ok(mut value) = serde_json::from_slice::<Value>(message) else {
        return;
    };
    let mut routes = lock(routes);
    if let Some(id) = value.get("id").and_then(Value::as_u64) {
        let Some((method, waiter)) = routes.replies.remove(&id) else {
            return;
        };
        let reply = match value.get_mut("error") {
            Some(error) => Err(CdpError::Protocol {
                method,
                message: error
                    .get("message")
                    .and_then(Value::as_str)
                    .unwrap_or("unknown error")
                    .to_owned(),
            }),
            None => Ok(value
                .get_mut("result")
                .map(Value::take)
                .unwrap_or(Value::Null)),
        };
        let _ = waiter.send(reply);
        return;
    }
    let Some(method) = value
        .get("method")
        .and_then(Value::as_str)
        .map(str::to_owned)
    else {
        return;
    };
    let session = value.get("sessionId").and_then(Value::as_str).unwrap_or("");
    if let Some(tx) = routes.sessions.get(session) {
        let params = value
            .get_mut("params")
            .map(Value::take)
            .unwrap_or(Value::Null);
        let _ = tx.send(CdpEvent { method, params });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reply reaches its waiter, an event its session, and a closed pipe fails the rest.
    #[tokio::test]
    async fn replies_events_and_close() {
        let (ours, theirs) = tokio::io::duplex(1 << 16);
        let (their_read, mut their_write) = tokio::io::split(theirs);
        let (our_read, our_write) = tokio::io::split(ours);
        let cdp = Cdp::start(our_write, our_read);
        let mut browser = cdp.subscribe("");
        let mut page = cdp.subscribe("S1");
        let call = tokio::spawn({
            let cdp = cdp.clone();
            async move { cdp.call("S1", "Runtime.enable", json!({})).await }
        });
        let mut their_read = their_read;
        let mut got = Vec::new();
        while !got.contains(&0) {
            let mut b = [0u8; 256];
            let n = their_read.read(&mut b).await.expect("read");
            got.extend_from_slice(&b[..n]);
        }
        let sent: Value = serde_json::from_slice(&got[..got.len() - 1]).expect("json");
        assert_eq!(sent["sessionId"], "S1");
        assert_eq!(sent["method"], "Runtime.enable");
        let id = sent["id"].as_u64().expect("id");
        let wire = format!(
            "{{\"method\":\"Runtime.consoleAPICalled\",\"sessionId\":\"S1\",\"params\":{{\"n\":1}}}}\0\
             {{\"method\":\"Target.targetCrashed\",\"params\":{{}}}}\0{{\"id\":{id},\"result\":{{\"ok\":true}}}}\0"
        );
        // Split mid-message: framing is by NUL, not by read.
        let (a, b) = wire.as_bytes().split_at(30);
        their_write.write_all(a).await.expect("write");
        their_write.write_all(b).await.expect("write");
        assert_eq!(call.await.expect("join"), Ok(json!({"ok": true})));
        let event = page.recv().await.expect("event");
        assert_eq!(
            (event.method.as_str(), event.params["n"].as_i64()),
            ("Runtime.consoleAPICalled", Some(1))
        );
        assert_eq!(
            browser.recv().await.expect("event").method,
            "Target.targetCrashed"
        );
        drop(their_write);
        drop(their_read);
        assert!(
            page.recv().await.is_none(),
            "a closed pipe ends the session's events"
        );
        assert_eq!(
            cdp.call("", "Browser.getVersion", json!({})).await,
            Err(CdpError::Closed)
        );
    }
}
