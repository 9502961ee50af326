//! The stream state machine: YAML blocks, subtests, protocol-v2 blocks and plan accounting.
//!
//! One `Level` per open TAP document (the stream, then each nested subtest). A line enters at
//! the top level and is handed down, 4 spaces of indentation less each time, while a subtest is
//! open. The behaviour follows the reference parser (tapjs tap-parser) rule for rule, so that
//! third-party streams get the verdict their own tooling gives them; where tapline differs on
//! purpose, `protocol-spec/divergences.md` says why.
use super::line::{self, MarkerLine, Markers};
use crate::event::{Assert, Block, Directive, Event, Plan, Problem, ProblemKind, Sink, Verdict};
use std::borrow::Cow;
use std::collections::HashSet;

mod blocks;
mod classify;
mod documents;
mod subtest;
pub use subtest::{failed_points_reason, point_label};

use classify::*;

/// Cap on a v2 block's payload or a YAML block: beyond it the rest is dropped and reported.
pub const DEFAULT_MAX_BLOCK: usize = 16 << 20;

/// The reason a stream with no plan, no test point and no bail out fails: empty input, a
/// command that was not found, binary or random bytes, text that is not TAP. The one place
/// this rule lives, for `parse`, `run`, `send` and `[[suite]]` alike (protocol-spec/verdict.md).
pub const NO_TAP_OUTPUT: &str = "no TAP output";

/// Deepest subtest nesting read as TAP; deeper lines are output. Real suites nest a handful of
/// levels; the cap keeps a line of a million spaces from recursing a quarter-million deep.
pub const MAX_DEPTH: usize = 64;

/// Output held back behind a pending test point (its YAML block may still come) is at most
/// this many bytes of text, or [`HELD_MAX_LINES`] lines: past that the point is settled as
/// having no block and the lines go out, so a flood of output after a point is streamed, not
/// kept (a block after that many lines is no longer the point's; it is read as output).
pub const HELD_MAX_BYTES: usize = 1 << 20;
/// See [`HELD_MAX_BYTES`].
pub const HELD_MAX_LINES: usize = 16 * 1024;

#[derive(Default)]
struct Attached {
    diag: Option<String>,
    meta: Option<String>,
    blocks: Vec<Block<'static>>,
}

/// A test point waiting for its YAML, META or v2 blocks.
struct Pending {
    line: u64,
    ok: bool,
    id: Option<u64>,
    name: String,
    directive: Option<Directive<'static>>,
    time: Option<f64>,
    buffered: bool,
    /// YAML, META and v2 blocks: boxed, since most points have none and a pending point is
    /// moved about on the hot path.
    extra: Option<Box<Attached>>,
    closes_subtest: bool,
}

struct Yaml {
    /// Indentation of the `---` line; content lines must start with it.
    indent: String,
    /// Content lines with the indentation removed, `\n`-terminated. Indentation plus a body
    /// line gives back the raw line, for replay when the block turns out not to be YAML.
    body: String,
    /// Lines read, the `---` included.
    lines: u64,
    /// The cap was reached: later lines were dropped.
    overflowed: bool,
    start_line: u64,
}

#[derive(Default)]
struct Level {
    depth: u32,
    current: Option<Pending>,
    /// A `# Subtest: name` heading waiting to see whether a subtest follows.
    maybe_child: Option<String>,
    post_plan: bool,
    /// The plan came after this document's test points (else it is a `1..0` before any).
    trailing_plan: bool,
    /// A point after the trailing plan was reported (the first one is the reason).
    after_plan_reported: bool,
    /// The subtest just closed skipped all after its assertions (Test2's `skip_all`): its
    /// closing point, when it says a plain `ok`, is a skip with this reason.
    child_skipped: Option<String>,
    /// Test points counted before this document began (earlier documents of the stream).
    doc_start: u64,
    /// Earlier documents of the stream (top level only): how many, and how many points
    /// their plans promised between them.
    docs_before: u32,
    planned_before: u64,
    yaml: Option<Yaml>,
    /// Set as a bail out starts, before the pending point is flushed.
    bailing_out: Option<String>,
    /// Set once the bail out is done: nothing more is counted.
    bailed_out: bool,
    brace_level: usize,
    plan: Option<(u64, u64)>,
    plan_comment: String,
    ids_seen: IdSet,
    ok: bool,
    count: u64,
    pass: u64,
    fail: u64,
    todo: u64,
    skip: u64,
    strict: bool,
    buffered: bool,
    /// A test point has been designated to close this subtest.
    has_closing_point: bool,
    /// The subtest's name (empty for the stream), to name it when it fails.
    name: String,
    /// Messages of failing problems and of failed subtests their closing point did not
    /// report, in stream order.
    reasons: Vec<String>,
    /// A failing problem was recorded (a skip-all plan does not excuse it).
    problem_failed: bool,
    /// Failed test points (`not ok` without a directive) and the first few of their labels.
    failed_points: u64,
    failed_labels: Vec<String>,
    /// A subtest that failed and whose closing point has not been read yet: if that point
    /// says `ok` (or never comes), the subtest's failure is a reason of its own.
    unexplained_child: Option<String>,
}

/// Ids seen at one level: a bitmap for the usual small dense ids, a set beyond.
#[derive(Default)]
struct IdSet {
    bits: Vec<u64>,
    large: HashSet<u64>,
}

impl IdSet {
    const DENSE: u64 = 1 << 22;
    /// Inserts; false when already present.
    fn insert(&mut self, id: u64) -> bool {
        if id < Self::DENSE {
            let (w, b) = ((id / 64) as usize, id % 64);
            if self.bits.len() <= w {
                self.bits.resize(w + 1, 0);
            }
            let fresh = self.bits[w] & (1 << b) == 0;
            self.bits[w] |= 1 << b;
            fresh
        } else {
            self.large.insert(id)
        }
    }
    fn iter(&self) -> impl Iterator<Item = u64> + '_ {
        let dense = self.bits.iter().enumerate().flat_map(|(w, &word)| {
            (0..64)
                .filter(move |b| word & (1 << b) != 0)
                .map(move |b| w as u64 * 64 + b)
        });
        dense.chain(self.large.iter().copied())
    }
}

struct OpenBlock {
    depth: u32,
    kind: String,
    payload: String,
    line: u64,
    overflowed: bool,
}

pub(crate) struct Machine {
    levels: Vec<Level>,
    line_no: u64,
    block: Option<OpenBlock>,
    max_block: usize,
    spare_names: Vec<String>,
    held: Held,
    /// `finish` is closing the documents: the stream itself ended.
    ending: bool,
    /// A subtest was ever opened: the stream said something in TAP even when its top level
    /// counted nothing.
    opened_child: bool,
    /// A stream with no plan, no test point and no bail out passes as "no tests found" instead
    /// of failing as `no TAP output` (`tapline parse --allow-empty`).
    allow_empty: bool,
}

/// Output and comment lines held back while a test point is pending, in one text arena so
/// holding a line allocates nothing once warmed up.
#[derive(Default)]
struct Held {
    text: String,
    items: Vec<HeldLine>,
}

struct HeldLine {
    comment: bool,
    depth: u32,
    line: u64,
    /// End of its text in the arena (it starts where the previous one ended).
    end: usize,
}

/// Announces a point as its line is read, borrowing what the pending point holds.
fn begin(depth: u32, p: &Pending, sink: &mut dyn Sink) {
    let (skip, todo) = match &p.directive {
        Some(Directive::Skip(r)) => (Some(Cow::Borrowed(r.as_ref())), None),
        Some(Directive::Todo(r)) => (None, Some(Cow::Borrowed(r.as_ref()))),
        None => (None, None),
    };
    // Every field borrows, so there is nothing to drop; the event's generic drop (a call that
    // inspects every variant) was a tenth of what announcing a point cost.
    let event = std::mem::ManuallyDrop::new(Event::AssertBegin {
        depth,
        line: p.line,
        ok: p.ok,
        id: p.id,
        name: Cow::Borrowed(&p.name),
        skip,
        todo,
    });
    sink.event(&event);
}

fn held_event(comment: bool, depth: u32, line: u64, text: &str) -> Event<'_> {
    let text = Cow::Borrowed(text);
    if comment {
        Event::Comment { depth, line, text }
    } else {
        Event::Output { depth, line, text }
    }
}

impl Machine {
    pub fn new(max_block: usize) -> Self {
        Machine {
            levels: vec![Level::new(0, false)],
            line_no: 0,
            block: None,
            max_block,
            spare_names: Vec::new(),
            held: Held::default(),
            ending: false,
            opened_child: false,
            allow_empty: false,
        }
    }

    /// Lets a stream without any TAP pass (see [`NO_TAP_OUTPUT`]).
    pub fn allow_empty(&mut self, allow: bool) {
        self.allow_empty = allow;
    }

    pub fn line_too_long(&mut self, full_len: u64, kept: usize, sink: &mut dyn Sink) {
        sink.event(&Event::Problem(Problem {
            depth: 0,
            line: self.line_no + 1,
            kind: ProblemKind::LineTooLong,
            message: format!("line of {full_len} bytes truncated to {kept} bytes"),
            fails: false,
        }));
    }

    /// One line of the stream, without its terminator.
    pub fn line(&mut self, text: &str, sink: &mut dyn Sink) {
        self.line_no += 1;
        if self.block.is_some() {
            self.block_line(text, sink);
            return;
        }
        self.parse(0, text, sink);
    }

    /// End of stream: closes whatever is open and emits `End`.
    pub fn finish(&mut self, sink: &mut dyn Sink) {
        self.ending = true;
        if let Some(b) = self.block.take() {
            let msg = format!(
                "stream ended inside a ⟦TSTEST:{}⟧ block opened on line {}",
                b.kind, b.line
            );
            let block = Block {
                kind: Cow::Owned(b.kind),
                payload: Cow::Owned(b.payload),
                unterminated: true,
            };
            self.attach_block(b.depth, b.line, block, sink);
            let lvl = (b.depth as usize).min(self.levels.len() - 1);
            // A producer that dies mid-block has failed, whatever its points said; a nested
            // level's failure reaches the stream through its subtests.
            self.tap_error(lvl, 0, ProblemKind::UnterminatedBlock, msg, sink);
        }
        // A stream that stops inside a subtest did not finish, whatever the subtest said so far;
        // one opened after the stream's final plan (trailing, or `1..0`) is left-over output
        // of a finished document, which the reference ignores too.
        if self.levels.len() > 1
            && self.levels[0].bailing_out.is_none()
            && !self.levels[0].post_plan
            && !self.levels[1].has_closing_point
        {
            let msg = "stream ended inside a subtest that no test point closed".to_owned();
            self.tap_error(0, 0, ProblemKind::UnterminatedSubtest, msg, sink);
        }
        self.end(0, sink);
    }

    fn has_child(&self, lvl: usize) -> bool {
        lvl + 1 < self.levels.len()
    }

    fn parse(&mut self, lvl: usize, text: &str, sink: &mut dyn Sink) {
        // Blank lines belong to an open subtest or YAML block rather than ending them.
        if text.is_empty() {
            if self.has_child(lvl) {
                return self.parse(lvl + 1, text, sink);
            }
            if self.levels[lvl].yaml.is_some() {
                return self.yaml_line(lvl, text, sink);
            }
        }
        if self.levels[lvl].bailing_out.is_some() {
            // After a bail out only the closing braces of buffered subtests still mean anything.
            let is_brace = text.trim_start().starts_with('}') && text.trim() == "}";
            let l = &mut self.levels[lvl];
            if !is_brace || (l.brace_level != 0 && text.len() >= l.brace_level) {
                return self.output(lvl, text, sink);
            }
            l.brace_level = text.len();
        }
        if self.levels[lvl].depth > 0
            && matches!(text.as_bytes().first(), Some(b'T' | b't'))
            && self.levels[lvl].yaml.is_none()
            && line::version(text).is_some()
        {
            return; // subtests may not declare a version; the reference ignores it there
        }
        let indent_len = text
            .bytes()
            .take_while(|&b| b == b' ' || b == b'\t')
            .count();
        if indent_len > 0 {
            return self.parse_indent(lvl, text, indent_len, sink);
        }
        if self.marker(lvl, text, sink) {
            return;
        }
        if text == "}" && self.has_child(lvl) && self.levels[lvl + 1].buffered {
            self.end_child(lvl, sink);
            self.emit_result(lvl, sink);
            return;
        }
        if text.is_empty() {
            return;
        }
        if text == "{" && !self.has_child(lvl) {
            if let Some(p) = self.levels[lvl].current.as_mut() {
                let diag = p.extra.as_ref().and_then(|e| e.diag.as_deref());
                if !p.buffered && diag.is_some_and(yaml_truthy) {
                    p.buffered = true;
                    return;
                }
            }
        }
        self.tap_line(lvl, text, sink);
    }

    /// An unindented line that is not a blank, a brace or a marker.
    fn tap_line(&mut self, lvl: usize, text: &str, sink: &mut dyn Sink) {
        let kind = classify(text);
        match kind {
            Kind::NonTap => return self.non_tap(lvl, text, sink),
            Kind::Comment => return self.comment(lvl, text, sink),
            _ => {}
        }
        // Real TAP ends a YAML block that never closed, and settles a pending `# Subtest`.
        if self.levels[lvl].yaml.is_some() {
            self.yaml_garbage(lvl, sink);
        }
        if let Some(heading) = self.levels[lvl].maybe_child.take() {
            self.comment(lvl, &heading, sink);
        }
        if lvl == 0 && matches!(kind, Kind::Plan(..) | Kind::Version(_)) && self.document_ended() {
            self.new_document(sink);
            if matches!(kind, Kind::Version(_)) {
                return; // it only says a new document starts
            }
        }
        if self.levels[lvl].post_plan {
            // A point after the document's final plan (trailing, or `1..0`) is counted, and
            // fails the document (as prove reads it); anything else TAP there is output, as in
            // the reference.
            if !matches!(kind, Kind::TestPoint(_)) {
                return self.non_tap(lvl, text, sink);
            }
        }
        match kind {
            Kind::BailOut(reason) => {
                self.bailout(lvl, line::unescape(reason).into_owned(), false, sink)
            }
            Kind::Pragma(on, key) => self.pragma(lvl, key, on, text, sink),
            Kind::Version(v) => self.version(lvl, v, text, sink),
            Kind::Plan(start, end, reason) => self.plan(lvl, start, end, reason, text, sink),
            Kind::TestPoint(tp) => {
                let markers = inline_markers(text);
                self.test_point(lvl, tp, markers, sink)
            }
            Kind::Subtest => self.levels[lvl].maybe_child = Some(text.to_owned()),
            Kind::NonTap | Kind::Comment => {}
        }
    }

    fn parse_indent(&mut self, lvl: usize, text: &str, indent_len: usize, sink: &mut dyn Sink) {
        if self.has_child(lvl) && text.starts_with("    ") {
            return self.parse(lvl + 1, &text[4..], sink);
        }
        if let Some(y) = &self.levels[lvl].yaml {
            if text.starts_with(y.indent.as_str()) {
                return self.yaml_line(lvl, text, sink);
            }
            // The indentation shrank mid-block: it was never YAML.
            self.yaml_garbage(lvl, sink);
        }
        if self.marker(lvl, text.trim_start(), sink) {
            return;
        }
        let indent = &text[..indent_len];
        if self.levels[lvl].current.is_some() && &text[indent_len..] == "---" {
            self.levels[lvl].yaml = Some(Yaml {
                indent: indent.to_owned(),
                body: String::new(),
                lines: 1,
                overflowed: false,
                start_line: self.line_no,
            });
            return;
        }
        if text.starts_with("    ") {
            let pending_buffered = self.levels[lvl]
                .current
                .as_ref()
                .is_some_and(|p| p.buffered);
            if self.levels[lvl].maybe_child.is_some()
                || pending_buffered
                || is_indented_heading(text)
            {
                return self.start_child(lvl, text, sink);
            }
            // Any multiple of 4 spaces before real TAP starts an unnamed subtest.
            let stripped = text.trim_start_matches(' ');
            let spaces = text.len() - stripped.len();
            let body = &text[spaces - spaces % 4..];
            if !body.starts_with(' ') {
                match classify(body) {
                    Kind::NonTap => {}
                    Kind::Comment => return self.comment(lvl, text, sink),
                    _ => return self.start_child(lvl, text, sink),
                }
            }
        }
        if line::is_comment(text) {
            return self.comment(lvl, text, sink);
        }
        self.non_tap(lvl, text, sink)
    }

    fn non_tap(&mut self, lvl: usize, text: &str, sink: &mut dyn Sink) {
        self.strict_check(lvl, self.line_no, sink);
        self.output(lvl, text, sink);
    }

    fn strict_check(&mut self, lvl: usize, line: u64, sink: &mut dyn Sink) {
        if self.levels[lvl].strict {
            let msg = "non-TAP line in strict mode".to_owned();
            self.tap_error(lvl, line, ProblemKind::StrictNonTap, msg.clone(), sink);
            if lvl > 0 {
                self.tap_error(lvl - 1, line, ProblemKind::StrictNonTap, msg, sink);
            }
        }
    }

    fn output(&mut self, lvl: usize, text: &str, sink: &mut dyn Sink) {
        self.output_or_comment(lvl, false, text, sink);
    }

    fn comment(&mut self, lvl: usize, text: &str, sink: &mut dyn Sink) {
        let body = text.trim_start().strip_prefix('#').unwrap_or(text);
        let body = body.strip_prefix(' ').unwrap_or(body);
        self.output_or_comment(lvl, true, body, sink);
    }

    /// Emits an output or comment line, or holds it while a test point is pending: a test prints
    /// before it reports, so these lines belong to the point that comes after them.
    fn output_or_comment(&mut self, lvl: usize, comment: bool, text: &str, sink: &mut dyn Sink) {
        let (depth, line) = (lvl as u32, self.line_no);
        if self.held.items.is_empty() && self.levels[lvl].current.is_none() {
            return sink.event(&held_event(comment, depth, line, text));
        }
        self.held.text.push_str(text);
        self.held.items.push(HeldLine {
            comment,
            depth,
            line,
            end: self.held.text.len(),
        });
        let full = self.held.text.len() > HELD_MAX_BYTES || self.held.items.len() > HELD_MAX_LINES;
        let settles = (self.levels[lvl].current.as_ref()).is_some_and(|p| !p.buffered);
        if full && settles && !self.has_child(lvl) {
            self.emit_result(lvl, sink);
        }
    }

    fn flush_held(&mut self, sink: &mut dyn Sink) {
        let mut start = 0;
        for h in &self.held.items {
            sink.event(&held_event(
                h.comment,
                h.depth,
                h.line,
                &self.held.text[start..h.end],
            ));
            start = h.end;
        }
        self.held.items.clear();
        self.held.text.clear();
    }

    fn problem(
        &mut self,
        lvl: usize,
        line: u64,
        kind: ProblemKind,
        message: String,
        fails: bool,
        sink: &mut dyn Sink,
    ) {
        if fails {
            self.levels[lvl].problem_failed = true;
            self.levels[lvl].reasons.push(message.clone());
        }
        sink.event(&Event::Problem(Problem {
            depth: lvl as u32,
            line,
            kind,
            message,
            fails,
        }));
    }

    /// A violation of the protocol: the document fails, and says why.
    fn tap_error(
        &mut self,
        lvl: usize,
        line: u64,
        kind: ProblemKind,
        message: String,
        sink: &mut dyn Sink,
    ) {
        self.levels[lvl].ok = false;
        self.problem(lvl, line, kind, message, true, sink);
    }

    fn test_point(
        &mut self,
        lvl: usize,
        tp: line::TestPointLine<'_>,
        markers: Markers<'_>,
        sink: &mut dyn Sink,
    ) {
        if !self.has_child(lvl) {
            self.emit_result(lvl, sink);
        }
        if self.levels[lvl].bailed_out {
            return;
        }
        let name = self.spare_names.pop().unwrap_or_default();
        let mut p = build_pending(tp, markers, name, self.line_no, sink, lvl as u32);
        if self.levels[lvl].post_plan {
            self.point_after_plan(lvl, &p, sink);
        }
        if let Some(id) = p.id {
            // A point after the trailing plan is already at fault for being there.
            let plan = self.levels[lvl]
                .plan
                .filter(|_| !self.levels[lvl].post_plan);
            if let Some((start, end)) = plan {
                if id < start || id > end {
                    let which = if id < start {
                        "less than plan start"
                    } else {
                        "greater than plan end"
                    };
                    let msg = format!("test point id {id} is {which} ({start}..{end})");
                    self.tap_error(lvl, self.line_no, ProblemKind::IdOutOfPlan, msg, sink);
                }
            }
            if !self.levels[lvl].ids_seen.insert(id) {
                let msg = format!("test point id {id} appears more than once");
                self.tap_error(lvl, self.line_no, ProblemKind::DuplicateId, msg, sink);
            }
        }
        if self.has_child(lvl) {
            if !self.levels[lvl + 1].has_closing_point {
                self.levels[lvl + 1].has_closing_point = true;
                p.closes_subtest = true;
            }
            self.emit_result(lvl, sink);
            if self.levels[lvl].bailed_out {
                return;
            }
            self.skip_if_child_skipped(lvl, &mut p);
        }
        begin(lvl as u32, &p, sink);
        // The level's verdict is settled when the point is complete (`emit_result`): a
        // `⟦TSTEST:SKIP⟧`/`TODO` line after it may still excuse its failure.
        self.levels[lvl].current = Some(p);
    }

    fn plan(
        &mut self,
        lvl: usize,
        start: u64,
        end: u64,
        reason: Option<&str>,
        text: &str,
        sink: &mut dyn Sink,
    ) {
        if self.levels[lvl].plan.is_some() || self.has_child(lvl) || self.levels[lvl].yaml.is_some()
        {
            return self.non_tap(lvl, text, sink);
        }
        self.emit_result(lvl, sink);
        if self.levels[lvl].bailed_out {
            return;
        }
        if end < start && end != 0 && start != 1 {
            return self.non_tap(lvl, text, sink);
        }
        let comment = reason.map(line::unescape).unwrap_or_default();
        let l = &mut self.levels[lvl];
        l.plan = Some((start, end));
        l.plan_comment = comment.clone().into_owned();
        let ran = l.count - l.doc_start;
        if ran != 0 || end == 0 {
            // A trailing plan (or 1..0): every id seen must fit, and nothing TAP may follow. A
            // subtest's `1..0` after its points skips it (Test2's `skip_all` mid-subtest): its
            // ids are not out of place.
            l.trailing_plan = ran != 0;
            let skips_subtest = lvl > 0 && ran != 0 && (start, end) == (1, 0);
            let out: Vec<u64> = l
                .ids_seen
                .iter()
                .filter(|&id| !skips_subtest && (id < start || id > end))
                .collect();
            for id in out {
                let msg = format!("test point id {id} is outside the plan {start}..{end}");
                self.tap_error(lvl, self.line_no, ProblemKind::IdOutOfPlan, msg, sink);
            }
            self.levels[lvl].post_plan = true;
        }
        let reason = (!comment.is_empty()).then_some(comment);
        let plan = Plan {
            start,
            end,
            skip_all: start == 1 && end == 0,
            reason,
        };
        sink.event(&Event::Plan {
            depth: lvl as u32,
            line: self.line_no,
            plan,
        });
    }

    fn version(&mut self, lvl: usize, version: u32, text: &str, sink: &mut dyn Sink) {
        let l = &self.levels[lvl];
        if version >= 13 && l.plan.is_none() && l.count == 0 && l.current.is_none() {
            sink.event(&Event::Version {
                depth: lvl as u32,
                line: self.line_no,
                version,
            });
        } else {
            self.non_tap(lvl, text, sink);
        }
    }

    fn pragma(&mut self, lvl: usize, key: &str, on: bool, text: &str, sink: &mut dyn Sink) {
        if self.has_child(lvl) {
            return self.non_tap(lvl, text, sink);
        }
        self.emit_result(lvl, sink);
        if self.levels[lvl].bailed_out {
            return;
        }
        if key == "strict" {
            self.levels[lvl].strict = on;
        }
        sink.event(&Event::Pragma {
            depth: lvl as u32,
            line: self.line_no,
            key: Cow::Borrowed(key),
            enabled: on,
        });
    }

    fn bailout(&mut self, lvl: usize, reason: String, synthetic: bool, sink: &mut dyn Sink) {
        if self.levels[lvl].bailing_out.is_some() {
            return;
        }
        self.levels[lvl].bailing_out = Some(reason.clone());
        if synthetic {
            // The reference drops a point still waiting at an outer level (a buffered
            // subtest's opener) when a bail out comes from inside.
            self.levels[lvl].current = None;
        } else {
            self.emit_result(lvl, sink);
            sink.event(&Event::BailOut {
                depth: lvl as u32,
                line: self.line_no,
                reason: Cow::Borrowed(&reason),
            });
        }
        self.levels[lvl].bailed_out = true;
        self.levels[lvl].ok = false;
        if lvl > 0 {
            self.end(lvl, sink);
            self.levels.truncate(lvl);
            self.bailout(lvl - 1, reason, true, sink);
        }
    }
}
