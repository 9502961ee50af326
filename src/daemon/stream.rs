//! One producer connection (`SEND`): its TAP bytes are archived in the stream's log and parsed
//! as they arrive, its events go to the dispatcher in order, and its verdict goes back on the
//! same connection. A connection that ends before its stream is complete fails as cut.
use super::dispatch::{Msg, Opened};
use crate::event::run::{FileResult, Tally};
use crate::event::{Event, ProblemKind, Verdict};
use crate::protocol::Parser;
use crate::run::file_task::{empty_verdict, Collect};
use std::io::Write as _;
use std::time::Instant;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::sync::{mpsc, oneshot, watch};

/// Bytes read from a connection at a time: the most one stream holds unparsed. It is parsed
/// [`crate::run::EVENT_SLICE`] bytes at a time, each slice's events one message (the
/// dispatcher's queue is bounded, so a stream whose events are not taken stops being read:
/// back-pressure, not buffering).
const CHUNK: usize = 64 * 1024;

/// The first reason of a stream still open when the daemon stopped.
pub(crate) const INTERRUPTED: &str = "interrupted: the daemon stopped before the stream ended";

/// How a producer connection ended.
#[derive(Debug)]
pub(crate) enum Ending {
    /// The client closed its side (or died): complete if the TAP says so.
    Eof,
    /// Reading failed (a reset connection).
    Failed(String),
    /// The daemon is stopping.
    Stopped,
}

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
    let (reply, opened) = oneshot::channel();
    let open = Msg::Open {
        name: p.name.clone(),
        meta: p.meta,
        peer: p.peer,
        reply,
    };
    if tx.send(open).await.is_err() {
        return;
    }
    let Ok(Opened {
        id,
        mut log,
        log_path,
        log_error,
    }) = opened.await
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
        for piece in buf[..n].chunks(crate::run::EVENT_SLICE) {
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
        result.reasons.push(e);
    }
    let verdict = super::wire::VerdictReply {
        stream: p.name,
        ok: result.ok,
        reasons: result.reasons.clone(),
        pass: result.tally.pass,
        fail: result.tally.fail,
        skip: result.tally.skip,
        todo: result.tally.todo,
        log: log_path.map(|l| l.display().to_string()),
    };
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

fn is_unterminated(ev: &Event<'_>) -> bool {
    matches!(
        ev,
        Event::Problem(p) if matches!(
            p.kind,
            ProblemKind::UnterminatedBlock
                | ProblemKind::UnterminatedSubtest
                | ProblemKind::UnterminatedYaml
        )
    )
}

/// Whether the stream stopped short: no plan, fewer points than planned, or something left
/// open. A bail-out is a complete (failing) stream.
fn incomplete(v: &Verdict<'_>, unterminated: bool) -> bool {
    if v.bailout.is_some() {
        return false;
    }
    unterminated
        || match &v.plan {
            None => true,
            Some(p) if p.skip_all => false,
            Some(p) => v.count < p.end.saturating_sub(p.start).saturating_add(1),
        }
}

/// The stream's verdict: its TAP's, and how its connection ended. Every failure says why.
pub(crate) fn judge(
    c: &mut Collect,
    ending: Ending,
    unterminated: bool,
    started: Instant,
) -> FileResult {
    let verdict = c.verdict.clone().unwrap_or_else(empty_verdict);
    let mut reasons = Vec::new();
    match ending {
        Ending::Stopped => reasons.push(INTERRUPTED.to_owned()),
        Ending::Failed(e) => reasons.push(format!("cut: failed to read the connection: {e}")),
        // Nothing at all is a cut too (no plan: incomplete): the producer died before its
        // first line.
        Ending::Eof if incomplete(&verdict, unterminated) => {
            reasons.push("cut: the connection ended before the stream was complete".to_owned())
        }
        Ending::Eof => {}
    }
    // The stream's reasons, `no TAP output` among them (one rule, in the protocol).
    reasons.extend(verdict.reasons.iter().cloned());
    if !verdict.ok && reasons.is_empty() {
        reasons.push("its TAP stream failed".to_owned());
    }
    FileResult {
        ok: reasons.is_empty(),
        reasons,
        exit: None,
        timed_out: false,
        // Not "cancelled" (which reports show as not run): the stream was cut, and fails.
        cancelled: false,
        leaked: false,
        duration: started.elapsed(),
        tally: c.tally,
        verdict,
        attempts: 1,
        flaky: false,
        cached: false,
        no_tests: false,
        tests: c.names.take(),
    }
}

/// A stream's result when its connection task could not report one in time (daemon stopping).
pub(crate) fn abandoned(tally: Tally, started: Instant) -> FileResult {
    FileResult {
        ok: false,
        reasons: vec![INTERRUPTED.to_owned()],
        exit: None,
        timed_out: false,
        cancelled: false,
        leaked: false,
        duration: started.elapsed(),
        tally,
        verdict: empty_verdict(),
        attempts: 1,
        flaky: false,
        cached: false,
        no_tests: false,
        tests: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn judged(bytes: &[u8], ending: Ending) -> FileResult {
        let mut parser = Parser::new(Collect::default());
        parser.feed(bytes);
        let mut c = parser.finish();
        let unterminated = c.events.iter().any(is_unterminated);
        judge(&mut c, ending, unterminated, Instant::now())
    }

    const CUT: &str = "cut: the connection ended before the stream was complete";

    #[test]
    fn complete_streams_are_judged_by_their_tap() {
        let r = judged(b"1..2\nok 1\nok 2\n", Ending::Eof);
        assert!(r.ok, "{:?}", r.reasons);
        assert_eq!(r.tally.pass, 2);
        let r = judged(b"ok 1\nnot ok 2 - b\n1..2\n", Ending::Eof);
        assert!(!r.ok);
        assert!(
            !r.reasons.iter().any(|x| x.starts_with("cut")),
            "{:?}",
            r.reasons
        );
        let r = judged(b"1..0 # SKIP no db\n", Ending::Eof);
        assert!(r.ok, "{:?}", r.reasons);
        let r = judged(b"1..3\nok 1\nBail out! db down\n", Ending::Eof);
        assert!(!r.ok);
        assert!(
            !r.reasons.iter().any(|x| x.starts_with("cut")),
            "{:?}",
            r.reasons
        );
    }

    #[test]
    fn short_streams_fail_as_cut_with_the_reason() {
        for bytes in [
            &b"1..3\nok 1\n"[..],
            b"ok 1\nok 2\n",
            b"",
            b"TAP version 14\n1..1\n# Subtest: a\n    1..2\n    ok 1\n",
            b"1..1\nnot ok 1\n  ---\n  message: x\n",
        ] {
            let r = judged(bytes, Ending::Eof);
            assert!(!r.ok, "{bytes:?}");
            assert_eq!(r.reasons[0], CUT, "{bytes:?}");
            assert!(
                r.reasons.len() > 1,
                "{bytes:?}: the TAP reason too: {:?}",
                r.reasons
            );
            assert!(!r.cancelled);
        }
    }

    #[test]
    fn a_stopping_daemon_interrupts_open_streams() {
        let r = judged(b"1..1\nok 1\n", Ending::Stopped);
        assert!(!r.ok && !r.cancelled, "it fails, as cut");
        assert!(r.reasons[0].starts_with("interrupted"));
        let r = judged(b"1..2\nok 1\n", Ending::Failed("reset".into()));
        assert!(!r.ok);
        assert_eq!(r.reasons[0], "cut: failed to read the connection: reset");
    }
}
