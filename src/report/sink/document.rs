//! The run's summary document, assembled as the run goes: each file's entry is written
//! (pretty, at its final depth) while the file runs and as it ends, so that the end of the run
//! only writes the outer lines around ready entries. Not generic over the writer: the
//! per-point work is compiled once, here, whatever `SummaryRun` writes to.
use crate::event::run::{ExitInfo, FailureReason, FileInfo, FileResult, RunSummary};
use crate::event::{Event, Sink};
use crate::explain::{Explained, Explanation};
use crate::report::summary::SummaryWriter;
use serde::Serialize;
use std::io::{self, Write};
use std::sync::Arc;

/// The run's files by index, as far as each has got.
#[derive(Default)]
pub(super) struct Entries {
    files: Vec<Entry>,
    /// The finished files' parse summaries.
    store: Store,
    /// Buffers of finished files' summaries, emptied, for the next files' (a big file's
    /// summary grows to hundreds of kilobytes: fresh memory for each would be page faults
    /// all over again).
    spare: Vec<Vec<u8>>,
}

/// Finished parse summaries packed into large blocks, in the order the files finished.
/// Freed, a large block goes back to the system (a small one stays in the heap as free space),
/// so dropping each block once the document is written past it lowers the peak while the
/// document is written out: files finish roughly in index order.
#[derive(Default)]
struct Store {
    blocks: Vec<Block>,
}

struct Block {
    text: Vec<u8>,
    /// Summaries in it not written yet.
    live: usize,
}

/// Where a summary is in the [`Store`].
#[derive(Clone, Copy)]
struct Span {
    block: usize,
    start: usize,
    len: usize,
}

/// Size of a block: a large allocation, and a small part of a large run's document (small in
/// tests, so that their runs fill many blocks).
const BLOCK: usize = if cfg!(test) { 4 << 10 } else { 4 << 20 };

/// A file's place in `files[]`.
enum Entry {
    /// Not started (yet): left out of the document.
    Absent,
    Running {
        path: String,
        log: Option<String>,
        /// Its parse summary, pretty at [`SUMMARY_LEVEL`].
        parse: SummaryWriter<Vec<u8>, true>,
        /// Its failing points, as the run explained them.
        failures: Vec<Arc<Explained>>,
    },
    Finished {
        path: String,
        log: Option<String>,
        /// The entry up to its `"summary": `.
        head: Vec<u8>,
        /// The parse summary; none when no event came.
        doc: Option<Span>,
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
        if self.files.len() <= index {
            self.files.resize_with(index + 1, || Entry::Absent);
        }
        &mut self.files[index]
    }

    /// A file (or a retry of it: its earlier attempt's points are dropped) starts.
    pub(super) fn started(&mut self, file: &FileInfo) {
        let buffer = self.spare.pop().unwrap_or_default();
        *self.slot(file.index) = Entry::Running {
            path: file.rel.clone(),
            log: file.log.as_ref().map(|p| p.display().to_string()),
            parse: SummaryWriter::pretty(buffer, SUMMARY_LEVEL),
            failures: Vec::new(),
        };
    }

    /// A failing point of a running file, explained (a subtest said by its children is not
    /// one of its own).
    pub(super) fn explained(&mut self, index: usize, explained: &Arc<Explained>) {
        if let Some(Entry::Running { failures, .. }) = self.files.get_mut(index) {
            if matches!(&**explained, Explained::Failure(e) if !e.by_children) {
                failures.push(Arc::clone(explained));
            }
        }
    }

    pub(super) fn not_run(&mut self, file: &FileInfo) -> io::Result<()> {
        let head = entry_head(&FileOut {
            path: &file.rel,
            ok: false,
            exit: None,
            timed_out: false,
            duration_ms: 0,
            log: None,
            reasons: &[FailureReason::NotRun],
            attempts: 0,
            flaky: false,
            cached: false,
            not_run: true,
            no_tests: false,
            tests: None,
            failures: Vec::new(),
        })?;
        *self.slot(file.index) = Entry::NotRun { head };
        Ok(())
    }

    pub(super) fn tap(&mut self, index: usize, event: &Event<'_>) {
        if let Some(Entry::Running { parse, .. }) = self.files.get_mut(index) {
            parse.event(event);
        }
    }

    /// The file's entry, but for its place in the document, is final.
    pub(super) fn finished(&mut self, index: usize, result: &FileResult) -> io::Result<()> {
        let Some(entry) = self.files.get_mut(index) else {
            return Ok(());
        };
        let mut explained = Vec::new();
        let (path, log, doc) = match std::mem::replace(entry, Entry::Absent) {
            Entry::Running {
                path,
                log,
                parse,
                failures,
            } => {
                let mut doc = parse.finish()?;
                let span = (!doc.is_empty()).then(|| self.store.add(&doc));
                doc.clear();
                self.spare.push(doc);
                explained = failures;
                (path, log, span)
            }
            Entry::Finished { path, log, doc, .. } => (path, log, doc),
            not_run @ Entry::NotRun { .. } => {
                *entry = not_run;
                return Ok(());
            }
            // Finished but never started (a replayed recording cut at its start).
            Entry::Absent => (String::new(), None, None),
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
            no_tests: result.no_tests,
            tests: Some(&result.tally),
            failures: explained
                .iter()
                .filter_map(|e| match &**e {
                    Explained::Failure(e) => Some(e),
                    Explained::Rest { .. } | Explained::Heading { .. } => None,
                })
                .collect(),
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
        mut self,
        out: &mut dyn Write,
        summary: &RunSummary,
        coverage: Option<&serde_json::Value>,
    ) -> io::Result<()> {
        out.write_all(if summary.ok {
            b"{\n  \"ok\": true,\n  \"files\": ["
        } else {
            b"{\n  \"ok\": false,\n  \"files\": ["
        })?;
        let mut first = true;
        for entry in std::mem::take(&mut self.files) {
            let (head, doc, cached) = match &entry {
                Entry::Finished {
                    head, doc, cached, ..
                } => (head, *doc, *cached),
                Entry::NotRun { head } => (head, None, false),
                Entry::Absent | Entry::Running { .. } => continue,
            };
            out.write_all(if first { b"\n    " } else { b",\n    " })?;
            first = false;
            out.write_all(head)?;
            match doc {
                // A cached file sent no stream: nothing parsed to show.
                Some(span) if !cached => out.write_all(self.store.get(span))?,
                _ => out.write_all(b"null")?,
            }
            out.write_all(ENTRY_END)?;
            if let Some(span) = doc {
                self.store.written(span);
            }
        }
        out.write_all(if first {
            b"],\n  \"run\": "
        } else {
            b"\n  ],\n  \"run\": "
        })?;
        let mut run = Vec::with_capacity(1024);
        push_indented(&mut run, &serde_json::to_vec_pretty(summary)?, 1);
        if let Some(coverage) = coverage {
            // `run --coverage`: the run's coverage after the run.
            run.extend_from_slice(b",\n  \"coverage\": ");
            push_indented(&mut run, &serde_json::to_vec_pretty(coverage)?, 1);
        }
        run.extend_from_slice(b"\n}\n");
        out.write_all(&run)
    }
}

impl Store {
    fn add(&mut self, doc: &[u8]) -> Span {
        let fits = self
            .blocks
            .last()
            .is_some_and(|b| b.text.capacity() - b.text.len() >= doc.len());
        if !fits {
            self.blocks.push(Block {
                text: Vec::with_capacity(doc.len().max(BLOCK)),
                live: 0,
            });
        }
        let block = self.blocks.len() - 1;
        let b = &mut self.blocks[block];
        let start = b.text.len();
        b.text.extend_from_slice(doc);
        b.live += 1;
        Span {
            block,
            start,
            len: doc.len(),
        }
    }

    fn get(&self, span: Span) -> &[u8] {
        self.blocks
            .get(span.block)
            .and_then(|b| b.text.get(span.start..span.start + span.len))
            .unwrap_or_default()
    }

    /// The summary is in the document: its block goes once all of its summaries are.
    fn written(&mut self, span: Span) {
        if let Some(b) = self.blocks.get_mut(span.block) {
            b.live = b.live.saturating_sub(1);
            if b.live == 0 {
                b.text = Vec::new();
            }
        }
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
    reasons: &'a [FailureReason],
    attempts: u32,
    flaky: bool,
    cached: bool,
    not_run: bool,
    /// Ran no tests and did not fail (only written when true).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    no_tests: bool,
    /// Its tests counted as the summary line counts them ([`crate::event::leaves`]): the
    /// producer's own counts in the dialect that announces every test, where `summary` has
    /// the stream's top-level points (not
    /// written for a file that never ran).
    #[serde(skip_serializing_if = "Option::is_none")]
    tests: Option<&'a crate::event::run::Tally>,
    /// Its failing points as the run explained them (only written when there are some).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    failures: Vec<&'a Explanation>,
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
