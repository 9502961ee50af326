//! Run reporters: sinks on the run's event stream (terminal, JSON lines, summary document), on
//! the `RunSink` trait of the run model ([`crate::event::sink`]).
//!
//! Machine output is live: a dispatcher (`tapline run`'s, `serve`'s) calls [`RunSink::flush`]
//! whenever no further event is ready for it, so a burst of events goes out in one write and
//! a quiet moment hands what is buffered to the reader at once ([`Unflushed`] tells the
//! dispatcher whether there is anything to hand over).
use super::jsonl::write_run_event;
use super::terminal::TerminalReporter;
use crate::event::run::{RunEvent, RunSummary};
use crate::explain::names::{id_of, PointNames};
use std::io::{self, Write};
use std::time::Instant;

pub use crate::event::sink::{Fanout, RunSink, Unflushed};

impl<W: Write> RunSink for TerminalReporter<W> {
    fn on(&mut self, ev: &RunEvent) -> io::Result<()> {
        self.on_event(ev)
    }
    fn tick(&mut self, now: Instant) -> io::Result<()> {
        TerminalReporter::tick(self, now)
    }
}

/// `--format jsonl`: every run event as one JSON line, as it happens: written into `out`'s
/// buffer, which goes out when the dispatcher has nothing more ready ([`RunSink::flush`]) and
/// at the run's end.
pub struct JsonlRun<W: Write> {
    out: W,
    /// One line, made whole before it is written: one write per event through `out`'s layers.
    line: Vec<u8>,
    /// Each running file's path and the namer of its points, by index: a test point's line
    /// carries its `test_id`.
    names: Vec<Option<(String, PointNames)>>,
}

impl<W: Write> JsonlRun<W> {
    pub fn new(out: W) -> Self {
        JsonlRun {
            out,
            line: Vec::with_capacity(512),
            names: Vec::new(),
        }
    }

    /// The writer back, for the caller to flush or close.
    pub fn into_inner(self) -> W {
        self.out
    }

    /// Follows the files' names; for a test point, its stable ID.
    fn test_id(&mut self, ev: &RunEvent) -> Option<String> {
        match ev {
            RunEvent::RunStarted { .. } => self.names.clear(),
            RunEvent::FileStarted { file, .. } => {
                if self.names.len() <= file.index {
                    self.names.resize_with(file.index + 1, || None);
                }
                self.names[file.index] = Some((file.rel.clone(), PointNames::default()));
            }
            RunEvent::Tap { file, event, .. } => {
                let (rel, names) = self.names.get_mut(*file)?.as_mut()?;
                let name = names.event(event)?;
                return Some(id_of(rel, &name.path));
            }
            _ => {}
        }
        None
    }
}

impl<W: Write> RunSink for JsonlRun<W> {
    fn on(&mut self, ev: &RunEvent) -> io::Result<()> {
        self.line.clear();
        write_run_event(&mut self.line, ev)?;
        if let Some(id) = self.test_id(ev) {
            // `…,"event":{…}}` becomes `…,"event":{…},"test_id":"…"}`.
            self.line.pop();
            self.line.extend_from_slice(b",\"test_id\":");
            super::json::push_str(&mut self.line, &id);
            self.line.push(b'}');
        }
        self.line.push(b'\n');
        self.out.write_all(&self.line)?;
        // A run's (or series') end is out at once: in watch mode nothing follows for a while.
        if matches!(
            ev,
            RunEvent::RunFinished { .. } | RunEvent::SeriesFinished { .. }
        ) {
            self.out.flush()?;
        }
        Ok(())
    }
    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

/// `--format summary`: one JSON document at the end,
/// `{ "ok", "files": [ { "path", "ok", "exit", "timed_out", "duration_ms", "log", "reasons",
/// "attempts", "flaky", "cached", "not_run", "summary" } ], "run": {…} }` (a file never
/// started has `"not_run": true`, `"ok": false` and a null summary); after a `--runs N` series, one
/// document for the last run with `"stability"` added and `"ok"` meaning every test stable.
///
/// Each file's entry is written out at its final depth while the file runs and as it ends
/// ([`document::Entries`]); `RunFinished` (whose `"ok"` comes first) only writes the outer
/// lines around the ready entries.
pub struct SummaryRun<W: Write> {
    out: W,
    files: document::Entries,
    /// Inside a `--runs N` series: the document waits for its end.
    series: bool,
    /// The last run's document, held until the series ends.
    held: Option<serde_json::Value>,
    /// The run's coverage (`run --coverage`), its document's `"coverage"`.
    coverage: crate::coverage::RunCoverage,
}

impl<W: Write> SummaryRun<W> {
    pub fn new(out: W) -> Self {
        SummaryRun {
            out,
            files: document::Entries::default(),
            series: false,
            held: None,
            coverage: crate::coverage::RunCoverage::default(),
        }
    }

    /// What has been written so far (a `Vec<u8>` writer can be taken after each document).
    pub fn out_mut(&mut self) -> &mut W {
        &mut self.out
    }

    fn run_finished(&mut self, summary: &RunSummary) -> io::Result<()> {
        let files = std::mem::take(&mut self.files);
        let coverage = std::mem::take(&mut self.coverage);
        let coverage = (coverage.collected).then(|| crate::coverage::summary::to_json(&coverage));
        let coverage = coverage.as_ref();
        if self.series {
            // Kept as a value: the series' end changes `ok` and adds `stability`.
            let mut text = Vec::new();
            files.write_document(&mut text, summary, coverage)?;
            self.held = Some(serde_json::from_slice(&text)?);
            return Ok(());
        }
        files.write_document(&mut self.out, summary, coverage)?;
        self.out.flush()
    }

    fn write_doc(&mut self, doc: &serde_json::Value) -> io::Result<()> {
        serde_json::to_writer_pretty(&mut self.out, doc)?;
        self.out.write_all(b"\n")?;
        self.out.flush()
    }
}

impl<W: Write> RunSink for SummaryRun<W> {
    fn on(&mut self, ev: &RunEvent) -> io::Result<()> {
        match ev {
            RunEvent::FileStarted { file, .. } => self.files.started(file),
            RunEvent::FileNotRun { file, .. } => self.files.not_run(file)?,
            RunEvent::Tap { file, event, .. } => self.files.tap(*file, event),
            RunEvent::Explained {
                file, explained, ..
            } => self.files.explained(*file, explained),
            RunEvent::FileFinished { file, result, .. } => self.files.finished(*file, result)?,
            RunEvent::RunFinished { summary, .. } => self.run_finished(summary)?,
            RunEvent::Coverage { coverage, .. } => self.coverage.add(coverage),
            RunEvent::SeriesStarted { .. } => self.series = true,
            RunEvent::SeriesFinished { stability } => {
                let mut doc = self.held.take().unwrap_or_else(|| serde_json::json!({}));
                let stable = stability.all_stable();
                let ok = doc["ok"].as_bool().unwrap_or(false) && stable;
                doc["ok"] = ok.into();
                doc["stability"] = serde_json::to_value(stability)?;
                self.series = false;
                self.write_doc(&doc)?;
            }
            _ => {}
        }
        Ok(())
    }
}

mod document;
mod explaining;
pub use explaining::Explaining;
#[cfg(test)]
mod reference;
#[cfg(test)]
mod tests;
