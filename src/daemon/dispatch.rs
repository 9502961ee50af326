//! The daemon's one owner of state: it numbers streams as the files of one open-ended run,
//! feeds every run sink (terminal, jsonl, summary, reports) their events in order, fans them
//! out to subscribers without ever waiting on one, and answers `status`.
use crate::event::run::{FailureReason, FileInfo, FileResult, RunEvent, RunSummary, Tally};
use crate::event::Event;
use crate::explain::names::{id_of, PointNames};
use crate::report::progress::Progress;
use crate::report::sink::{RunSink, Unflushed};
use crate::state::logs::{LogDir, LogNames};
use globset::GlobMatcher;
use serde::Serialize;
use std::collections::BTreeMap;
use std::fs::File;
use std::io;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::{mpsc, oneshot};

/// The daemon is one run, numbered 1, whose files are its streams.
pub(crate) const RUN: u64 = 1;

/// Lines queued for one subscriber; one that falls this far behind is dropped.
pub(crate) const SUBSCRIBER_QUEUE: usize = 16 * 1024;

/// What connection tasks tell the dispatcher.
pub(crate) enum Msg {
    Open {
        name: String,
        meta: Option<serde_json::Value>,
        peer: String,
        reply: oneshot::Sender<Opened>,
    },
    Tap {
        id: usize,
        events: Vec<Event<'static>>,
    },
    Close {
        id: usize,
        result: FileResult,
        done: oneshot::Sender<()>,
    },
    Subscribe(Subscriber),
    Status {
        reply: oneshot::Sender<Vec<u8>>,
    },
}

/// A new stream's number and log.
pub(crate) struct Opened {
    pub id: usize,
    pub log: Option<File>,
    pub log_path: Option<PathBuf>,
    /// Why the log could not be created (the stream still runs, and says so in its reasons).
    pub log_error: Option<String>,
}

/// An `events` connection: lines go into its bounded queue, or it is dropped.
pub(crate) struct Subscriber {
    pub filter: Option<GlobMatcher>,
    pub queue: mpsc::Sender<Arc<[u8]>>,
    /// Set when the daemon drops it for falling behind, so its writer can say so.
    pub dropped: Arc<AtomicBool>,
    pub peer: String,
}

struct StreamState {
    info: FileInfo,
    meta: Option<serde_json::Value>,
    peer: String,
    opened: Instant,
    /// The test it is on and its top-level points so far (while open).
    progress: Progress,
    /// Names its points by their stable IDs, as `tapline run` does.
    names: PointNames,
    /// The ID of its latest test point.
    last_test: Option<String>,
    result: Option<FileResult>,
}

pub(crate) struct Dispatcher<'a> {
    sink: Unflushed<&'a mut dyn RunSink>,
    streams: Vec<StreamState>,
    open: usize,
    subscribers: Vec<Subscriber>,
    log_dir: Option<LogDir>,
    log_names: LogNames,
    started: Instant,
    /// Addresses the daemon listens on, for `status`.
    listening: Vec<String>,
    /// Warnings for the daemon's stderr (a dropped subscriber), taken by the caller.
    pub warnings: Vec<String>,
}

impl<'a> Dispatcher<'a> {
    pub fn new(
        sink: &'a mut dyn RunSink,
        log_dir: Option<LogDir>,
        listening: Vec<String>,
    ) -> io::Result<Self> {
        let mut d = Dispatcher {
            sink: Unflushed::new(sink),
            streams: Vec::new(),
            open: 0,
            subscribers: Vec::new(),
            log_dir,
            log_names: LogNames::default(),
            started: Instant::now(),
            listening,
            warnings: Vec::new(),
        };
        let here = crate::report::record::Meta::current();
        d.emit(RunEvent::RunStarted {
            run: RUN,
            files: 0,
            jobs: 0,
            started_ms: crate::report::record::unix_ms(std::time::SystemTime::now()),
            host: here.host,
            cwd: here.cwd,
            command: here.command,
            test_filter: None,
        })?;
        Ok(d)
    }

    pub fn open_streams(&self) -> usize {
        self.open
    }

    pub fn handle(&mut self, msg: Msg) -> io::Result<()> {
        match msg {
            Msg::Open {
                name,
                meta,
                peer,
                reply,
            } => {
                let opened = self.open(name, meta, peer)?;
                // A connection that went away meanwhile closes its stream as usual.
                let _ = reply.send(opened);
            }
            Msg::Tap { id, events } => {
                for event in events {
                    let mut test_id = None;
                    if let Some(s) = self.streams.get_mut(id) {
                        s.progress.event(&event);
                        if let Some(name) = s.names.event(&event) {
                            test_id = Some(id_of(&s.info.rel, &name.path));
                            s.last_test.clone_from(&test_id);
                        }
                    }
                    let ev = RunEvent::Tap {
                        run: RUN,
                        file: id,
                        event,
                    };
                    self.emit_named(ev, test_id.as_deref())?;
                }
            }
            Msg::Close { id, result, done } => {
                self.close(id, result)?;
                let _ = done.send(());
            }
            Msg::Subscribe(sub) => self.subscribe(sub),
            Msg::Status { reply } => {
                let _ = reply.send(self.status());
            }
        }
        Ok(())
    }

    fn open(
        &mut self,
        name: String,
        meta: Option<serde_json::Value>,
        peer: String,
    ) -> io::Result<Opened> {
        let id = self.streams.len();
        let (mut log, mut log_path, mut log_error) = (None, None, None);
        if let Some(dir) = &self.log_dir {
            let log_name = self.log_names.claim(&name);
            match dir.create_log(&log_name) {
                Ok(f) => {
                    log = Some(f);
                    log_path = Some(dir.path().join(&log_name));
                }
                Err(e) => log_error = Some(e.to_string()),
            }
        }
        let info = FileInfo {
            index: id,
            rel: name,
            command: format!("tapline send ({peer})"),
            log: log_path.clone(),
            attempt: 1,
            leaves: false,
        };
        self.streams.push(StreamState {
            info: info.clone(),
            meta,
            peer,
            opened: Instant::now(),
            progress: Progress::default(),
            names: PointNames::default(),
            last_test: None,
            result: None,
        });
        self.open += 1;
        self.emit(RunEvent::FileStarted {
            run: RUN,
            file: info,
        })?;
        Ok(Opened {
            id,
            log,
            log_path,
            log_error,
        })
    }

    fn close(&mut self, id: usize, mut result: FileResult) -> io::Result<()> {
        let Some(s) = self.streams.get_mut(id) else {
            return Ok(());
        };
        if s.result.is_some() {
            return Ok(());
        }
        self.emit(RunEvent::FileFinished {
            run: RUN,
            file: id,
            result: Box::new(result.clone()),
        })?;
        // Sinks have seen every point; what stays for `status` and the summary is the verdict.
        result.tests = Default::default();
        self.streams[id].result = Some(result);
        self.open -= 1;
        Ok(())
    }

    /// Some stream ended because the daemon stopped.
    pub fn open_streams_were_interrupted(&self) -> bool {
        self.streams
            .iter()
            .any(|s| s.result.as_ref().is_some_and(was_interrupted))
    }

    /// Streams whose connection task did not close them in time end as interrupted.
    pub fn abandon_open(&mut self) -> io::Result<()> {
        let open: Vec<usize> = (0..self.streams.len())
            .filter(|&i| self.streams[i].result.is_none())
            .collect();
        for id in open {
            let s = &self.streams[id];
            let result = super::judge::abandoned(s.progress.completed(), s.opened);
            self.close(id, result)?;
        }
        Ok(())
    }

    /// The run's end: the summary to every sink, the verdicts recorded for the next daemon's
    /// "newly failing", and every subscriber's queue closed (their writers drain and hang up).
    pub fn finish(mut self, interrupted: bool) -> io::Result<RunSummary> {
        let summary = self.summary(interrupted);
        self.emit(RunEvent::RunFinished {
            run: RUN,
            summary: Box::new(summary.clone()),
        })?;
        self.subscribers.clear();
        Ok(summary)
    }

    fn summary(&self, interrupted: bool) -> RunSummary {
        let mut tests = Tally::default();
        let (mut passed, mut failed) = (0, 0);
        let mut slowest = Vec::new();
        let mut verdicts = BTreeMap::new();
        for s in &self.streams {
            let Some(r) = &s.result else { continue };
            tests.merge(&r.tally);
            if r.ok {
                passed += 1;
            } else {
                failed += 1;
            }
            slowest.push((s.info.rel.clone(), r.duration.as_millis() as u64));
            // An interrupted stream's verdict says nothing about its tests.
            if !was_interrupted(r) {
                verdicts.insert(s.info.rel.clone(), r.ok);
            }
        }
        slowest.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        slowest.truncate(3);
        let (newly_failing, fixed) = match &self.log_dir {
            Some(dir) => {
                let c = dir.changes(&verdicts);
                let _ = dir.write_verdicts(&verdicts);
                (c.newly_failing, c.fixed)
            }
            None => (Vec::new(), Vec::new()),
        };
        RunSummary {
            ok: failed == 0,
            files_total: self.streams.len(),
            files_passed: passed,
            files_failed: failed,
            files_not_run: 0,
            files_cancelled: 0,
            tests,
            duration: self.started.elapsed(),
            interrupted,
            slowest,
            newly_failing,
            fixed,
            flaky: Vec::new(),
            files_cached: 0,
            files_no_tests: 0,
            max_fail_reached: None,
            bailed_out: None,
        }
    }

    fn subscribe(&mut self, sub: Subscriber) {
        // It sees every stream from the moment it connects: the open ones are introduced first.
        for s in self.streams.iter().filter(|s| s.result.is_none()) {
            if !matches_filter(&sub, &s.info.rel) {
                continue;
            }
            let ev = RunEvent::FileStarted {
                run: RUN,
                file: s.info.clone(),
            };
            let line = tagged_line(Some(&s.info.rel), &ev, None);
            if !offer(&sub, &line, &mut self.warnings) {
                return;
            }
        }
        self.subscribers.push(sub);
    }

    /// One event to every subscriber that wants it, then to every sink (given away: the
    /// reports thread keeps it without a copy).
    fn emit(&mut self, ev: RunEvent) -> io::Result<()> {
        self.emit_named(ev, None)
    }

    /// [`Self::emit`] of a test point, whose line carries its stable ID (`"test_id"`, as in
    /// `--format jsonl`).
    fn emit_named(&mut self, ev: RunEvent, test_id: Option<&str>) -> io::Result<()> {
        if !self.subscribers.is_empty() {
            let stream = event_file(&ev)
                .and_then(|i| self.streams.get(i))
                .map(|s| s.info.rel.as_str());
            let mut line: Option<Arc<[u8]>> = None;
            let warnings = &mut self.warnings;
            self.subscribers.retain(|sub| {
                if stream.is_some_and(|name| !matches_filter(sub, name)) {
                    return true;
                }
                let line = line.get_or_insert_with(|| tagged_line(stream, &ev, test_id));
                offer(sub, line, warnings)
            });
        }
        self.sink.on_owned(ev)
    }

    pub fn tick(&mut self, now: Instant) -> io::Result<()> {
        self.sink.tick(now)
    }

    /// An event went to the sinks since they were last flushed.
    pub fn unflushed(&self) -> bool {
        self.sink.pending()
    }

    /// No message is ready: the sinks hand over what they buffer (`--format jsonl`).
    pub fn flush(&mut self) -> io::Result<()> {
        self.sink.flush()
    }

    fn status(&self) -> Vec<u8> {
        let open: Vec<StreamDoc> = self
            .streams
            .iter()
            .filter(|s| s.result.is_none())
            .map(doc_of)
            .collect();
        let finished: Vec<StreamDoc> = self
            .streams
            .iter()
            .filter(|s| s.result.is_some())
            .map(doc_of)
            .collect();
        let doc = serde_json::json!({
            "pid": std::process::id(),
            "uptime_ms": self.started.elapsed().as_millis() as u64,
            "listening": self.listening,
            "subscribers": self.subscribers.len(),
            "open": open,
            "finished": finished,
        });
        let mut line = serde_json::to_vec(&doc).unwrap_or_default();
        line.push(b'\n');
        line
    }
}

#[derive(Serialize)]
struct StreamDoc<'a> {
    name: &'a str,
    index: usize,
    state: &'static str,
    peer: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    ok: Option<bool>,
    /// Open streams only: the test it is on (null before the first).
    #[serde(skip_serializing_if = "Option::is_none")]
    current: Option<Option<&'a str>>,
    /// The stable ID of its latest test point (null before the first).
    last_test_id: Option<&'a str>,
    pass: u64,
    fail: u64,
    skip: u64,
    todo: u64,
    duration_ms: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    reasons: Option<&'a [FailureReason]>,
    log: Option<String>,
    meta: &'a Option<serde_json::Value>,
}

fn doc_of(s: &StreamState) -> StreamDoc<'_> {
    let (state, ok, tally, duration, reasons) = match &s.result {
        Some(r) => (
            "finished",
            Some(r.ok),
            r.tally,
            r.duration,
            Some(&r.reasons[..]),
        ),
        None => ("open", None, s.progress.tally(), s.opened.elapsed(), None),
    };
    StreamDoc {
        name: &s.info.rel,
        index: s.info.index,
        state,
        peer: &s.peer,
        ok,
        current: s.result.is_none().then(|| s.progress.current()),
        last_test_id: s.last_test.as_deref(),
        pass: tally.pass,
        fail: tally.fail,
        skip: tally.skip,
        todo: tally.todo,
        duration_ms: duration.as_millis() as u64,
        reasons,
        log: s.info.log.as_ref().map(|p| p.display().to_string()),
        meta: &s.meta,
    }
}

/// Queues `line` for `sub`; false when it is gone, or dropped for falling behind (warned).
fn offer(sub: &Subscriber, line: &Arc<[u8]>, warnings: &mut Vec<String>) -> bool {
    match sub.queue.try_send(line.clone()) {
        Ok(()) => true,
        Err(mpsc::error::TrySendError::Closed(_)) => false,
        Err(mpsc::error::TrySendError::Full(_)) => {
            sub.dropped.store(true, Ordering::Release);
            warnings.push(format!(
                "warning: dropped the events subscriber on {}: it fell {} lines behind",
                sub.peer, SUBSCRIBER_QUEUE
            ));
            false
        }
    }
}

fn was_interrupted(r: &FileResult) -> bool {
    r.reasons
        .first()
        .is_some_and(|w| *w == FailureReason::DaemonStopped)
}

fn matches_filter(sub: &Subscriber, name: &str) -> bool {
    sub.filter.as_ref().is_none_or(|g| g.is_match(name))
}

fn event_file(ev: &RunEvent) -> Option<usize> {
    match ev {
        RunEvent::FileStarted { file, .. } => Some(file.index),
        RunEvent::Tap { file, .. }
        | RunEvent::Stderr { file, .. }
        | RunEvent::AttemptFailed { file, .. }
        | RunEvent::FileFinished { file, .. } => Some(*file),
        _ => None,
    }
}

/// The event as one JSON line with `"stream"` first: the stream's name, or null for the
/// run's own events.
fn tagged_line(stream: Option<&str>, ev: &RunEvent, test_id: Option<&str>) -> Arc<[u8]> {
    let mut line = Vec::with_capacity(256);
    line.extend_from_slice(b"{\"stream\":");
    let _ = serde_json::to_writer(&mut line, &stream);
    let body = serde_json::to_vec(ev).unwrap_or_else(|_| b"{}".to_vec());
    if body.len() > 2 {
        line.push(b',');
        line.extend_from_slice(&body[1..]);
    } else {
        line.push(b'}');
    }
    if let Some(id) = test_id {
        line.pop();
        line.extend_from_slice(b",\"test_id\":");
        crate::report::json::push_str(&mut line, id);
        line.push(b'}');
    }
    line.push(b'\n');
    line.into()
}

/// How long a stopping daemon waits for its open streams' connection tasks to close them.
pub(crate) const STOP_GRACE: Duration = Duration::from_millis(500);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tagged_lines_put_the_stream_first() {
        let ev = RunEvent::RunStarted {
            run: 1,
            files: 0,
            jobs: 0,
            started_ms: None,
            host: None,
            cwd: None,
            command: None,
            test_filter: None,
        };
        let line = tagged_line(Some("a\"b"), &ev, None);
        let v: serde_json::Value = serde_json::from_slice(&line).expect("json");
        assert_eq!(v["stream"], "a\"b");
        assert_eq!(v["type"], "run_started");
        assert!(line.ends_with(b"\n"));
        let v: serde_json::Value =
            serde_json::from_slice(&tagged_line(None, &ev, None)).expect("json");
        assert!(v["stream"].is_null());
    }
}
