//! The run's summary document, assembled as the run goes: each file's entry is written
//! (pretty, at its final depth) while the file runs and as it ends, so that the end of the run
//! only writes the outer lines around ready entries. Not generic over the writer: the
//! per-point work is compiled once, here, whatever `SummaryRun` writes to.
//!
//! Memory stays bounded whatever the point count: a running file's summary past
//! [`SPILL_AT`] bytes, and finished files' summaries past [`KEPT_AT`] in all, go to the run's
//! spool (an unnamed temporary file, as JUnit's cases do) and are copied from it into the
//! document at the end: the same bytes either way.
use crate::event::run::{ExitInfo, FailureReason, FileInfo, FileResult, RunSummary};
use crate::event::{Event, Sink};
use crate::explain::{Explained, Explanation};
use crate::report::record::spool::Spool;
use crate::report::summary::SummaryWriter;
use serde::Serialize;
use std::io::{self, Write};
use std::ops::Range;
use std::sync::{Arc, Mutex, PoisonError};

/// The run's files by index, as far as each has got.
pub(super) struct Entries {
    files: Vec<Entry>,
    /// The finished files' parse summaries kept in memory.
    store: Store,
    /// The run's spool: summaries, or their parts, past the bounds.
    spill: Arc<Spill>,
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
    /// Bytes of the summaries in it not written yet.
    held: usize,
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

/// Bytes of a running file's summary held in memory; past them, the summary goes to the
/// spool (a file of a million points writes 221 MB of it).
pub(super) const SPILL_AT: usize = 1 << 20;

/// Bytes of finished files' summaries held in memory in all; the next ones go to the spool.
pub(super) const KEPT_AT: usize = 16 << 20;

/// Where summaries go past the bounds: the run's spool, made when first needed.
pub(super) struct Spill {
    /// A running file's bytes held in memory ([`SPILL_AT`]; less in tests).
    at: usize,
    /// Finished files' bytes held in memory in all ([`KEPT_AT`]; less in tests).
    kept_at: usize,
    spool: Mutex<SpoolState>,
}

enum SpoolState {
    NotYet,
    Open(Spool),
    /// No temporary file could be made: summaries stay in memory.
    Unavailable,
}

/// A running file's parse summary as its writer hands it over (in writes of up to 128 KiB):
/// in memory up to [`Spill::at`] bytes, then appended to the spool.
struct Summary {
    mem: Vec<u8>,
    /// Its bytes in the spool, in order (before `mem`'s).
    spooled: Vec<Range<u64>>,
    spill: Arc<Spill>,
}

impl Write for Summary {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.spooled.is_empty() && self.mem.len() + buf.len() <= self.spill.at {
            self.mem.extend_from_slice(buf);
        } else {
            self.spill(buf);
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl Summary {
    /// `mem`, then `buf`, to the spool (kept in memory when there is none).
    fn spill(&mut self, buf: &[u8]) {
        let mut state = self.spill.lock();
        let Some(spool) = state.open() else {
            self.mem.extend_from_slice(buf);
            return;
        };
        if !self.mem.is_empty() {
            push_range(&mut self.spooled, spool.write(&self.mem));
            self.mem.clear();
        }
        if !buf.is_empty() {
            push_range(&mut self.spooled, spool.write(buf));
        }
    }
}

/// `range` after `ranges`, joined to the last one when it follows it.
fn push_range(ranges: &mut Vec<Range<u64>>, range: Range<u64>) {
    match ranges.last_mut() {
        Some(last) if last.end == range.start => last.end = range.end,
        _ => ranges.push(range),
    }
}

impl SpoolState {
    fn open(&mut self) -> Option<&mut Spool> {
        if matches!(self, SpoolState::NotYet) {
            *self = Spool::create().map_or(SpoolState::Unavailable, SpoolState::Open);
        }
        match self {
            SpoolState::Open(spool) => Some(spool),
            SpoolState::NotYet | SpoolState::Unavailable => None,
        }
    }
}

impl Spill {
    fn new(at: usize, kept_at: usize) -> Self {
        Spill {
            at,
            kept_at,
            spool: Mutex::new(SpoolState::NotYet),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, SpoolState> {
        self.spool.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The bytes at `ranges` of the spool to `out`.
    fn copy(&self, ranges: &[Range<u64>], out: &mut dyn Write) -> io::Result<()> {
        use std::os::unix::fs::FileExt;
        let mut state = self.lock();
        let SpoolState::Open(spool) = &mut *state else {
            return Err(gone());
        };
        spool.flush();
        let file = spool.file().ok_or_else(gone)?;
        let mut buf = vec![0; 256 << 10];
        for range in ranges {
            let mut at = range.start;
            while at < range.end {
                let n = buf.len().min((range.end - at) as usize);
                file.read_exact_at(&mut buf[..n], at)?;
                out.write_all(&buf[..n])?;
                at += n as u64;
            }
        }
        Ok(())
    }
}

/// Writing the spool failed mid-run (a full disk): the summaries in it are lost.
fn gone() -> io::Error {
    io::Error::other("its spool of parse summaries is gone")
}

/// Where a finished file's parse summary is.
enum Stored {
    Kept(Span),
    Spooled(Vec<Range<u64>>),
}

/// A file's place in `files[]`.
enum Entry {
    /// Not started (yet): left out of the document.
    Absent,
    Running {
        path: String,
        log: Option<String>,
        /// Its parse summary, pretty at [`SUMMARY_LEVEL`].
        parse: SummaryWriter<Summary, true>,
        /// Its failing points, as the run explained them.
        failures: Vec<Arc<Explained>>,
    },
    Finished {
        path: String,
        log: Option<String>,
        /// The entry up to its `"summary": `.
        head: Vec<u8>,
        /// The parse summary; none when no event came.
        doc: Option<Stored>,
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

impl Default for Entries {
    fn default() -> Self {
        Entries::spilling_at(SPILL_AT, KEPT_AT)
    }
}

impl Entries {
    /// Entries whose running files hold `at` bytes of summary in memory, and finished ones
    /// `kept_at` in all.
    pub(super) fn spilling_at(at: usize, kept_at: usize) -> Self {
        Entries {
            files: Vec::new(),
            store: Store::default(),
            spill: Arc::new(Spill::new(at, kept_at)),
            spare: Vec::new(),
        }
    }

    fn slot(&mut self, index: usize) -> &mut Entry {
        if self.files.len() <= index {
            self.files.resize_with(index + 1, || Entry::Absent);
        }
        &mut self.files[index]
    }

    /// A file (or a retry of it: its earlier attempt's points are dropped) starts.
    pub(super) fn started(&mut self, file: &FileInfo) {
        let summary = Summary {
            mem: self.spare.pop().unwrap_or_default(),
            spooled: Vec::new(),
            spill: Arc::clone(&self.spill),
        };
        *self.slot(file.index) = Entry::Running {
            path: file.rel.clone(),
            log: file.log.as_ref().map(|p| p.display().to_string()),
            parse: SummaryWriter::pretty(summary, SUMMARY_LEVEL),
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
                let doc = stored(&mut self.store, &mut self.spare, parse.finish()?);
                explained = failures;
                (path, log, doc)
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
                } => (head, doc.as_ref(), *cached),
                Entry::NotRun { head } => (head, None, false),
                Entry::Absent | Entry::Running { .. } => continue,
            };
            out.write_all(if first { b"\n    " } else { b",\n    " })?;
            first = false;
            out.write_all(head)?;
            match doc {
                // A cached file sent no stream: nothing parsed to show.
                Some(Stored::Kept(span)) if !cached => out.write_all(self.store.get(*span))?,
                Some(Stored::Spooled(ranges)) if !cached => self.spill.copy(ranges, out)?,
                _ => out.write_all(b"null")?,
            }
            out.write_all(ENTRY_END)?;
            if let Some(Stored::Kept(span)) = doc {
                self.store.written(*span);
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

/// A finished file's summary, kept in memory (`store`) while the kept ones are under
/// [`KEPT_AT`], else in the spool; `None` when no event came. Its buffer goes to `spare`.
fn stored(store: &mut Store, spare: &mut Vec<Vec<u8>>, mut summary: Summary) -> Option<Stored> {
    let over = store.held + summary.mem.len() > summary.spill.kept_at;
    if !summary.mem.is_empty() && (over || !summary.spooled.is_empty()) {
        // All of it in the spool (or, without one, all of it still in memory).
        summary.spill(&[]);
    }
    let stored = if summary.spooled.is_empty() {
        (!summary.mem.is_empty()).then(|| Stored::Kept(store.add(&summary.mem)))
    } else {
        Some(Stored::Spooled(std::mem::take(&mut summary.spooled)))
    };
    summary.mem.clear();
    spare.push(summary.mem);
    stored
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
        self.held += doc.len();
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
        self.held = self.held.saturating_sub(span.len);
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
