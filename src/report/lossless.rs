//! The highlight never drops or invents a character: the cases seen in real suites, random
//! pairs for every painter to check against, and the colour terminal's own checks. The HTML,
//! Markdown and JUnit painters run the same cases and pairs in their tests.
#![cfg(test)]
use proptest::prelude::*;
use serde_json::{json, Value};

use crate::explain::diff::internals::*;
use crate::explain::diff::*;
use crate::report::paint::ansi;
use crate::report::record::{CaseView, FailureView, FileStatus, FileView, PointStatus, PointView};
use crate::report::style::Style;
use similar::{DiffOp, DiffTag};

/// A failure seen in a real suite and the two changed lines it must show, as the plain
/// terminal shows them.
pub(crate) struct Case {
    pub(crate) name: &'static str,
    pub(crate) expected: Value,
    pub(crate) actual: Value,
    pub(crate) minus: &'static str,
    pub(crate) plus: &'static str,
}

/// `got: '100'` / `expected: '1.0'` and `1000 kB` / `1.0 MB`, as single-line
/// strings, as a changed line of multi-line strings and as a string inside a JSON value.
pub(crate) fn cases() -> Vec<Case> {
    let case = |name, expected, actual, minus, plus| Case {
        name,
        expected,
        actual,
        minus,
        plus,
    };
    vec![
        case(
            "single-line 1.0/100",
            json!("1.0"),
            json!("100"),
            "- \"1.0\"",
            "+ \"100\"",
        ),
        case(
            "single-line 1.0 MB/1000 kB",
            json!("1.0 MB"),
            json!("1000 kB"),
            "- \"1.0 MB\"",
            "+ \"1000 kB\"",
        ),
        case(
            "multi-line 1.0/100",
            json!("name: Path-Tiny\nversion: 1.0\nend"),
            json!("name: Path-Tiny\nversion: 100\nend"),
            "- version: 1.0",
            "+ version: 100",
        ),
        case(
            "multi-line 1.0 MB/1000 kB",
            json!("files: 3\nsize: 1.0 MB\nok"),
            json!("files: 3\nsize: 1000 kB\nok"),
            "- size: 1.0 MB",
            "+ size: 1000 kB",
        ),
        case(
            "JSON 1.0/100",
            json!({"got": "1.0", "n": 1}),
            json!({"got": "100", "n": 1}),
            "-   \"got\": \"1.0\",",
            "+   \"got\": \"100\",",
        ),
        case(
            "JSON 1.0 MB/1000 kB",
            json!({"sizes": ["1.0 MB", "2 kB"]}),
            json!({"sizes": ["1000 kB", "2 kB"]}),
            "-     \"1.0 MB\",",
            "+     \"1000 kB\",",
        ),
    ]
}

/// The default budget: these inputs are far inside it, so the highlight is always computed.
pub(crate) fn budget() -> Budget {
    Budget::default()
}

/// The diff as the painters get it: changed characters marked.
pub(crate) fn highlighted(expected: &Value, actual: &Value) -> Diff {
    compute(expected, actual, &budget(), true)
}

/// The same diff computed without highlighting, as the plain terminal shows it (every line
/// ending in a newline).
pub(crate) fn reference(expected: &Value, actual: &Value) -> String {
    let mut out = Vec::new();
    let diff = compute(expected, actual, &budget(), false);
    // Writing to a Vec cannot fail.
    let _ = diff.write_terminal(&mut out, &Style { enabled: false });
    String::from_utf8_lossy(&out).into_owned()
}

/// `text` without its CSI sequences (`ESC [`, parameters, one final byte).
pub(crate) fn strip_ansi(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' && chars.peek() == Some(&'[') {
            chars.next();
            for n in chars.by_ref() {
                if ('@'..='~').contains(&n) {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// A failing file holding one failure with `diff`, for the report painters.
pub(crate) fn failing_file(diff: Diff) -> (FileView, FailureView) {
    let failure = FailureView {
        name: "sizes match".into(),
        diff: Some(diff),
        ..FailureView::default()
    };
    let point = PointView {
        id: Some(1),
        name: failure.name.clone(),
        status: PointStatus::Fail,
        reason: None,
        duration_ms: None,
    };
    let file = FileView {
        rel: "t/size.t".into(),
        status: FileStatus::Fail,
        duration: None,
        tally: Default::default(),
        reasons: Vec::new(),
        log: None,
        command: None,
        points: vec![point.clone()],
        cases: vec![CaseView {
            point: 0,
            test: true,
            parents: "".into(),
            point_view: point,
        }],
        failures: vec![failure.clone()],
        failures_left_out: 0,
        attempts: 1,
        flaky: false,
        cached: false,
        earlier_attempts: Vec::new(),
        output_tail: Vec::new(),
        stdout: Vec::new(),
        stderr: Vec::new(),
        stream_lines_dropped: (0, 0),
        warnings: Vec::new(),
        points_dropped: 0,
        spooled: Vec::new(),
    };
    (file, failure)
}

/// Pieces that make diffs hard: digits and dots as in the real cases, multi-byte and
/// zero-width-joined characters, hidden ones the diff escapes, JSON and markup punctuation,
/// tabs, blanks and line breaks.
const PIECES: [&str; 28] = [
    "1",
    "0",
    ".",
    " ",
    "kB",
    "MB",
    "a",
    "ab",
    "\n",
    "\t",
    "\r",
    "é",
    "ß",
    "€",
    "中文",
    "👩\u{200d}💻",
    "\u{a0}",
    "\u{200b}",
    "\u{202e}",
    "\u{1b}[31m",
    "\u{7f}",
    "\"",
    "\\",
    "<b>",
    "&amp;",
    "'",
    "`",
    "{\"k\": [1]}",
];

fn pieces(max: usize) -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(&PIECES[..]), 0..max).prop_map(|p| p.concat())
}

fn any_chars(max: usize) -> impl Strategy<Value = String> {
    prop::collection::vec(any::<char>(), 0..max).prop_map(String::from_iter)
}

fn text(max: usize) -> BoxedStrategy<String> {
    prop_oneof![3 => pieces(max), 1 => any_chars(max)].boxed()
}

/// Two strings: unrelated (either may be empty, lengths differ), or one change between a
/// common prefix and suffix, or lines with one of them changed.
pub(crate) fn string_pair() -> BoxedStrategy<(String, String)> {
    let lines = prop::collection::vec(pieces(6), 1..6);
    prop_oneof![
        (text(10), text(10)),
        (text(6), text(4), text(4), text(6)).prop_map(|(head, e, a, tail)| {
            (format!("{head}{e}{tail}"), format!("{head}{a}{tail}"))
        }),
        (lines, any::<prop::sample::Index>(), text(8)).prop_map(|(lines, at, new)| {
            let mut changed = lines.clone();
            if let Some(line) = changed.get_mut(at.index(lines.len())) {
                *line = new;
            }
            (lines.join("\n"), changed.join("\n"))
        }),
    ]
    .boxed()
}

/// Two strings without line breaks, diffed as quoted strings.
fn single_line_pair() -> impl Strategy<Value = (String, String)> {
    string_pair().prop_map(|(e, a)| (e.replace('\n', " "), a.replace('\n', " ")))
}

/// Values to diff: two strings, or structures with a changed string inside.
pub(crate) fn value_pair() -> BoxedStrategy<(Value, Value)> {
    prop_oneof![
        2 => string_pair().prop_map(|(e, a)| (json!(e), json!(a))),
        1 => (string_pair(), pieces(4)).prop_map(|((e, a), key)| {
            (
                json!({"id": 7, "name": e, key.clone(): ["x", e]}),
                json!({"id": 7, "name": a, key: ["x", a]}),
            )
        }),
    ]
    .boxed()
}

pub(crate) fn config() -> ProptestConfig {
    ProptestConfig {
        cases: 512,
        // Cases live in the source; a file written beside it would be a stray change.
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

fn terminal(diff: &Diff) -> String {
    let mut out = Vec::new();
    let _ = diff.write_terminal(&mut out, &Style { enabled: true });
    String::from_utf8_lossy(&out).into_owned()
}

#[test]
fn the_colour_terminal_shows_every_character_of_the_real_cases() {
    for case in cases() {
        let painted = terminal(&highlighted(&case.expected, &case.actual));
        let plain = reference(&case.expected, &case.actual);
        let lines: Vec<&str> = plain.lines().collect();
        assert!(lines.contains(&case.minus), "{}:\n{plain}", case.name);
        assert!(lines.contains(&case.plus), "{}:\n{plain}", case.name);
        assert_eq!(strip_ansi(&painted), plain, "{}: {painted:?}", case.name);
        assert!(
            painted.contains(ansi::INVERSE),
            "{}: {painted:?}",
            case.name
        );
    }
}

#[test]
fn changed_digits_are_marked_in_place() {
    // A change inside a number marks the whole number, as inside a word (#43).
    assert_eq!(
        terminal(&highlighted(&json!("1.0"), &json!("100"))),
        "\x1b[32m- Expected\x1b[0m\n\
         \x1b[31m+ Received\x1b[0m\n\
         \n\
         \x1b[32m- \"\x1b[7m1.0\x1b[27m\"\x1b[0m\n\
         \x1b[31m+ \"\x1b[7m100\x1b[27m\"\x1b[0m\n"
    );
}

/// The text of the line with `sign` in a single-line string diff, read back as the JSON
/// string literal it is written as.
fn decoded(diff: &Diff, wanted: Sign) -> Option<String> {
    diff.lines.iter().find_map(|line| match line {
        DiffLine::Line { sign, .. } if *sign == wanted => {
            let text = line.plain_text();
            let side = text.get(2..)?;
            // As written between '…' (a string holding `"` or `\`), else a JSON literal.
            match side.strip_prefix('\'').and_then(|s| s.strip_suffix('\'')) {
                Some(verbatim) => Some(verbatim.to_owned()),
                None => serde_json::from_str(side).ok(),
            }
        }
        _ => None,
    })
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn the_colour_terminal_drops_and_invents_nothing((expected, actual) in value_pair()) {
        let painted = terminal(&highlighted(&expected, &actual));
        prop_assert_eq!(strip_ansi(&painted), reference(&expected, &actual));
    }

    #[test]
    fn single_line_sides_decode_to_the_values((expected, actual) in single_line_pair()) {
        let containers = parse_json_container(&expected).is_some()
            && parse_json_container(&actual).is_some();
        prop_assume!(!containers && expected != actual);
        let diff = highlighted(&json!(expected), &json!(actual));
        prop_assert_eq!(decoded(&diff, Sign::Expected), Some(expected));
        prop_assert_eq!(decoded(&diff, Sign::Received), Some(actual));
    }
}

/// Where `ops` leave off, having checked that they start at `at`, one after the other, and
/// that what they call equal is.
fn walk(ops: &[DiffOp], at: (usize, usize), old: &[&str], new: &[&str]) -> (usize, usize) {
    let (mut o, mut n) = at;
    for op in ops {
        let (tag, old_range, new_range) = op.as_tag_tuple();
        assert_eq!(
            (old_range.start, new_range.start),
            (o, n),
            "{op:?} in {ops:?}"
        );
        if tag == DiffTag::Equal {
            assert_eq!(old.get(old_range.clone()), new.get(new_range.clone()));
        }
        (o, n) = (old_range.end, new_range.end);
    }
    (o, n)
}

/// Checks that the hunks of a line diff, and the equal runs left out between them, spell both
/// inputs in order.
fn assert_hunks_cover(old: &[&str], new: &[&str]) {
    let renderer = Renderer {
        highlight: false,
        work: std::cell::Cell::new(u64::MAX),
        sink: Sink::new(10),
        sides: Sides::default(),
    };
    let (groups, _) = renderer.line_groups(old, new);
    let mut at = (0, 0);
    for group in &groups {
        let start = group
            .first()
            .map_or(at, |op| (op.old_range().start, op.new_range().start));
        let skipped = (start.0 - at.0, start.1 - at.1);
        assert_eq!(skipped.0, skipped.1, "{groups:?}");
        assert_eq!(old.get(at.0..start.0), new.get(at.1..start.1));
        at = walk(group, start, old, new);
    }
    assert_eq!(old.len() - at.0, new.len() - at.1, "{groups:?}");
    assert_eq!(old.get(at.0..), new.get(at.1..));
}

#[test]
fn a_changed_line_among_equal_ones_gets_no_hunk_header() {
    // The line form of `1.0` against `100`: similar's ops put the `-` line at the wrong
    // place on the `+` side, and the diff announced lines left out that were not.
    assert_hunks_cover(&["1", ".", "0"], &["1", "0", "0"]);
    let plain = reference(&json!("1\n.\n0"), &json!("1\n0\n0"));
    assert!(!plain.contains("@@"), "{plain}");
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn line_hunks_cover_both_inputs_in_order(
        old in prop::collection::vec(prop::sample::select(&["1", "0", ".", "", "{", "}"][..]), 0..12),
        new in prop::collection::vec(prop::sample::select(&["1", "0", ".", "", "{", "}"][..]), 0..12),
    ) {
        assert_hunks_cover(&old, &new);
    }
}
