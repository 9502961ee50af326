//! A file's output read as it arrives: the child's stdout (and stderr, when parsed) framed,
//! parsed and sent to the dispatcher in batches, stderr lines placed among the points.
use super::runners::Streams;
use crate::event::collect::Collect;
use crate::event::run::RunEvent;
use crate::protocol::{AnyParser, Framer};
use crate::supervise::Chunk;
use tapline_protocol::event::Event;
use tokio::sync::mpsc;

/// Longest stderr line kept whole (stderr is framed like TAP, but not parsed: it is read by
/// people line by line); the log has every byte regardless.
const MAX_STDERR_LINE: usize = 64 * 1024;

/// With both streams parsed, one stream's bytes after its last newline, held back until the
/// line is complete: the streams arrive in chunks that may end mid-line, and from two pipes
/// ([`Streams::Parsed`]) a partial stdout line followed by a stderr line would otherwise reach
/// the parser as one glued line.
#[derive(Default)]
struct Held(Vec<u8>);

impl Held {
    fn feed(&mut self, bytes: &[u8], parser: &mut AnyParser<Collect>) {
        let whole = match memchr::memrchr(b'\n', bytes) {
            Some(last) => last + 1,
            // Longer than the parser keeps of a line anyway: no point holding more.
            None if self.0.len() + bytes.len() > crate::protocol::DEFAULT_MAX_LINE => bytes.len(),
            None => 0,
        };
        if whole > 0 {
            parser.feed(&self.0);
            self.0.clear();
            parser.feed(&bytes[..whole]);
        }
        self.0.extend_from_slice(&bytes[whole..]);
    }

    /// The stream's unterminated last line, ended so that the other stream's can't join it.
    fn finish(&mut self, parser: &mut AnyParser<Collect>) {
        if !self.0.is_empty() {
            parser.feed(&self.0);
            parser.feed(b"\n");
            self.0.clear();
        }
    }
}

/// Parses the child's output and sends its events, a batch per [`super::EVENT_SLICE`] bytes:
/// waiting for room in the dispatcher's channel is what stops the reading of a fast child.
pub(super) struct Feed<'a> {
    run: u64,
    file: usize,
    tx: &'a mpsc::Sender<Vec<RunEvent>>,
    merge: bool,
    parser: AnyParser<Collect>,
    stderr_lines: Framer,
    held_out: Held,
    held_err: Held,
    batch: Vec<RunEvent>,
    /// Where stdout's reading is, for stderr lines that arrive while a point is unfinished.
    stdout_at: StdoutAt,
    /// stderr lines that arrived after a point's line was read but before the parser gave the
    /// point (it waits for the next line, which may open its YAML): they go after it.
    late_err: Vec<RunEvent>,
    /// The stdout lines read when the first of `late_err` arrived.
    late_at: u64,
}

/// How many stdout lines were read, and whether the last was a test point's (`ok`/`not ok`,
/// indented or not) or a comment, whose event the parser gives only once the next line is
/// read.
#[derive(Default)]
struct StdoutAt {
    lines: u64,
    /// The current line's first bytes, past its indent.
    head: Vec<u8>,
    last_was_point: bool,
}

/// How many bytes of a line's head past its indent say whether it is a point (`not ok`).
const HEAD: usize = 6;

impl StdoutAt {
    /// Line ends are found with memchr and only each line's head is looked at: this runs on
    /// every byte of a file's stdout beside the parser, so it must not walk them one by one.
    fn feed(&mut self, bytes: &[u8]) {
        let mut rest = bytes;
        while let Some(end) = memchr::memchr(b'\n', rest) {
            self.take_head(&rest[..end]);
            self.lines += 1;
            let h = &self.head;
            // A comment too: after a point the parser gives it only once the next line is
            // read (a `# next test` heading, then a crash's stack on stderr).
            self.last_was_point =
                h.starts_with(b"ok") || h.starts_with(b"not ok") || h.starts_with(b"#");
            self.head.clear();
            rest = &rest[end + 1..];
        }
        self.take_head(rest);
    }

    /// Adds the part of a line `part` holds to its head: the indent skipped, `HEAD` bytes kept.
    fn take_head(&mut self, part: &[u8]) {
        let part = if self.head.is_empty() {
            let indent = part
                .iter()
                .take_while(|&&b| b == b' ' || b == b'\t')
                .count();
            &part[indent..]
        } else {
            part
        };
        let room = HEAD.saturating_sub(self.head.len()).min(part.len());
        self.head.extend_from_slice(&part[..room]);
    }

    /// Whether the parser may be holding a point read before now.
    fn point_unfinished(&self) -> bool {
        self.last_was_point && self.head.is_empty()
    }
}

/// The stream line an event was read from, where it says one.
fn line_of(event: &Event<'_>) -> Option<u64> {
    match event {
        Event::Assert(a) => Some(a.line),
        Event::AssertBegin { line, .. } => Some(*line),
        Event::Comment { line, .. }
        | Event::Output { line, .. }
        | Event::BailOut { line, .. }
        | Event::V2Event { line, .. }
        | Event::V2Block { line, .. }
        | Event::Marker { line, .. } => Some(*line),
        _ => None,
    }
}

impl<'a> Feed<'a> {
    /// A feed for file `file`'s output, read as `streams` says, into `parser`.
    pub(super) fn new(
        run: u64,
        file: usize,
        tx: &'a mpsc::Sender<Vec<RunEvent>>,
        streams: Streams,
        parser: AnyParser<Collect>,
    ) -> Feed<'a> {
        Feed {
            run,
            file,
            tx,
            merge: streams != Streams::Apart,
            parser,
            stderr_lines: Framer::new(MAX_STDERR_LINE),
            held_out: Held::default(),
            held_err: Held::default(),
            batch: Vec::new(),
            stdout_at: StdoutAt::default(),
            late_err: Vec::new(),
            late_at: 0,
        }
    }

    pub(super) async fn chunk(&mut self, chunk: &Chunk) {
        let stdout = matches!(chunk, Chunk::Stdout(_));
        for piece in chunk.bytes().chunks(super::EVENT_SLICE) {
            let (run, file) = (self.run, self.file);
            match (stdout, self.merge) {
                (true, true) => self.held_out.feed(piece, &mut self.parser),
                (true, false) => {
                    self.stdout_at.feed(piece);
                    self.parser.feed(piece);
                }
                (false, true) => self.held_err.feed(piece, &mut self.parser),
                (false, false) => {
                    // A line written after a point's line that arrives before the parser gave
                    // the point is placed after the point, however the pipes' reads interleave:
                    // a test's `console.error` is the same test's on every run.
                    let late = self.stdout_at.point_unfinished();
                    if late && self.late_err.is_empty() {
                        self.late_at = self.stdout_at.lines;
                    }
                    let batch = if late || !self.late_err.is_empty() {
                        &mut self.late_err
                    } else {
                        &mut self.batch
                    };
                    self.stderr_lines.feed(piece, |l| {
                        let text = l.text.to_owned();
                        batch.push(RunEvent::Stderr { run, file, text });
                    });
                }
            }
            self.send().await;
        }
    }

    /// The parser's events so far after what is batched, to the dispatcher.
    async fn send(&mut self) {
        let (run, file) = (self.run, self.file);
        let parsed = &mut self.parser.sink_mut().events;
        if self.late_err.is_empty() {
            // Written into the batch where they land: a loop of pushes moved each event
            // through the stack three times (11% of a passing point's CPU).
            let tap = |event| RunEvent::Tap { run, file, event };
            self.batch.extend(parsed.drain(..).map(tap));
        } else {
            // Room for them at once: grown a push at a time, the batch was copied over and over.
            self.batch.reserve(parsed.len());
            for event in parsed.drain(..) {
                if !self.late_err.is_empty() && line_of(&event).is_some_and(|l| l > self.late_at) {
                    self.batch.append(&mut self.late_err);
                }
                self.batch.push(RunEvent::Tap { run, file, event });
            }
        }
        if !self.batch.is_empty() {
            let batch = std::mem::take(&mut self.batch);
            // The dispatcher gone means the run is over: nothing left to tell.
            let _ = self.tx.send(batch).await;
        }
    }

    /// The streams' unterminated last lines, then the parser, to be finished, and the stderr
    /// lines that arrived after a line it still holds: they go after the events its finish
    /// gives (a comment it held at the end of the stream, then a crash's stack on stderr).
    pub(super) async fn finish(mut self) -> (AnyParser<Collect>, Vec<RunEvent>) {
        let (run, file) = (self.run, self.file);
        let batch = if self.late_err.is_empty() {
            &mut self.batch
        } else {
            &mut self.late_err
        };
        self.stderr_lines.finish(|l| {
            let text = l.text.to_owned();
            batch.push(RunEvent::Stderr { run, file, text });
        });
        self.held_out.finish(&mut self.parser);
        self.held_err.finish(&mut self.parser);
        let late = std::mem::take(&mut self.late_err);
        let parsed = self.parser.sink_mut().events.drain(..);
        self.batch
            .extend(parsed.map(|event| RunEvent::Tap { run, file, event }));
        self.send().await;
        (self.parser, late)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Where stdout's reading is, byte by byte: the rule [`StdoutAt`] keeps with memchr.
    fn at_by_bytes(bytes: &[u8]) -> (u64, bool) {
        let (mut lines, mut head, mut last) = (0, Vec::new(), false);
        for &b in bytes {
            if b == b'\n' {
                lines += 1;
                last = head.starts_with(b"ok")
                    || head.starts_with(b"not ok")
                    || head.starts_with(b"#");
                head.clear();
            } else if head.len() < HEAD && !(head.is_empty() && (b == b' ' || b == b'\t')) {
                head.push(b);
            }
        }
        (lines, last && head.is_empty())
    }

    #[test]
    fn stdout_at_reads_as_the_bytes_say_however_the_stream_is_cut() {
        let stream: &[u8] = b"TAP version 14\n  \t not ok 1 - a\n# x\nok 2\n    ok 3 - b\r\n\
            not ok\n  \n  o\nok 4\nok";
        for len in 0..=stream.len() {
            let whole = &stream[..len];
            for cut in 0..=len {
                let mut at = StdoutAt::default();
                at.feed(&whole[..cut]);
                at.feed(&whole[cut..]);
                assert_eq!(
                    (at.lines, at.point_unfinished()),
                    at_by_bytes(whole),
                    "{len} bytes cut at {cut}"
                );
            }
        }
    }
}
