//! `--format summary`: one JSON document with the stream's verdict and every test point
//! (schema in protocol-spec/summary.md, the conformance schema plus extra keys).
//!
//! Written as the stream goes: top-level points go straight to the writer, and only open
//! subtests are held (serialized) in memory until the point that closes them arrives. The
//! keys come in the order the data is known: `asserts` first, the verdict last.
use crate::event::{Assert, Event, Sink, Verdict};
use serde::Serialize;
use std::io::{self, Write};

pub struct SummaryWriter<W: Write> {
    out: W,
    /// Serialized documents of the open subtests, innermost last.
    open: Vec<Doc>,
    /// Whether the top level has written an assert yet.
    top_first: bool,
    /// A subtest that ended and waits for its closing point.
    finished_child: Option<Vec<u8>>,
    error: Option<io::Error>,
    started: bool,
}

struct Doc {
    buf: Vec<u8>,
    first: bool,
}

impl<W: Write> SummaryWriter<W> {
    pub fn new(out: W) -> Self {
        SummaryWriter {
            out,
            open: Vec::new(),
            top_first: true,
            finished_child: None,
            error: None,
            started: false,
        }
    }

    /// The writer back, or the first write error met.
    pub fn finish(mut self) -> io::Result<W> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        self.out.flush()?;
        Ok(self.out)
    }

    fn write(&mut self, event: Event<'_>) -> io::Result<()> {
        if !self.started {
            self.started = true;
            self.out.write_all(b"{\"asserts\":[")?;
        }
        match event {
            Event::SubtestStart { .. } => {
                let mut buf = Vec::with_capacity(256);
                buf.extend_from_slice(b"{\"asserts\":[");
                self.open.push(Doc { buf, first: true });
            }
            Event::SubtestEnd { verdict, .. } => {
                if let Some(mut doc) = self.open.pop() {
                    write_verdict(&mut doc.buf, &verdict)?;
                    self.finished_child = Some(doc.buf);
                }
            }
            Event::Assert(a) => {
                let child = if a.closes_subtest {
                    self.finished_child.take()
                } else {
                    None
                };
                match self.open.last_mut() {
                    Some(doc) => {
                        let first = std::mem::replace(&mut doc.first, false);
                        write_assert(&mut doc.buf, first, &a, child.as_deref())?;
                    }
                    None => {
                        let first = std::mem::replace(&mut self.top_first, false);
                        write_assert(&mut self.out, first, &a, child.as_deref())?;
                    }
                }
            }
            Event::End { verdict } => {
                write_verdict(&mut self.out, &verdict)?;
                self.out.write_all(b"\n")?;
            }
            _ => {}
        }
        Ok(())
    }
}

impl<W: Write> Sink for SummaryWriter<W> {
    fn event(&mut self, event: Event<'_>) {
        if self.error.is_none() {
            if let Err(e) = self.write(event) {
                self.error = Some(e);
            }
        }
    }
}

#[derive(Serialize)]
struct AssertFields<'a> {
    id: Option<u64>,
    ok: bool,
    name: &'a str,
    todo: Option<&'a str>,
    skip: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    duration_ms: Option<f64>,
    line: u64,
}

fn write_assert(
    out: &mut impl Write,
    first: bool,
    a: &Assert<'_>,
    child: Option<&[u8]>,
) -> io::Result<()> {
    if !first {
        out.write_all(b",")?;
    }
    out.write_all(b"{\"subtest\":")?;
    match child {
        Some(doc) => out.write_all(doc)?,
        None => out.write_all(b"null")?,
    }
    let fields = AssertFields {
        id: a.id,
        ok: a.ok,
        name: &a.name,
        todo: a.todo.as_deref(),
        skip: a.skip.as_deref(),
        duration_ms: a.duration_ms,
        line: a.line,
    };
    // Splice the fields after "subtest": serialize `{...}` and drop its opening brace.
    let mut buf = serde_json::to_vec(&fields).map_err(io::Error::other)?;
    buf[0] = b',';
    out.write_all(&buf)
}

#[derive(Serialize)]
struct VerdictFields<'a> {
    ok: bool,
    count: u64,
    pass: u64,
    fail: u64,
    todo: u64,
    skip: u64,
    plan: Option<PlanFields<'a>>,
    bailout: Option<&'a str>,
    reasons: &'a [String],
}

#[derive(Serialize)]
struct PlanFields<'a> {
    start: u64,
    end: u64,
    skip_all: bool,
    reason: Option<&'a str>,
}

fn write_verdict(out: &mut impl Write, v: &Verdict<'_>) -> io::Result<()> {
    let fields = VerdictFields {
        ok: v.ok,
        count: v.count,
        pass: v.pass,
        fail: v.fail,
        todo: v.todo,
        skip: v.skip,
        plan: v.plan.as_ref().map(|p| PlanFields {
            start: p.start,
            end: p.end,
            skip_all: p.skip_all,
            reason: p.reason.as_deref(),
        }),
        bailout: v.bailout.as_deref(),
        reasons: &v.reasons,
    };
    let mut buf = serde_json::to_vec(&fields).map_err(io::Error::other)?;
    buf[0] = b',';
    out.write_all(b"]")?;
    out.write_all(&buf)
}
