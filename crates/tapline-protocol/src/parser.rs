//! The TAP reader: bytes → lines ([`crate::frame`]) → events ([`crate::machine`]).
//! [`Parser`] takes chunks of any size with [`Parser::feed`] and emits the same events whatever
//! the chunking; [`Parser::finish`] closes the stream and emits `End` with the verdict.
use crate::event::Sink;
use crate::frame::{self, DEFAULT_MAX_LINE};
use crate::machine::{self, DEFAULT_MAX_BLOCK};

/// Incremental TAP 12/13/14 + protocol-v2 parser feeding a [`Sink`].
pub struct Parser<S: Sink> {
    framer: frame::Framer,
    machine: machine::Machine,
    sink: S,
}

/// Limits that keep memory bounded whatever the input.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    pub max_line: usize,
    pub max_block: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_line: DEFAULT_MAX_LINE,
            max_block: DEFAULT_MAX_BLOCK,
        }
    }
}

impl<S: Sink> Parser<S> {
    pub fn new(sink: S) -> Self {
        Self::with_limits(sink, Limits::default())
    }

    pub fn with_limits(sink: S, limits: Limits) -> Self {
        Parser {
            framer: frame::Framer::new(limits.max_line),
            machine: machine::Machine::new(limits.max_block),
            sink,
        }
    }

    /// With `true`, a stream without any plan, test point or bail out passes ("no tests
    /// found", as tap-parser has it) instead of failing as [`NO_TAP_OUTPUT`].
    pub fn allow_empty(mut self, allow: bool) -> Self {
        self.machine.allow_empty(allow);
        self
    }

    /// Parses a chunk of the stream; lines split across chunks are joined.
    pub fn feed(&mut self, bytes: &[u8]) {
        let machine = &mut self.machine;
        let sink = &mut self.sink;
        self.framer.feed(bytes, |l| on_line(machine, sink, l));
    }

    /// Ends the stream (a last line without newline still counts) and returns the sink.
    pub fn finish(mut self) -> S {
        let machine = &mut self.machine;
        let sink = &mut self.sink;
        self.framer.finish(|l| on_line(machine, sink, l));
        self.machine.finish(&mut self.sink);
        self.sink
    }

    pub fn sink(&self) -> &S {
        &self.sink
    }

    pub fn sink_mut(&mut self) -> &mut S {
        &mut self.sink
    }
}

fn on_line<S: Sink>(machine: &mut machine::Machine, sink: &mut S, l: frame::Line<'_>) {
    if let Some(full) = l.truncated_from {
        machine.line_too_long(full, l.text.len(), sink);
    }
    machine.line(l.text, sink);
}

/// Parses a whole byte slice into owned events (tests, small inputs).
pub fn parse_all(bytes: &[u8]) -> Vec<crate::event::Event<'static>> {
    let mut p = Parser::new(Vec::new());
    p.feed(bytes);
    p.finish()
}
