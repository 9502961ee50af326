//! No input makes the parser panic, hang or hold memory without bound.
use tapline_protocol::event::{Event, ProblemKind, Sink};
use tapline_protocol::{Limits, Parser};

/// Counts events without keeping them, so memory use is the parser's alone.
#[derive(Default)]
struct Count {
    asserts: u64,
    problems: Vec<ProblemKind>,
    outputs: u64,
    longest_output: usize,
    ok: Option<bool>,
}

impl Sink for Count {
    fn event(&mut self, e: &Event<'_>) {
        match e {
            Event::Assert(_) => self.asserts += 1,
            Event::Problem(p) => self.problems.push(p.kind),
            Event::Output { text, .. } => {
                self.outputs += 1;
                self.longest_output = self.longest_output.max(text.len());
            }
            Event::End { verdict } => self.ok = Some(verdict.ok),
            _ => {}
        }
    }
}

#[test]
fn a_100_mb_line_is_truncated_not_buffered() {
    let mut p = Parser::new(Count::default());
    p.feed(b"1..1\n");
    let chunk = vec![b'x'; 1 << 20];
    for _ in 0..100 {
        p.feed(&chunk);
    }
    p.feed(b"\nok 1\n");
    let c = p.finish();
    assert_eq!(c.asserts, 1);
    assert_eq!(c.problems, vec![ProblemKind::LineTooLong]);
    assert!(c.longest_output <= tapline_protocol::DEFAULT_MAX_LINE);
    assert_eq!(c.ok, Some(true));
}

#[test]
fn a_never_closed_error_block_is_capped_and_fails() {
    let limits = Limits {
        max_line: 1 << 10,
        max_block: 1 << 16,
    };
    let mut p = Parser::with_limits(Count::default(), limits);
    p.feed("1..1\nnot ok 1\n⟦TSTEST:ERROR⟧\n".as_bytes());
    let line = [b'y'; 100];
    for _ in 0..100_000 {
        p.feed(&line);
        p.feed(b"\n");
    }
    let c = p.finish();
    assert_eq!(c.ok, Some(false));
    assert!(c.problems.contains(&ProblemKind::BlockTooLarge));
    assert!(c.problems.contains(&ProblemKind::UnterminatedBlock));
}

#[test]
fn a_never_closed_yaml_block_is_capped_and_fails() {
    let limits = Limits {
        max_line: 1 << 10,
        max_block: 1 << 16,
    };
    let mut p = Parser::with_limits(Count::default(), limits);
    p.feed(b"1..1\nnot ok 1\n  ---\n");
    for _ in 0..100_000 {
        p.feed(b"  key: some value that goes on\n");
    }
    let c = p.finish();
    assert_eq!(c.ok, Some(false));
    assert!(c.problems.contains(&ProblemKind::BlockTooLarge));
    assert!(c.problems.contains(&ProblemKind::UnterminatedYaml));
}

#[test]
fn invalid_utf8_is_replaced() {
    let mut p = Parser::new(Vec::new());
    p.feed(b"1..1\nok 1 - caf\xe9 \xff\n");
    let events = p.finish();
    let name = events.iter().find_map(|e| match e {
        Event::Assert(a) => Some(a.name.to_string()),
        _ => None,
    });
    assert_eq!(name.as_deref(), Some("caf\u{fffd} \u{fffd}"));
}

#[test]
fn deep_indentation_is_capped_not_recursed() {
    let mut text = String::new();
    for d in 0..200 {
        text.push_str(&" ".repeat(4 * d));
        text.push_str("ok 1\n");
    }
    text.push_str(&" ".repeat(4 << 20));
    text.push_str("ok 1\n");
    let limits = Limits {
        max_line: 8 << 20,
        max_block: 1 << 20,
    };
    let mut p = Parser::with_limits(Count::default(), limits);
    p.feed(text.as_bytes());
    let c = p.finish();
    assert!(c.asserts > 0 && c.outputs > 0);
}

#[test]
fn conformance_fixtures_never_panic() {
    let dir = crate::util::repo().join("../shared/conformance");
    for f in crate::util::files_with_ext(&dir, "tap") {
        let bytes = std::fs::read(&f).expect("readable");
        let events = tapline_protocol::parse_all(&bytes);
        assert!(
            matches!(events.last(), Some(Event::End { .. })),
            "{}",
            f.display()
        );
    }
}
