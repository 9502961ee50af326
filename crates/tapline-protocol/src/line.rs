//! Per-line parsers (nom, complete mode): each recognises one kind of TAP or protocol-v2 line.
//!
//! They see one line without its terminator and never allocate unless a description holds
//! escapes or a `#`. The rules are written in `protocol-spec/tap.md` and `protocol-spec/v2.md`;
//! the known-answer tests at the bottom come from those files' examples.
use crate::event::Directive;
use nom::bytes::complete::{tag, tag_no_case, take_while1};
use nom::character::complete::{char, digit1, one_of};
use nom::combinator::{opt, recognize};
use nom::{IResult, Parser};
use std::borrow::Cow;

/// A protocol v2 marker's opening, as every marker line and inline marker begins.
pub const MARK_OPEN: &str = "⟦TSTEST:";
/// A protocol v2 marker's close.
pub const MARK_CLOSE: &str = "⟧";

/// `ok` / `not ok` with what follows, before the description is interpreted.
#[derive(Debug, PartialEq)]
pub(crate) struct TestPointLine<'a> {
    pub ok: bool,
    pub id: Option<u64>,
    /// Text after the id and optional ` -` (starts with a space when present).
    pub rest: &'a str,
    /// The line ended in `{` (Test2 buffered subtest).
    pub brace: bool,
}

fn number(s: &str) -> u64 {
    // Ids beyond u64 are nonsense either way; saturate rather than reject the line.
    s.parse().unwrap_or(u64::MAX)
}

/// `(not )?ok( ID)?(( -)? DESC)?({)?` (the reference's test point grammar, with its backtracking).
// Asked inline: `classify` calls it on every line, and whether LLVM inlined it on its own
// depended on how unrelated code split into codegen units (outlined, `parse` took 3 % more).
#[inline]
pub(crate) fn test_point(line: &str) -> Option<TestPointLine<'_>> {
    let (after_ok, not) = match (opt(tag::<_, _, ()>("not ")), tag("ok")).parse(line) {
        Ok((after, (not, _))) => (after, not.is_some()),
        Err(_) => return None,
    };
    let ok = !not;
    // With an id: " 123" must be followed by nothing, "{", or a description.
    let with_id: IResult<&str, &str> = (char(' '), digit1).map(|(_, d)| d).parse(after_ok);
    if let Ok((after_id, digits)) = with_id {
        if let Some((rest, brace)) = description_tail(after_id) {
            return Some(TestPointLine {
                ok,
                id: Some(number(digits)),
                rest,
                brace,
            });
        }
    }
    let (rest, brace) = description_tail(after_ok)?;
    Some(TestPointLine {
        ok,
        id: None,
        rest,
        brace,
    })
}

/// Matches `((?: -)?( .*?))?(\{?)$` and returns (description with leading space, brace).
fn description_tail(s: &str) -> Option<(&str, bool)> {
    let (body, brace) = match s.strip_suffix('{') {
        Some(b) => (b, true),
        None => (s, false),
    };
    if body.is_empty() {
        return Some(("", brace));
    }
    if let Some(after_dash) = body.strip_prefix(" -") {
        if after_dash.starts_with(' ') {
            return Some((after_dash, brace));
        }
    }
    if body.starts_with(' ') {
        return Some((body, brace));
    }
    None
}

/// A test point's description, interpreted.
#[derive(Debug, PartialEq)]
pub(crate) struct Description<'a> {
    pub name: Cow<'a, str>,
    /// Only the slow path finds one, and it owns its reason already.
    pub directive: Option<Directive<'static>>,
    pub time_ms: Option<f64>,
    pub buffered: bool,
}

/// Splits a description into name and directive, resolving `\\` and `\#`.
///
/// The delimiter is a `#` at the start or after whitespace (an escaped `\\` counts as
/// whitespace there, so `\\# todo` is a directive, as the TAP 14 examples require).
// Asked inline, as `test_point` is: called on every test point line.
#[inline]
pub(crate) fn description<'a>(rest: &'a str, brace: bool) -> Description<'a> {
    if memchr::memchr2(b'#', b'\\', rest.as_bytes()).is_none() {
        // Fast path: nothing to split or unescape.
        let (name, brace_in_name) = strip_open_brace(rest);
        return Description {
            name: Cow::Borrowed(name.trim()),
            directive: None,
            time_ms: None,
            buffered: brace || brace_in_name,
        };
    }
    // `\\` becomes a placeholder that cannot occur in a line, so it can neither escape the
    // following `#` nor be confused with one.
    let placeheld = rest.replace("\\\\", "\n");
    let split_at = delimiter_positions(&placeheld);
    let (head, tail) = match split_at.first() {
        Some(&i) => (&placeheld[..i], Some(&placeheld[i + 1..])),
        None => (placeheld.as_str(), None),
    };
    let mut name = unplace(head);
    let tail = tail.map(unplace).unwrap_or_default();
    let mut directive = None;
    let mut time_ms = None;
    match parse_directive(tail.trim()) {
        Some(Parsed::Skip(r)) => directive = Some(Directive::Skip(Cow::Owned(r.to_owned()))),
        Some(Parsed::Todo(r)) => directive = Some(Directive::Todo(Cow::Owned(r.to_owned()))),
        Some(Parsed::Time(t)) => time_ms = Some(t),
        None => {
            if !tail.is_empty() {
                name.push('#');
                name.push_str(&tail);
            }
            if brace {
                name.push('{');
            }
        }
    }
    let (trimmed, brace_in_name) = strip_open_brace(&name);
    let buffered = brace || brace_in_name;
    let name = trimmed.trim().to_owned();
    Description {
        name: Cow::Owned(name),
        directive,
        time_ms,
        buffered,
    }
}

/// Byte positions of `#` that delimit a directive (preceded by whitespace or at the start).
fn delimiter_positions(s: &str) -> Vec<usize> {
    let mut out = Vec::new();
    let mut prev: Option<char> = None;
    for (i, c) in s.char_indices() {
        if c == '#' && prev.is_none_or(char::is_whitespace) {
            out.push(i);
        }
        prev = Some(c);
    }
    out
}

fn unplace(s: &str) -> String {
    s.replace("\\#", "#").replace('\n', "\\")
}

/// Strips `{` followed only by whitespace at the end (a buffered subtest opener).
fn strip_open_brace(s: &str) -> (&str, bool) {
    let t = s.trim_end();
    match t.strip_suffix('{') {
        Some(before) => (before, true),
        None => (s, false),
    }
}

#[derive(Debug, PartialEq)]
pub(crate) enum Parsed<'a> {
    Skip(&'a str),
    Todo(&'a str),
    Time(f64),
}

/// The directive grammar: `time=N(ms|s)`, or `(todo|skip)\S*\b(reason)` case-insensitively.
pub(crate) fn parse_directive(s: &str) -> Option<Parsed<'_>> {
    if s.trim().is_empty() {
        return None;
    }
    let s = strip_open_brace(s).0.trim();
    if let Some(t) = time_directive(s) {
        return Some(Parsed::Time(t));
    }
    let word = s.get(..4)?;
    let is_skip = word.eq_ignore_ascii_case("skip");
    if !is_skip && !word.eq_ignore_ascii_case("todo") {
        return None;
    }
    // `\S*\b`: the longest run of non-space characters after the word that ends on a word
    // boundary (so `# Skipped: reason` has the reason `: reason`, as the reference has it).
    let after = &s[4..];
    let run_end = after.find(char::is_whitespace).unwrap_or(after.len());
    let is_word = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let mut boundary = None;
    for (i, _) in after[..run_end]
        .char_indices()
        .chain(std::iter::once((run_end, ' ')))
        .rev()
    {
        let left = if i == 0 {
            'p'
        } else {
            after[..i].chars().next_back().unwrap_or(' ')
        };
        let right = after[i..].chars().next().unwrap_or(' ');
        let right_is_word = i < after.len() && is_word(right);
        if is_word(left) != right_is_word {
            boundary = Some(i);
            break;
        }
    }
    let reason = after[boundary?..].trim();
    Some(if is_skip {
        Parsed::Skip(reason)
    } else {
        Parsed::Todo(reason)
    })
}

fn time_directive(s: &str) -> Option<f64> {
    let (rest, _) = tag_no_case::<_, _, ()>("time=").parse(s).ok()?;
    let num: IResult<&str, &str> = recognize((digit1, opt((char('.'), digit1)))).parse(rest);
    let (unit, num) = num.ok()?;
    if num.len() > 1 && num.starts_with('0') && !num.starts_with("0.") {
        return None; // the reference rejects leading zeros
    }
    let n: f64 = num.parse().ok()?;
    if unit.eq_ignore_ascii_case("ms") {
        Some(n)
    } else if unit.eq_ignore_ascii_case("s") {
        Some((n * 1000.0 * 1000.0).round() / 1000.0)
    } else {
        None
    }
}

/// tstest v1's suffix ` # time=12ms` at the end of a test point line. It is taken off before the
/// description is read, so a name holding ` # ` keeps its text (the reference would fold the
/// suffix into the name there).
pub(crate) fn legacy_time_suffix(s: &str) -> Option<(&str, f64)> {
    // `…ms` or `…<digit>s`: a cheap test that spares almost every line the search.
    let b = s.as_bytes();
    if b.len() < 2
        || b[b.len() - 1] != b's'
        || !(b[b.len() - 2] == b'm' || b[b.len() - 2].is_ascii_digit())
    {
        return None;
    }
    let hash = s.rfind('#')?;
    let before = &s[..hash];
    if !before.ends_with(char::is_whitespace) || before.ends_with("\\#") {
        return None;
    }
    let t = time_directive(s[hash + 1..].trim())?;
    Some((before.trim_end(), t))
}

/// `1..N` with an optional `# reason`: (start, end, raw reason).
pub(crate) fn plan(line: &str) -> Option<(u64, u64, Option<&str>)> {
    let (rest, (start, _, end)) = (digit1::<_, ()>, tag(".."), digit1).parse(line).ok()?;
    if rest.is_empty() {
        return Some((number(start), number(end), None));
    }
    let after_ws = rest.trim_start();
    if after_ws.len() == rest.len() {
        return None; // `\s+` required before the `#`
    }
    let reason = after_ws.strip_prefix('#')?.trim_start();
    Some((number(start), number(end), Some(reason)))
}

/// `TAP version N` (the words case-insensitive).
pub(crate) fn version(line: &str) -> Option<u32> {
    let (rest, digits) = (tag_no_case::<_, _, ()>("TAP version "), digit1)
        .map(|(_, d)| d)
        .parse(line)
        .ok()?;
    rest.is_empty().then(|| digits.parse().unwrap_or(u32::MAX))
}

/// `pragma +key` / `pragma -key`.
pub(crate) fn pragma(line: &str) -> Option<(bool, &str)> {
    let key_char = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-';
    let (rest, (_, sign, key)) = (
        tag::<_, _, ()>("pragma "),
        one_of("+-"),
        take_while1(key_char),
    )
        .parse(line)
        .ok()?;
    rest.is_empty().then_some((sign == '+', key))
}

/// `Bail out!` (case-insensitive) and the raw reason after it.
pub(crate) fn bailout(line: &str) -> Option<&str> {
    tag_no_case::<_, _, ()>("bail out!")
        .parse(line)
        .ok()
        .map(|(rest, _)| rest)
}

/// `# Subtest` or `# Subtest: name` exactly (the name is raw).
pub(crate) fn subtest_heading(line: &str) -> Option<&str> {
    let rest = line.strip_prefix("# Subtest")?;
    if rest.is_empty() {
        return Some("");
    }
    rest.strip_prefix(": ")
}

/// `^\s*#`.
pub(crate) fn is_comment(line: &str) -> bool {
    line.trim_start().starts_with('#')
}

/// Resolves `\\` and `\#` in a plan reason or bail-out reason, and trims it.
pub(crate) fn unescape(s: &str) -> Cow<'_, str> {
    let t = s.trim();
    if !t.contains('\\') {
        return Cow::Borrowed(t);
    }
    let mut out = String::with_capacity(t.len());
    let mut chars = t.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, chars.peek()) {
            ('\\', Some('\\')) => {
                chars.next();
                out.push('\\');
            }
            ('\\', Some('#')) => {
                chars.next();
                out.push('#');
            }
            _ => out.push(c),
        }
    }
    Cow::Owned(out.trim().to_owned())
}

/// A whole-line protocol-v2 marker.
#[derive(Debug, PartialEq)]
pub(crate) enum MarkerLine<'a> {
    /// `⟦TSTEST:KIND:payload⟧`.
    Single { kind: &'a str, payload: &'a str },
    /// `⟦TSTEST:KIND⟧` on its own: opens a block.
    Open(&'a str),
    /// `⟦TSTEST:/KIND⟧`.
    Close(&'a str),
}

fn valid_kind(k: &str) -> bool {
    let mut chars = k.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// Reads a line (already trimmed) that is exactly one marker. The payload runs to the line's
/// last `⟧`, so it needs no escaping.
pub(crate) fn marker_line(s: &str) -> Option<MarkerLine<'_>> {
    let inner = s.strip_prefix(MARK_OPEN)?.strip_suffix(MARK_CLOSE)?;
    match inner.split_once(':') {
        Some((kind, payload)) if valid_kind(kind) => Some(MarkerLine::Single { kind, payload }),
        Some(_) => None,
        None => match inner.strip_prefix('/') {
            Some(k) if valid_kind(k) => Some(MarkerLine::Close(k)),
            Some(_) => None,
            None => valid_kind(inner).then_some(MarkerLine::Open(inner)),
        },
    }
}

/// Inline markers of one line, without allocating: a line carries one or two in practice.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct Markers<'a> {
    items: [(&'a str, &'a str); Markers::MAX],
    len: usize,
}

impl<'a> Markers<'a> {
    /// Markers read off one line at most; any before them stay in the description.
    pub const MAX: usize = 8;

    fn push(&mut self, m: (&'a str, &'a str)) {
        self.items[self.len] = m;
        self.len += 1;
    }
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// In line order.
    pub fn in_line_order(&self) -> impl Iterator<Item = (&'a str, &'a str)> + '_ {
        self.items[..self.len].iter().rev().copied()
    }
}

/// Takes trailing inline markers off a test point line: `ok 1 - x ⟦TSTEST:time:42⟧`.
/// Returns the line without them and the markers.
/// Markers elsewhere in the line are part of the description and change nothing.
pub(crate) fn trailing_markers(line: &str) -> (&str, Markers<'_>) {
    let mut rest = line;
    let mut found = Markers::default();
    while found.len < Markers::MAX {
        let t = rest.trim_end();
        if !t.ends_with(MARK_CLOSE) {
            break;
        }
        // The marker's first byte (0xE2) is rare in names: find it byte-wise, then confirm.
        let Some(start) =
            memchr::memrchr_iter(0xE2, t.as_bytes()).find(|&i| t[i..].starts_with(MARK_OPEN))
        else {
            break;
        };
        let inner = &t[start + MARK_OPEN.len()..t.len() - MARK_CLOSE.len()];
        let Some((kind, payload)) = inner.split_once(':') else {
            break;
        };
        if !valid_kind(kind) || (start > 0 && !t[..start].ends_with(char::is_whitespace)) {
            break;
        }
        found.push((kind, payload));
        rest = &t[..start];
    }
    if found.is_empty() {
        (line, found)
    } else {
        (rest.trim_end(), found)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_point_grammar() {
        let tp = |l| test_point(l).map(|t| (t.ok, t.id, t.rest, t.brace));
        assert_eq!(tp("ok"), Some((true, None, "", false)));
        assert_eq!(
            tp("not ok 12 - foo"),
            Some((false, Some(12), " foo", false))
        );
        assert_eq!(tp("ok 1foo"), Some((true, None, " 1foo", false)));
        assert_eq!(tp("ok -foo"), Some((true, None, " -foo", false)));
        assert_eq!(tp("ok 1 -"), Some((true, Some(1), " -", false)));
        assert_eq!(tp("ok 3 - x {"), Some((true, Some(3), " x ", true)));
        assert_eq!(tp("okay"), None);
        assert_eq!(tp("not okay"), None);
        assert_eq!(tp("ok\tfoo"), None);
    }

    #[test]
    fn directive_grammar() {
        assert_eq!(parse_directive("SKIP"), Some(Parsed::Skip("")));
        assert_eq!(
            parse_directive("skip because"),
            Some(Parsed::Skip("because"))
        );
        assert_eq!(
            parse_directive("Skipped: no db"),
            Some(Parsed::Skip(": no db"))
        );
        assert_eq!(parse_directive("TODO later"), Some(Parsed::Todo("later")));
        assert_eq!(parse_directive("time=12ms"), Some(Parsed::Time(12.0)));
        assert_eq!(parse_directive("time=1.5s"), Some(Parsed::Time(1500.0)));
        assert_eq!(parse_directive("tod"), None);
        assert_eq!(parse_directive("skipping"), Some(Parsed::Skip("")));
        assert_eq!(parse_directive("hash"), None);
    }

    #[test]
    fn plan_grammar() {
        assert_eq!(plan("1..5"), Some((1, 5, None)));
        assert_eq!(plan("1..0 # SKIP no db"), Some((1, 0, Some("SKIP no db"))));
        assert_eq!(plan("1..5 foo"), None);
        assert_eq!(plan("1..5#x"), None);
        assert_eq!(plan("1..5 #"), Some((1, 5, Some(""))));
    }

    #[test]
    fn small_grammars() {
        assert_eq!(version("TAP version 14"), Some(14));
        assert_eq!(version("tap VERSION 13"), Some(13));
        assert_eq!(version("TAP version 14 "), None);
        assert_eq!(pragma("pragma +strict"), Some((true, "strict")));
        assert_eq!(pragma("pragma +strict, -bail"), None);
        assert_eq!(bailout("Bail out! db down"), Some(" db down"));
        assert_eq!(bailout("BAIL OUT!"), Some(""));
        assert_eq!(subtest_heading("# Subtest: x"), Some("x"));
        assert_eq!(subtest_heading("# Subtest"), Some(""));
        assert_eq!(subtest_heading("# Subtests"), None);
        assert_eq!(unescape(" a \\# b \\\\ c "), "a # b \\ c");
    }

    #[test]
    fn marker_grammar() {
        assert_eq!(
            marker_line("⟦TSTEST:ERROR⟧"),
            Some(MarkerLine::Open("ERROR"))
        );
        assert_eq!(
            marker_line("⟦TSTEST:/ERROR⟧"),
            Some(MarkerLine::Close("ERROR"))
        );
        assert_eq!(
            marker_line("⟦TSTEST:META:{\"a\":\"⟧\"}⟧"),
            Some(MarkerLine::Single {
                kind: "META",
                payload: "{\"a\":\"⟧\"}"
            })
        );
        assert_eq!(marker_line("⟦TSTEST:⟧"), None);
        let (rest, m) = trailing_markers("ok 1 - a ⟦TSTEST:x⟧ b ⟦TSTEST:time:4⟧ ⟦TSTEST:SKIP:no⟧");
        assert_eq!(rest, "ok 1 - a ⟦TSTEST:x⟧ b");
        assert_eq!(
            m.in_line_order().collect::<Vec<_>>(),
            vec![("time", "4"), ("SKIP", "no")]
        );
    }
}
