//! One accepted connection: the token (TCP with a token), the header line, then the request:
//! a producer's stream, a subscriber's event feed, or a status answer.
use super::dispatch::{Msg, Subscriber, SUBSCRIBER_QUEUE};
use super::stream::{produce, Producer};
use super::wire::{self, Request, MAX_HEADER};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufWriter};
use tokio::sync::{mpsc, oneshot, watch};

/// How long a connection may take to send its token and header.
pub(crate) const HEADER_WAIT: Duration = Duration::from_secs(10);

/// What every connection task shares.
#[derive(Clone)]
pub(crate) struct Shared {
    pub tx: mpsc::Sender<Msg>,
    pub stop: watch::Receiver<bool>,
    /// Held by subscriber writers: the daemon waits (briefly) for all of them to hang up.
    pub alive: mpsc::Sender<()>,
}

pub(crate) async fn handle<S>(conn: S, peer: String, token: Option<Arc<str>>, shared: Shared)
where
    S: AsyncRead + AsyncWrite + Send + 'static,
{
    let (mut rd, mut wr) = tokio::io::split(conn);
    let mut pending = Vec::new();
    let header = tokio::time::timeout(HEADER_WAIT, async {
        if let Some(token) = &token {
            let line = read_line(&mut rd, &mut pending).await?;
            if !wire::token_matches(&line, token) {
                return Err("refused: this daemon needs its token first (TOKEN <token>)".into());
            }
        }
        let line = read_line(&mut rd, &mut pending).await?;
        wire::parse_header(&line).map_err(|e| format!("refused: {e}"))
    })
    .await
    .unwrap_or_else(|_| Err("refused: no header line within 10s".into()));
    let request = match header {
        Ok(r) => r,
        Err(why) => {
            let _ = wr.write_all(&wire::error_line(&why)).await;
            let _ = wr.shutdown().await;
            return;
        }
    };
    match request {
        Request::Send { name, meta } => {
            let p = Producer {
                name,
                meta,
                peer,
                first: pending,
            };
            produce(p, rd, wr, shared.tx, shared.stop).await;
        }
        Request::Events { glob } => subscribe(glob, peer, wr, shared).await,
        Request::Status => {
            let (reply, answer) = oneshot::channel();
            if shared.tx.send(Msg::Status { reply }).await.is_ok() {
                if let Ok(doc) = answer.await {
                    let _ = wr.write_all(&doc).await;
                }
            }
            let _ = wr.shutdown().await;
        }
    }
}

/// Reads one line (without `\n`) into a new vector; what follows it stays in `pending`.
async fn read_line<R: AsyncRead + Unpin>(
    rd: &mut R,
    pending: &mut Vec<u8>,
) -> Result<Vec<u8>, String> {
    let mut searched = 0;
    loop {
        if let Some(i) = memchr::memchr(b'\n', &pending[searched..]) {
            let end = searched + i;
            let line = pending[..end].to_vec();
            pending.drain(..=end);
            return Ok(line);
        }
        searched = pending.len();
        if pending.len() > MAX_HEADER {
            return Err(format!(
                "refused: header line longer than {MAX_HEADER} bytes"
            ));
        }
        let mut chunk = [0u8; 8192];
        match rd.read(&mut chunk).await {
            Ok(0) => return Err("refused: the connection ended before its header line".into()),
            Ok(n) => pending.extend_from_slice(&chunk[..n]),
            Err(e) => return Err(format!("failed to read the header: {e}")),
        }
    }
}

async fn subscribe<W: AsyncWrite + Unpin>(
    glob: Option<String>,
    peer: String,
    wr: W,
    shared: Shared,
) {
    let mut wr = BufWriter::with_capacity(64 * 1024, wr);
    let filter = match glob.as_deref().map(globset::Glob::new).transpose() {
        Ok(g) => g.map(|g| g.compile_matcher()),
        Err(e) => {
            let _ = wr
                .write_all(&wire::error_line(&format!(
                    "refused: invalid --stream glob: {e}"
                )))
                .await;
            let _ = wr.shutdown().await;
            return;
        }
    };
    let (queue, mut lines) = mpsc::channel::<Arc<[u8]>>(SUBSCRIBER_QUEUE);
    let dropped = Arc::new(AtomicBool::new(false));
    let sub = Subscriber {
        filter,
        queue,
        dropped: dropped.clone(),
        peer,
    };
    let _alive = shared.alive;
    if shared.tx.send(Msg::Subscribe(sub)).await.is_err() {
        return;
    }
    drop(shared.tx);
    'feed: while let Some(line) = lines.recv().await {
        if wr.write_all(&line).await.is_err() {
            return;
        }
        // Lines already queued go out in one write; the flush waits for a lull.
        loop {
            match lines.try_recv() {
                Ok(line) => {
                    if wr.write_all(&line).await.is_err() {
                        return;
                    }
                }
                Err(mpsc::error::TryRecvError::Empty) => break,
                Err(mpsc::error::TryRecvError::Disconnected) => break 'feed,
            }
        }
        if wr.flush().await.is_err() {
            return;
        }
    }
    if dropped.load(Ordering::Acquire) {
        let line = serde_json::json!({
            "stream": null,
            "type": "dropped",
            "reason": format!("this subscriber fell {SUBSCRIBER_QUEUE} lines behind"),
        });
        let _ = wr.write_all(format!("{line}\n").as_bytes()).await;
    }
    let _ = wr.flush().await;
    let _ = wr.shutdown().await;
}
