//! The stream state machine: YAML blocks, subtests, protocol-v2 blocks and plan accounting.
//!
//! One `Level` per open TAP document (the stream, then each nested subtest). A line enters at
//! the top level and is handed down, 4 spaces of indentation less each time, while a subtest is
//! open. The behaviour follows the reference parser (tapjs tap-parser) rule for rule, so that
//! third-party streams get the verdict their own tooling gives them; where tapline differs on
//! purpose, `protocol-spec/divergences.md` says why.
use super::line::{self, MarkerLine};
use crate::event::{Assert, Block, Directive, Event, Plan, Problem, ProblemKind, Sink, Verdict};
use std::borrow::Cow;
use std::collections::HashSet;

/// Cap on a v2 block's payload or a YAML block: beyond it the rest is dropped and reported.
pub const DEFAULT_MAX_BLOCK: usize = 16 << 20;

/// Deepest subtest nesting read as TAP; deeper lines are output. Real suites nest a handful of
/// levels; the cap keeps a line of a million spaces from recursing a quarter-million deep.
pub const MAX_DEPTH: usize = 64;

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
    reasons: Vec<String>,
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
        }
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
            self.problem(lvl, 0, ProblemKind::UnterminatedBlock, msg, true, sink);
            // A producer that dies mid-block has failed, whatever its points said.
            self.levels[0].ok = false;
        }
        // A stream that stops inside a subtest did not finish, whatever the subtest said so far.
        if self.levels.len() > 1
            && self.levels[0].bailing_out.is_none()
            && !self.levels[1].has_closing_point
        {
            let msg = "stream ended inside a subtest that no test point closed".to_owned();
            self.tap_error(0, 0, ProblemKind::UnterminatedSubtest, msg, sink);
        }
        self.end(0, sink);
    }

    fn block_line(&mut self, text: &str, sink: &mut dyn Sink) {
        let Some(block) = self.block.as_mut() else {
            return;
        };
        if let Some(MarkerLine::Close(kind)) = line::marker_line(text.trim()) {
            if kind == block.kind {
                if let Some(b) = self.block.take() {
                    let block = Block {
                        kind: Cow::Owned(b.kind),
                        payload: Cow::Owned(b.payload),
                        unterminated: false,
                    };
                    self.attach_block(b.depth, b.line, block, sink);
                }
                return;
            }
        }
        if block.payload.len() + text.len() + 1 > self.max_block {
            if !block.overflowed {
                block.overflowed = true;
                let msg = format!(
                    "⟦TSTEST:{}⟧ block larger than {} bytes; the rest is dropped",
                    block.kind, self.max_block
                );
                let depth = block.depth;
                sink.event(&Event::Problem(Problem {
                    depth,
                    line: self.line_no,
                    kind: ProblemKind::BlockTooLarge,
                    message: msg,
                    fails: false,
                }));
            }
            return;
        }
        block.payload.push_str(text);
        block.payload.push('\n');
    }

    /// A finished v2 block goes to the test point it follows, or stands alone.
    fn attach_block(&mut self, depth: u32, line: u64, block: Block<'static>, sink: &mut dyn Sink) {
        match self
            .levels
            .get_mut(depth as usize)
            .and_then(|l| l.current.as_mut())
        {
            Some(p) => p.extra.get_or_insert_default().blocks.push(block),
            None => sink.event(&Event::V2Block { depth, line, block }),
        }
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
        if self.levels[lvl].post_plan {
            return self.non_tap(lvl, text, sink);
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

    /// Handles a whole-line v2 marker; false when the line is not one.
    fn marker(&mut self, lvl: usize, text: &str, sink: &mut dyn Sink) -> bool {
        if !text.starts_with(line::MARK_OPEN) {
            return false;
        }
        let Some(m) = line::marker_line(text.trim_end()) else {
            return false;
        };
        let depth = lvl as u32;
        let line = self.line_no;
        match m {
            MarkerLine::Open(kind) => {
                self.block = Some(OpenBlock {
                    depth,
                    kind: kind.to_owned(),
                    payload: String::new(),
                    line,
                    overflowed: false,
                });
            }
            MarkerLine::Close(kind) => {
                self.output(lvl, text, sink);
                let msg = format!("⟦TSTEST:/{kind}⟧ closes no open block");
                self.problem(lvl, line, ProblemKind::StrayMarker, msg, false, sink);
            }
            MarkerLine::Single { kind, payload } => self.single_marker(lvl, kind, payload, sink),
        }
        true
    }

    fn single_marker(&mut self, lvl: usize, kind: &str, payload: &str, sink: &mut dyn Sink) {
        let depth = lvl as u32;
        let line = self.line_no;
        if kind == "PROTOCOL" {
            return sink.event(&Event::Protocol {
                line,
                version: Cow::Borrowed(payload),
            });
        }
        if kind == "EVENT" {
            return sink.event(&Event::V2Event {
                depth,
                line,
                json: Cow::Borrowed(payload),
            });
        }
        if let Some(p) = self.levels[lvl].current.as_mut() {
            if apply_marker(p, kind, payload) {
                return;
            }
            if kind == "META" {
                if p.time.is_none() {
                    p.time = meta_time(payload);
                }
                p.extra.get_or_insert_default().meta = Some(payload.to_owned());
                return;
            }
        }
        sink.event(&Event::Marker {
            depth,
            line,
            kind: Cow::Borrowed(kind),
            payload: Cow::Borrowed(payload),
        });
    }

    fn yaml_line(&mut self, lvl: usize, text: &str, sink: &mut dyn Sink) {
        let max = self.max_block;
        let Some(y) = self.levels[lvl].yaml.as_mut() else {
            return;
        };
        let content = text.get(y.indent.len()..).unwrap_or("");
        if content == "..." {
            let y = self.levels[lvl].yaml.take();
            if let (Some(y), Some(p)) = (y, self.levels[lvl].current.as_mut()) {
                if p.time.is_none() {
                    p.time = yaml_duration(&y.body);
                }
                p.extra.get_or_insert_default().diag = Some(y.body);
            }
            return;
        }
        y.lines += 1;
        if y.body.len() + content.len() < max {
            y.body.push_str(content);
            y.body.push('\n');
        } else if !y.overflowed {
            y.overflowed = true;
            let msg = format!("YAML block larger than {max} bytes; the rest is dropped");
            self.problem(
                lvl,
                self.line_no,
                ProblemKind::BlockTooLarge,
                msg,
                false,
                sink,
            );
        }
    }

    /// The YAML block was not one: its lines are output, and the pending point is done.
    fn yaml_garbage(&mut self, lvl: usize, sink: &mut dyn Sink) {
        let y = self.levels[lvl].yaml.take();
        self.emit_result(lvl, sink);
        if let Some(y) = y {
            if self.levels[lvl].bailed_out {
                return;
            }
            let opener = format!("{}---", y.indent);
            let raw =
                std::iter::once(opener).chain(y.body.lines().map(|l| format!("{}{l}", y.indent)));
            for (i, raw) in raw.enumerate() {
                let line = y.start_line + i as u64;
                self.strict_check(lvl, line, sink);
                sink.event(&Event::Output {
                    depth: lvl as u32,
                    line,
                    text: Cow::Owned(raw),
                });
            }
        }
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
        if let Some(id) = p.id {
            if let Some((start, end)) = self.levels[lvl].plan {
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
        }
        let l = &mut self.levels[lvl];
        if p.directive.is_none() {
            l.ok = l.ok && p.ok;
        }
        l.current = Some(p);
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
        if l.count != 0 || end == 0 {
            // A trailing plan (or 1..0): every id seen must fit, and nothing TAP may follow.
            let out: Vec<u64> = l
                .ids_seen
                .iter()
                .filter(|&id| id < start || id > end)
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

    fn start_child(&mut self, lvl: usize, text: &str, sink: &mut dyn Sink) {
        if lvl + 1 >= MAX_DEPTH {
            return self.non_tap(lvl, text, sink);
        }
        let pending_buffered = self.levels[lvl]
            .current
            .as_ref()
            .is_some_and(|p| p.buffered);
        let heading_here = !pending_buffered && self.levels[lvl].maybe_child.is_some();
        let heading_indented = !pending_buffered && !heading_here && is_indented_heading(text);
        if !pending_buffered {
            self.emit_result(lvl, sink);
        }
        if self.levels[lvl].bailed_out {
            return;
        }
        let body = &text[4..];
        let (name, first_line) = if heading_indented {
            (heading_name(body).to_owned(), None)
        } else if pending_buffered {
            let name = self.levels[lvl]
                .current
                .as_ref()
                .map(|p| p.name.clone())
                .unwrap_or_default();
            (name, Some(body))
        } else {
            let heading = self.levels[lvl].maybe_child.take().unwrap_or_default();
            (heading_name(&heading).to_owned(), Some(body))
        };
        self.levels[lvl].maybe_child = None;
        let mut child = Level::new(lvl as u32 + 1, self.levels[lvl].strict);
        child.buffered = pending_buffered;
        if pending_buffered {
            child.has_closing_point = true;
            if let Some(p) = self.levels[lvl].current.as_mut() {
                p.closes_subtest = true;
            }
        }
        self.abandon_above(lvl, sink);
        self.levels.push(child);
        sink.event(&Event::SubtestStart {
            depth: lvl as u32 + 1,
            line: self.line_no,
            name: Cow::Owned(name),
            buffered: pending_buffered,
        });
        if let Some(first) = first_line {
            self.parse(lvl + 1, first, sink);
        }
    }

    /// Subtests that will never be closed (left behind by a bail out): their `SubtestEnd`
    /// keeps the event stream balanced, but they count for nothing, as in the reference.
    fn abandon_above(&mut self, lvl: usize, sink: &mut dyn Sink) {
        while self.levels.len() > lvl + 1 {
            let Some(mut l) = self.levels.pop() else {
                break;
            };
            let verdict = l.verdict(false);
            sink.event(&Event::SubtestEnd {
                depth: l.depth,
                verdict,
            });
        }
    }

    fn end_child(&mut self, lvl: usize, sink: &mut dyn Sink) {
        if !self.has_child(lvl) {
            return;
        }
        if self.levels[lvl].bailing_out.is_none() || self.levels[lvl + 1].count > 0 {
            self.end(lvl + 1, sink);
            self.levels.truncate(lvl + 1);
        }
    }

    /// The pending test point is complete: count it and emit it.
    fn emit_result(&mut self, lvl: usize, sink: &mut dyn Sink) {
        if self.levels[lvl].bailed_out {
            return;
        }
        self.end_child(lvl, sink);
        self.levels[lvl].yaml = None;
        let l = &mut self.levels[lvl];
        let Some(p) = l.current.take() else {
            return self.flush_held(sink);
        };
        l.count += 1;
        let (skip, todo) = match &p.directive {
            Some(Directive::Skip(_)) => (true, false),
            Some(Directive::Todo(_)) => (false, true),
            None => (false, false),
        };
        if p.ok {
            l.pass += 1;
        } else {
            l.fail += 1;
            if !skip && !todo {
                l.ok = false;
            }
        }
        l.skip += u64::from(skip);
        l.todo += u64::from(todo);
        let extra = p.extra.map(|b| *b).unwrap_or_default();
        let (skip, todo) = match p.directive {
            Some(Directive::Skip(r)) => (Some(r), None),
            Some(Directive::Todo(r)) => (None, Some(r)),
            None => (None, None),
        };
        sink.event(&Event::Assert(Assert {
            depth: lvl as u32,
            line: p.line,
            ok: p.ok,
            id: p.id,
            name: Cow::Borrowed(&p.name),
            skip,
            todo,
            duration_ms: p.time,
            diagnostics: extra.diag.map(Cow::Owned),
            meta: extra.meta.map(Cow::Owned),
            blocks: extra.blocks,
            closes_subtest: p.closes_subtest,
        }));
        // Names are recycled: a stream of points then allocates none.
        if self.spare_names.len() < 8 {
            self.spare_names.push(p.name);
        }
        self.flush_held(sink);
    }

    /// Closes the document at `lvl` and emits its verdict.
    fn end(&mut self, lvl: usize, sink: &mut dyn Sink) {
        if self.levels[lvl].yaml.is_some() {
            let start = self.levels[lvl].yaml.as_ref().map_or(0, |y| y.start_line);
            let msg = format!("stream ended inside the YAML block opened on line {start}");
            self.tap_error(lvl, start, ProblemKind::UnterminatedYaml, msg, sink);
            self.yaml_garbage(lvl, sink);
        }
        self.emit_result(lvl, sink);
        if let Some(heading) = self.levels[lvl].maybe_child.take() {
            self.comment(lvl, &heading, sink);
        }
        let l = &mut self.levels[lvl];
        let mut skip_all = false;
        if l.plan == Some((1, 0)) {
            skip_all = true;
            if l.count == 0 {
                l.ok = true;
            } else {
                let msg = format!("plan 1..0 (skip all), but {} test points ran", l.count);
                self.tap_error(lvl, 0, ProblemKind::SkipAllWithTests, msg, sink);
            }
        } else if !l.bailed_out && l.plan.is_none() {
            if l.count == 0 {
                // An empty document is a skip-all with nothing to run, as in the reference.
                skip_all = true;
                l.plan = Some((1, 0));
                l.plan_comment = "no tests found".to_owned();
            } else {
                self.tap_error(lvl, 0, ProblemKind::NoPlan, "no plan".to_owned(), sink);
            }
        } else if let Some((start, end)) = l.plan {
            let planned = (end + 1).saturating_sub(start);
            if l.ok && l.count != planned {
                let msg = format!("planned {planned}, ran {}", l.count);
                self.tap_error(lvl, 0, ProblemKind::CountMismatch, msg, sink);
            }
        }
        self.abandon_above(lvl, sink);
        let l = &self.levels[lvl];
        if let Some(reason) = &l.bailing_out {
            let msg = if reason.is_empty() {
                "bailed out".to_owned()
            } else {
                format!("bailed out: {reason}")
            };
            if lvl == 0 {
                self.levels[lvl].reasons.push(msg);
            }
        }
        let verdict = self.levels[lvl].verdict(skip_all);
        // Held lines go out before the verdict even when a bail out stopped the counting.
        self.flush_held(sink);
        let child_failed = !verdict.ok;
        if lvl == 0 {
            sink.event(&Event::End { verdict });
        } else {
            sink.event(&Event::SubtestEnd {
                depth: lvl as u32,
                verdict,
            });
            if child_failed {
                self.levels[lvl - 1].ok = false;
            }
        }
    }
}

impl Level {
    /// The document's verdict as it stands; `skip_all` when its plan skipped everything.
    fn verdict(&mut self, skip_all: bool) -> Verdict<'static> {
        let comment = &self.plan_comment;
        Verdict {
            ok: self.ok,
            count: self.count,
            pass: self.pass,
            fail: self.fail,
            todo: self.todo,
            skip: if skip_all { self.count } else { self.skip },
            plan: self.plan.map(|(start, end)| Plan {
                start,
                end,
                skip_all,
                reason: (!comment.is_empty()).then(|| Cow::Owned(comment.clone())),
            }),
            bailout: self.bailing_out.clone().map(Cow::Owned),
            reasons: std::mem::take(&mut self.reasons),
        }
    }

    fn new(depth: u32, strict: bool) -> Self {
        Level {
            depth,
            ok: true,
            strict,
            ..Level::default()
        }
    }
}

use line::Markers;

enum Kind<'a> {
    /// Parsed without its inline markers, which are read again only on lines that have some.
    TestPoint(line::TestPointLine<'a>),
    Pragma(bool, &'a str),
    BailOut(&'a str),
    Version(u32),
    Plan(u64, u64, Option<&'a str>),
    Subtest,
    Comment,
    NonTap,
}

fn ends_with_marker(text: &str) -> bool {
    text.trim_end().ends_with(line::MARK_CLOSE)
}

/// The inline v2 markers at the end of a test point line (none on almost every line).
fn inline_markers(text: &str) -> Markers<'_> {
    if ends_with_marker(text) {
        line::trailing_markers(text).1
    } else {
        Markers::default()
    }
}

/// What an unindented line is, dispatching on its first byte before any parser runs.
fn classify(text: &str) -> Kind<'_> {
    match text.as_bytes().first() {
        Some(b'o' | b'n') => {
            let bare = if ends_with_marker(text) {
                line::trailing_markers(text).0
            } else {
                text
            };
            line::test_point(bare).map_or(Kind::NonTap, Kind::TestPoint)
        }
        Some(b'p') => line::pragma(text).map_or(Kind::NonTap, |(on, k)| Kind::Pragma(on, k)),
        Some(b'B' | b'b') => line::bailout(text).map_or(Kind::NonTap, Kind::BailOut),
        Some(b'T' | b't') => line::version(text).map_or(Kind::NonTap, Kind::Version),
        Some(b'0'..=b'9') => line::plan(text).map_or(Kind::NonTap, |(s, e, r)| Kind::Plan(s, e, r)),
        Some(b'#') if line::subtest_heading(text).is_some() => Kind::Subtest,
        _ if line::is_comment(text) => Kind::Comment,
        _ => Kind::NonTap,
    }
}

fn is_indented_heading(text: &str) -> bool {
    text.strip_prefix("    ")
        .is_some_and(|t| line::subtest_heading(t).is_some())
}

/// The name in a `# Subtest: name` heading (empty for a bare `# Subtest`).
fn heading_name(heading: &str) -> &str {
    heading.get("# Subtest: ".len()..).unwrap_or("").trim()
}

/// Reads a test point line into a pending point, v2 inline markers and the v1 time suffix included.
fn build_pending(
    tp: line::TestPointLine<'_>,
    markers: Markers<'_>,
    mut name: String,
    line_no: u64,
    sink: &mut dyn Sink,
    depth: u32,
) -> Pending {
    let (rest, legacy_time) = match line::legacy_time_suffix(tp.rest) {
        Some((r, t)) if !tp.brace => (r, Some(t)),
        _ => (tp.rest, None),
    };
    let d = line::description(rest, tp.brace);
    let mut p = Pending {
        line: line_no,
        ok: tp.ok,
        id: tp.id,
        name: {
            name.clear();
            name.push_str(&d.name);
            name
        },
        directive: d.directive,
        time: d.time_ms.or(legacy_time),
        buffered: d.buffered,
        extra: None,
        closes_subtest: false,
    };
    // Markers were read last-first; apply them in line order.
    for (kind, payload) in markers.in_line_order() {
        if !apply_marker(&mut p, kind, payload) {
            sink.event(&Event::Marker {
                depth,
                line: line_no,
                kind: Cow::Borrowed(kind),
                payload: Cow::Borrowed(payload),
            });
        }
    }
    p
}

/// Applies `time`, `SKIP` or `TODO` to a point; false for other kinds.
fn apply_marker(p: &mut Pending, kind: &str, payload: &str) -> bool {
    match kind {
        "time" => {
            if let Ok(t) = payload.trim().parse::<f64>() {
                if t.is_finite() && t >= 0.0 {
                    p.time = Some(t);
                }
            }
            true
        }
        "SKIP" => {
            p.directive = Some(Directive::Skip(Cow::Owned(payload.trim().to_owned())));
            true
        }
        "TODO" => {
            p.directive = Some(Directive::Todo(Cow::Owned(payload.trim().to_owned())));
            true
        }
        _ => false,
    }
}

/// `time` of a v2 META payload, read without building a document.
fn meta_time(json: &str) -> Option<f64> {
    let v: serde_json::Value = serde_json::from_str(json).ok()?;
    v.get("time")?.as_f64()
}

/// A top-level `duration_ms: N` in a YAML block (node:test and node-tap put one in every block).
fn yaml_duration(body: &str) -> Option<f64> {
    const KEY: &str = "duration_ms:";
    let at = memchr::memmem::find_iter(body.as_bytes(), KEY)
        .find(|&i| i == 0 || body.as_bytes()[i - 1] == b'\n')?;
    let rest = &body[at + KEY.len()..];
    let value = rest.split('\n').next().unwrap_or("");
    value.trim().parse().ok()
}

/// Whether a YAML block parses to something (the reference only then treats a following `{` as
/// a buffered subtest). Parsed on demand because it is rare.
fn yaml_truthy(body: &str) -> bool {
    match serde_saphyr::from_str::<serde_json::Value>(body) {
        Ok(v) => {
            !matches!(v, serde_json::Value::Null | serde_json::Value::Bool(false))
                && v != serde_json::Value::String(String::new())
        }
        Err(_) => false,
    }
}
