//! Run reporters: the `RunSink` trait, sinks on the run's event stream (terminal, JSON lines, summary document).
use super::summary::SummaryWriter;
use super::terminal::TerminalReporter;
use crate::event::run::{FileResult, RunEvent, RunSummary};
use serde::Serialize;
use std::io::{self, Write};
use std::time::Instant;

/// A consumer of run events. `tick` is the live region's redraw clock.
pub trait RunSink {
    fn on(&mut self, ev: &RunEvent) -> io::Result<()>;
    fn tick(&mut self, _now: Instant) -> io::Result<()> {
        Ok(())
    }
}

/// Several sinks fed in order.
pub struct Fanout<'a>(pub Vec<&'a mut dyn RunSink>);

impl RunSink for Fanout<'_> {
    fn on(&mut self, ev: &RunEvent) -> io::Result<()> {
        self.0.iter_mut().try_for_each(|s| s.on(ev))
    }
    fn tick(&mut self, now: Instant) -> io::Result<()> {
        self.0.iter_mut().try_for_each(|s| s.tick(now))
    }
}

impl<W: Write> RunSink for TerminalReporter<W> {
    fn on(&mut self, ev: &RunEvent) -> io::Result<()> {
        self.on_event(ev)
    }
    fn tick(&mut self, now: Instant) -> io::Result<()> {
        TerminalReporter::tick(self, now)
    }
}

/// `--format jsonl`: every run event as one JSON line, as it happens.
pub struct JsonlRun<W: Write> {
    out: W,
}

impl<W: Write> JsonlRun<W> {
    pub fn new(out: W) -> Self {
        JsonlRun { out }
    }

    /// The writer back, for the caller to flush or close.
    pub fn into_inner(self) -> W {
        self.out
    }
}

impl<W: Write> RunSink for JsonlRun<W> {
    fn on(&mut self, ev: &RunEvent) -> io::Result<()> {
        serde_json::to_writer(&mut self.out, ev)?;
        self.out.write_all(b"\n")?;
        // Whole files at a time keep the writes large; readers see each file as it finishes.
        if matches!(
            ev,
            RunEvent::FileFinished { .. }
                | RunEvent::RunFinished { .. }
                | RunEvent::RunStarted { .. }
        ) {
            self.out.flush()?;
        }
        Ok(())
    }
}

/// `--format summary`: one JSON document at the end,
/// `{ "ok", "files": [ { "path", "ok", "exit", "timed_out", "duration_ms", "log", "reasons",
/// "attempts", "flaky", "cached", "not_run", "summary" } ], "run": {…} }` (a file never
/// started has `"not_run": true`, `"ok": false` and a null summary); after a `--runs N` series, one
/// document for the last run with `"stability"` added and `"ok"` meaning every test stable.
pub struct SummaryRun<W: Write> {
    out: W,
    files: Vec<FileDoc>,
    /// Inside a `--runs N` series: the document waits for its end.
    series: bool,
    /// The last run's document, held until the series ends.
    held: Option<serde_json::Value>,
}

struct FileDoc {
    path: String,
    log: Option<String>,
    parse: SummaryWriter<Vec<u8>>,
    result: Option<FileResult>,
    /// Never started (`--max-fail` or an interrupt came first).
    not_run: bool,
}

impl<W: Write> SummaryRun<W> {
    pub fn new(out: W) -> Self {
        SummaryRun {
            out,
            files: Vec::new(),
            series: false,
            held: None,
        }
    }

    /// What has been written so far (a `Vec<u8>` writer can be taken after each document).
    pub fn out_mut(&mut self) -> &mut W {
        &mut self.out
    }

    fn write_all(&mut self, summary: &RunSummary) -> io::Result<()> {
        let doc = self.document(summary)?;
        if self.series {
            self.held = Some(doc);
            return Ok(());
        }
        self.write_doc(&doc)
    }

    fn write_doc(&mut self, doc: &serde_json::Value) -> io::Result<()> {
        serde_json::to_writer_pretty(&mut self.out, doc)?;
        self.out.write_all(b"\n")?;
        self.out.flush()
    }

    fn document(&mut self, summary: &RunSummary) -> io::Result<serde_json::Value> {
        #[derive(Serialize)]
        struct FileOut<'a> {
            path: &'a str,
            ok: bool,
            exit: Option<crate::event::run::ExitInfo>,
            timed_out: bool,
            duration_ms: u64,
            log: Option<&'a str>,
            reasons: &'a [String],
            attempts: u32,
            flaky: bool,
            cached: bool,
            not_run: bool,
            summary: serde_json::Value,
        }
        let mut files = Vec::new();
        for f in std::mem::take(&mut self.files) {
            if f.not_run {
                files.push(serde_json::json!({
                    "path": f.path, "ok": false, "exit": null, "timed_out": false,
                    "duration_ms": 0, "log": null, "reasons": ["not run"], "attempts": 0,
                    "flaky": false, "cached": false, "not_run": true, "summary": null,
                }));
                continue;
            }
            let Some(r) = f.result else { continue };
            let doc = f.parse.finish()?;
            // A cached file sent no stream: there is nothing parsed to show.
            let parsed = if r.cached {
                serde_json::Value::Null
            } else {
                serde_json::from_slice(&doc).unwrap_or(serde_json::Value::Null)
            };
            files.push(serde_json::to_value(FileOut {
                path: &f.path,
                ok: r.ok,
                exit: r.exit,
                timed_out: r.timed_out,
                duration_ms: r.duration.as_millis() as u64,
                log: f.log.as_deref(),
                reasons: &r.reasons,
                attempts: r.attempts,
                flaky: r.flaky,
                cached: r.cached,
                not_run: false,
                summary: parsed,
            })?);
        }
        Ok(serde_json::json!({ "ok": summary.ok, "files": files, "run": summary }))
    }
}

impl<W: Write> RunSink for SummaryRun<W> {
    fn on(&mut self, ev: &RunEvent) -> io::Result<()> {
        match ev {
            RunEvent::FileStarted { file, .. } => {
                if self.files.len() <= file.index {
                    self.files.resize_with(file.index + 1, FileDoc::placeholder);
                }
                self.files[file.index] = FileDoc {
                    path: file.rel.clone(),
                    log: file.log.as_ref().map(|p| p.display().to_string()),
                    parse: SummaryWriter::new(Vec::new()),
                    result: None,
                    not_run: false,
                };
            }
            RunEvent::FileNotRun { file, .. } => {
                if self.files.len() <= file.index {
                    self.files.resize_with(file.index + 1, FileDoc::placeholder);
                }
                let mut doc = FileDoc::placeholder();
                doc.path = file.rel.clone();
                doc.not_run = true;
                self.files[file.index] = doc;
            }
            RunEvent::Tap { file, event, .. } => {
                if let Some(f) = self.files.get_mut(*file) {
                    crate::event::Sink::event(&mut f.parse, event);
                }
            }
            RunEvent::FileFinished { file, result, .. } => {
                if let Some(f) = self.files.get_mut(*file) {
                    f.result = Some(result.clone());
                }
            }
            RunEvent::RunFinished { summary, .. } => self.write_all(summary)?,
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

impl FileDoc {
    fn placeholder() -> Self {
        FileDoc {
            path: String::new(),
            log: None,
            parse: SummaryWriter::new(Vec::new()),
            result: None,
            not_run: false,
        }
    }
}
