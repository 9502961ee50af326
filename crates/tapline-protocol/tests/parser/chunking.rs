//! The events are identical whatever the chunking of the input.
use crate::util::{files_with_ext, repo};
use proptest::prelude::*;
use tapline_protocol::event::Event;
use tapline_protocol::{parse_all, Limits, Parser};

fn parse_chunked(bytes: &[u8], cuts: &[usize], limits: Limits) -> Vec<Event<'static>> {
    let mut p = Parser::with_limits(Vec::new(), limits);
    let mut at = 0;
    let mut points: Vec<usize> = cuts.iter().map(|c| c % (bytes.len() + 1)).collect();
    points.sort_unstable();
    for c in points {
        p.feed(&bytes[at..c]);
        at = c;
    }
    p.feed(&bytes[at..]);
    p.finish()
}

fn corpus() -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    for dir in ["test-data/streams", "test-data/producers"] {
        for f in files_with_ext(&repo().join(dir), "tap") {
            out.push(std::fs::read(f).expect("test data readable"));
        }
    }
    assert!(out.len() >= 10, "test data missing");
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn any_chunking_yields_the_same_events(idx in 0usize..1000, cuts in prop::collection::vec(0usize..100_000, 0..40)) {
        let all = corpus();
        let bytes = &all[idx % all.len()];
        let whole = parse_all(bytes);
        let chunked = parse_chunked(bytes, &cuts, Limits::default());
        prop_assert_eq!(whole, chunked);
    }

    #[test]
    fn byte_at_a_time_with_small_line_cap(idx in 0usize..1000) {
        let all = corpus();
        let bytes = &all[idx % all.len()];
        let limits = Limits { max_line: 40, max_block: 200 };
        let whole = parse_chunked(bytes, &[], limits);
        let cuts: Vec<usize> = (0..bytes.len()).collect();
        prop_assert_eq!(whole, parse_chunked(bytes, &cuts, limits));
    }

    #[test]
    fn random_bytes_never_panic_and_always_end(bytes in prop::collection::vec(any::<u8>(), 0..4000)) {
        let events = parse_all(&bytes);
        prop_assert!(matches!(events.last(), Some(Event::End { .. })), "stream must end with End");
    }

    #[test]
    fn tap_like_noise_keeps_subtest_events_balanced(lines in prop::collection::vec(
        prop::sample::select(vec![
            "ok", "not ok 2 - x", "    ok 1", "        not ok 1 # TODO", "# Subtest: s", "    # Subtest: t",
            "1..2", "    1..1", "  ---", "  a: 1", "  ...", "Bail out!", "ok 1 - b {", "}", "{", "    }",
            "pragma +strict", "⟦TSTEST:ERROR⟧", "⟦TSTEST:/ERROR⟧", "⟦TSTEST:META:{}⟧", "TAP version 14", "",
        ]), 0..60)) {
        let text = lines.join("\n");
        let events = parse_all(text.as_bytes());
        let mut depth = 0i64;
        for e in &events {
            match e {
                Event::SubtestStart { .. } => depth += 1,
                Event::SubtestEnd { .. } => depth -= 1,
                _ => {}
            }
            prop_assert!(depth >= 0);
        }
        prop_assert_eq!(depth, 0);
        prop_assert!(matches!(events.last(), Some(Event::End { .. })), "stream must end with End");
    }
}
