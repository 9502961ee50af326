//! A run's parsed events written back as TAP 14, the one language the daemon's `SEND` takes.
//!
//! Forwarding the events rather than the child's bytes needs nothing from the run but its
//! sink, and every input the run parses (TAP, go's JSON, a suite's JUnit reports) reaches
//! the daemon as the same tests. The daemon parses what is written here into the same test
//! points (names, ids, directives, YAML diagnostics, v2 META and blocks), subtests and verdict
//! as the run's own parser gave (the round-trip test below holds it to that). Subtests are
//! written in the indented form with a `# Subtest:` heading, whatever dialect they came in.
use crate::event::{Assert, Block, Event, Plan};
use crate::protocol::{MARK_CLOSE, MARK_OPEN};
use std::io::Write as _;

const INDENT: &str = "    ";

fn indent(out: &mut Vec<u8>, depth: u32) {
    for _ in 0..depth {
        out.extend_from_slice(INDENT.as_bytes());
    }
}

/// One line's text, kept on its line: a line break inside it would make a second line.
fn text(out: &mut Vec<u8>, s: &str) {
    if s.contains(['\n', '\r']) {
        out.extend_from_slice(s.replace(['\n', '\r'], " ").as_bytes());
    } else {
        out.extend_from_slice(s.as_bytes());
    }
}

/// A description as TAP escapes it: `\` and `#` (a bare `#` would start a directive).
fn description(out: &mut Vec<u8>, name: &str) {
    if !name
        .bytes()
        .any(|b| matches!(b, b'\\' | b'#' | b'\n' | b'\r'))
    {
        out.extend_from_slice(name.as_bytes());
        return;
    }
    for c in name.chars() {
        match c {
            '\\' => out.extend_from_slice(b"\\\\"),
            '#' => out.extend_from_slice(b"\\#"),
            '\n' | '\r' => out.push(b' '),
            c => {
                let mut buf = [0u8; 4];
                out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
            }
        }
    }
}

/// Appends the TAP lines of `ev` (none for the events that carry no line of their own:
/// `AssertBegin`, `SubtestEnd`, problems and the end).
pub(crate) fn event(out: &mut Vec<u8>, ev: &Event<'_>) {
    match ev {
        Event::Protocol { version, .. } => {
            let _ = write!(out, "{MARK_OPEN}PROTOCOL:");
            text(out, version);
            let _ = writeln!(out, "{MARK_CLOSE}");
        }
        Event::Version { depth, version, .. } if *version >= 13 => {
            indent(out, *depth);
            let _ = writeln!(out, "TAP version {version}");
        }
        Event::Version { .. } => {}
        Event::Plan { depth, plan, .. } => self::plan(out, *depth, plan),
        Event::Pragma {
            depth,
            key,
            enabled,
            ..
        } => {
            indent(out, *depth);
            out.extend_from_slice(if *enabled { b"pragma +" } else { b"pragma -" });
            text(out, key);
            out.push(b'\n');
        }
        Event::SubtestStart { depth, name, .. } => {
            // `depth` is the subtest's own: its heading stands at its indentation, as TAP 14
            // writes it.
            indent(out, *depth);
            out.extend_from_slice(b"# Subtest");
            if !name.is_empty() {
                out.extend_from_slice(b": ");
                text(out, name);
            }
            out.push(b'\n');
        }
        Event::Assert(a) => assert(out, a),
        Event::Comment { depth, text: t, .. } => {
            indent(out, *depth);
            out.extend_from_slice(b"# ");
            text(out, t);
            out.push(b'\n');
        }
        Event::Output { text: t, .. } => {
            text(out, t);
            out.push(b'\n');
        }
        Event::BailOut { depth, reason, .. } => {
            indent(out, *depth);
            out.extend_from_slice(b"Bail out!");
            if !reason.is_empty() {
                out.push(b' ');
                text(out, reason);
            }
            out.push(b'\n');
        }
        Event::V2Event { depth, json, .. } => marker(out, *depth, "EVENT", json),
        Event::V2Block { depth, block, .. } => self::block(out, *depth, block),
        Event::Marker {
            depth,
            kind,
            payload,
            ..
        } => marker(out, *depth, kind, payload),
        Event::AssertBegin { .. }
        | Event::SubtestEnd { .. }
        | Event::Problem(_)
        | Event::End { .. } => {}
    }
}

fn plan(out: &mut Vec<u8>, depth: u32, plan: &Plan<'_>) {
    indent(out, depth);
    let _ = write!(out, "{}..{}", plan.start, plan.end);
    // The reason is the raw text after `#`, `SKIP` included.
    match &plan.reason {
        Some(r) if !r.is_empty() => {
            out.extend_from_slice(b" # ");
            text(out, r);
        }
        _ => {}
    }
    out.push(b'\n');
}

fn marker(out: &mut Vec<u8>, depth: u32, kind: &str, payload: &str) {
    indent(out, depth);
    out.extend_from_slice(MARK_OPEN.as_bytes());
    text(out, kind);
    out.push(b':');
    text(out, payload);
    let _ = writeln!(out, "{MARK_CLOSE}");
}

fn block(out: &mut Vec<u8>, depth: u32, b: &Block<'_>) {
    indent(out, depth);
    let _ = writeln!(out, "{MARK_OPEN}{}{MARK_CLOSE}", b.kind);
    for line in b.payload.lines() {
        indent(out, depth);
        let _ = writeln!(out, "{line}");
    }
    indent(out, depth);
    let _ = writeln!(out, "{MARK_OPEN}/{}{MARK_CLOSE}", b.kind);
}

fn assert(out: &mut Vec<u8>, a: &Assert<'_>) {
    indent(out, a.depth);
    out.extend_from_slice(if a.ok { b"ok" } else { b"not ok" });
    if let Some(id) = a.id {
        out.push(b' ');
        out.extend_from_slice(itoa::Buffer::new().format(id).as_bytes());
    }
    if !a.name.is_empty() {
        out.extend_from_slice(b" - ");
        description(out, &a.name);
    }
    for (word, reason) in [("SKIP", &a.skip), ("TODO", &a.todo)] {
        if let Some(r) = reason {
            let _ = write!(out, " # {word}");
            if !r.is_empty() {
                out.push(b' ');
                text(out, r);
            }
        }
    }
    // A time the YAML below does not carry again (a marker comes before META's time).
    if let (Some(ms), None) = (a.duration_ms, &a.diagnostics) {
        let _ = write!(out, " {MARK_OPEN}time:{ms}{MARK_CLOSE}");
    }
    out.push(b'\n');
    if let Some(yaml) = &a.diagnostics {
        indent(out, a.depth);
        out.extend_from_slice(b"  ---\n");
        for line in yaml.lines() {
            indent(out, a.depth);
            let _ = writeln!(out, "  {line}");
        }
        indent(out, a.depth);
        out.extend_from_slice(b"  ...\n");
    }
    if let Some(meta) = &a.meta {
        marker(out, a.depth, "META", meta);
    }
    for b in &a.blocks {
        block(out, a.depth, b);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::collect::Collect;
    use crate::protocol::Parser;

    fn parse(bytes: &[u8]) -> Vec<Event<'static>> {
        let mut p = Parser::new(Collect::default());
        p.feed(bytes);
        p.finish().events
    }

    fn rendered(events: &[Event<'_>]) -> Vec<u8> {
        let mut out = Vec::new();
        for ev in events {
            event(&mut out, ev);
        }
        out
    }

    /// What the daemon must see as the run saw it: every point with what is attached to it,
    /// subtests, bail-outs, and the verdict's counts (line numbers may differ).
    fn essence(events: &[Event<'_>]) -> Vec<String> {
        events
            .iter()
            .filter_map(|ev| match ev {
                Event::Assert(a) => Some(format!(
                    "assert d{} ok={} id={:?} {:?} skip={:?} todo={:?} yaml={:?} meta={:?} blocks={:?} closes={}",
                    a.depth, a.ok, a.id, a.name, a.skip, a.todo, a.diagnostics, a.meta,
                    a.blocks, a.closes_subtest
                )),
                Event::SubtestStart { depth, name, .. } => Some(format!("subtest d{depth} {name:?}")),
                Event::Plan { depth, plan, .. } => Some(format!("plan d{depth} {plan:?}")),
                Event::BailOut { depth, reason, .. } => Some(format!("bail d{depth} {reason:?}")),
                Event::V2Event { json, .. } => Some(format!("v2 {json}")),
                Event::End { verdict } => Some(format!(
                    "end ok={} count={} pass={} fail={} skip={} todo={} bail={:?}",
                    verdict.ok, verdict.count, verdict.pass, verdict.fail, verdict.skip,
                    verdict.todo, verdict.bailout
                )),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn every_recorded_producer_round_trips() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("test-data/producers");
        let mut seen = 0;
        for entry in std::fs::read_dir(&dir).expect("producers") {
            let path = entry.expect("entry").path();
            if path.extension().is_none_or(|e| e != "tap") {
                continue;
            }
            let original = parse(&std::fs::read(&path).expect("read"));
            let again = parse(&rendered(&original));
            assert_eq!(essence(&original), essence(&again), "{}", path.display());
            seen += 1;
        }
        assert!(seen > 20, "only {seen} recordings");
    }

    #[test]
    fn dialects_come_back_as_the_same_tests() {
        let (o, c) = (MARK_OPEN, MARK_CLOSE);
        let tap = format!(
            "TAP version 14\n1..4\n\
            ok 1 - a \\# not a directive # TODO later\n\
            not ok 2 - b\n  ---\n  message: boom\n  at: x.js:1\n  ...\n\
            ok 3 - c {{ \n    1..1\n    ok 1 - inner\n}}\n\
            ok 4 - d {o}time:42{c}\n\
            {o}META:{{\"time\":5}}{c}\n\
            {o}ERROR{c}\n{{\"e\": 1}}\n{o}/ERROR{c}\n"
        );
        let original = parse(tap.as_bytes());
        let again = parse(&rendered(&original));
        assert_eq!(essence(&original), essence(&again));
        let durations = |evs: &[Event<'_>]| -> Vec<Option<f64>> {
            evs.iter()
                .filter_map(|e| match e {
                    Event::Assert(a) => Some(a.duration_ms),
                    _ => None,
                })
                .collect()
        };
        assert_eq!(durations(&original), durations(&again));
        assert!(
            essence(&again)
                .iter()
                .any(|l| l.contains("subtest d1 \"c\"")),
            "{again:?}"
        );
    }

    #[test]
    fn skip_all_plans_and_bail_outs_keep_their_reasons() {
        for tap in [
            "1..0 # SKIP no database\n",
            "1..2\nok 1\nBail out! db down\n",
            "1..1\nok\n",
        ] {
            let original = parse(tap.as_bytes());
            let again = parse(&rendered(&original));
            assert_eq!(essence(&original), essence(&again), "{tap}");
        }
        assert_eq!(
            rendered(&parse(b"1..0 # SKIP no database\n")),
            b"1..0 # SKIP no database\n"
        );
    }
}
