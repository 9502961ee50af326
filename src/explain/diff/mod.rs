//! Expected/actual diffs for failing assertions: strings line by line with changed characters highlighted, JSON structurally, primitives side by side.
//!
//! The output imitates JavaScript's best-known diff (whose: protocol-spec/producers.md,
//! Values and diffs) so that developers coming from JavaScript read it
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
//!   space (`"foo "`), a tab (`\t`) or a stray quote is always visible. A
//!   string holding `"` or `\` (JSON text, a path) reads as written between
//!   `'…'` instead (`'"\u00b6"'`, not `"\"\\u00b6\""`), unless either side
//!   holds a character only an escape shows.
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
//!   change in the notation the developer wrote the test in. As there, every
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
//!   legend is printed here because every line carries its own label. A
//!   value the producer wrote as a literal JSON has not ([`bare`], [`typed`]:
//!   `undef`, `Infinity`, a Date, `Symbol(x)`) prints unquoted, and a typed
//!   one names its type in the note (`string vs Date`); an object of a class
//!   ([`instance`]) prints the class before its brace.
//!
//! # Model
//!
//! [`compute`] produces a [`Diff`]: lines ([`DiffLine`]) that say which side they belong to
//! ([`Sign`]), with text segments marking the changed characters, plus the legend, notes,
//! hunk headers and the truncation marker. The terminal ([`Diff::write_terminal`], used by
//! [`render`]) and the HTML report paint the same model, so both show the same diff.
//!
//! # Highlighting
//!
//! Only when asked (on a terminal: with colours enabled), changed characters within a changed line are
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
//! * [`Budget::max_work`] bounds all diffing of one pair of values, counted in
//!   steps rather than time, so the same input gives the same diff on every
//!   machine and under any load (a wall-clock deadline made a loaded machine
//!   print a coarser diff). Before each Myers diff its worst case is charged:
//!   the square of what is left once the common prefix and suffix are set
//!   aside ([`worst_work`]). A line diff that would overdraw is shown as one
//!   change block between the common lines, with a note; a highlight that
//!   would overdraw is skipped. Either way the output is complete.
//!
//! Nothing here recurses over the JSON value, so arbitrarily deep input
//! cannot overflow the stack; nesting deeper than 64 levels is printed
//! compactly on one line to keep indentation bounded.

use std::cell::Cell;
use std::ops::Range;

use serde_json::Value;
use similar::{Algorithm, DiffOp, DiffTag, TextDiff};

/// Limits that keep a pathological failure from flooding the report.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budget {
    /// Maximum number of lines written, including the `… N more lines` line.
    pub max_output_lines: usize,
    /// Inputs larger than this are summarised instead of diffed.
    pub max_input_bytes: usize,
    /// Diffing steps allowed for one pair of values (see the module docs). The default, 2^24,
    /// aligns up to 4,096 changed lines or characters in one diff; its worst case measured
    /// 57 ms (lines) and 249 ms (characters) with `similar` on a 2-core machine at a load
    /// average of 30, a few milliseconds on an idle one.
    pub max_work: u64,
}

impl Default for Budget {
    fn default() -> Self {
        Self {
            max_output_lines: 200,
            max_input_bytes: 256 * 1024,
            max_work: 1 << 24,
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

/// A value the producer wrote as a bare word, not as JSON: `Infinity`, `NaN`, `undef`.
/// The diff prints it unquoted, and a number word ([`NUMBER_WORDS`]) counts as a number.
pub fn bare(word: &str) -> Value {
    let mut map = serde_json::Map::new();
    map.insert(BARE_KEY.to_owned(), Value::String(word.to_owned()));
    Value::Object(map)
}

/// A value the producer wrote as a literal of a type JSON has not (`typed("1970-01-01T00:00:00.000Z",
/// "Date")`, `typed("Symbol(x)", "symbol")`, `typed("b'x'", "bytes")`): printed unquoted like
/// [`bare`], and its type named when the other side's differs, so a Date against the string
/// that spells it reads `(different types: string vs Date)`.
pub fn typed(word: &str, kind: &str) -> Value {
    let mut value = bare(word);
    if let Value::Object(map) = &mut value {
        map.insert(TYPE_KEY.to_owned(), Value::String(kind.to_owned()));
    }
    value
}

/// An object of a class (`Foo { a: 1 }`): its fields, printed after the class's name, so an
/// instance against a plain object with the same fields differs on its first line.
pub fn instance(class: &str, mut fields: serde_json::Map<String, Value>) -> Value {
    fields.insert(CLASS_KEY.to_owned(), Value::String(class.to_owned()));
    Value::Object(fields)
}

/// A value on one line as the diff prints it, for a report that shows a value outside a diff
/// (a JSON report's `expected`): a string quoted as [`compute`] quotes a lone one, a word the
/// producer wrote ([`bare`], [`typed`]) as written, a structure as compact JSON with its
/// classes.
pub fn one_line(value: &Value) -> String {
    match value {
        Value::String(s) if verbatim(&[s]) => format!("'{s}'"),
        _ => {
            let mut out = String::new();
            compact(value, &mut out, usize::MAX);
            out
        }
    }
}

/// The type of a value as the diff's note names it: JSON's (`string`, `number`, `object`…),
/// a typed word's (`Date`, `undefined`, `symbol`, `bytes`), or `bare` for a word of no type
/// (`undef`: protocol-spec/producers.md).
pub fn kind(value: &Value) -> &str {
    type_name(value)
}

/// Whether two values print the same: what [`compute`] says "no visual difference" of.
pub fn same(a: &Value, b: &Value) -> bool {
    json_eq(a, b)
}

/// Whether `word` is a number that JSON cannot write (`Infinity`, `-Infinity`, `NaN`, YAML's
/// `.inf`, `-.inf`, `.nan`).
pub fn is_number_word(word: &str) -> bool {
    NUMBER_WORDS.contains(&word)
}

/// The diff of `expected` vs `actual` as structured lines within `budget`, for any renderer.
/// `highlight` computes the changed characters within changed lines ([`Segment::emphasized`]);
/// without it every line is a single plain segment.
pub fn compute(expected: &Value, actual: &Value, budget: &Budget, highlight: bool) -> Diff {
    compute_sides(expected, actual, budget, highlight, Sides::default())
}

/// [`compute`], each side called by the producer's name for it (`left`/`right`: Rust's
/// `assert_eq!` means neither as the expected one).
pub fn compute_sides(
    expected: &Value,
    actual: &Value,
    budget: &Budget,
    highlight: bool,
    sides: Sides,
) -> Diff {
    let mut renderer = Renderer {
        highlight,
        work: Cell::new(budget.max_work),
        sink: Sink::new(budget.max_output_lines),
        sides,
    };
    let too_large = if json_eq(expected, actual) {
        renderer.sink.push(DiffLine::NoDifference);
        false
    } else if exceeds(expected, budget.max_input_bytes) || exceeds(actual, budget.max_input_bytes) {
        renderer.short_form(expected, actual, budget.max_input_bytes);
        true
    } else {
        renderer.diff(expected, actual);
        false
    };
    renderer.sink.finish(too_large)
}

const CONTEXT_LINES: usize = 3;
const SHORT_FORM_CHARS: usize = 200;
/// Beyond this depth values are printed on one line, so that indentation
/// cannot grow quadratically with nesting.
const MAX_PRETTY_DEPTH: usize = 64;
const MAX_PAIRING_ATTEMPTS: usize = 256;
const NO_DIFFERENCE: &str = "Compared values have no visual difference.";
const JSON_NOTE: &str = "(both strings are JSON; compared as parsed values)";
pub(crate) const COARSE_NOTE: &str = "(too many lines changed to align them: shown as one change)";

/// How the text of a diff line is made safe for the terminal.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// Unquoted string lines: escape hidden characters, mark trailing blanks.
    Raw,
    /// A whole single-line string, shown as a JSON string literal.
    Quoted,
    /// A whole single-line string holding `"` or `\\`, shown as written between `'…'`
    /// ([`verbatim`]).
    Verbatim,
    /// Already escaped by the JSON printer.
    Safe,
}

/// Emphasis over one line as consecutive runs, each given by the byte offset where it ends:
/// a run starts where the one before ended, so the runs cannot leave out or repeat text.
type Segments = Vec<(bool, usize)>;

pub(crate) struct Renderer {
    pub(crate) highlight: bool,
    /// Steps of [`Budget::max_work`] left.
    pub(crate) work: Cell<u64>,
    pub(crate) sink: Sink,
    pub(crate) sides: Sides,
}

/// What the legend and the side-by-side labels call the `-` and the `+` side.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sides {
    pub expected: &'static str,
    pub received: &'static str,
}

impl Default for Sides {
    fn default() -> Self {
        Sides {
            expected: Sign::Expected.name(),
            received: Sign::Received.name(),
        }
    }
}

/// What a Myers diff of `old` against `new` costs at worst, in steps: the square of the
/// units left once the common prefix and suffix are set aside (as `similar` sets them aside).
pub(crate) fn worst_work<T: PartialEq>(old: &[T], new: &[T]) -> u64 {
    let prefix = old.iter().zip(new).take_while(|(a, b)| a == b).count();
    let old = old.get(prefix..).unwrap_or_default();
    let new = new.get(prefix..).unwrap_or_default();
    let suffix = old
        .iter()
        .rev()
        .zip(new.iter().rev())
        .take_while(|(a, b)| a == b)
        .count();
    let left = (old.len() + new.len()).saturating_sub(2 * suffix) as u64;
    left.saturating_mul(left)
}

/// Takes `cost` steps from `work` when that many are left; says whether it did.
pub(crate) fn charge(work: &Cell<u64>, cost: u64) -> bool {
    match work.get().checked_sub(cost) {
        Some(left) => {
            work.set(left);
            true
        }
        None => false,
    }
}

impl Renderer {
    fn preamble(&mut self, notes: &[&str]) {
        self.sink
            .push(DiffLine::Legend(Sign::Expected, self.sides.expected));
        self.sink
            .push(DiffLine::Legend(Sign::Received, self.sides.received));
        for note in notes {
            self.sink.push(DiffLine::Note((*note).to_owned()));
        }
        self.sink.push(DiffLine::Blank);
    }

    fn diff(&mut self, expected: &Value, actual: &Value) {
        match (expected, actual) {
            (Value::String(e), Value::String(a)) => self.strings(e, a),
            _ if as_bare(expected).is_some() || as_bare(actual).is_some() => {
                self.side_by_side(expected, actual);
            }
            (Value::Array(_) | Value::Object(_), Value::Array(_) | Value::Object(_)) => {
                let note = type_note(expected, actual);
                let notes: Vec<&str> = note.iter().map(String::as_str).collect();
                if !self.structural(expected, actual, &notes) {
                    self.sink.push(DiffLine::NoDifference);
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
        let inline = if self.highlight {
            inline_diff(expected, actual, &self.work)
        } else {
            None
        };
        let (old, new) = match &inline {
            Some(inline) => (Some(inline.old.as_slice()), Some(inline.new.as_slice())),
            None => (None, None),
        };
        let mode = if verbatim(&[expected, actual]) {
            Mode::Verbatim
        } else {
            Mode::Quoted
        };
        self.emit(Sign::Expected, expected, mode, old);
        self.emit(Sign::Received, actual, mode, new);
    }

    fn multi_line(&mut self, expected: &str, actual: &str) {
        let old: Vec<&str> = expected.split('\n').collect();
        let new: Vec<&str> = actual.split('\n').collect();
        let (groups, coarse) = self.line_groups(&old, &new);
        if groups.is_empty() {
            self.sink.push(DiffLine::NoDifference);
            return;
        }
        self.preamble(if coarse { &[COARSE_NOTE] } else { &[] });
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
        let (groups, coarse) = self.line_groups(&old, &new);
        if groups.is_empty() {
            return false;
        }
        let mut notes = notes.to_vec();
        if coarse {
            notes.push(COARSE_NOTE);
        }
        self.preamble(&notes);
        self.emit_groups(&old, &new, &groups, Mode::Safe, &|group| {
            format!("@@ {} @@", first_change_path(group, &pe, &pa))
        });
        true
    }

    fn side_by_side(&mut self, expected: &Value, actual: &Value) {
        self.labelled(Sign::Expected, self.sides.expected, expected);
        self.labelled(Sign::Received, self.sides.received, actual);
        if let Some(note) = type_note(expected, actual) {
            self.sink.push(DiffLine::Blank);
            self.sink.push(DiffLine::Note(note));
        }
    }

    fn labelled(&mut self, sign: Sign, label: &str, value: &Value) {
        let lines = match value {
            Value::String(s) if verbatim(&[s]) => vec![format!("'{s}'")],
            _ => Pretty::new(value).lines,
        };
        for (i, line) in lines.iter().enumerate() {
            if self.sink.room() == 0 {
                self.sink.skip();
                continue;
            }
            let mut text = LineBuilder::new(sign);
            if i == 0 {
                text.push(false, label);
                text.push(false, ": ");
            }
            text.push(false, line);
            self.sink.push(text.finish());
        }
    }

    fn short_form(&mut self, expected: &Value, actual: &Value, limit: usize) {
        self.preamble(&[]);
        for (sign, value) in [(Sign::Expected, expected), (Sign::Received, actual)] {
            let mut line = LineBuilder::new(sign);
            line.push(false, &short_repr(value));
            self.sink.push(line.finish());
        }
        self.sink.push(DiffLine::Blank);
        self.sink.push(DiffLine::Note(format!(
            "(too large to diff: inputs over {limit} bytes are cut to {SHORT_FORM_CHARS} characters)"
        )));
    }

    /// The hunks of a line diff, and whether they are coarse: when aligning the lines would
    /// overdraw the work budget, everything between the common prefix and suffix is one
    /// change.
    pub(crate) fn line_groups(&self, old: &[&str], new: &[&str]) -> (Vec<Vec<DiffOp>>, bool) {
        if !charge(&self.work, worst_work(old, new)) {
            let ops = coarse_ops(old, new);
            return (group_ops(&ops, CONTEXT_LINES), !ops.is_empty());
        }
        let mut config = TextDiff::configure();
        config.algorithm(Algorithm::Myers);
        let mut ops = config.diff_slices(old, new).ops().to_vec();
        if !recount(&mut ops, old.len(), new.len()) {
            // Every line changed: coarse, but no line lost or repeated.
            ops = vec![DiffOp::Replace {
                old_index: 0,
                old_len: old.len(),
                new_index: 0,
                new_len: new.len(),
            }];
        }
        slide_blocks(&mut ops, old, new);
        (group_ops(&ops, CONTEXT_LINES), false)
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
                self.sink.push(DiffLine::Hunk(header(group)));
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
        if !self.highlight {
            return (old_segs, new_segs);
        }
        // Caps the quadratic search; beyond it lines just go unhighlighted.
        let mut attempts = MAX_PAIRING_ATTEMPTS;
        let mut next_new = 0;
        let visible = self.sink.room();
        for (i, old) in olds.iter().enumerate().take(visible) {
            for (k, new) in news.iter().enumerate().skip(next_new) {
                if attempts == 0 || self.work.get() == 0 {
                    return (old_segs, new_segs);
                }
                attempts -= 1;
                if let Some(inline) = inline_diff(old, new, &self.work) {
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

    fn emit(&mut self, sign: Sign, text: &str, mode: Mode, segs: Option<&[(bool, usize)]>) {
        if self.sink.room() == 0 {
            self.sink.skip();
            return;
        }
        // An empty line keeps no segments and is painted as the bare sign.
        let mut line = LineBuilder::new(sign);
        let quote = match mode {
            Mode::Quoted => "\"",
            Mode::Verbatim => "'",
            Mode::Raw | Mode::Safe => "",
        };
        line.push(false, quote);
        let trail = text.trim_end_matches([' ', '\t']).len();
        let mut escaped = String::new();
        let mut start = 0;
        // Whatever the runs miss (none should) is written plain.
        let runs = segs.unwrap_or_default().iter().copied();
        for (emphasized, end) in runs.chain([(false, text.len())]) {
            let Some(part) = text.get(start..end).filter(|p| !p.is_empty()) else {
                continue;
            };
            escaped.clear();
            match mode {
                Mode::Raw => push_raw_escaped(&mut escaped, part, start, trail),
                Mode::Quoted => push_json_body(&mut escaped, part, usize::MAX),
                Mode::Safe | Mode::Verbatim => escaped.push_str(part),
            }
            line.push(emphasized, &escaped);
            start = end;
        }
        line.push(false, quote);
        self.sink.push(line.finish());
    }
}

/// Whether single-line `strings` read better as written between `'…'` than as JSON string
/// literals: when one holds `"` or `\\` (JSON text, a Windows path), which JSON would escape,
/// and none holds a character only an escape shows (a tab, a control or invisible character).
/// The quotes end the line, so a quote inside needs no escape, and trailing blanks stay
/// visible before the closing one.
fn verbatim(strings: &[&str]) -> bool {
    strings.iter().any(|s| s.contains(['"', '\\']))
        && strings
            .iter()
            .all(|s| !s.chars().any(|c| c.is_control() || is_hidden(c)))
}

mod hunks;
mod inline;
mod json;
mod model;
mod unified;

use hunks::*;
use inline::*;
/// The word a value made by [`bare`] or [`typed`] stands for (a reader prints one as written).
pub(crate) use json::as_bare;
use json::*;
pub use model::{Diff, DiffLine, Segment, Sign};
use model::{LineBuilder, Sink};
pub use unified::from_unified;

/// What the diff's own tests reach of its insides: they read it painted, as the reports paint
/// it, so they live with the painter (`report::diff_tests`, `report::lossless`) and explain
/// imports nothing of report.
#[cfg(test)]
pub(crate) mod internals {
    pub(crate) use super::json::*;
    pub(crate) use super::model::Sink;
    pub(crate) use super::{charge, worst_work, Renderer, COARSE_NOTE};
}
