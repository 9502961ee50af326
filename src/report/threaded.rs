//! The `-o` reports on a thread of their own, so that serializing a big run (tens of
//! megabytes of JSON, XML and HTML) uses the second core while the dispatcher goes on.
//!
//! The dispatcher's thread keeps a small front ([`ReportsThread`]): it batches the events
//! (given away by [`RunSink::on_owned`], so no copy on the hot path) and sends them to the
//! thread that owns the [`Reports`]. A run's end is a barrier: at `RunFinished` (and
//! `SeriesFinished`) the front waits until the thread has written every report, so a report
//! exists when the run returns, exactly as when everything ran on one thread: in watch mode it
//! is rewritten before the next run starts, and after Ctrl-C the partial reports are on disk.
//!
//! GitHub annotations go to stdout or stderr, which the terminal reporter holds locked for
//! the whole run; the thread writes them into a buffer and the front prints them at the
//! barrier, in the same place of the output as before.
//!
//! Memory between the two is bounded: a batch is sent at [`BATCH`] events or [`BATCH_BYTES`]
//! of output text, whichever comes first, and at most [`IN_FLIGHT`] batches wait for the
//! thread; past that the dispatcher waits, and so (through the run's bounded channels) do
//! the children's pipes.
use super::output::Reports;
use super::sink::RunSink;
use crate::event::run::RunEvent;
use std::io::{self, Write};
use std::sync::mpsc::{self, Receiver, SyncSender};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;

/// Events per message: big enough that the channel costs nothing per event, small enough that
/// the thread starts on a file's events while the file still runs.
const BATCH: usize = 512;
/// Output text per message: a batch of long lines is sent before it reaches [`BATCH`] events,
/// so the batches in flight hold a few MiB whatever the lines are.
const BATCH_BYTES: usize = 256 * 1024;
/// Batches in flight before the dispatcher waits for the thread: memory stays bounded when
/// the reports are slower than the run.
const IN_FLIGHT: usize = 64;

enum Message {
    Events(Vec<RunEvent>),
    /// Answer once everything sent before has been handled.
    Barrier,
}

/// What the thread answers at a barrier.
struct Reached {
    /// The first error a report sink returned since the last barrier.
    result: io::Result<()>,
    /// Write failures of the reports, one line each.
    errors: Vec<String>,
}

/// The front of the reports thread: a [`RunSink`] for the dispatcher.
pub struct ReportsThread {
    to_thread: Option<SyncSender<Message>>,
    reached: Receiver<Reached>,
    thread: Option<JoinHandle<()>>,
    batch: Vec<RunEvent>,
    /// Output text in `batch`, roughly ([`text_bytes`]).
    batch_bytes: usize,
    /// Where the annotations really go, and the buffer the thread writes them into.
    annotations: Option<(Box<dyn Write + Send>, Captured)>,
    errors: Vec<String>,
    /// Every report is written and nothing was sent since: the thread has nothing left to
    /// finish or clean up.
    settled: bool,
}

/// Annotations written on the reports thread, printed by the front.
#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl Captured {
    fn take(&self) -> Vec<u8> {
        std::mem::take(&mut *self.0.lock().unwrap_or_else(PoisonError::into_inner))
    }
}

impl Write for Captured {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl ReportsThread {
    /// Starts the thread that owns `reports`.
    ///
    /// # Errors
    ///
    /// The thread could not be started.
    pub fn spawn(mut reports: Reports) -> io::Result<Self> {
        let annotations = reports.annotation_out_mut().map(|out| {
            let captured = Captured::default();
            let real = std::mem::replace(out, Box::new(captured.clone()));
            (real, captured)
        });
        let (to_thread, messages) = mpsc::sync_channel(IN_FLIGHT);
        let (answer, reached) = mpsc::sync_channel(1);
        let thread = std::thread::Builder::new()
            .name("tapline-reports".into())
            .spawn(move || serve(reports, &messages, &answer))?;
        Ok(ReportsThread {
            to_thread: Some(to_thread),
            reached,
            thread: Some(thread),
            batch: Vec::with_capacity(BATCH),
            batch_bytes: 0,
            annotations,
            errors: Vec::new(),
            settled: true,
        })
    }

    /// What failed to be written since the last call, one line each (`failed to write r.xml: …`).
    pub fn take_errors(&mut self) -> Vec<String> {
        std::mem::take(&mut self.errors)
    }

    fn send(&mut self, message: Message) -> io::Result<()> {
        let sent = self
            .to_thread
            .as_ref()
            .is_some_and(|tx| tx.send(message).is_ok());
        if sent {
            Ok(())
        } else {
            Err(self.stopped())
        }
    }

    fn send_batch(&mut self) -> io::Result<()> {
        if self.batch.is_empty() {
            return Ok(());
        }
        let batch = std::mem::replace(&mut self.batch, Vec::with_capacity(BATCH));
        self.batch_bytes = 0;
        self.send(Message::Events(batch))
    }

    /// Sends what is batched and waits until the thread has handled all of it.
    fn barrier(&mut self) -> io::Result<()> {
        self.send_batch()?;
        self.send(Message::Barrier)?;
        let Ok(reached) = self.reached.recv() else {
            return Err(self.stopped());
        };
        self.settled = true;
        self.errors.extend(reached.errors);
        if let Some((out, captured)) = &mut self.annotations {
            let text = captured.take();
            if !text.is_empty() {
                if let Err(e) = out.write_all(&text).and_then(|()| out.flush()) {
                    self.errors
                        .push(format!("failed to write annotations: {e}"));
                }
            }
        }
        reached.result
    }

    /// The thread is gone (it panicked): the reports cannot be written.
    fn stopped(&mut self) -> io::Error {
        self.to_thread = None;
        let why = match self.thread.take().map(JoinHandle::join) {
            Some(Err(panic)) => panic
                .downcast_ref::<&str>()
                .map(|s| (*s).to_owned())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "it panicked".to_owned()),
            _ => "it stopped".to_owned(),
        };
        io::Error::other(format!("failed to write the reports: {why}"))
    }
}

/// The thread: every event to the reports, an answer at each barrier.
fn serve(mut reports: Reports, messages: &Receiver<Message>, answer: &SyncSender<Reached>) {
    let mut result = Ok(());
    for message in messages {
        match message {
            Message::Events(events) => {
                for ev in events {
                    if result.is_ok() {
                        result = reports.on(&ev);
                    }
                }
            }
            Message::Barrier => {
                let reached = Reached {
                    result: std::mem::replace(&mut result, Ok(())),
                    errors: reports.take_errors(),
                };
                if answer.send(reached).is_err() {
                    return;
                }
            }
        }
    }
}

impl RunSink for ReportsThread {
    fn on(&mut self, ev: &RunEvent) -> io::Result<()> {
        self.on_owned(ev.clone())
    }

    fn keeps(&self) -> bool {
        true
    }

    fn on_owned(&mut self, ev: RunEvent) -> io::Result<()> {
        let ends = matches!(
            ev,
            RunEvent::RunFinished { .. } | RunEvent::SeriesFinished { .. }
        );
        self.batch_bytes += text_bytes(&ev);
        self.batch.push(ev);
        self.settled = false;
        if ends {
            self.barrier()
        } else if self.batch.len() >= BATCH || self.batch_bytes >= BATCH_BYTES {
            self.send_batch()
        } else {
            Ok(())
        }
    }
}

/// The text an event carries besides its fixed size, roughly: what can make a batch heavy.
fn text_bytes(ev: &RunEvent) -> usize {
    use crate::event::Event;
    match ev {
        RunEvent::Stderr { text, .. } => text.len(),
        RunEvent::Tap { event, .. } => match event {
            Event::Output { text, .. } | Event::Comment { text, .. } => text.len(),
            Event::Assert(a) => a.name.len() + a.diagnostics.as_ref().map_or(0, |d| d.len()),
            _ => 0,
        },
        _ => 0,
    }
}

impl Drop for ReportsThread {
    /// Ends the thread. Unless every report was written, waits for it, so that unfinished
    /// reports' temporary files are removed before the process exits; when all were, it is
    /// left to free the run's record on its own (at exit that is not even waited for).
    fn drop(&mut self) {
        self.to_thread = None;
        if let Some(thread) = self.thread.take() {
            if !self.settled {
                let _ = thread.join();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::run::{ExitInfo, FileInfo, FileResult, RunSummary, Tally};
    use crate::event::Event;
    use crate::report::output::{targets, Annotations};
    use crate::report::record::{Collector, Meta};
    use std::path::{Path, PathBuf};
    use std::time::Duration;

    const STREAMS: [(&str, &str); 3] = [
        (
            "t/pass.sh",
            "TAP version 14\n1..3\nok 1 - one\nok 2 - two # SKIP later\nok 3 - three\n",
        ),
        (
            "t/diff.sh",
            "TAP version 14\n1..2\nok 1 - fine\nnot ok 2 - <script>alert(1)</script>\n  ---\n  \
             message: should be equal\n  wanted: {\"a\": 1, \"b\": [1, 2]}\n  found: {\"a\": 2, \
             \"b\": [1]}\n  at: t/diff.sh:7:3\n  ...\n# printed | with ]]> and \u{1b}[31mred\n",
        ),
        (
            "t/crash.sh",
            "TAP version 14\n1..4\nok 1 - before the crash\n",
        ),
    ];

    /// A run of the three streams above as the dispatcher tells it.
    fn run_events() -> Vec<RunEvent> {
        let mut events = vec![RunEvent::RunStarted {
            run: 1,
            files: STREAMS.len(),
            jobs: 1,
            started_ms: Some(1_700_000_000_000),
            host: Some("host".into()),
            cwd: Some("/project".into()),
            command: Some("tapline run".into()),
            test_filter: None,
        }];
        let mut tests = Tally::default();
        for (index, (rel, tap)) in STREAMS.iter().enumerate() {
            events.push(RunEvent::FileStarted {
                run: 1,
                file: FileInfo {
                    index,
                    rel: (*rel).to_owned(),
                    command: format!("sh {rel}"),
                    log: Some(PathBuf::from(format!(
                        "/project/.nogit/testlogs/{index}.log"
                    ))),
                    attempt: 1,
                    leaves: false,
                },
            });
            let mut tally = Tally::default();
            let mut verdict = None;
            for event in crate::protocol::parse_all(tap.as_bytes()) {
                match &event {
                    Event::Assert(a) if a.depth == 0 => tally.add(a),
                    Event::End { verdict: v } => verdict = Some(v.clone()),
                    _ => {}
                }
                events.push(RunEvent::Tap {
                    run: 1,
                    file: index,
                    event,
                });
            }
            let verdict = verdict.expect("every stream ends");
            tests.pass += tally.pass;
            tests.fail += tally.fail;
            tests.skip += tally.skip;
            events.push(RunEvent::FileFinished {
                run: 1,
                file: index,
                result: Box::new(FileResult {
                    ok: verdict.ok,
                    reasons: verdict
                        .reasons
                        .iter()
                        .map(|r| crate::event::run::FailureReason::of_stream(r))
                        .collect(),
                    exit: Some(ExitInfo {
                        code: Some(i32::from(!verdict.ok)),
                        signal: None,
                    }),
                    timed_out: false,
                    cancelled: false,
                    leaked: false,
                    duration: Duration::from_millis(3 + index as u64),
                    tally,
                    verdict,
                    attempts: 1,
                    flaky: false,
                    cached: false,
                    no_tests: false,
                    tests: Default::default(),
                }),
            });
        }
        events.push(RunEvent::RunFinished {
            run: 1,
            summary: Box::new(RunSummary {
                ok: false,
                files_total: 3,
                files_passed: 1,
                files_failed: 2,
                tests,
                duration: Duration::from_millis(40),
                ..RunSummary::default()
            }),
        });
        events
    }

    const FORMATS: [&str; 5] = ["r.jsonl", "r.json", "r.xml", "r.md", "r.html"];

    fn reports_into(dir: &Path, annotations: &Captured) -> Reports {
        let paths: Vec<PathBuf> = FORMATS.iter().map(|f| dir.join(f)).collect();
        let annotations = Annotations {
            out: Box::new(annotations.clone()),
            step_summary: None,
        };
        Reports::new(
            targets(&paths).expect("report paths"),
            Some(annotations),
            Meta::default(),
        )
    }

    #[test]
    fn reports_written_on_the_thread_equal_those_written_inline() {
        let dir = tempfile::tempdir().expect("temp dir");
        let (inline_dir, threaded_dir) = (dir.path().join("inline"), dir.path().join("thread"));
        let (inline_notes, threaded_notes) = (Captured::default(), Captured::default());

        let mut inline = reports_into(&inline_dir, &inline_notes);
        let mut threaded =
            ReportsThread::spawn(reports_into(&threaded_dir, &threaded_notes)).expect("thread");
        for (n, ev) in run_events().into_iter().enumerate() {
            inline.on(&ev).expect("inline");
            // Both ways in: by reference (a copy) and given away.
            if n % 2 == 0 {
                threaded.on(&ev).expect("threaded");
            } else {
                threaded.on_owned(ev).expect("threaded");
            }
        }
        // The barrier at RunFinished: everything is on disk before the run returns.
        for f in FORMATS {
            let a = std::fs::read(inline_dir.join(f)).expect("inline report");
            let b = std::fs::read(threaded_dir.join(f)).expect("threaded report");
            assert!(!a.is_empty(), "{f} is empty");
            assert!(a == b, "{f} differs when written on the thread");
        }
        let (a, b) = (inline_notes.take(), threaded_notes.take());
        assert!(String::from_utf8_lossy(&a).contains("::error file="));
        assert_eq!(a, b, "annotations differ");
        assert!(inline.take_errors().is_empty() && threaded.take_errors().is_empty());
    }

    #[test]
    fn the_page_from_sections_rendered_as_files_ended_is_the_whole_page() {
        let dir = tempfile::tempdir().expect("temp dir");
        let mut reports = reports_into(dir.path(), &Captured::default());
        let mut collector = Collector::new(Meta::default());
        for ev in run_events() {
            collector.on(&ev);
            reports.on(&ev).expect("reports");
        }
        let mut whole = Vec::new();
        crate::report::html::write_page(&mut whole, collector.view()).expect("page");
        let written = std::fs::read(dir.path().join("r.html")).expect("page written");
        assert!(String::from_utf8_lossy(&whole).contains("&lt;script&gt;alert(1)"));
        assert!(
            written == whole,
            "the page differs from the one rendered at once"
        );
    }

    #[test]
    fn a_report_that_cannot_be_written_is_told_after_the_run() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("r.md");
        let reports = Reports::new(
            targets(std::slice::from_ref(&path)).expect("target"),
            None,
            Meta::default(),
        );
        // The folder goes away after the targets were checked: the write fails at the end.
        drop(dir);
        let mut threaded = ReportsThread::spawn(reports).expect("thread");
        for ev in run_events() {
            threaded.on_owned(ev).expect("events");
        }
        let errors = threaded.take_errors();
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert!(errors[0].starts_with("failed to write"), "{errors:?}");
    }
}
