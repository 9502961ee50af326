//! One producer connection (`SEND`): its TAP bytes are archived in the stream's log and parsed
//! as they arrive, its events go to the dispatcher in order, and its verdict goes back on the
//! same connection. A connection that ends before its stream is complete fails as cut.
use super::dispatch::{Msg, Opened};
use super::judge::{is_unterminated, judge, Ending};
use crate::event::collect::Collect;
use crate::event::run::FailureReason;
use crate::event::Event;
use crate::protocol::Parser;
use std::io::Write as _;
use std::time::Instant;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::sync::{mpsc, oneshot, watch};

/// Bytes read from a connection at a time: the most one stream holds unparsed. It is parsed
/// [`crate::event::collect::EVENT_SLICE`] bytes at a time, each slice's events one message (the
/// dispatcher's queue is bounded, so a stream whose events are not taken stops being read:
/// back-pressure, not buffering).
const CHUNK: usize = 64 * 1024;

/// The request after the header: a stream named `name`.
pub(crate) struct Producer {
    pub name: String,
    pub meta: Option<serde_json::Value>,
    pub peer: String,
    /// Bytes that arrived with the header: the stream's first.
    pub first: Vec<u8>,
}

/// Runs one producer connection to its end and answers its verdict.
pub(crate) async fn produce<R, W>(
    p: Producer,
    mut rd: R,
    mut wr: W,
    tx: mpsc::Sender<Msg>,
    mut stop: watch::Receiver<bool>,
) where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let started = Instant::now();
    let Some(Opened {
        id,
        mut log,
        log_path,
        log_error,
    }) = open(&tx, p.name.clone(), p.meta, p.peer).await
    else {
        return;
    };
    let mut stream = Stream {
        parser: Parser::new(Collect::without_tests()),
        unterminated: false,
        log_error,
    };
    let mut buf = vec![0u8; CHUNK];
    let mut first = Some(p.first).filter(|f| !f.is_empty());
    let ending = loop {
        let n = if let Some(bytes) = first.take() {
            let n = bytes.len().min(CHUNK);
            buf[..n].copy_from_slice(&bytes[..n]);
            n
        } else {
            tokio::select! {
                biased;
                _ = stop.wait_for(|stopping| *stopping) => break Ending::Stopped,
                r = rd.read(&mut buf) => match r {
                    Ok(0) => break Ending::Eof,
                    Ok(n) => n,
                    Err(e) => break Ending::Failed(e.to_string()),
                },
            }
        };
        stream.archive(&mut log, &buf[..n]);
        for piece in buf[..n].chunks(crate::event::collect::EVENT_SLICE) {
            stream.parser.feed(piece);
            let events = stream.take_events();
            if !events.is_empty() && tx.send(Msg::Tap { id, events }).await.is_err() {
                return;
            }
        }
    };
    let mut collected = stream.parser.finish();
    let events: Vec<Event<'static>> = collected.events.drain(..).collect();
    stream.unterminated |= events.iter().any(is_unterminated);
    if !events.is_empty() && tx.send(Msg::Tap { id, events }).await.is_err() {
        return;
    }
    let mut result = judge(&mut collected, ending, stream.unterminated, started);
    if let Some(e) = stream.log_error {
        result.reasons.push(FailureReason::Other(e));
    }
    let verdict = verdict_reply(p.name, &result, log_path);
    let (done, closed) = oneshot::channel();
    if tx.send(Msg::Close { id, result, done }).await.is_err() {
        return;
    }
    // The verdict goes out once the dispatcher has reported the stream, so a client that exits
    // on it finds the stream finished in every report and in `status`.
    let _ = closed.await;
    if let Ok(mut line) = serde_json::to_vec(&verdict) {
        line.push(b'\n');
        // The client may be gone (killed mid-stream): nobody to tell.
        let _ = wr.write_all(&line).await;
        let _ = wr.shutdown().await;
    }
}

/// Asks the dispatcher to open the stream `name`: its number and log, or `None` when the
/// daemon is stopping.
async fn open(
    tx: &mpsc::Sender<Msg>,
    name: String,
    meta: Option<serde_json::Value>,
    peer: String,
) -> Option<Opened> {
    let (reply, opened) = oneshot::channel();
    let open = Msg::Open {
        name,
        meta,
        peer,
        reply,
    };
    tx.send(open).await.ok()?;
    opened.await.ok()
}

/// The verdict line a producer is answered with.
fn verdict_reply(
    stream: String,
    result: &crate::event::run::FileResult,
    log_path: Option<std::path::PathBuf>,
) -> super::wire::VerdictReply {
    super::wire::VerdictReply {
        stream,
        ok: result.ok,
        reasons: result.reasons.iter().map(ToString::to_string).collect(),
        pass: result.tally.pass,
        fail: result.tally.fail,
        skip: result.tally.skip,
        todo: result.tally.todo,
        log: log_path.map(|l| l.display().to_string()),
    }
}

struct Stream {
    parser: Parser<Collect>,
    /// The parser closed an open subtest, YAML block or v2 block at the end.
    unterminated: bool,
    log_error: Option<String>,
}

impl Stream {
    /// Every byte goes to the log before it is parsed, unbuffered: the log holds what arrived
    /// even if tapline dies.
    fn archive(&mut self, log: &mut Option<std::fs::File>, bytes: &[u8]) {
        if let Some(f) = log.as_mut() {
            if let Err(e) = f.write_all(bytes) {
                self.log_error = Some(format!("failed to write the log: {e}"));
                *log = None;
            }
        }
    }

    fn take_events(&mut self) -> Vec<Event<'static>> {
        let events = &mut self.parser.sink_mut().events;
        if events.is_empty() {
            return Vec::new();
        }
        std::mem::replace(events, Vec::with_capacity(events.len()))
    }
}
