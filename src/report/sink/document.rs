//! The run's summary document, assembled as the run goes: each file's entry is written
//! (pretty, at its final depth) while the file runs and as it ends, so that the end of the run
//! only writes the outer lines around ready entries. Not generic over the writer: the
//! per-point work is compiled once, here, whatever `SummaryRun` writes to.
use crate::event::run::{ExitInfo, FileInfo, FileResult, RunSummary};
use crate::event::{Event, Sink};
use crate::report::summary::SummaryWriter;
use serde::Serialize;
use std::io::{self, Write};

/// The run's files by index, as far as each has got.
#[derive(Default)]
pub(super) struct Entries(Vec<Entry>);

/// A file's place in `files[]`.
enum Entry {
    /// Not started (yet): left out of the document.
    Absent,
    Running {
        path: String,
        log: Option<String>,
        /// Its parse summary, pretty at [`SUMMARY_LEVEL`].
        parse: SummaryWriter<Vec<u8>, true>,
    },
    Finished {
        path: String,
        log: Option<String>,
        /// The entry up to its `"summary": `.
        head: Vec<u8>,
        /// The parse summary; empty when no event came.
        doc: Vec<u8>,
        /// A cached file sent no stream: its summary is null.
        cached: bool,
    },
    /// Never started (`--max-fail` or an interrupt came first): the entry up to its summary.
    NotRun { head: Vec<u8> },
}

/// Depth of a file's `"summary"` value: document, `files`, the file's object, its keys.
const SUMMARY_LEVEL: usize = 3;

/// Where an entry starts: the depth of the objects in `files`.
const ENTRY_LEVEL: usize = 2;

/// What closes an entry (the object at [`ENTRY_LEVEL`]).
const ENTRY_END: &[u8] = b"\n    }";

impl Entries {
    fn slot(&mut self, index: usize) -> &mut Entry {
        if self.0.len() <= index {
            self.0.resize_with(index + 1, || Entry::Absent);
        }
        &mut self.0[index]
    }

    /// A file (or a retry of it: its earlier attempt's points are dropped) starts.
    pub(super) fn started(&mut self, file: &FileInfo) {
        *self.slot(file.index) = Entry::Running {
            path: file.rel.clone(),
            log: file.log.as_ref().map(|p| p.display().to_string()),
            parse: SummaryWriter::pretty(Vec::new(), SUMMARY_LEVEL),
        };
    }

    pub(super) fn not_run(&mut self, file: &FileInfo) -> io::Result<()> {
        let head = entry_head(&FileOut {
            path: &file.rel,
            ok: false,
            exit: None,
            timed_out: false,
            duration_ms: 0,
            log: None,
            reasons: &["not run".to_owned()],
            attempts: 0,
            flaky: false,
            cached: false,
            not_run: true,
        })?;
        *self.slot(file.index) = Entry::NotRun { head };
        Ok(())
    }

    pub(super) fn tap(&mut self, index: usize, event: &Event<'_>) {
        if let Some(Entry::Running { parse, .. }) = self.0.get_mut(index) {
            parse.event(event);
        }
    }

    /// The file's entry, but for its place in the document, is final.
    pub(super) fn finished(&mut self, index: usize, result: &FileResult) -> io::Result<()> {
        let Some(entry) = self.0.get_mut(index) else {
            return Ok(());
        };
        let (path, log, doc) = match std::mem::replace(entry, Entry::Absent) {
            Entry::Running { path, log, parse } => {
                let mut doc = parse.finish()?;
                // Held until the run ends: no spare capacity.
                doc.shrink_to_fit();
                (path, log, doc)
            }
            Entry::Finished { path, log, doc, .. } => (path, log, doc),
            not_run @ Entry::NotRun { .. } => {
                *entry = not_run;
                return Ok(());
            }
            // Finished but never started (a replayed recording cut at its start).
            Entry::Absent => (String::new(), None, Vec::new()),
        };
        let head = entry_head(&FileOut {
            path: &path,
            ok: result.ok,
            exit: result.exit,
            timed_out: result.timed_out,
            duration_ms: result.duration.as_millis() as u64,
            log: log.as_deref(),
            reasons: &result.reasons,
            attempts: result.attempts,
            flaky: result.flaky,
            cached: result.cached,
            not_run: false,
        })?;
        *entry = Entry::Finished {
            path,
            log,
            head,
            doc,
            cached: result.cached,
        };
        Ok(())
    }

    /// The whole document: the outer lines around the files' entries, each dropped once
    /// written (files that never started or never finished are left out).
    pub(super) fn write_document(
        self,
        out: &mut dyn Write,
        summary: &RunSummary,
    ) -> io::Result<()> {
        out.write_all(if summary.ok {
            b"{\n  \"ok\": true,\n  \"files\": ["
        } else {
            b"{\n  \"ok\": false,\n  \"files\": ["
        })?;
        let mut first = true;
        for entry in self.0 {
            let (head, doc) = match &entry {
                Entry::Finished {
                    head, doc, cached, ..
                } => (head, (!*cached && !doc.is_empty()).then_some(doc)),
                Entry::NotRun { head } => (head, None),
                Entry::Absent | Entry::Running { .. } => continue,
            };
            out.write_all(if first { b"\n    " } else { b",\n    " })?;
            first = false;
            out.write_all(head)?;
            out.write_all(doc.map_or(&b"null"[..], Vec::as_slice))?;
            out.write_all(ENTRY_END)?;
        }
        out.write_all(if first {
            b"],\n  \"run\": "
        } else {
            b"\n  ],\n  \"run\": "
        })?;
        let mut run = Vec::with_capacity(1024);
        push_indented(&mut run, &serde_json::to_vec_pretty(summary)?, 1);
        run.extend_from_slice(b"\n}\n");
        out.write_all(&run)
    }
}

/// A file's entry but its summary, in the order of its keys.
#[derive(Serialize)]
struct FileOut<'a> {
    path: &'a str,
    ok: bool,
    exit: Option<ExitInfo>,
    timed_out: bool,
    duration_ms: u64,
    log: Option<&'a str>,
    reasons: &'a [String],
    attempts: u32,
    flaky: bool,
    cached: bool,
    not_run: bool,
}

/// `file` pretty at [`ENTRY_LEVEL`], left open after `"summary": ` for its value.
fn entry_head(file: &FileOut<'_>) -> io::Result<Vec<u8>> {
    let mut text = serde_json::to_vec_pretty(file)?;
    // Reopen the object: drop its closing "\n}" and add the last key.
    text.truncate(text.len().saturating_sub(2));
    text.extend_from_slice(b",\n  \"summary\": ");
    let mut head = Vec::with_capacity(text.len() + 256);
    push_indented(&mut head, &text, ENTRY_LEVEL);
    Ok(head)
}

/// Pretty JSON `text` (written at depth 0) as it would be `level` levels deep: each line but
/// the first indented two spaces a level. Strings hold no raw newline (serde_json escapes it).
fn push_indented(out: &mut Vec<u8>, text: &[u8], level: usize) {
    for (i, line) in text.split(|&b| b == b'\n').enumerate() {
        if i > 0 {
            out.push(b'\n');
            out.resize(out.len() + 2 * level, b' ');
        }
        out.extend_from_slice(line);
    }
}
