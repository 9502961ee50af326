//! The hand-written JSON against serde_json's, byte for byte.
use super::{write_event, write_run_event, JsonlWriter};
use crate::event::run::RunEvent;
use crate::event::{Assert, Block, Event, Plan, Problem, ProblemKind, Sink, Verdict};
use crate::protocol::AnyParser;
use crate::report::json::{find_escape, push_str};
use proptest::prelude::*;
use std::borrow::Cow;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Both ways, for the TAP event alone and wrapped in a run's `Tap` event.
fn assert_same(ev: &Event<'_>, at: &str) {
    let mut fast = Vec::new();
    write_event(&mut fast, ev).expect("a Vec takes every write");
    assert_bytes(&fast, &serde_json::to_vec(ev).expect("serializable"), at);
    let run = RunEvent::Tap {
        run: 3,
        file: 136,
        event: ev.clone().into_owned(),
    };
    assert_same_run(&run, at);
}

fn assert_same_run(ev: &RunEvent, at: &str) {
    let mut fast = Vec::new();
    write_run_event(&mut fast, ev).expect("a Vec takes every write");
    assert_bytes(&fast, &serde_json::to_vec(ev).expect("serializable"), at);
}

/// The same bytes; shown as text first, for a readable difference.
fn assert_bytes(fast: &[u8], serde: &[u8], at: &str) {
    assert_eq!(
        String::from_utf8_lossy(fast),
        String::from_utf8_lossy(serde),
        "{at}"
    );
    assert_eq!(fast, serde, "{at}");
}

/// Each variant's tag; the match names them all, so a new variant needs a sample below.
fn variant(ev: &Event<'_>) -> &'static str {
    match ev {
        Event::Protocol { .. } => "protocol",
        Event::Version { .. } => "version",
        Event::Plan { .. } => "plan",
        Event::Pragma { .. } => "pragma",
        Event::SubtestStart { .. } => "subtest_start",
        Event::AssertBegin { .. } => "assert_begin",
        Event::Assert(_) => "assert",
        Event::SubtestEnd { .. } => "subtest_end",
        Event::Comment { .. } => "comment",
        Event::Output { .. } => "output",
        Event::BailOut { .. } => "bail_out",
        Event::V2Event { .. } => "v2_event",
        Event::V2Block { .. } => "v2_block",
        Event::Marker { .. } => "marker",
        Event::Problem(_) => "problem",
        Event::End { .. } => "end",
    }
}
const VARIANTS: usize = 16;

fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut dirs = vec![dir.to_path_buf()];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                dirs.push(p);
            } else {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// Every file under test-data/ read as a stream (TAP, `go-json` and JUnit XML by their
/// first bytes; sources, scripts and expected summaries come out as non-TAP output lines,
/// full of quotes, backslashes and tabs), each event written both ways; each line of the
/// `.stderr` files as a run's stderr event.
#[test]
fn every_event_of_every_test_data_file_is_written_as_serde_writes_it() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("test-data");
    let files = files_under(&root);
    assert!(
        files.len() >= 600,
        "test data missing: {} files",
        files.len()
    );
    let mut seen = BTreeSet::new();
    let mut events = 0;
    for path in &files {
        let bytes = std::fs::read(path).expect("test data readable");
        let mut p = AnyParser::new(Vec::new(), None);
        p.feed(&bytes);
        for (i, ev) in p.finish().iter().enumerate() {
            assert_same(ev, &format!("{} event {i}", path.display()));
            seen.insert(variant(ev));
            events += 1;
        }
        if path.extension().is_some_and(|x| x == "stderr") {
            for line in String::from_utf8_lossy(&bytes).lines() {
                let ev = RunEvent::Stderr {
                    run: 1,
                    file: 7,
                    text: line.to_owned(),
                };
                assert_same_run(&ev, &path.display().to_string());
            }
        }
    }
    assert!(events > 15_000, "only {events} events");
    // Unowned v2 blocks and unknown markers are not in the data; the samples below have them.
    assert!(seen.len() >= VARIANTS - 2, "variants seen: {seen:?}");
}

fn s(text: &str) -> Cow<'static, str> {
    Cow::Owned(text.to_owned())
}

/// Quotes, backslashes, control characters, non-ASCII and a v2 marker's brackets.
const AWKWARD: &str = include_str!("../../../test-data/v2/awkward.txt");

fn verdict(full: bool) -> Verdict<'static> {
    Verdict {
        ok: !full,
        count: 7,
        pass: 3,
        fail: 2,
        todo: 1,
        skip: 1,
        plan: full.then(|| Plan {
            start: 1,
            end: 7,
            skip_all: true,
            reason: Some(s(AWKWARD)),
        }),
        bailout: full.then(|| s("")),
        reasons: if full {
            vec!["no plan".into(), AWKWARD.into()]
        } else {
            Vec::new()
        },
    }
}

fn block(n: u64) -> Block<'static> {
    Block {
        kind: s("ERROR"),
        payload: s(&format!("{n}: {AWKWARD}")),
        unterminated: n % 2 == 1,
    }
}

/// One sample of each variant with every field set to something other than its default,
/// and every optional one both present and absent. Struct literals, so a field added to a
/// type needs a value here, and then the comparison shows whether the fast path writes it.
fn samples() -> Vec<Event<'static>> {
    let mut out = Vec::new();
    for full in [false, true] {
        let opt = |t: &str| full.then(|| s(t));
        out.extend([
            Event::Protocol {
                line: 1,
                version: s("2.0.0"),
            },
            Event::Version {
                depth: 1,
                line: 2,
                version: 14,
            },
            Event::Plan {
                depth: 2,
                line: 3,
                plan: Plan {
                    start: 1,
                    end: u64::MAX,
                    skip_all: full,
                    reason: opt("no \"reason\""),
                },
            },
            Event::Pragma {
                depth: 0,
                line: 4,
                key: s("strict"),
                enabled: full,
            },
            Event::SubtestStart {
                depth: 3,
                line: 5,
                name: s(AWKWARD),
                buffered: full,
            },
            Event::AssertBegin {
                depth: u32::MAX,
                line: 6,
                ok: full,
                id: full.then_some(u64::MAX),
                name: s(AWKWARD),
                skip: opt("skip \\ reason"),
                todo: opt("todo\treason"),
            },
            Event::Assert(Assert {
                depth: u32::MAX,
                line: 6,
                ok: full,
                id: full.then_some(42),
                name: s(AWKWARD),
                skip: opt("skip \\ reason"),
                todo: opt("todo\treason"),
                duration_ms: full.then_some(1.25),
                diagnostics: opt("message: \"boom\"\nwanted: 1\n"),
                meta: opt("{\"time\":3}"),
                blocks: if full {
                    vec![block(1), block(2)]
                } else {
                    vec![]
                },
                closes_subtest: full,
                not_selected: full,
            }),
            Event::SubtestEnd {
                depth: 4,
                verdict: verdict(full),
            },
            Event::Comment {
                depth: 1,
                line: 7,
                text: s(AWKWARD),
            },
            Event::Output {
                depth: 2,
                line: 8,
                text: s(AWKWARD),
            },
            Event::BailOut {
                depth: 0,
                line: 9,
                reason: s(AWKWARD),
            },
            Event::V2Event {
                depth: 1,
                line: 10,
                json: s("{\"type\":\"test:started\",\"name\":\"a\\\"b\"}"),
            },
            Event::V2Block {
                depth: 2,
                line: 11,
                block: block(3),
            },
            Event::Marker {
                depth: 3,
                line: 12,
                kind: s("custom"),
                payload: s(AWKWARD),
            },
            Event::Problem(Problem {
                depth: 1,
                line: 13,
                kind: ProblemKind::UnterminatedBlock,
                message: AWKWARD.into(),
                fails: full,
            }),
            Event::End {
                verdict: verdict(full),
            },
        ]);
    }
    out
}

#[test]
fn every_variant_with_every_field_is_written_as_serde_writes_it() {
    let samples = samples();
    let names: BTreeSet<_> = samples.iter().map(variant).collect();
    assert_eq!(names.len(), VARIANTS, "a variant has no sample: {names:?}");
    for (i, ev) in samples.iter().enumerate() {
        assert_same(ev, &format!("sample {i}: {ev:?}"));
    }
    let full_assert = samples
        .iter()
        .rev()
        .find_map(|e| match e {
            Event::Assert(a) => Some(a.clone()),
            _ => None,
        })
        .expect("an assert sample");
    for d in [
        0.0,
        -0.0,
        0.1,
        1e21,
        1e-7,
        123_456.789,
        f64::MIN_POSITIVE,
        f64::MAX,
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
    ] {
        let mut a = full_assert.clone();
        a.duration_ms = Some(d);
        assert_same(&Event::Assert(a), &format!("duration {d}"));
    }
}

/// What `tapline report` reads back (serde's derived reader) is every event as written,
/// `assert_begin` included.
#[test]
fn every_variant_reads_back_as_written() {
    for (i, ev) in samples().iter().enumerate() {
        let mut line = Vec::new();
        write_event(&mut line, ev).expect("a Vec takes every write");
        let back: Event<'static> = serde_json::from_slice(&line)
            .unwrap_or_else(|e| panic!("sample {i} does not read back: {e}"));
        assert_eq!(&back, ev, "sample {i}");
    }
}

/// The run's own events go through serde; the stderr one is hand-written.
#[test]
fn run_events_are_written_as_serde_writes_them() {
    for ev in [
        RunEvent::Stderr {
            run: u64::MAX,
            file: usize::MAX,
            text: AWKWARD.into(),
        },
        RunEvent::RunStarted {
            run: 1,
            files: 2,
            jobs: 3,
            started_ms: Some(4),
            host: None,
            cwd: Some(AWKWARD.into()),
            command: None,
            test_filter: None,
        },
        RunEvent::SeriesStarted { runs: 5 },
    ] {
        assert_same_run(&ev, &format!("{ev:?}"));
    }
}

/// The parse writer's lines are the events, one per line.
#[test]
fn the_parse_writer_writes_one_serde_line_per_event() {
    let mut w = JsonlWriter::new(Vec::new());
    let mut want = Vec::new();
    for ev in samples() {
        w.event(&ev);
        want.extend(serde_json::to_vec(&ev).expect("serializable"));
        want.push(b'\n');
    }
    assert_eq!(w.finish().expect("a Vec takes every write"), want);
}

#[test]
fn every_byte_at_every_place_of_a_word_is_found() {
    for len in 1..=19 {
        for at in 0..len {
            for b in 0..=0x7fu8 {
                let mut bytes = vec![b'a'; len];
                bytes[at] = b;
                let want = (b < 0x20 || b == b'"' || b == b'\\').then_some(at);
                assert_eq!(find_escape(&bytes), want, "byte {b:#x} at {at} of {len}");
            }
            // Bytes above a hit must not hide it, whatever they are.
            let mut bytes = vec![0u8; len];
            bytes[at] = b'"';
            bytes[..at].fill(0x80);
            assert_eq!(find_escape(&bytes), Some(at));
        }
    }
}

/// Characters where escaping goes wrong: controls, quote, backslash, DEL, the bytes around
/// them, and multi-byte UTF-8 of every length.
fn awkward_char() -> impl Strategy<Value = char> {
    prop_oneof![
        3 => (0u8..0x20).prop_map(char::from),
        2 => prop::sample::select(vec!['"', '\\', '\u{7f}', ' ', '!', '#', '[', ']', '/']),
        1 => prop::sample::select(vec!['é', 'ÿ', '\u{80}', '⟦', '\u{2028}', '😀', '\u{10ffff}']),
        4 => prop::char::range('a', 'z'),
        1 => any::<char>(),
    ]
}

fn awkward_string() -> impl Strategy<Value = String> {
    prop::collection::vec(awkward_char(), 0..40).prop_map(|c| c.into_iter().collect())
}

fn opt_string() -> impl Strategy<Value = Option<Cow<'static, str>>> {
    prop::option::of(awkward_string().prop_map(Cow::Owned))
}

fn any_duration() -> impl Strategy<Value = Option<f64>> {
    prop::option::of(prop_oneof![
        any::<f64>(),
        Just(f64::NAN),
        Just(f64::INFINITY),
        Just(-0.0),
        (0u32..100_000).prop_map(|n| f64::from(n) / 1000.0),
    ])
}

fn any_assert() -> impl Strategy<Value = Event<'static>> {
    (
        (
            any::<u32>(),
            any::<u64>(),
            any::<bool>(),
            any::<Option<u64>>(),
        ),
        (awkward_string(), opt_string(), opt_string(), any_duration()),
        (opt_string(), opt_string(), any::<bool>()),
        prop::collection::vec((awkward_string(), awkward_string(), any::<bool>()), 0..3),
    )
        .prop_map(
            |(
                (depth, line, ok, id),
                (name, skip, todo, duration_ms),
                (diagnostics, meta, closes),
                blocks,
            )| {
                Event::Assert(Assert {
                    depth,
                    line,
                    ok,
                    id,
                    name: Cow::Owned(name),
                    skip,
                    todo,
                    duration_ms,
                    diagnostics,
                    meta,
                    blocks: blocks
                        .into_iter()
                        .map(|(kind, payload, unterminated)| Block {
                            kind: Cow::Owned(kind),
                            payload: Cow::Owned(payload),
                            unterminated,
                        })
                        .collect(),
                    closes_subtest: closes,
                    not_selected: closes && ok,
                })
            },
        )
}

fn any_text_event() -> impl Strategy<Value = Event<'static>> {
    (any::<u32>(), any::<u64>(), awkward_string(), 0..3u8).prop_map(|(depth, line, t, which)| {
        let text = Cow::Owned(t);
        match which {
            0 => Event::Output { depth, line, text },
            1 => Event::Comment { depth, line, text },
            _ => Event::SubtestEnd {
                depth,
                verdict: Verdict {
                    reasons: vec![text.into_owned(), String::new()],
                    ..verdict(true)
                },
            },
        }
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn any_string_is_escaped_as_serde_escapes_it(text in awkward_string()) {
        let mut fast = Vec::new();
        push_str(&mut fast, &text);
        prop_assert_eq!(fast, serde_json::to_vec(&text).expect("serializable"));
    }

    #[test]
    fn any_assert_is_written_as_serde_writes_it(ev in any_assert()) {
        assert_same(&ev, &format!("{ev:?}"));
    }

    #[test]
    fn any_output_comment_or_verdict_is_written_as_serde_writes_it(ev in any_text_event()) {
        assert_same(&ev, &format!("{ev:?}"));
    }
}
