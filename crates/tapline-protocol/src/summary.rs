//! `--format summary`: one JSON document with the stream's verdict and every test point
//! (schema in protocol-spec/summary.md, the conformance schema plus extra keys).
//!
//! Written as the stream goes: top-level points go straight to the writer, and only open
//! subtests are held (serialized) in memory until the point that closes them arrives. The
//! keys come in the order the data is known: `asserts` first, the verdict last.
//!
//! Compact JSON for `--format summary` of one stream; pretty (serde_json's layout, nested at
//! a given depth) for the run's summary document, which holds each file's parse summary.
use crate::event::{Assert, Event, Sink, Verdict};
use crate::json::{push_int, push_opt_str, push_str};
use std::io::{self, Write};

/// `PRETTY`: written in serde_json's pretty layout, as a value `base` levels deep in an
/// enclosing document. A type parameter, so that the compact writer (the conformance format,
/// on the parser's hot path) carries none of it.
pub struct SummaryWriter<W: Write, const PRETTY: bool = false> {
    out: W,
    /// Serialized documents of the open subtests, innermost last.
    open: Vec<Doc>,
    /// Whether the top level has written an assert yet.
    top_first: bool,
    /// A subtest that ended and waits for its closing point.
    finished_child: Option<Vec<u8>>,
    error: Option<io::Error>,
    started: bool,
    /// Top-level output gathered into large writes (one copy, then straight to the writer).
    pending: Vec<u8>,
    /// Buffers of closed subtests, kept for the next ones so they stop growing after warm-up.
    spare: Vec<Vec<u8>>,
    /// The pretty level of the top document.
    base: usize,
    /// A `"tests"` member for the end of the compact document ([`SummaryWriter::tests`]).
    tests: Option<Vec<u8>>,
}

/// Size at which gathered top-level output is handed to the writer.
const FLUSH_AT: usize = 128 * 1024;

struct Doc {
    buf: Vec<u8>,
    first: bool,
    /// Its pretty level (0 when compact).
    level: usize,
}

/// A subtest's document is the value of `"subtest"` in an assert of its parent's `asserts`:
/// three levels below the parent.
const SUBTEST_LEVELS: usize = 3;

impl<W: Write> SummaryWriter<W> {
    pub fn new(out: W) -> Self {
        SummaryWriter::with_base(out, 0)
    }
}

impl<W: Write> SummaryWriter<W, true> {
    /// Written as serde_json's pretty printer would write it as a value `level` levels deep
    /// in an enclosing document (no newline at the end), so that it needs no second pass to
    /// be embedded there.
    pub fn pretty(out: W, level: usize) -> Self {
        SummaryWriter::with_base(out, level)
    }
}

impl<W: Write, const PRETTY: bool> SummaryWriter<W, PRETTY> {
    fn with_base(out: W, base: usize) -> Self {
        SummaryWriter {
            out,
            open: Vec::new(),
            top_first: true,
            finished_child: None,
            error: None,
            started: false,
            pending: Vec::with_capacity(FLUSH_AT + 4096),
            spare: Vec::new(),
            base,
            tests: None,
        }
    }

    /// `json` (an object) as the compact document's last member, `"tests"`: the stream's tests
    /// as its reader counts them where they are not its top-level points (node:test). Given
    /// before the stream's `End`.
    pub fn tests(&mut self, json: Vec<u8>) {
        self.tests = Some(json);
    }

    /// The writer back, or the first write error met.
    pub fn finish(mut self) -> io::Result<W> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        self.out.write_all(&self.pending)?;
        self.out.flush()?;
        Ok(self.out)
    }

    fn write(&mut self, event: &Event<'_>) -> io::Result<()> {
        if !self.started {
            self.started = true;
            open_doc::<PRETTY>(&mut self.pending, self.base);
        }
        match event {
            Event::SubtestStart { .. } => {
                let mut buf = self.spare.pop().unwrap_or_default();
                let level = if PRETTY {
                    self.open.last().map_or(self.base, |d| d.level) + SUBTEST_LEVELS
                } else {
                    0
                };
                open_doc::<PRETTY>(&mut buf, level);
                self.open.push(Doc {
                    buf,
                    first: true,
                    level,
                });
            }
            Event::SubtestEnd { verdict, .. } => {
                if let Some(mut doc) = self.open.pop() {
                    if PRETTY {
                        write_verdict_pretty(&mut doc.buf, verdict, doc.level, doc.first);
                    } else {
                        write_verdict(&mut doc.buf, verdict);
                    }
                    if let Some(unclaimed) = self.finished_child.replace(doc.buf) {
                        self.recycle(unclaimed);
                    }
                }
            }
            Event::Assert(a) => self.assert(a)?,
            Event::End { verdict } => {
                if PRETTY {
                    write_verdict_pretty(&mut self.pending, verdict, self.base, self.top_first);
                } else {
                    write_verdict(&mut self.pending, verdict);
                    if let Some(tests) = self.tests.take() {
                        crate::json::append_member(&mut self.pending, "tests", &tests);
                    }
                    self.pending.push(b'\n');
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// A point, written into its subtest's document or, at the top, toward the output.
    fn assert(&mut self, a: &crate::event::Assert<'_>) -> io::Result<()> {
        let child = if a.closes_subtest {
            self.finished_child.take()
        } else {
            None
        };
        match self.open.last_mut() {
            Some(doc) => {
                let first = std::mem::replace(&mut doc.first, false);
                if PRETTY {
                    write_assert_pretty(&mut doc.buf, first, a, child.as_deref(), doc.level);
                } else {
                    write_assert(&mut doc.buf, first, a, child.as_deref());
                }
                if let Some(c) = child {
                    self.recycle(c);
                }
            }
            None => {
                let first = std::mem::replace(&mut self.top_first, false);
                if PRETTY {
                    let level = self.base;
                    write_assert_pretty(&mut self.pending, first, a, child.as_deref(), level);
                } else {
                    write_assert(&mut self.pending, first, a, child.as_deref());
                }
                if let Some(c) = child {
                    self.recycle(c);
                }
                if self.pending.len() >= FLUSH_AT {
                    self.out.write_all(&self.pending)?;
                    self.pending.clear();
                }
            }
        }
        Ok(())
    }

    fn recycle(&mut self, mut buf: Vec<u8>) {
        if self.spare.len() < 16 {
            buf.clear();
            self.spare.push(buf);
        }
    }
}

impl<W: Write, const PRETTY: bool> Sink for SummaryWriter<W, PRETTY> {
    fn event(&mut self, event: &Event<'_>) {
        if self.error.is_none() {
            if let Err(e) = self.write(event) {
                self.error = Some(e);
            }
        }
    }
}

/// Writes one assert object. Hand-written rather than derived: this runs once per test point
/// on the hot path, and serde's generic map machinery was a tenth of the whole parse.
fn write_assert(buf: &mut Vec<u8>, first: bool, a: &Assert<'_>, child: Option<&[u8]>) {
    if !first {
        buf.push(b',');
    }
    buf.extend_from_slice(b"{\"subtest\":");
    buf.extend_from_slice(child.unwrap_or(b"null"));
    buf.extend_from_slice(b",\"id\":");
    match a.id {
        Some(id) => push_int(buf, id),
        None => buf.extend_from_slice(b"null"),
    }
    buf.extend_from_slice(if a.ok {
        b",\"ok\":true,\"name\":"
    } else {
        b",\"ok\":false,\"name\":"
    });
    push_str(buf, &a.name);
    buf.extend_from_slice(b",\"todo\":");
    push_opt_str(buf, a.todo.as_deref());
    buf.extend_from_slice(b",\"skip\":");
    push_opt_str(buf, a.skip.as_deref());
    if let Some(t) = a.duration_ms.filter(|t| t.is_finite()) {
        buf.extend_from_slice(b",\"duration_ms\":");
        buf.extend_from_slice(
            serde_json::to_string(&t)
                .unwrap_or_else(|_| "null".into())
                .as_bytes(),
        );
    }
    buf.extend_from_slice(b",\"line\":");
    push_int(buf, a.line);
    buf.push(b'}');
}

/// Closes an `asserts` array and writes the document's verdict fields and closing brace.
fn write_verdict(buf: &mut Vec<u8>, v: &Verdict<'_>) {
    buf.extend_from_slice(if v.ok {
        b"],\"ok\":true,\"count\":"
    } else {
        b"],\"ok\":false,\"count\":"
    });
    push_int(buf, v.count);
    for (key, n) in [
        (&b",\"pass\":"[..], v.pass),
        (b",\"fail\":", v.fail),
        (b",\"todo\":", v.todo),
        (b",\"skip\":", v.skip),
    ] {
        buf.extend_from_slice(key);
        push_int(buf, n);
    }
    buf.extend_from_slice(b",\"plan\":");
    match &v.plan {
        Some(p) => {
            buf.extend_from_slice(b"{\"start\":");
            push_int(buf, p.start);
            buf.extend_from_slice(b",\"end\":");
            push_int(buf, p.end);
            buf.extend_from_slice(if p.skip_all {
                b",\"skip_all\":true,\"reason\":"
            } else {
                b",\"skip_all\":false,\"reason\":"
            });
            push_opt_str(buf, p.reason.as_deref());
            buf.push(b'}');
        }
        None => buf.extend_from_slice(b"null"),
    }
    buf.extend_from_slice(b",\"bailout\":");
    push_opt_str(buf, v.bailout.as_deref());
    buf.extend_from_slice(b",\"reasons\":[");
    for (i, r) in v.reasons.iter().enumerate() {
        if i > 0 {
            buf.push(b',');
        }
        push_str(buf, r);
    }
    buf.extend_from_slice(b"]}");
}

/// A new line indented to `level`, two spaces a level (serde_json's pretty layout).
fn newline(buf: &mut Vec<u8>, level: usize) {
    const SPACES: &[u8; 64] = &[b' '; 64];
    buf.push(b'\n');
    let mut n = 2 * level;
    while n > 0 {
        let k = n.min(SPACES.len());
        buf.extend_from_slice(&SPACES[..k]);
        n -= k;
    }
}

/// The next key of an object whose keys are at `level`; `key` is `"name": ` with its colon.
fn pretty_key(buf: &mut Vec<u8>, first: bool, level: usize, key: &[u8]) {
    if !first {
        buf.push(b',');
    }
    newline(buf, level);
    buf.extend_from_slice(key);
}

/// A document (at `level` when pretty) up to its open `asserts` array.
fn open_doc<const PRETTY: bool>(buf: &mut Vec<u8>, level: usize) {
    if PRETTY {
        buf.push(b'{');
        pretty_key(buf, true, level + 1, b"\"asserts\": [");
    } else {
        buf.extend_from_slice(b"{\"asserts\":[");
    }
}

/// [`write_assert`] pretty, as an element of the `asserts` of a document at `level`.
fn write_assert_pretty(
    buf: &mut Vec<u8>,
    first: bool,
    a: &Assert<'_>,
    child: Option<&[u8]>,
    level: usize,
) {
    let item = level + 2;
    let key = item + 1;
    if !first {
        buf.push(b',');
    }
    newline(buf, item);
    buf.push(b'{');
    pretty_key(buf, true, key, b"\"subtest\": ");
    buf.extend_from_slice(child.unwrap_or(b"null"));
    pretty_key(buf, false, key, b"\"id\": ");
    match a.id {
        Some(id) => push_int(buf, id),
        None => buf.extend_from_slice(b"null"),
    }
    pretty_key(buf, false, key, b"\"ok\": ");
    buf.extend_from_slice(if a.ok { b"true" } else { b"false" });
    pretty_key(buf, false, key, b"\"name\": ");
    push_str(buf, &a.name);
    pretty_key(buf, false, key, b"\"todo\": ");
    push_opt_str(buf, a.todo.as_deref());
    pretty_key(buf, false, key, b"\"skip\": ");
    push_opt_str(buf, a.skip.as_deref());
    if let Some(t) = a.duration_ms.filter(|t| t.is_finite()) {
        pretty_key(buf, false, key, b"\"duration_ms\": ");
        buf.extend_from_slice(
            serde_json::to_string(&t)
                .unwrap_or_else(|_| "null".into())
                .as_bytes(),
        );
    }
    pretty_key(buf, false, key, b"\"line\": ");
    push_int(buf, a.line);
    newline(buf, item);
    buf.push(b'}');
}

/// [`write_verdict`] pretty, for a document at `level`; `empty`: it has no asserts.
fn write_verdict_pretty(buf: &mut Vec<u8>, v: &Verdict<'_>, level: usize, empty: bool) {
    let key = level + 1;
    if !empty {
        newline(buf, key);
    }
    buf.push(b']');
    pretty_key(buf, false, key, b"\"ok\": ");
    buf.extend_from_slice(if v.ok { b"true" } else { b"false" });
    for (name, n) in [
        (&b"\"count\": "[..], v.count),
        (b"\"pass\": ", v.pass),
        (b"\"fail\": ", v.fail),
        (b"\"todo\": ", v.todo),
        (b"\"skip\": ", v.skip),
    ] {
        pretty_key(buf, false, key, name);
        push_int(buf, n);
    }
    pretty_key(buf, false, key, b"\"plan\": ");
    match &v.plan {
        Some(p) => {
            let inner = key + 1;
            buf.push(b'{');
            pretty_key(buf, true, inner, b"\"start\": ");
            push_int(buf, p.start);
            pretty_key(buf, false, inner, b"\"end\": ");
            push_int(buf, p.end);
            pretty_key(buf, false, inner, b"\"skip_all\": ");
            buf.extend_from_slice(if p.skip_all { b"true" } else { b"false" });
            pretty_key(buf, false, inner, b"\"reason\": ");
            push_opt_str(buf, p.reason.as_deref());
            newline(buf, key);
            buf.push(b'}');
        }
        None => buf.extend_from_slice(b"null"),
    }
    pretty_key(buf, false, key, b"\"bailout\": ");
    push_opt_str(buf, v.bailout.as_deref());
    pretty_key(buf, false, key, b"\"reasons\": [");
    for (i, r) in v.reasons.iter().enumerate() {
        if i > 0 {
            buf.push(b',');
        }
        newline(buf, key + 1);
        push_str(buf, r);
    }
    if !v.reasons.is_empty() {
        newline(buf, key);
    }
    buf.push(b']');
    newline(buf, level);
    buf.push(b'}');
}
