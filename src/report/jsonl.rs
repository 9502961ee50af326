//! `--format jsonl`: one JSON event per line, written as the stream is parsed; and the
//! hand-written JSON those lines (and the run's `--format jsonl` / `-o r.jsonl`) are made of.
//!
//! Every line is byte for byte what `serde_json::to_writer` writes for the event (the tests
//! compare the two on every event of test-data/, on generated strings, and on every variant).
//! serde's derived, internally tagged serializers go through a map per event and a call per
//! key, number and string fragment, which for 200,000 test points was most of the cost of
//! `-o r.jsonl`; here each fixed stretch of keys is one copy. Shapes that are rare (problems,
//! the run's lifecycle events) still go through serde.
use super::json::{push_int, push_opt_str, push_str, push_str_array};
use crate::event::run::RunEvent;
use crate::event::{Assert, Block, Event, Plan, Sink, Verdict};
use std::io::{self, Write};

#[cfg(test)]
mod tests;

pub struct JsonlWriter<W: Write> {
    out: W,
    /// One line, made whole before it is written: one write per event through `out`'s layers.
    line: Vec<u8>,
    error: Option<io::Error>,
    /// A `"tests"` member for the `end` record ([`JsonlWriter::tests`]).
    tests: Option<Vec<u8>>,
}

impl<W: Write> JsonlWriter<W> {
    pub fn new(out: W) -> Self {
        JsonlWriter {
            out,
            line: Vec::with_capacity(512),
            error: None,
            tests: None,
        }
    }

    /// `json` (an object) as the `end` record's last member, `"tests"`: the stream's tests as
    /// its reader counts them where they are not its top-level points (the dialect that
    /// announces every test, [`crate::event::leaves::NodeTest`]). Given
    /// before the stream's `End`.
    pub fn tests(&mut self, json: Vec<u8>) {
        self.tests = Some(json);
    }

    /// Hands the lines written so far to the reader (a live `--format jsonl`); an earlier
    /// write's error comes back here.
    ///
    /// # Errors
    ///
    /// Writing failed, now or before.
    pub fn flush(&mut self) -> io::Result<()> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        self.out.flush()
    }

    pub fn finish(mut self) -> io::Result<W> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        self.out.flush()?;
        Ok(self.out)
    }
}

impl<W: Write> Sink for JsonlWriter<W> {
    fn event(&mut self, event: &Event<'_>) {
        if self.error.is_some() {
            return;
        }
        self.line.clear();
        let r = write_event(&mut self.line, event).and_then(|()| {
            let tests = match event {
                Event::End { .. } => self.tests.take(),
                _ => None,
            };
            if let Some(tests) = tests {
                super::json::append_member(&mut self.line, "tests", &tests);
            }
            self.line.push(b'\n');
            self.out.write_all(&self.line)
        });
        if let Err(e) = r {
            self.error = Some(e);
        }
    }
}

/// Appends a run event as JSON (no newline): what `serde_json::to_writer` writes.
pub(crate) fn write_run_event(buf: &mut Vec<u8>, ev: &RunEvent) -> io::Result<()> {
    match ev {
        RunEvent::Tap { run, file, event } => {
            buf.extend_from_slice(b"{\"type\":\"tap\",\"run\":");
            push_int(buf, *run);
            buf.extend_from_slice(b",\"file\":");
            push_int(buf, *file);
            buf.extend_from_slice(b",\"event\":");
            write_event(buf, event)?;
            buf.push(b'}');
        }
        RunEvent::Stderr { run, file, text } => {
            buf.extend_from_slice(b"{\"type\":\"stderr\",\"run\":");
            push_int(buf, *run);
            buf.extend_from_slice(b",\"file\":");
            push_int(buf, *file);
            buf.extend_from_slice(b",\"text\":");
            push_str(buf, text);
            buf.push(b'}');
        }
        // A few per file or per run: not worth a second serializer to keep in step.
        _ => serde_json::to_writer(&mut *buf, ev)?,
    }
    Ok(())
}

/// Appends a TAP event as JSON (no newline): what `serde_json::to_writer` writes.
///
/// The patterns name every field (no `..`), so a field added to an event fails to compile
/// here until it is written; the tests catch one written out of place.
pub(crate) fn write_event(buf: &mut Vec<u8>, ev: &Event<'_>) -> io::Result<()> {
    match ev {
        Event::Assert(a) => write_assert(buf, a)?,
        Event::AssertBegin {
            depth,
            line,
            ok,
            id,
            name,
            skip,
            todo,
        } => {
            head(buf, b"{\"type\":\"assert_begin\",\"depth\":", *depth, *line);
            write_point_line(buf, *ok, *id, name, skip.as_deref(), todo.as_deref());
        }
        Event::Output { depth, line, text } => {
            head(buf, b"{\"type\":\"output\",\"depth\":", *depth, *line);
            key_str(buf, b",\"text\":", text);
        }
        Event::Comment { depth, line, text } => {
            head(buf, b"{\"type\":\"comment\",\"depth\":", *depth, *line);
            key_str(buf, b",\"text\":", text);
        }
        Event::Protocol { line, version } => {
            buf.extend_from_slice(b"{\"type\":\"protocol\",\"line\":");
            push_int(buf, *line);
            key_str(buf, b",\"version\":", version);
        }
        Event::Version {
            depth,
            line,
            version,
        } => {
            head(buf, b"{\"type\":\"version\",\"depth\":", *depth, *line);
            buf.extend_from_slice(b",\"version\":");
            push_int(buf, *version);
        }
        Event::Plan { depth, line, plan } => {
            head(buf, b"{\"type\":\"plan\",\"depth\":", *depth, *line);
            buf.extend_from_slice(b",\"plan\":");
            write_plan(buf, plan);
        }
        Event::Pragma {
            depth,
            line,
            key,
            enabled,
        } => {
            head(buf, b"{\"type\":\"pragma\",\"depth\":", *depth, *line);
            key_str(buf, b",\"key\":", key);
            key_bool(buf, b",\"enabled\":", *enabled);
        }
        Event::SubtestStart {
            depth,
            line,
            name,
            buffered,
        } => {
            head(
                buf,
                b"{\"type\":\"subtest_start\",\"depth\":",
                *depth,
                *line,
            );
            key_str(buf, b",\"name\":", name);
            key_bool(buf, b",\"buffered\":", *buffered);
        }
        Event::SubtestEnd { depth, verdict } => {
            buf.extend_from_slice(b"{\"type\":\"subtest_end\",\"depth\":");
            push_int(buf, *depth);
            buf.extend_from_slice(b",\"verdict\":");
            write_verdict(buf, verdict);
        }
        Event::BailOut {
            depth,
            line,
            reason,
        } => {
            head(buf, b"{\"type\":\"bail_out\",\"depth\":", *depth, *line);
            key_str(buf, b",\"reason\":", reason);
        }
        Event::V2Event { depth, line, json } => {
            head(buf, b"{\"type\":\"v2_event\",\"depth\":", *depth, *line);
            key_str(buf, b",\"json\":", json);
        }
        Event::V2Block { depth, line, block } => {
            head(buf, b"{\"type\":\"v2_block\",\"depth\":", *depth, *line);
            buf.extend_from_slice(b",\"block\":");
            write_block(buf, block);
        }
        Event::Marker {
            depth,
            line,
            kind,
            payload,
        } => {
            head(buf, b"{\"type\":\"marker\",\"depth\":", *depth, *line);
            key_str(buf, b",\"kind\":", kind);
            key_str(buf, b",\"payload\":", payload);
        }
        Event::End { verdict } => {
            buf.extend_from_slice(b"{\"type\":\"end\",\"verdict\":");
            write_verdict(buf, verdict);
        }
        // Rare, and its kind's name is serde's to give.
        Event::Problem(_) => return Ok(serde_json::to_writer(&mut *buf, ev)?),
    }
    buf.push(b'}');
    Ok(())
}

/// An assert's tag and fields, without the closing brace.
fn write_assert(buf: &mut Vec<u8>, a: &Assert<'_>) -> io::Result<()> {
    let Assert {
        depth,
        line,
        ok,
        id,
        name,
        skip,
        todo,
        duration_ms,
        diagnostics,
        meta,
        blocks,
        closes_subtest,
        not_selected,
    } = a;
    head(buf, b"{\"type\":\"assert\",\"depth\":", *depth, *line);
    write_point_line(buf, *ok, *id, name, skip.as_deref(), todo.as_deref());
    buf.extend_from_slice(b",\"duration_ms\":");
    match duration_ms {
        // serde_json's own float formatting (and its `null` for NaN and infinities).
        Some(t) => serde_json::to_writer(&mut *buf, t)?,
        None => buf.extend_from_slice(b"null"),
    }
    key_opt_str(buf, b",\"diagnostics\":", diagnostics.as_deref());
    key_opt_str(buf, b",\"meta\":", meta.as_deref());
    buf.extend_from_slice(b",\"blocks\":[");
    for (i, b) in blocks.iter().enumerate() {
        if i > 0 {
            buf.push(b',');
        }
        write_block(buf, b);
    }
    buf.push(b']');
    key_bool(buf, b",\"closes_subtest\":", *closes_subtest);
    if *not_selected {
        // Absent when false, as serde writes it: a stream's events are as they were.
        buf.extend_from_slice(b",\"not_selected\":true");
    }
    Ok(())
}

/// What a test point's line says, in the order both `assert` and `assert_begin` have it.
fn write_point_line(
    buf: &mut Vec<u8>,
    ok: bool,
    id: Option<u64>,
    name: &str,
    skip: Option<&str>,
    todo: Option<&str>,
) {
    buf.extend_from_slice(if ok {
        b",\"ok\":true,\"id\":"
    } else {
        b",\"ok\":false,\"id\":"
    });
    match id {
        Some(id) => push_int(buf, id),
        None => buf.extend_from_slice(b"null"),
    }
    key_str(buf, b",\"name\":", name);
    key_opt_str(buf, b",\"skip\":", skip);
    key_opt_str(buf, b",\"todo\":", todo);
}

fn write_block(buf: &mut Vec<u8>, b: &Block<'_>) {
    let Block {
        kind,
        payload,
        unterminated,
    } = b;
    key_str(buf, b"{\"kind\":", kind);
    key_str(buf, b",\"payload\":", payload);
    key_bool(buf, b",\"unterminated\":", *unterminated);
    buf.push(b'}');
}

fn write_plan(buf: &mut Vec<u8>, p: &Plan<'_>) {
    let Plan {
        start,
        end,
        skip_all,
        reason,
    } = p;
    buf.extend_from_slice(b"{\"start\":");
    push_int(buf, *start);
    buf.extend_from_slice(b",\"end\":");
    push_int(buf, *end);
    key_bool(buf, b",\"skip_all\":", *skip_all);
    key_opt_str(buf, b",\"reason\":", reason.as_deref());
    buf.push(b'}');
}

fn write_verdict(buf: &mut Vec<u8>, v: &Verdict<'_>) {
    let Verdict {
        ok,
        count,
        pass,
        fail,
        todo,
        skip,
        plan,
        bailout,
        reasons,
    } = v;
    buf.extend_from_slice(if *ok {
        b"{\"ok\":true,\"count\":"
    } else {
        b"{\"ok\":false,\"count\":"
    });
    push_int(buf, *count);
    for (key, n) in [
        (&b",\"pass\":"[..], pass),
        (b",\"fail\":", fail),
        (b",\"todo\":", todo),
        (b",\"skip\":", skip),
    ] {
        buf.extend_from_slice(key);
        push_int(buf, *n);
    }
    buf.extend_from_slice(b",\"plan\":");
    match plan {
        Some(p) => write_plan(buf, p),
        None => buf.extend_from_slice(b"null"),
    }
    key_opt_str(buf, b",\"bailout\":", bailout.as_deref());
    buf.extend_from_slice(b",\"reasons\":");
    push_str_array(buf, reasons);
    buf.push(b'}');
}

/// `start` (the opening brace, tag and `"depth":` key), the depth, then `,"line":N`.
fn head(buf: &mut Vec<u8>, start: &[u8], depth: u32, line: u64) {
    buf.extend_from_slice(start);
    push_int(buf, depth);
    buf.extend_from_slice(b",\"line\":");
    push_int(buf, line);
}

fn key_str(buf: &mut Vec<u8>, key: &[u8], s: &str) {
    buf.extend_from_slice(key);
    push_str(buf, s);
}

fn key_opt_str(buf: &mut Vec<u8>, key: &[u8], s: Option<&str>) {
    buf.extend_from_slice(key);
    push_opt_str(buf, s);
}

fn key_bool(buf: &mut Vec<u8>, key: &[u8], b: bool) {
    buf.extend_from_slice(key);
    buf.extend_from_slice(if b { b"true" } else { b"false" });
}
