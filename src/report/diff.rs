//! Expected/actual diffs for failing assertions: strings line by line with changed characters highlighted, JSON structurally, primitives side by side.
//!
//! The output imitates Jest so that developers coming from JavaScript read it
//! without thinking: a `- Expected` / `+ Received` legend, `-` lines for the
//! expected value (green), `+` lines for the received value (red), unchanged
//! context dimmed and the changed characters of a changed line in inverse
//! video.
//!
//! # Forms
//!
//! * **Equal values** print the single line
//!   `Compared values have no visual difference.`
//! * **Two single-line strings** print `- "expected"` / `+ "received"`.
//!   They are quoted and escaped like JSON string literals, so a trailing
//!   space (`"foo "`), a tab (`\t`) or a stray quote is always visible.
//! * **Two strings where either has a line break** get a line diff with three
//!   lines of context. Long unchanged stretches collapse into hunks, each
//!   introduced by a unified-diff header (`@@ -12,7 +12,8 @@`) whose line
//!   numbers point into the original strings. Headers are printed only when
//!   something was left out (never for a single line, which the header would
//!   only replace), so short diffs stay uncluttered. Lines are shown
//!   unquoted, which keeps code and prose readable; trailing whitespace is
//!   therefore made visible by drawing trailing spaces as `·` and trailing
//!   tabs as `→` (on every line, so context and changes look alike). A
//!   changed empty line is a bare `-` or `+`, which is also how a missing or
//!   extra trailing newline shows up.
//! * **Two strings that both hold a JSON object or array** (YAML diagnostics
//!   often carry a JSON-encoded value) are parsed and diffed structurally, as
//!   below, with a note saying so. If the parsed values are equal the
//!   difference is only formatting or key order, so the strings are diffed as
//!   text instead; a structural diff would hide the very thing that differs.
//! * **Two objects/arrays** are pretty-printed with two-space indentation and
//!   sorted keys, then diffed line by line with three lines of context. This
//!   was chosen over a path listing (`$.a.b[2]: - 3 + 4`) because it shows
//!   missing and extra keys, inserted array elements and the shape around a
//!   change in the notation the developer wrote the test in. Like Jest, every
//!   element gets a trailing comma, so appending an element does not also
//!   mark the previous line as changed. To keep the path benefit, each hunk
//!   header names the JSON path of its first change (`@@ $.users[2].name @@`).
//!   Inserted or removed runs of lines are moved to the equivalent position
//!   where they start and end least indented (a simple form of git's indent
//!   heuristic), so an added array element appears as one whole `{ … },`.
//!   An array compared with an object is diffed the same way, with a note.
//! * **Anything else** (primitives, or a primitive against another type) is
//!   shown side by side as `- Expected: 5` / `+ Received: "5"`, followed by
//!   `(different types: number vs string)` when the JSON types differ. No
//!   legend is printed here because every line carries its own label.
//!
//! # Highlighting
//!
//! Only with colours enabled, changed characters within a changed line are
//! shown in inverse video. They come from a character diff whose short common
//! runs (no longer than the changes around them) are folded into the change,
//! so `cat` → `dog` is highlighted as a word rather than letter by letter. In
//! a block of changed lines, each removed line is paired with the next added
//! line sharing at least half of their non-blank characters; unpaired lines
//! and pairs with nothing in common are coloured but not highlighted.
//!
//! # Terminal safety
//!
//! Values come from test output, which may contain escape sequences meant for
//! a different terminal. Control characters (C0 except tab, DEL, C1),
//! bidirectional overrides and invisible or look-alike spaces (no-break space,
//! zero-width space, BOM, …) are therefore written escaped: as JSON escapes
//! (`\u001b`) inside quoted strings and JSON, and as `\u{1b}` (or `\r`) in
//! unquoted lines. Besides keeping the terminal intact, this explains the
//! classic "the strings look identical" failure caused by `U+00A0` or
//! `U+202F` produced by number formatting. Tabs stay tabs.
//!
//! # Budget
//!
//! * An input over [`Budget::max_input_bytes`] (byte length for strings, an
//!   estimate of the compact JSON size otherwise) is not diffed: the first
//!   200 characters of each side are shown on one line each and
//!   [`Outcome::TooLarge`] is returned.
//! * At most [`Budget::max_output_lines`] lines are written (at least one);
//!   when more would be needed the last one becomes `… N more lines` and
//!   [`Outcome::Truncated`] is returned.
//! * [`Budget::max_time`] is a deadline shared by all diffing. When it passes,
//!   `similar` finishes with a coarser (still correct) diff and character
//!   highlighting is skipped, so output is always complete.
//!
//! Nothing here recurses over the JSON value, so arbitrarily deep input
//! cannot overflow the stack; nesting deeper than 64 levels is printed
//! compactly on one line to keep indentation bounded.

use std::io::{self, Write};
use std::ops::Range;
use std::time::{Duration, Instant};

use serde_json::Value;
use similar::{Algorithm, DiffOp, DiffTag, TextDiff};

pub use super::style::Style;

/// Limits that keep a pathological failure from flooding the report.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budget {
    /// Maximum number of lines written, including the `… N more lines` line.
    pub max_output_lines: usize,
    /// Inputs larger than this are summarised instead of diffed.
    pub max_input_bytes: usize,
    /// Wall-clock time allowed for diffing.
    pub max_time: Duration,
}

impl Default for Budget {
    fn default() -> Self {
        Self {
            max_output_lines: 200,
            max_input_bytes: 256 * 1024,
            max_time: Duration::from_millis(50),
        }
    }
}

/// How much of the diff was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// The whole diff was written.
    Full,
    /// Output stopped at [`Budget::max_output_lines`].
    Truncated {
        /// Lines replaced by the `… N more lines` marker.
        omitted_lines: usize,
    },
    /// An input exceeded [`Budget::max_input_bytes`]; only a short form was
    /// written.
    TooLarge,
}

/// Render a diff of `expected` vs `actual` into `out`. Values come from test diagnostics (TAP YAML `wanted`/`found`, `expected`/`actual`, or tstest protocol-v2 ERROR JSON): they may be JSON strings, numbers, bools, null, arrays, objects.
///
/// # Errors
///
/// Only errors from writing to `out`. Everything is rendered into memory
/// first, so on error nothing or a prefix of the diff has been written.
pub fn render(
    out: &mut dyn Write,
    expected: &Value,
    actual: &Value,
    style: &Style,
    budget: &Budget,
) -> io::Result<Outcome> {
    let mut renderer = Renderer {
        style: *style,
        deadline: Instant::now().checked_add(budget.max_time),
        sink: Sink::new(budget.max_output_lines),
    };
    let too_large = if json_eq(expected, actual) {
        renderer.sink.push(NO_DIFFERENCE.to_owned());
        false
    } else if exceeds(expected, budget.max_input_bytes) || exceeds(actual, budget.max_input_bytes) {
        renderer.short_form(expected, actual, budget.max_input_bytes);
        true
    } else {
        renderer.diff(expected, actual);
        false
    };
    renderer.sink.finish(out, style, too_large)
}

const CONTEXT_LINES: usize = 3;
const SHORT_FORM_CHARS: usize = 200;
/// Beyond this depth values are printed on one line, so that indentation
/// cannot grow quadratically with nesting.
const MAX_PRETTY_DEPTH: usize = 64;
const MAX_PAIRING_ATTEMPTS: usize = 256;
const NO_DIFFERENCE: &str = "Compared values have no visual difference.";
const JSON_NOTE: &str = "(both strings are JSON; compared as parsed values)";

mod ansi {
    pub const GREEN: &str = "\x1b[32m";
    pub const RED: &str = "\x1b[31m";
    pub const YELLOW: &str = "\x1b[33m";
    pub const DIM: &str = "\x1b[2m";
    pub const INVERSE: &str = "\x1b[7m";
    pub const INVERSE_OFF: &str = "\x1b[27m";
    pub const RESET: &str = "\x1b[0m";
}

/// Collects output lines, keeping only as many as may be shown but counting
/// all of them so the truncation marker can say how many were dropped.
struct Sink {
    lines: Vec<String>,
    total: usize,
    cap: usize,
}

impl Sink {
    fn new(max_output_lines: usize) -> Self {
        Self {
            lines: Vec::new(),
            total: 0,
            // A zero budget still gets the marker, otherwise a failure would
            // vanish without a trace.
            cap: max_output_lines.max(1),
        }
    }

    fn room(&self) -> usize {
        self.cap.saturating_sub(self.lines.len())
    }

    fn push(&mut self, line: String) {
        self.total += 1;
        if self.room() > 0 {
            self.lines.push(line);
        }
    }

    /// Counts a line that would not be shown anyway without building it.
    fn skip(&mut self) {
        self.total += 1;
    }

    fn finish(self, out: &mut dyn Write, style: &Style, too_large: bool) -> io::Result<Outcome> {
        let mut buf = Vec::new();
        let outcome = if self.total <= self.cap {
            for line in &self.lines {
                buf.extend_from_slice(line.as_bytes());
                buf.push(b'\n');
            }
            Outcome::Full
        } else {
            let shown = self.cap - 1;
            for line in self.lines.iter().take(shown) {
                buf.extend_from_slice(line.as_bytes());
                buf.push(b'\n');
            }
            // Always at least two: a single extra line would simply be shown.
            let omitted = self.total - shown;
            let marker = format!("… {omitted} more lines");
            buf.extend_from_slice(paint(style.enabled, ansi::DIM, &marker).as_bytes());
            buf.push(b'\n');
            Outcome::Truncated {
                omitted_lines: omitted,
            }
        };
        out.write_all(&buf)?;
        Ok(if too_large {
            Outcome::TooLarge
        } else {
            outcome
        })
    }
}

fn paint(enabled: bool, color: &str, text: &str) -> String {
    if enabled && !text.is_empty() {
        format!("{color}{text}{}", ansi::RESET)
    } else {
        text.to_owned()
    }
}

/// Builds one output line; colour codes are only emitted once there is text,
/// so empty lines stay empty.
struct LineBuf {
    text: String,
    enabled: bool,
    color: &'static str,
}

impl LineBuf {
    fn new(enabled: bool, color: &'static str) -> Self {
        Self {
            text: String::new(),
            enabled,
            color,
        }
    }

    fn push(&mut self, emphasized: bool, part: &str) {
        if part.is_empty() {
            return;
        }
        if self.enabled && self.text.is_empty() {
            self.text.push_str(self.color);
        }
        if emphasized && self.enabled {
            self.text.push_str(ansi::INVERSE);
            self.text.push_str(part);
            self.text.push_str(ansi::INVERSE_OFF);
        } else {
            self.text.push_str(part);
        }
    }

    fn finish(mut self) -> String {
        if self.enabled && !self.text.is_empty() {
            self.text.push_str(ansi::RESET);
        }
        self.text
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Sign {
    Expected,
    Received,
    Context,
}

impl Sign {
    fn color(self) -> &'static str {
        match self {
            Self::Expected => ansi::GREEN,
            Self::Received => ansi::RED,
            Self::Context => ansi::DIM,
        }
    }

    fn marker(self) -> &'static str {
        match self {
            Self::Expected => "-",
            Self::Received => "+",
            Self::Context => "",
        }
    }

    fn prefix(self) -> &'static str {
        match self {
            Self::Expected => "- ",
            Self::Received => "+ ",
            Self::Context => "  ",
        }
    }
}

/// How the text of a diff line is made safe for the terminal.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// Unquoted string lines: escape hidden characters, mark trailing blanks.
    Raw,
    /// A whole single-line string, shown as a JSON string literal.
    Quoted,
    /// Already escaped by the JSON printer.
    Safe,
}

/// Emphasis flags over byte ranges of one line.
type Segments = Vec<(bool, Range<usize>)>;

struct Renderer {
    style: Style,
    deadline: Option<Instant>,
    sink: Sink,
}

impl Renderer {
    fn paint(&self, color: &str, text: &str) -> String {
        paint(self.style.enabled, color, text)
    }

    fn deadline_passed(&self) -> bool {
        self.deadline.is_some_and(|d| Instant::now() > d)
    }

    fn preamble(&mut self, notes: &[&str]) {
        let expected = self.paint(ansi::GREEN, "- Expected");
        let received = self.paint(ansi::RED, "+ Received");
        self.sink.push(expected);
        self.sink.push(received);
        for note in notes {
            let note = self.paint(ansi::DIM, note);
            self.sink.push(note);
        }
        self.sink.push(String::new());
    }

    fn diff(&mut self, expected: &Value, actual: &Value) {
        match (expected, actual) {
            (Value::String(e), Value::String(a)) => self.strings(e, a),
            (Value::Array(_) | Value::Object(_), Value::Array(_) | Value::Object(_)) => {
                let note = type_note(expected, actual);
                let notes: Vec<&str> = note.iter().map(String::as_str).collect();
                if !self.structural(expected, actual, &notes) {
                    self.sink.push(NO_DIFFERENCE.to_owned());
                }
            }
            _ => self.side_by_side(expected, actual),
        }
    }

    fn strings(&mut self, expected: &str, actual: &str) {
        if let (Some(e), Some(a)) = (parse_json_container(expected), parse_json_container(actual)) {
            if !json_eq(&e, &a) && self.structural(&e, &a, &[JSON_NOTE]) {
                return;
            }
        }
        if expected.contains('\n') || actual.contains('\n') {
            self.multi_line(expected, actual);
        } else {
            self.single_line(expected, actual);
        }
    }

    fn single_line(&mut self, expected: &str, actual: &str) {
        self.preamble(&[]);
        // A lone pair is an edit by definition, so any shared text is worth
        // highlighting; no similarity threshold as for paired lines.
        let inline = if self.style.enabled && !self.deadline_passed() {
            inline_diff(expected, actual, self.deadline)
        } else {
            None
        };
        let (old, new) = match &inline {
            Some(inline) => (Some(inline.old.as_slice()), Some(inline.new.as_slice())),
            None => (None, None),
        };
        self.emit(Sign::Expected, expected, Mode::Quoted, old);
        self.emit(Sign::Received, actual, Mode::Quoted, new);
    }

    fn multi_line(&mut self, expected: &str, actual: &str) {
        let old: Vec<&str> = expected.split('\n').collect();
        let new: Vec<&str> = actual.split('\n').collect();
        let groups = self.line_groups(&old, &new);
        if groups.is_empty() {
            self.sink.push(NO_DIFFERENCE.to_owned());
            return;
        }
        self.preamble(&[]);
        self.emit_groups(&old, &new, &groups, Mode::Raw, &|group| {
            unified_header(group)
        });
    }

    /// Returns false, having written nothing, when the printed forms are
    /// identical so the caller can pick a form that shows the difference.
    fn structural(&mut self, expected: &Value, actual: &Value, notes: &[&str]) -> bool {
        let pe = Pretty::new(expected);
        let pa = Pretty::new(actual);
        let old: Vec<&str> = pe.lines.iter().map(String::as_str).collect();
        let new: Vec<&str> = pa.lines.iter().map(String::as_str).collect();
        let groups = self.line_groups(&old, &new);
        if groups.is_empty() {
            return false;
        }
        self.preamble(notes);
        self.emit_groups(&old, &new, &groups, Mode::Safe, &|group| {
            format!("@@ {} @@", first_change_path(group, &pe, &pa))
        });
        true
    }

    fn side_by_side(&mut self, expected: &Value, actual: &Value) {
        self.labelled(Sign::Expected, "Expected", expected);
        self.labelled(Sign::Received, "Received", actual);
        if let Some(note) = type_note(expected, actual) {
            self.sink.push(String::new());
            let note = self.paint(ansi::DIM, &note);
            self.sink.push(note);
        }
    }

    fn labelled(&mut self, sign: Sign, label: &str, value: &Value) {
        let printed = Pretty::new(value);
        for (i, line) in printed.lines.iter().enumerate() {
            if self.sink.room() == 0 {
                self.sink.skip();
                continue;
            }
            let text = if i == 0 {
                format!("{} {label}: {line}", sign.marker())
            } else {
                format!("{} {line}", sign.marker())
            };
            let text = self.paint(sign.color(), &text);
            self.sink.push(text);
        }
    }

    fn short_form(&mut self, expected: &Value, actual: &Value, limit: usize) {
        self.preamble(&[]);
        let e = self.paint(ansi::GREEN, &format!("- {}", short_repr(expected)));
        let a = self.paint(ansi::RED, &format!("+ {}", short_repr(actual)));
        self.sink.push(e);
        self.sink.push(a);
        self.sink.push(String::new());
        let note = format!(
            "(too large to diff: inputs over {limit} bytes are cut to {SHORT_FORM_CHARS} characters)"
        );
        let note = self.paint(ansi::DIM, &note);
        self.sink.push(note);
    }

    fn line_groups(&self, old: &[&str], new: &[&str]) -> Vec<Vec<DiffOp>> {
        let mut config = TextDiff::configure();
        config.algorithm(Algorithm::Myers);
        if let Some(deadline) = self.deadline {
            config.deadline(deadline);
        }
        let mut ops = config.diff_slices(old, new).ops().to_vec();
        slide_blocks(&mut ops, old, new);
        group_ops(&ops, CONTEXT_LINES)
    }

    fn emit_groups(
        &mut self,
        old: &[&str],
        new: &[&str],
        groups: &[Vec<DiffOp>],
        mode: Mode,
        header: &dyn Fn(&[DiffOp]) -> String,
    ) {
        let headers = omits_lines(groups, old.len(), new.len());
        for group in groups {
            if headers {
                let line = self.paint(ansi::YELLOW, &header(group));
                self.sink.push(line);
            }
            // Adjacent delete/insert/replace ops form one change block so
            // that all `-` lines precede all `+` lines, as in unified diffs.
            let mut block: Option<(Range<usize>, Range<usize>)> = None;
            for op in group {
                let (tag, o, n) = op.as_tag_tuple();
                if tag == DiffTag::Equal {
                    if let Some((bo, bn)) = block.take() {
                        self.emit_block(old, new, bo, bn, mode);
                    }
                    for line in old.get(o).unwrap_or_default() {
                        self.emit(Sign::Context, line, mode, None);
                    }
                } else {
                    block = Some(match block {
                        Some((bo, bn)) => (bo.start..o.end, bn.start..n.end),
                        None => (o, n),
                    });
                }
            }
            if let Some((bo, bn)) = block {
                self.emit_block(old, new, bo, bn, mode);
            }
        }
    }

    fn emit_block(
        &mut self,
        old: &[&str],
        new: &[&str],
        old_range: Range<usize>,
        new_range: Range<usize>,
        mode: Mode,
    ) {
        let olds = old.get(old_range).unwrap_or_default();
        let news = new.get(new_range).unwrap_or_default();
        let (old_segs, new_segs) = self.pair_lines(olds, news);
        for (i, line) in olds.iter().enumerate() {
            let segs = old_segs.get(i).and_then(Option::as_deref);
            self.emit(Sign::Expected, line, mode, segs);
        }
        for (i, line) in news.iter().enumerate() {
            let segs = new_segs.get(i).and_then(Option::as_deref);
            self.emit(Sign::Received, line, mode, segs);
        }
    }

    /// Finds, in order, removed and added lines that are edits of each other
    /// and computes their highlighting. Myers happily reports
    /// `- "name": "bob"` against `+ "extra": null` / `+ "name": "alice"`, so
    /// pairing by position would highlight unrelated lines.
    fn pair_lines(
        &self,
        olds: &[&str],
        news: &[&str],
    ) -> (Vec<Option<Segments>>, Vec<Option<Segments>>) {
        let mut old_segs = vec![None; olds.len()];
        let mut new_segs = vec![None; news.len()];
        if !self.style.enabled {
            return (old_segs, new_segs);
        }
        // Caps the quadratic search; beyond it lines just go unhighlighted.
        let mut attempts = MAX_PAIRING_ATTEMPTS;
        let mut next_new = 0;
        let visible = self.sink.room();
        for (i, old) in olds.iter().enumerate().take(visible) {
            for (k, new) in news.iter().enumerate().skip(next_new) {
                if attempts == 0 || self.deadline_passed() {
                    return (old_segs, new_segs);
                }
                attempts -= 1;
                if let Some(inline) = inline_diff(old, new, self.deadline) {
                    if inline.is_edit() {
                        if let (Some(o), Some(n)) = (old_segs.get_mut(i), new_segs.get_mut(k)) {
                            *o = Some(inline.old);
                            *n = Some(inline.new);
                        }
                        next_new = k + 1;
                        break;
                    }
                }
            }
        }
        (old_segs, new_segs)
    }

    fn emit(&mut self, sign: Sign, text: &str, mode: Mode, segs: Option<&[(bool, Range<usize>)]>) {
        if self.sink.room() == 0 {
            self.sink.skip();
            return;
        }
        let mut line = LineBuf::new(self.style.enabled, sign.color());
        if text.is_empty() && mode != Mode::Quoted {
            // No trailing blank after the sign: the reporter's own output
            // should not contain the trailing whitespace it warns about.
            line.push(false, sign.marker());
        } else {
            line.push(false, sign.prefix());
        }
        if mode == Mode::Quoted {
            line.push(false, "\"");
        }
        let trail = text.trim_end_matches([' ', '\t']).len();
        let whole = [(false, 0..text.len())];
        let mut escaped = String::new();
        for (emphasized, range) in segs.unwrap_or(&whole) {
            let part = text.get(range.clone()).unwrap_or_default();
            escaped.clear();
            match mode {
                Mode::Raw => push_raw_escaped(&mut escaped, part, range.start, trail),
                Mode::Quoted => push_json_body(&mut escaped, part, usize::MAX),
                Mode::Safe => escaped.push_str(part),
            }
            line.push(*emphasized, &escaped);
        }
        if mode == Mode::Quoted {
            line.push(false, "\"");
        }
        self.sink.push(line.finish());
    }
}

/// Highlighting for a pair of lines.
struct Inline {
    old: Segments,
    new: Segments,
    /// Non-blank characters common to both lines (counted once).
    shared: usize,
    /// Non-blank characters of both lines together.
    total: usize,
}

impl Inline {
    /// Dice similarity `2 * shared / total` of at least one half: the lines
    /// are edits of each other rather than unrelated neighbours.
    fn is_edit(&self) -> bool {
        self.shared.saturating_mul(4) >= self.total
    }
}

/// A run of characters that is either common to both lines or changed.
struct Chunk {
    equal: bool,
    old: Range<usize>,
    new: Range<usize>,
    old_chars: usize,
    new_chars: usize,
}

impl Chunk {
    fn weight(&self) -> usize {
        self.old_chars.max(self.new_chars)
    }

    fn absorb(&mut self, next: &Self) {
        self.equal = self.equal && next.equal;
        self.old.end = next.old.end;
        self.new.end = next.new.end;
        self.old_chars += next.old_chars;
        self.new_chars += next.new_chars;
    }
}

/// Character-level diff of two lines with a light semantic cleanup: a short
/// common run between two changes is folded into them, because highlighting
/// `c`·`a`·`t` → `d`·`o`·`g` piecemeal is harder to read than the whole word.
/// Returns `None` when nothing meaningful is shared, in which case the lines
/// are simply shown as removed and added.
fn inline_diff(old: &str, new: &str, deadline: Option<Instant>) -> Option<Inline> {
    let (old_chars, old_offsets) = chars_with_offsets(old);
    let (new_chars, new_offsets) = chars_with_offsets(new);
    let ops =
        similar::capture_diff_slices_deadline(Algorithm::Myers, &old_chars, &new_chars, deadline);
    let mut chunks: Vec<Chunk> = Vec::new();
    for op in &ops {
        let (tag, o, n) = op.as_tag_tuple();
        let chunk = Chunk {
            equal: tag == DiffTag::Equal,
            old: *old_offsets.get(o.start)?..*old_offsets.get(o.end)?,
            new: *new_offsets.get(n.start)?..*new_offsets.get(n.end)?,
            old_chars: o.len(),
            new_chars: n.len(),
        };
        push_chunk(&mut chunks, chunk);
    }
    // Whitespace is ignored when judging similarity because JSON lines share
    // their indentation whether or not they are related.
    let shared = chunks
        .iter()
        .filter(|c| c.equal)
        .map(|c| non_blank_chars(old.get(c.old.clone()).unwrap_or_default()))
        .sum::<usize>();
    if shared == 0 {
        return None;
    }
    let total = non_blank_chars(old) + non_blank_chars(new);
    let old_segs: Segments = chunks
        .iter()
        .filter(|c| !c.old.is_empty())
        .map(|c| (!c.equal, c.old.clone()))
        .collect();
    let new_segs: Segments = chunks
        .iter()
        .filter(|c| !c.new.is_empty())
        .map(|c| (!c.equal, c.new.clone()))
        .collect();
    Some(Inline {
        old: old_segs,
        new: new_segs,
        shared,
        total,
    })
}

fn non_blank_chars(s: &str) -> usize {
    s.chars().filter(|c| !c.is_whitespace()).count()
}

fn chars_with_offsets(s: &str) -> (Vec<char>, Vec<usize>) {
    let mut chars = Vec::with_capacity(s.len());
    let mut offsets = Vec::with_capacity(s.len() + 1);
    for (i, c) in s.char_indices() {
        chars.push(c);
        offsets.push(i);
    }
    offsets.push(s.len());
    (chars, offsets)
}

/// Appends a chunk, merging it with its predecessor when both are changes and
/// folding short equalities (no longer than the changes on either side, the
/// diff-match-patch rule) into the surrounding change. Working on the tail as
/// a stack keeps this linear.
fn push_chunk(chunks: &mut Vec<Chunk>, chunk: Chunk) {
    match chunks.last_mut() {
        Some(last) if last.equal == chunk.equal => last.absorb(&chunk),
        _ => chunks.push(chunk),
    }
    while let [.., before, common, after] = chunks.as_slice() {
        let foldable = !before.equal
            && common.equal
            && !after.equal
            && common.old_chars <= before.weight()
            && common.old_chars <= after.weight();
        if !foldable {
            break;
        }
        let (Some(after), Some(mut common)) = (chunks.pop(), chunks.pop()) else {
            break;
        };
        common.equal = false;
        if let Some(before) = chunks.last_mut() {
            before.absorb(&common);
            before.absorb(&after);
        }
    }
}

/// Moves each pure insertion or deletion to the equivalent position where it
/// starts and ends least indented, a simple form of git's indent heuristic.
/// Without it, adding an object to an array of objects shows up as
/// `+ "new": 1,` / `+ },` / `+ {` instead of the whole inserted `{ … },`.
fn slide_blocks(ops: &mut Vec<DiffOp>, old: &[&str], new: &[&str]) {
    for i in 1..ops.len().saturating_sub(1) {
        let Some(
            [DiffOp::Equal { len: before, .. }, block, DiffOp::Equal {
                old_index: next_old,
                new_index: next_new,
                len: after,
            }],
        ) = ops.get_mut(i - 1..i + 2)
        else {
            continue;
        };
        let (lines, start, end) = match *block {
            DiffOp::Insert {
                new_index, new_len, ..
            } => (new, new_index, new_index + new_len),
            DiffOp::Delete {
                old_index, old_len, ..
            } => (old, old_index, old_index + old_len),
            _ => continue,
        };
        if start == end {
            continue;
        }
        let line = |k: usize| lines.get(k).copied().unwrap_or_default();
        let score =
            |start: usize, end: usize| indent_width(line(start)) + indent_width(line(end - 1));
        // Shifting by one is valid when the line entering the block equals
        // the one leaving it.
        let mut up = 0;
        while up < *before && up < start && line(start - 1 - up) == line(end - 1 - up) {
            up += 1;
        }
        let mut down = 0;
        while down < *after && line(start + down) == line(end + down) {
            down += 1;
        }
        // Ties keep the differ's choice.
        let mut best = (score(start, end), 0, 0);
        for k in 1..=up {
            let candidate = score(start - k, end - k);
            if candidate < best.0 {
                best = (candidate, k, 0);
            }
        }
        for k in 1..=down {
            let candidate = score(start + k, end + k);
            if candidate < best.0 {
                best = (candidate, 0, k);
            }
        }
        let (_, up, down) = best;
        *before = *before - up + down;
        *after = *after + up - down;
        *next_old = *next_old + down - up;
        *next_new = *next_new + down - up;
        match block {
            DiffOp::Insert {
                old_index,
                new_index,
                ..
            }
            | DiffOp::Delete {
                old_index,
                new_index,
                ..
            } => {
                *old_index = *old_index + down - up;
                *new_index = *new_index + down - up;
            }
            _ => {}
        }
    }
    ops.retain(|op| !matches!(op, DiffOp::Equal { len: 0, .. }));
}

fn indent_width(line: &str) -> usize {
    line.len() - line.trim_start_matches([' ', '\t']).len()
}

/// Splits ops into hunks with `context` unchanged lines around changes, like
/// `similar`'s `grouped_ops`, except that a gap of a single line is shown
/// rather than replaced by a hunk header of the same height.
fn group_ops(ops: &[DiffOp], context: usize) -> Vec<Vec<DiffOp>> {
    let mut groups = Vec::new();
    if ops.iter().all(|op| op.tag() == DiffTag::Equal) {
        return groups;
    }
    let last = ops.len().saturating_sub(1);
    let mut current = Vec::new();
    for (i, op) in ops.iter().enumerate() {
        let DiffOp::Equal {
            old_index,
            new_index,
            len,
        } = *op
        else {
            current.push(*op);
            continue;
        };
        let head = if i == 0 { 0 } else { context };
        let tail = if i == last { 0 } else { context };
        if len <= head + tail + 1 {
            current.push(*op);
            continue;
        }
        if head > 0 {
            current.push(DiffOp::Equal {
                old_index,
                new_index,
                len: head,
            });
        }
        if !current.is_empty() {
            groups.push(std::mem::take(&mut current));
        }
        if tail > 0 {
            let skip = len - tail;
            current.push(DiffOp::Equal {
                old_index: old_index + skip,
                new_index: new_index + skip,
                len: tail,
            });
        }
    }
    if current.iter().any(|op| op.tag() != DiffTag::Equal) {
        groups.push(current);
    }
    groups
}

fn omits_lines(groups: &[Vec<DiffOp>], old_len: usize, new_len: usize) -> bool {
    let (Some(first), Some(last)) = (
        groups.first().and_then(|g| g.first()),
        groups.last().and_then(|g| g.last()),
    ) else {
        return false;
    };
    groups.len() > 1
        || first.old_range().start > 0
        || first.new_range().start > 0
        || last.old_range().end < old_len
        || last.new_range().end < new_len
}

fn unified_header(group: &[DiffOp]) -> String {
    let (Some(first), Some(last)) = (group.first(), group.last()) else {
        return "@@ @@".to_owned();
    };
    let old = first.old_range().start..last.old_range().end;
    let new = first.new_range().start..last.new_range().end;
    format!("@@ -{} +{} @@", unified_range(&old), unified_range(&new))
}

/// Unified-diff convention: 1-based start, except that an empty range names
/// the line after which it sits.
fn unified_range(range: &Range<usize>) -> String {
    let start = if range.is_empty() {
        range.start
    } else {
        range.start + 1
    };
    format!("{start},{}", range.len())
}

fn first_change_path(group: &[DiffOp], expected: &Pretty<'_>, actual: &Pretty<'_>) -> String {
    for op in group {
        let (tag, o, n) = op.as_tag_tuple();
        if tag == DiffTag::Equal {
            continue;
        }
        return if o.is_empty() {
            actual.path_of_line(n.start)
        } else {
            expected.path_of_line(o.start)
        };
    }
    "$".to_owned()
}

fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn type_note(expected: &Value, actual: &Value) -> Option<String> {
    let (e, a) = (type_name(expected), type_name(actual));
    (e != a).then(|| format!("(different types: {e} vs {a})"))
}

fn parse_json_container(s: &str) -> Option<Value> {
    let t = s.trim();
    let bracketed =
        (t.starts_with('{') && t.ends_with('}')) || (t.starts_with('[') && t.ends_with(']'));
    if !bracketed {
        return None;
    }
    // serde_json's recursion limit keeps hostile nesting out.
    serde_json::from_str(t).ok()
}

/// Structural equality without recursion; `Value`'s derived `PartialEq`
/// recurses and would overflow the stack on very deep input.
fn json_eq(a: &Value, b: &Value) -> bool {
    let mut stack = vec![(a, b)];
    while let Some((a, b)) = stack.pop() {
        match (a, b) {
            (Value::Array(x), Value::Array(y)) => {
                if x.len() != y.len() {
                    return false;
                }
                stack.extend(x.iter().zip(y));
            }
            (Value::Object(x), Value::Object(y)) => {
                if x.len() != y.len() {
                    return false;
                }
                for (key, xv) in x {
                    match y.get(key) {
                        Some(yv) => stack.push((xv, yv)),
                        None => return false,
                    }
                }
            }
            // At most one side is a container here, so this compares
            // discriminants or scalars and never recurses.
            _ => {
                if a != b {
                    return false;
                }
            }
        }
    }
    true
}

/// Whether the value's size exceeds `limit`: exact byte length for a string,
/// an estimate of the compact JSON size otherwise. Stops as soon as the limit
/// is passed, so a huge value costs no more than the limit.
fn exceeds(value: &Value, limit: usize) -> bool {
    if let Value::String(s) = value {
        return s.len() > limit;
    }
    let mut total = 0usize;
    let mut stack = vec![value];
    while let Some(v) = stack.pop() {
        let size = match v {
            Value::Null | Value::Bool(_) => 5,
            Value::Number(n) => n.to_string().len(),
            Value::String(s) => s.len().saturating_add(2),
            // Separators only; the elements are counted when popped.
            Value::Array(items) => items.len().saturating_add(2),
            Value::Object(map) => map
                .keys()
                .fold(2usize, |sum, key| sum.saturating_add(key.len() + 4)),
        };
        total = total.saturating_add(size);
        // Checked before queueing children so a huge container is rejected
        // without first copying all its references.
        if total > limit {
            return true;
        }
        match v {
            Value::Array(items) => stack.extend(items),
            Value::Object(map) => stack.extend(map.values()),
            _ => {}
        }
    }
    false
}

fn short_repr(value: &Value) -> String {
    let mut out = String::new();
    if let Value::String(s) = value {
        let (head, clipped) = clip_chars(s, SHORT_FORM_CHARS);
        out.push('"');
        push_json_body(&mut out, head, usize::MAX);
        out.push_str(if clipped { "…" } else { "\"" });
        return out;
    }
    // Each shown character takes at most six bytes (`\u001b`), so this limit
    // is enough for the prefix without serialising a huge value.
    let complete = compact(value, &mut out, SHORT_FORM_CHARS * 6);
    let (head, clipped) = clip_chars(&out, SHORT_FORM_CHARS);
    if clipped || !complete {
        format!("{head}…")
    } else {
        out
    }
}

fn clip_chars(s: &str, max: usize) -> (&str, bool) {
    match s.char_indices().nth(max) {
        Some((end, _)) => (s.get(..end).unwrap_or(s), true),
        None => (s, false),
    }
}

/// Characters that would corrupt the terminal or be invisible or
/// indistinguishable from a plain space in a diff.
fn is_hidden(c: char) -> bool {
    (c.is_control() && c != '\t' && c != '\n')
        || matches!(
            c,
            '\u{a0}'
                | '\u{ad}'
                | '\u{61c}'
                | '\u{1680}'
                | '\u{180e}'
                | '\u{2000}'..='\u{200b}'
                | '\u{200e}'
                | '\u{200f}'
                | '\u{2028}'..='\u{202f}'
                | '\u{205f}'..='\u{2064}'
                | '\u{2066}'..='\u{206f}'
                | '\u{3000}'
                | '\u{feff}'
                | '\u{fff9}'..='\u{fffb}'
        )
}

/// `base` is the offset of `s` within its line and `trail` where the line's
/// trailing blanks start, so segments of one line can be escaped separately.
fn push_raw_escaped(out: &mut String, s: &str, base: usize, trail: usize) {
    for (i, c) in s.char_indices() {
        let trailing = base + i >= trail;
        match c {
            ' ' if trailing => out.push('·'),
            '\t' if trailing => out.push('→'),
            '\r' => out.push_str("\\r"),
            c if is_hidden(c) => out.push_str(&format!("\\u{{{:x}}}", u32::from(c))),
            c => out.push(c),
        }
    }
}

/// Escapes `s` as the inside of a JSON string literal, additionally escaping
/// hidden characters. Stops once `out` exceeds `limit` bytes.
fn push_json_body(out: &mut String, s: &str, limit: usize) {
    for c in s.chars() {
        if out.len() > limit {
            return;
        }
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if is_hidden(c) => {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    out.push_str(&format!("\\u{unit:04x}"));
                }
            }
            c => out.push(c),
        }
    }
}

fn push_json_string(out: &mut String, s: &str, limit: usize) {
    out.push('"');
    push_json_body(out, s, limit);
    out.push('"');
}

fn sorted_entries(map: &serde_json::Map<String, Value>) -> Vec<(&str, &Value)> {
    let mut entries: Vec<(&str, &Value)> = map.iter().map(|(k, v)| (k.as_str(), v)).collect();
    entries.sort_unstable_by(|a, b| a.0.cmp(b.0));
    entries
}

/// A container whose elements `compact` is still writing.
enum Open<'a> {
    Array {
        items: &'a [Value],
        next: usize,
    },
    Object {
        entries: Vec<(&'a str, &'a Value)>,
        next: usize,
    },
}

/// One-line JSON with sorted keys and a space after `:` and `,`. Returns
/// false if it stopped because `out` exceeded `limit` bytes.
fn compact(value: &Value, out: &mut String, limit: usize) -> bool {
    let mut stack: Vec<Open<'_>> = Vec::new();
    let mut pending = Some(value);
    while out.len() <= limit {
        if let Some(v) = pending.take() {
            match v {
                Value::Null => out.push_str("null"),
                Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
                Value::Number(n) => out.push_str(&n.to_string()),
                Value::String(s) => push_json_string(out, s, limit),
                Value::Array(items) if items.is_empty() => out.push_str("[]"),
                Value::Object(map) if map.is_empty() => out.push_str("{}"),
                Value::Array(items) => {
                    out.push('[');
                    stack.push(Open::Array { items, next: 0 });
                }
                Value::Object(map) => {
                    out.push('{');
                    stack.push(Open::Object {
                        entries: sorted_entries(map),
                        next: 0,
                    });
                }
            }
            continue;
        }
        let Some(top) = stack.last_mut() else {
            return true;
        };
        let finished = match top {
            Open::Array { items, next } => match items.get(*next) {
                Some(item) => {
                    if *next > 0 {
                        out.push_str(", ");
                    }
                    *next += 1;
                    pending = Some(item);
                    false
                }
                None => {
                    out.push(']');
                    true
                }
            },
            Open::Object { entries, next } => match entries.get(*next) {
                Some(&(key, item)) => {
                    if *next > 0 {
                        out.push_str(", ");
                    }
                    *next += 1;
                    push_json_string(out, key, limit);
                    out.push_str(": ");
                    pending = Some(item);
                    false
                }
                None => {
                    out.push('}');
                    true
                }
            },
        };
        if finished {
            stack.pop();
        }
    }
    false
}

#[derive(Clone, Copy)]
enum PathSeg<'a> {
    Root,
    Key(&'a str),
    Index(usize),
}

struct PathNode<'a> {
    parent: usize,
    seg: PathSeg<'a>,
}

enum Frame<'a> {
    Object {
        entries: Vec<(&'a str, &'a Value)>,
        next: usize,
        node: usize,
        depth: usize,
    },
    Array {
        items: &'a [Value],
        next: usize,
        node: usize,
        depth: usize,
    },
}

enum Step<'a> {
    Child {
        value: &'a Value,
        key: Option<&'a str>,
        seg: PathSeg<'a>,
        parent: usize,
        depth: usize,
    },
    Close {
        bracket: &'static str,
        node: usize,
        depth: usize,
    },
}

/// Pretty-printed JSON lines plus, for every line, the path of the value it
/// belongs to (stored as a parent-linked tree so paths cost O(1) per line).
struct Pretty<'a> {
    lines: Vec<String>,
    line_node: Vec<usize>,
    nodes: Vec<PathNode<'a>>,
}

impl<'a> Pretty<'a> {
    fn new(value: &'a Value) -> Self {
        let mut pretty = Self {
            lines: Vec::new(),
            line_node: Vec::new(),
            nodes: vec![PathNode {
                parent: 0,
                seg: PathSeg::Root,
            }],
        };
        let mut stack = Vec::new();
        pretty.open(value, None, 0, 0, &mut stack);
        while let Some(frame) = stack.last_mut() {
            let step = match frame {
                Frame::Object {
                    entries,
                    next,
                    node,
                    depth,
                } => match entries.get(*next) {
                    Some(&(key, value)) => {
                        *next += 1;
                        Step::Child {
                            value,
                            key: Some(key),
                            seg: PathSeg::Key(key),
                            parent: *node,
                            depth: *depth + 1,
                        }
                    }
                    None => Step::Close {
                        bracket: "}",
                        node: *node,
                        depth: *depth,
                    },
                },
                Frame::Array {
                    items,
                    next,
                    node,
                    depth,
                } => match items.get(*next) {
                    Some(value) => {
                        *next += 1;
                        Step::Child {
                            value,
                            key: None,
                            seg: PathSeg::Index(*next - 1),
                            parent: *node,
                            depth: *depth + 1,
                        }
                    }
                    None => Step::Close {
                        bracket: "]",
                        node: *node,
                        depth: *depth,
                    },
                },
            };
            match step {
                Step::Child {
                    value,
                    key,
                    seg,
                    parent,
                    depth,
                } => {
                    pretty.nodes.push(PathNode { parent, seg });
                    let node = pretty.nodes.len() - 1;
                    pretty.open(value, key, depth, node, &mut stack);
                }
                Step::Close {
                    bracket,
                    node,
                    depth,
                } => {
                    stack.pop();
                    let mut line = indent(depth);
                    line.push_str(bracket);
                    if depth > 0 {
                        line.push(',');
                    }
                    pretty.lines.push(line);
                    pretty.line_node.push(node);
                }
            }
        }
        pretty
    }

    fn open(
        &mut self,
        value: &'a Value,
        key: Option<&'a str>,
        depth: usize,
        node: usize,
        stack: &mut Vec<Frame<'a>>,
    ) {
        let mut line = indent(depth);
        if let Some(key) = key {
            push_json_string(&mut line, key, usize::MAX);
            line.push_str(": ");
        }
        let nested = depth < MAX_PRETTY_DEPTH;
        match value {
            Value::Object(map) if nested && !map.is_empty() => {
                line.push('{');
                stack.push(Frame::Object {
                    entries: sorted_entries(map),
                    next: 0,
                    node,
                    depth,
                });
            }
            Value::Array(items) if nested && !items.is_empty() => {
                line.push('[');
                stack.push(Frame::Array {
                    items,
                    next: 0,
                    node,
                    depth,
                });
            }
            _ => {
                compact(value, &mut line, usize::MAX);
                if depth > 0 {
                    line.push(',');
                }
            }
        }
        self.lines.push(line);
        self.line_node.push(node);
    }

    fn path_of_line(&self, line: usize) -> String {
        let mut segs = Vec::new();
        let mut node = self.line_node.get(line).copied().unwrap_or(0);
        // Bounded by the node count in case of a malformed tree.
        for _ in 0..self.nodes.len() {
            let Some(current) = self.nodes.get(node) else {
                break;
            };
            if let PathSeg::Root = current.seg {
                break;
            }
            segs.push(current.seg);
            node = current.parent;
        }
        let mut path = String::from("$");
        for seg in segs.iter().rev() {
            match seg {
                PathSeg::Root => {}
                PathSeg::Key(key) if is_identifier(key) => {
                    path.push('.');
                    path.push_str(key);
                }
                PathSeg::Key(key) => {
                    path.push('[');
                    push_json_string(&mut path, key, usize::MAX);
                    path.push(']');
                }
                PathSeg::Index(i) => path.push_str(&format!("[{i}]")),
            }
        }
        path
    }
}

fn indent(depth: usize) -> String {
    "  ".repeat(depth)
}

fn is_identifier(key: &str) -> bool {
    let mut chars = key.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == '$')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn generous() -> Budget {
        // A long deadline keeps exact-output tests independent of machine load.
        Budget {
            max_time: Duration::from_secs(30),
            ..Budget::default()
        }
    }

    fn run(expected: &Value, actual: &Value, enabled: bool, budget: &Budget) -> (String, Outcome) {
        let mut out = Vec::new();
        let outcome = render(&mut out, expected, actual, &Style { enabled }, budget)
            .expect("writing to a Vec cannot fail");
        (String::from_utf8(out).expect("output is UTF-8"), outcome)
    }

    fn plain(expected: Value, actual: Value) -> String {
        let (text, outcome) = run(&expected, &actual, false, &generous());
        assert_eq!(outcome, Outcome::Full, "unexpected outcome for:\n{text}");
        text
    }

    fn colored(expected: Value, actual: Value) -> String {
        run(&expected, &actual, true, &generous()).0
    }

    /// Lines of a styled output with this module's own escape sequences
    /// removed; anything left that starts with ESC came from the input.
    fn strip_own_codes(text: &str) -> String {
        let mut s = text.to_owned();
        for code in [
            ansi::GREEN,
            ansi::RED,
            ansi::YELLOW,
            ansi::DIM,
            ansi::INVERSE,
            ansi::INVERSE_OFF,
            ansi::RESET,
        ] {
            s = s.replace(code, "");
        }
        s
    }

    const LEGEND: &str = "- Expected\n+ Received\n\n";

    #[test]
    fn equal_values_print_one_line_without_colour() {
        for (e, a) in [
            (json!("same"), json!("same")),
            (json!(1), json!(1)),
            (json!(null), json!(null)),
            (json!({"a": [1, {"b": "c"}]}), json!({"a": [1, {"b": "c"}]})),
        ] {
            assert_eq!(
                plain(e.clone(), a.clone()),
                "Compared values have no visual difference.\n"
            );
            let (text, outcome) = run(&e, &a, true, &generous());
            assert_eq!(text, "Compared values have no visual difference.\n");
            assert_eq!(outcome, Outcome::Full);
        }
    }

    #[test]
    fn single_line_strings_are_quoted() {
        assert_eq!(
            plain(json!("hello world"), json!("hello wurld")),
            format!("{LEGEND}- \"hello world\"\n+ \"hello wurld\"\n")
        );
    }

    #[test]
    fn single_line_strings_escape_like_json_literals() {
        assert_eq!(
            plain(json!("say \"hi\"\\"), json!("say \"ho\"\\")),
            format!("{LEGEND}- \"say \\\"hi\\\"\\\\\"\n+ \"say \\\"ho\\\"\\\\\"\n")
        );
    }

    #[test]
    fn single_line_trailing_whitespace_is_visible_inside_quotes() {
        assert_eq!(
            plain(json!("foo "), json!("foo")),
            format!("{LEGEND}- \"foo \"\n+ \"foo\"\n")
        );
    }

    #[test]
    fn empty_string_against_text() {
        assert_eq!(
            plain(json!(""), json!("a")),
            format!("{LEGEND}- \"\"\n+ \"a\"\n")
        );
    }

    #[test]
    fn single_line_styled_highlights_changed_characters() {
        assert_eq!(
            colored(json!("hello world"), json!("hello wurld")),
            "\x1b[32m- Expected\x1b[0m\n\
             \x1b[31m+ Received\x1b[0m\n\
             \n\
             \x1b[32m- \"hello w\x1b[7mo\x1b[27mrld\"\x1b[0m\n\
             \x1b[31m+ \"hello w\x1b[7mu\x1b[27mrld\"\x1b[0m\n"
        );
    }

    #[test]
    fn short_common_runs_fold_into_the_change() {
        // Character-level Myers would keep ` ` and `o` (of "brown"/"fox")
        // as common islands; whole words read better.
        assert_eq!(
            colored(
                json!("The quick brown fox"),
                json!("The quick red fox jumps")
            ),
            "\x1b[32m- Expected\x1b[0m\n\
             \x1b[31m+ Received\x1b[0m\n\
             \n\
             \x1b[32m- \"The quick \x1b[7mbrown fox\x1b[27m\"\x1b[0m\n\
             \x1b[31m+ \"The quick \x1b[7mred fox jumps\x1b[27m\"\x1b[0m\n"
        );
    }

    #[test]
    fn unrelated_strings_are_not_highlighted() {
        let text = colored(json!("cat"), json!("dog"));
        assert!(!text.contains(ansi::INVERSE), "{text:?}");
        assert!(text.contains("\x1b[32m- \"cat\"\x1b[0m\n"), "{text:?}");
    }

    #[test]
    fn highlighting_respects_multibyte_characters() {
        assert_eq!(
            colored(json!("héllo wörld"), json!("hallo wörld!")),
            "\x1b[32m- Expected\x1b[0m\n\
             \x1b[31m+ Received\x1b[0m\n\
             \n\
             \x1b[32m- \"h\x1b[7mé\x1b[27mllo wörld\"\x1b[0m\n\
             \x1b[31m+ \"h\x1b[7ma\x1b[27mllo wörld\x1b[7m!\x1b[27m\"\x1b[0m\n"
        );
    }

    #[test]
    fn multi_line_strings_diff_by_line() {
        assert_eq!(
            plain(
                json!("line1\nline2\nline3"),
                json!("line1\nline 2\nline3\n")
            ),
            format!(
                "{LEGEND}  line1\n\
                 - line2\n\
                 + line 2\n  line3\n\
                 +\n"
            )
        );
    }

    #[test]
    fn multi_line_strings_styled() {
        assert_eq!(
            colored(json!("a\nline2\nb"), json!("a\nline 2\nb")),
            "\x1b[32m- Expected\x1b[0m\n\
             \x1b[31m+ Received\x1b[0m\n\
             \n\
             \x1b[2m  a\x1b[0m\n\
             \x1b[32m- line2\x1b[0m\n\
             \x1b[31m+ line\x1b[7m \x1b[27m2\x1b[0m\n\
             \x1b[2m  b\x1b[0m\n"
        );
    }

    #[test]
    fn one_side_multi_line_is_enough_for_a_line_diff() {
        assert_eq!(
            plain(json!("only"), json!("only\nmore")),
            format!("{LEGEND}  only\n+ more\n")
        );
    }

    #[test]
    fn multi_line_context_collapses_into_hunks() {
        let expected: String = (1..=30).map(|i| format!("line {i}\n")).collect();
        let actual = expected
            .replace("line 6\n", "line six\n")
            .replace("line 20\n", "line 20\ninserted\n");
        assert_eq!(
            plain(json!(expected), json!(actual)),
            format!(
                "{LEGEND}@@ -3,7 +3,7 @@\n\
                 \x20 line 3\n\
                 \x20 line 4\n\
                 \x20 line 5\n\
                 - line 6\n\
                 + line six\n\
                 \x20 line 7\n\
                 \x20 line 8\n\
                 \x20 line 9\n\
                 @@ -18,6 +18,7 @@\n\
                 \x20 line 18\n\
                 \x20 line 19\n\
                 \x20 line 20\n\
                 + inserted\n\
                 \x20 line 21\n\
                 \x20 line 22\n\
                 \x20 line 23\n"
            )
        );
    }

    #[test]
    fn a_single_hidden_line_is_shown_instead_of_a_hunk_header() {
        let expected: String = (1..=12).map(|i| format!("{i}\n")).collect();
        let actual = expected.replace("5\n", "five\n");
        // `similar`'s grouping would hide just line 1 behind a header.
        let actual = actual.replace("12\n", "twelve\n");
        let text = plain(json!(expected), json!(actual));
        assert!(!text.contains("@@"), "{text}");
        assert_eq!(text.lines().count(), 3 + 15);
    }

    #[test]
    fn multi_line_hunks_at_the_edges() {
        let expected: String = (1..=10).map(|i| format!("{i}\n")).collect();
        let actual = format!("0\n{}", expected.trim_end_matches('\n'));
        assert_eq!(
            plain(json!(expected), json!(actual)),
            format!(
                "{LEGEND}@@ -1,3 +1,4 @@\n\
                 + 0\n\
                 \x20 1\n\
                 \x20 2\n\
                 \x20 3\n\
                 @@ -8,4 +9,3 @@\n\
                 \x20 8\n\
                 \x20 9\n\
                 \x20 10\n\
                 -\n"
            )
        );
    }

    #[test]
    fn multi_line_trailing_whitespace_is_marked() {
        assert_eq!(
            plain(json!("a  \nb\t\n  \nc"), json!("a\nb\n\nc")),
            format!("{LEGEND}- a··\n- b→\n- ··\n+ a\n+ b\n+\n  c\n")
        );
    }

    #[test]
    fn trailing_newline_difference_is_an_empty_line() {
        assert_eq!(
            plain(json!("foo\nbar\n"), json!("foo\nbar")),
            format!("{LEGEND}  foo\n  bar\n-\n")
        );
    }

    #[test]
    fn control_characters_are_escaped() {
        let expected = json!("a\u{1b}[31mred\tx\u{7}");
        let actual = json!("a\u{1b}[32mred\tx\u{7}");
        assert_eq!(
            plain(expected.clone(), actual.clone()),
            format!("{LEGEND}- \"a\\u001b[31mred\\tx\\u0007\"\n+ \"a\\u001b[32mred\\tx\\u0007\"\n")
        );
        assert_eq!(
            plain(json!("\u{1b}]0;title\u{7}\r\n\tx\u{9b}"), json!("\u{1b}]0;title\u{7}\n\tx")),
            format!("{LEGEND}- \\u{{1b}}]0;title\\u{{7}}\\r\n- \tx\\u{{9b}}\n+ \\u{{1b}}]0;title\\u{{7}}\n+ \tx\n")
        );
        let styled = colored(json!({"k": "\u{1b}[2J"}), json!({"k": "\u{1b}[3J"}));
        assert!(!strip_own_codes(&styled).contains('\u{1b}'), "{styled:?}");
    }

    #[test]
    fn invisible_and_lookalike_characters_are_escaped() {
        // Number formatting uses narrow/no-break spaces; these are the
        // "identical looking" failures the escapes exist for.
        assert_eq!(
            plain(json!("1\u{202f}234,56\u{a0}€"), json!("1 234,56 €")),
            format!("{LEGEND}- \"1\\u202f234,56\\u00a0€\"\n+ \"1 234,56 €\"\n")
        );
        assert_eq!(
            plain(json!("x\u{200b}\u{202e}y\u{feff}\nz"), json!("xy\nz")),
            format!("{LEGEND}- x\\u{{200b}}\\u{{202e}}y\\u{{feff}}\n+ xy\n  z\n")
        );
        // Joiners stay, or emoji sequences would be torn apart.
        assert_eq!(
            plain(json!("👩\u{200d}💻"), json!("👩")),
            format!("{LEGEND}- \"👩\u{200d}💻\"\n+ \"👩\"\n")
        );
    }

    #[test]
    fn objects_show_nested_differences_and_missing_keys() {
        let expected = json!({
            "name": "bob", "age": 3, "tags": ["a", "b"], "addr": {"city": "X", "zip": "1"}
        });
        let actual = json!({
            "name": "alice", "age": 3, "tags": ["a", "b", "c"], "addr": {"city": "X"}, "extra": null
        });
        assert_eq!(
            plain(expected, actual),
            format!(
                "{LEGEND}  {{\n\
                 \x20   \"addr\": {{\n\
                 \x20     \"city\": \"X\",\n\
                 -     \"zip\": \"1\",\n\
                 \x20   }},\n\
                 \x20   \"age\": 3,\n\
                 -   \"name\": \"bob\",\n\
                 +   \"extra\": null,\n\
                 +   \"name\": \"alice\",\n\
                 \x20   \"tags\": [\n\
                 \x20     \"a\",\n\
                 \x20     \"b\",\n\
                 +     \"c\",\n\
                 \x20   ],\n\
                 \x20 }}\n"
            )
        );
    }

    #[test]
    fn changed_json_lines_are_paired_by_similarity_not_position() {
        let styled = colored(
            json!({"name": "bob"}),
            json!({"extra": null, "name": "alice"}),
        );
        assert_eq!(
            styled,
            "\x1b[32m- Expected\x1b[0m\n\
             \x1b[31m+ Received\x1b[0m\n\
             \n\
             \x1b[2m  {\x1b[0m\n\
             \x1b[32m-   \"name\": \"\x1b[7mbob\x1b[27m\",\x1b[0m\n\
             \x1b[31m+   \"extra\": null,\x1b[0m\n\
             \x1b[31m+   \"name\": \"\x1b[7malice\x1b[27m\",\x1b[0m\n\
             \x1b[2m  }\x1b[0m\n"
        );
    }

    #[test]
    fn keys_are_sorted() {
        assert_eq!(
            plain(json!({"b": 1, "a": 2}), json!({"b": 1, "a": 3})),
            format!("{LEGEND}  {{\n-   \"a\": 2,\n+   \"a\": 3,\n    \"b\": 1,\n  }}\n")
        );
    }

    #[test]
    fn arrays_with_insertions_only_add_lines() {
        assert_eq!(
            plain(json!([1, 2, 3]), json!([1, 2, 4, 3])),
            format!("{LEGEND}  [\n    1,\n    2,\n+   4,\n    3,\n  ]\n")
        );
        // The trailing comma on every element keeps an append from also
        // changing the previous line.
        assert_eq!(
            plain(json!([[1]]), json!([[1], []])),
            format!("{LEGEND}  [\n    [\n      1,\n    ],\n+   [],\n  ]\n")
        );
    }

    #[test]
    fn inserted_and_removed_objects_are_shown_whole() {
        let expected = json!([{"id": 1}, {"id": 2}]);
        let actual = json!([{"id": 1}, {"id": 3}, {"id": 2}]);
        assert_eq!(
            plain(expected.clone(), actual.clone()),
            format!(
                "{LEGEND}  [\n\
                 \x20   {{\n\
                 \x20     \"id\": 1,\n\
                 \x20   }},\n\
                 +   {{\n\
                 +     \"id\": 3,\n\
                 +   }},\n\
                 \x20   {{\n\
                 \x20     \"id\": 2,\n\
                 \x20   }},\n\
                 \x20 ]\n"
            )
        );
        assert_eq!(
            plain(actual, expected),
            format!(
                "{LEGEND}  [\n\
                 \x20   {{\n\
                 \x20     \"id\": 1,\n\
                 \x20   }},\n\
                 -   {{\n\
                 -     \"id\": 3,\n\
                 -   }},\n\
                 \x20   {{\n\
                 \x20     \"id\": 2,\n\
                 \x20   }},\n\
                 \x20 ]\n"
            )
        );
    }

    #[test]
    fn large_json_collapses_and_names_the_path() {
        let users: Vec<Value> = (0..40)
            .map(|i| json!({"id": i, "name": format!("user{i}")}))
            .collect();
        let mut changed = users.clone();
        changed[20]["name"] = json!("changed");
        assert_eq!(
            plain(json!({ "users": users }), json!({ "users": changed })),
            format!(
                "{LEGEND}@@ $.users[20].name @@\n\
                 \x20     }},\n\
                 \x20     {{\n\
                 \x20       \"id\": 20,\n\
                 -       \"name\": \"user20\",\n\
                 +       \"name\": \"changed\",\n\
                 \x20     }},\n\
                 \x20     {{\n\
                 \x20       \"id\": 21,\n"
            )
        );
    }

    #[test]
    fn paths_quote_keys_that_are_not_identifiers() {
        let filler = json!({"a": 1, "b": 2, "c": 3, "d": 4, "e": 5});
        let expected = json!({"a b": {"c-d": [1, {"x": 1}]}, "z": filler});
        let actual = json!({"a b": {"c-d": [1, {"x": 2}]}, "z": filler});
        let text = plain(expected, actual);
        assert!(
            text.starts_with(&format!("{LEGEND}@@ $[\"a b\"][\"c-d\"][1].x @@\n")),
            "{text}"
        );
    }

    #[test]
    fn insertion_path_comes_from_the_received_side() {
        let base: serde_json::Map<String, Value> =
            (0..10).map(|i| (format!("k{i}"), json!(i))).collect();
        let mut more = base.clone();
        more.insert("k55".to_owned(), json!({"new": true}));
        let text = plain(Value::Object(base), Value::Object(more));
        assert!(text.contains("@@ $.k55 @@\n"), "{text}");
        assert!(
            text.contains("+   \"k55\": {\n+     \"new\": true,\n+   },\n"),
            "{text}"
        );
    }

    #[test]
    fn primitives_of_different_types_get_a_note() {
        assert_eq!(
            plain(json!(5), json!("5")),
            "- Expected: 5\n+ Received: \"5\"\n\n(different types: number vs string)\n"
        );
        assert_eq!(
            plain(json!(true), json!(null)),
            "- Expected: true\n+ Received: null\n\n(different types: boolean vs null)\n"
        );
    }

    #[test]
    fn primitives_of_the_same_type_have_no_note() {
        assert_eq!(
            plain(json!(5), json!(6.5)),
            "- Expected: 5\n+ Received: 6.5\n"
        );
        assert_eq!(
            plain(json!(false), json!(true)),
            "- Expected: false\n+ Received: true\n"
        );
    }

    #[test]
    fn container_against_primitive_is_side_by_side() {
        assert_eq!(
            plain(json!({"a": [1, 2]}), json!(null)),
            "- Expected: {\n-   \"a\": [\n-     1,\n-     2,\n-   ],\n- }\n+ Received: null\n\n\
             (different types: object vs null)\n"
        );
        assert_eq!(
            plain(json!("[1]"), json!([1])),
            "- Expected: \"[1]\"\n+ Received: [\n+   1,\n+ ]\n\n(different types: string vs array)\n"
        );
    }

    #[test]
    fn array_against_object_is_diffed_with_a_note() {
        assert_eq!(
            plain(json!([1]), json!({"0": 1})),
            "- Expected\n+ Received\n(different types: array vs object)\n\n\
             - [\n-   1,\n- ]\n+ {\n+   \"0\": 1,\n+ }\n"
        );
        assert_eq!(
            plain(json!({}), json!([])),
            "- Expected\n+ Received\n(different types: object vs array)\n\n- {}\n+ []\n"
        );
    }

    #[test]
    fn json_in_strings_is_diffed_structurally() {
        assert_eq!(
            plain(json!(r#"{"a":1,"b":[1,2]}"#), json!(r#"{"b":[1,2],"a":2}"#)),
            "- Expected\n+ Received\n(both strings are JSON; compared as parsed values)\n\n\
             @@ $.a @@\n  {\n-   \"a\": 1,\n+   \"a\": 2,\n    \"b\": [\n      1,\n      2,\n"
        );
    }

    #[test]
    fn json_strings_differing_only_in_formatting_are_diffed_as_text() {
        assert_eq!(
            plain(json!(r#"{"a":1}"#), json!(r#"{ "a": 1 }"#)),
            format!("{LEGEND}- \"{{\\\"a\\\":1}}\"\n+ \"{{ \\\"a\\\": 1 }}\"\n")
        );
        // Only one side parses: plain text diff.
        assert_eq!(
            plain(json!("[1, 2"), json!("[1, 2]")),
            format!("{LEGEND}- \"[1, 2\"\n+ \"[1, 2]\"\n")
        );
    }

    #[test]
    fn output_is_truncated_to_the_line_budget() {
        let budget = Budget {
            max_output_lines: 8,
            ..generous()
        };
        let (text, outcome) = run(&json!([1, 2, 3]), &json!([1, 2, 4, 3]), false, &budget);
        assert_eq!(
            text,
            format!("{LEGEND}  [\n    1,\n    2,\n+   4,\n… 2 more lines\n")
        );
        assert_eq!(outcome, Outcome::Truncated { omitted_lines: 2 });
        assert_eq!(text.lines().count(), 8);

        // Exactly at the limit nothing is cut.
        let exact = Budget {
            max_output_lines: 9,
            ..generous()
        };
        let (text, outcome) = run(&json!([1, 2, 3]), &json!([1, 2, 4, 3]), false, &exact);
        assert_eq!(text.lines().count(), 9);
        assert_eq!(outcome, Outcome::Full);

        let zero = Budget {
            max_output_lines: 0,
            ..generous()
        };
        let (text, outcome) = run(&json!("a"), &json!("b"), false, &zero);
        assert_eq!(text, "… 5 more lines\n");
        assert_eq!(outcome, Outcome::Truncated { omitted_lines: 5 });
    }

    #[test]
    fn truncation_marker_is_styled() {
        let budget = Budget {
            max_output_lines: 4,
            ..generous()
        };
        let (text, outcome) = run(&json!("a"), &json!("b"), true, &budget);
        assert_eq!(
            text,
            "\x1b[32m- Expected\x1b[0m\n\x1b[31m+ Received\x1b[0m\n\n\x1b[2m… 2 more lines\x1b[0m\n"
        );
        assert_eq!(outcome, Outcome::Truncated { omitted_lines: 2 });
    }

    #[test]
    fn huge_diffs_stay_within_the_line_budget() {
        let expected: Vec<Value> = (0..5000).map(|i| json!(i)).collect();
        let actual: Vec<Value> = (0..5000).map(|i| json!(i * 2)).collect();
        let (text, outcome) = run(&json!(expected), &json!(actual), true, &Budget::default());
        assert_eq!(text.lines().count(), 200);
        assert!(matches!(outcome, Outcome::Truncated { omitted_lines } if omitted_lines > 5000));
    }

    #[test]
    fn too_large_inputs_get_a_short_form() {
        let budget = Budget {
            max_input_bytes: 10,
            ..generous()
        };
        let (text, outcome) = run(&json!("0123456789abc"), &json!("x"), false, &budget);
        assert_eq!(
            text,
            format!(
                "{LEGEND}- \"0123456789abc\"\n+ \"x\"\n\n\
                 (too large to diff: inputs over 10 bytes are cut to 200 characters)\n"
            )
        );
        assert_eq!(outcome, Outcome::TooLarge);

        let long = "ab\n".repeat(100_000);
        let (text, outcome) = run(&json!(long), &json!({"k": long}), false, &Budget::default());
        assert_eq!(outcome, Outcome::TooLarge);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 7, "{text}");
        assert_eq!(
            lines[6],
            "(too large to diff: inputs over 262144 bytes are cut to 200 characters)"
        );
        assert_eq!(
            lines[3],
            format!("- \"{}…", "ab\\n".repeat(67).get(..266).unwrap_or_default())
        );
        assert!(lines[4].starts_with("+ {\"k\": \"ab\\nab"), "{}", lines[4]);
        assert!(lines[4].ends_with('…'));
        assert_eq!(lines[4].chars().count(), 2 + 200 + 1);
    }

    #[test]
    fn too_large_beats_truncation() {
        let budget = Budget {
            max_input_bytes: 1,
            max_output_lines: 2,
            ..generous()
        };
        let (text, outcome) = run(&json!([1, 2]), &json!([3]), false, &budget);
        assert_eq!(text, "- Expected\n… 6 more lines\n");
        assert_eq!(outcome, Outcome::TooLarge);
    }

    #[test]
    fn deep_nesting_does_not_overflow_the_stack() {
        let mut expected = json!(1);
        let mut actual = json!(2);
        for _ in 0..50_000 {
            expected = Value::Array(vec![expected]);
            actual = Value::Array(vec![actual]);
        }
        // Value's own Drop recurses, so leak rather than crash the test,
        // including when an assertion unwinds.
        let expected = std::mem::ManuallyDrop::new(expected);
        let actual = std::mem::ManuallyDrop::new(actual);
        let (text, outcome) = run(&expected, &actual, true, &Budget::default());
        assert_eq!(outcome, Outcome::Full);
        let plain_text = strip_own_codes(&text);
        // Nesting past the pretty-print limit collapses onto one line.
        let changed: Vec<&str> = plain_text
            .lines()
            .skip(3)
            .filter(|l| l.starts_with('-') || l.starts_with('+'))
            .collect();
        assert_eq!(changed.len(), 2);
        assert!(changed[0].trim_end_matches([']', ',']).ends_with("[1"));
        assert!(changed[1].trim_end_matches([']', ',']).ends_with("[2"));
        assert!(plain_text.lines().count() < 200);
    }

    #[test]
    fn zero_time_budget_still_produces_a_correct_diff() {
        let budget = Budget {
            max_time: Duration::ZERO,
            ..Budget::default()
        };
        let expected: String = (0..500).map(|i| format!("{i}\n")).collect();
        let actual: String = (0..500).map(|i| format!("{}\n", i * 7 % 500)).collect();
        let (text, outcome) = run(&json!(expected), &json!(actual), true, &budget);
        assert!(matches!(outcome, Outcome::Truncated { .. }));
        assert!(
            !text.contains(ansi::INVERSE),
            "highlighting is skipped once time is up"
        );
        let (text, outcome) = run(&json!("abc"), &json!("abd"), false, &budget);
        assert_eq!(text, format!("{LEGEND}- \"abc\"\n+ \"abd\"\n"));
        assert_eq!(outcome, Outcome::Full);
    }

    #[test]
    fn styled_lines_always_end_with_a_reset() {
        let cases = [
            (json!("a b c"), json!("a x c")),
            (json!("a\n\nb "), json!("a\nc\nb")),
            (json!({"x": [1, 2]}), json!({"x": [2]})),
            (json!(1), json!("1")),
        ];
        for (e, a) in cases {
            let text = colored(e, a);
            for line in text.lines().filter(|l| !l.is_empty()) {
                assert!(line.starts_with('\u{1b}'), "{line:?}");
                assert!(line.ends_with(ansi::RESET), "{line:?}");
            }
        }
    }

    #[test]
    fn style_off_output_has_no_escape_sequences() {
        let text = plain(json!("a\u{1b}b\nc"), json!({"x\u{1b}": "\u{1b}"}));
        assert!(!text.contains('\u{1b}'), "{text:?}");
    }

    #[test]
    fn write_errors_are_reported() {
        struct Broken;
        impl Write for Broken {
            fn write(&mut self, _: &[u8]) -> io::Result<usize> {
                Err(io::Error::other("closed"))
            }
            fn flush(&mut self) -> io::Result<()> {
                Ok(())
            }
        }
        let result = render(
            &mut Broken,
            &json!(1),
            &json!(2),
            &Style::default(),
            &Budget::default(),
        );
        assert!(result.is_err());
    }

    /// Small deterministic generator so the fuzz test needs no extra crate.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }

        fn below(&mut self, n: u64) -> usize {
            usize::try_from(self.next() % n).unwrap_or(0)
        }

        fn string(&mut self) -> String {
            const PIECES: [&str; 14] = [
                "a",
                "b",
                " ",
                "\n",
                "\t",
                "\r",
                "\u{1b}[1m",
                "é",
                "👩\u{200d}💻",
                "\u{a0}",
                "\u{202e}",
                "\"",
                "\\",
                "{\"k\": [1]}",
            ];
            let len = self.below(12);
            (0..len)
                .map(|_| PIECES[self.below(PIECES.len() as u64)])
                .collect()
        }

        fn value(&mut self, depth: usize) -> Value {
            match self.below(if depth > 3 { 4 } else { 6 }) {
                0 => Value::Null,
                1 => json!(self.below(3) == 0),
                2 => json!(self.below(5)),
                3 => json!(self.string()),
                4 => (0..self.below(4)).map(|_| self.value(depth + 1)).collect(),
                _ => Value::Object(
                    (0..self.below(4))
                        .map(|_| (self.string(), self.value(depth + 1)))
                        .collect(),
                ),
            }
        }
    }

    #[test]
    fn line_diffs_reconstruct_both_inputs() {
        // Guards the hunk grouping and block sliding: whatever they move,
        // context plus `-` lines must still spell the expected text and
        // context plus `+` lines the received one.
        const LINES: [&str; 6] = ["a", "b", "{", "}", "  a", ""];
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let mut checked = 0;
        for _ in 0..3000 {
            let text = |rng: &mut Rng| {
                let len = 1 + rng.below(8);
                let lines: Vec<&str> = (0..len).map(|_| LINES[rng.below(6)]).collect();
                lines.join("\n")
            };
            let (expected, actual) = (text(&mut rng), text(&mut rng));
            if expected == actual || !(expected.contains('\n') || actual.contains('\n')) {
                continue;
            }
            let out = plain(json!(expected), json!(actual));
            if out.contains("@@") {
                continue;
            }
            let (mut old, mut new) = (Vec::new(), Vec::new());
            for line in out.lines().skip(3) {
                // Lines are `- x`, `+ x`, `  x`, or a bare sign / nothing
                // when the content is empty.
                let rest = line.get(2..).unwrap_or_default();
                match line.chars().next() {
                    Some('-') => old.push(rest),
                    Some('+') => new.push(rest),
                    _ => {
                        old.push(rest);
                        new.push(rest);
                    }
                }
            }
            assert_eq!(old.join("\n"), expected, "{out}");
            assert_eq!(new.join("\n"), actual, "{out}");
            checked += 1;
        }
        assert!(checked > 1000, "only {checked} cases checked");
    }

    #[test]
    fn random_inputs_never_panic_or_leak_escapes() {
        let mut rng = Rng(0x2545_f491_4f6c_dd1d);
        for i in 0..2000 {
            let expected = rng.value(0);
            let actual = if i % 5 == 0 {
                expected.clone()
            } else {
                rng.value(0)
            };
            let budget = Budget {
                max_output_lines: 1 + rng.below(40),
                max_input_bytes: 20 + rng.below(400),
                ..generous()
            };
            for enabled in [false, true] {
                let (text, outcome) = run(&expected, &actual, enabled, &budget);
                let visible = strip_own_codes(&text);
                assert!(!visible.contains('\u{1b}'), "{text:?}");
                assert!(text.lines().count() <= budget.max_output_lines, "{text}");
                if enabled {
                    assert_eq!(visible, run(&expected, &actual, false, &budget).0);
                }
                if let Outcome::Truncated { omitted_lines } = outcome {
                    assert!(omitted_lines >= 2);
                    assert!(
                        visible.ends_with(&format!("… {omitted_lines} more lines\n")),
                        "{visible}"
                    );
                }
            }
        }
    }
}
