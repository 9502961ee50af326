//! Line classification and test point reading, before the state machine acts on a line.
use super::*;

pub(super) enum Kind<'a> {
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

pub(super) fn ends_with_marker(text: &str) -> bool {
    text.trim_end().ends_with(line::MARK_CLOSE)
}

/// The inline v2 markers at the end of a test point line (none on almost every line).
pub(super) fn inline_markers(text: &str) -> Markers<'_> {
    if ends_with_marker(text) {
        line::trailing_markers(text).1
    } else {
        Markers::default()
    }
}

/// What an unindented line is, dispatching on its first byte before any parser runs.
pub(super) fn classify(text: &str) -> Kind<'_> {
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

pub(super) fn is_indented_heading(text: &str) -> bool {
    text.strip_prefix("    ")
        .is_some_and(|t| line::subtest_heading(t).is_some())
}

/// The name in a `# Subtest: name` heading (empty for a bare `# Subtest`).
pub(super) fn heading_name(heading: &str) -> &str {
    heading.get("# Subtest: ".len()..).unwrap_or("").trim()
}

/// Reads a test point line into a pending point, v2 inline markers and the v1 time suffix included.
pub(super) fn build_pending(
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
pub(super) fn apply_marker(p: &mut Pending, kind: &str, payload: &str) -> bool {
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
pub(super) fn meta_time(json: &str) -> Option<f64> {
    let v: serde_json::Value = serde_json::from_str(json).ok()?;
    v.get("time")?.as_f64()
}

/// A top-level `duration_ms: N` in a YAML block (node:test and node-tap put one in every block).
pub(super) fn yaml_duration(body: &str) -> Option<f64> {
    const KEY: &str = "duration_ms:";
    let at = memchr::memmem::find_iter(body.as_bytes(), KEY)
        .find(|&i| i == 0 || body.as_bytes()[i - 1] == b'\n')?;
    let rest = &body[at + KEY.len()..];
    let value = rest.split('\n').next().unwrap_or("");
    value.trim().parse().ok()
}

/// Whether a YAML block parses to something (the reference only then treats a following `{` as
/// a buffered subtest). Parsed on demand because it is rare.
pub(super) fn yaml_truthy(body: &str) -> bool {
    match serde_saphyr::from_str::<serde_json::Value>(body) {
        Ok(v) => {
            !matches!(v, serde_json::Value::Null | serde_json::Value::Bool(false))
                && v != serde_json::Value::String(String::new())
        }
        Err(_) => false,
    }
}
