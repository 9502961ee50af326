//! The libtest reader on streams recorded from real cargo (test-data/formats/libtest-*.txt,
//! VERSIONS.txt says how) and on the shapes older Rust printed.
use super::*;
use crate::event::{Event, Verdict};

fn parse(bytes: &[u8]) -> Vec<Event<'static>> {
    let mut p = LibtestParser::new(Vec::new());
    for chunk in bytes.chunks(7) {
        p.feed(chunk);
    }
    p.finish()
}

fn end(events: &[Event<'static>]) -> Verdict<'static> {
    match events.last() {
        Some(Event::End { verdict }) => verdict.clone(),
        other => panic!("no end: {other:?}"),
    }
}

/// Each point as `ok NAME`, `not ok NAME`, `skip NAME (REASON)`.
fn points(events: &[Event<'static>]) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Assert(a) => Some(match (&a.skip, a.ok) {
                (Some(r), _) => format!("skip {} ({r})", a.name),
                (None, true) => format!("ok {}", a.name),
                (None, false) => format!("not ok {}", a.name),
            }),
            _ => None,
        })
        .collect()
}

/// The YAML of the point named `name`.
fn yaml(events: &[Event<'static>], name: &str) -> String {
    events
        .iter()
        .find_map(|e| match e {
            Event::Assert(a) if a.name == name => Some(a.diagnostics.clone().unwrap_or_default()),
            _ => None,
        })
        .map(|d| d.into_owned())
        .unwrap_or_else(|| panic!("no point {name}"))
}

/// One field of the YAML of the point named `name` (empty when absent).
fn field(events: &[Event<'static>], name: &str, key: &str) -> String {
    let y = yaml(events, name);
    let map: std::collections::BTreeMap<String, String> =
        serde_saphyr::from_str(&y).unwrap_or_else(|e| panic!("{e}: {y}"));
    map.get(key).cloned().unwrap_or_default()
}

/// The output and comment lines: what the child printed, none lost.
fn outputs(events: &[Event<'static>]) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Output { text, .. } | Event::Comment { text, .. } => Some(text.to_string()),
            _ => None,
        })
        .collect()
}

const BASIC: &[u8] = include_bytes!("../../../../test-data/formats/libtest-basic.txt");
const FAILURES: &[u8] = include_bytes!("../../../../test-data/formats/libtest-failures.txt");
const DOC: &[u8] = include_bytes!("../../../../test-data/formats/libtest-doc.txt");
const CRASH: &[u8] = include_bytes!("../../../../test-data/formats/libtest-crash.txt");
const CRASH_ONE: &[u8] =
    include_bytes!("../../../../test-data/formats/libtest-crash-one-thread.txt");
const BUILD: &[u8] = include_bytes!("../../../../test-data/formats/libtest-build-error.txt");

#[test]
fn a_run_is_a_point_per_test_its_failures_explained() {
    let events = parse(BASIC);
    assert_eq!(
        points(&events),
        [
            "ok tests::adds",
            "skip tests::slow (slow)",
            "ok tests::overflows",
            "not ok tests::subtracts",
        ]
    );
    let v = end(&events);
    assert_eq!((v.ok, v.count, v.pass, v.fail, v.skip), (false, 4, 2, 1, 1));
    let f = |key| field(&events, "tests::subtracts", key);
    assert_eq!(f("message"), "assertion `left == right` failed");
    assert_eq!(
        (f("found"), f("wanted"), f("operator")),
        ("8".into(), "2".into(), "==".into())
    );
    assert_eq!(f("at"), "src/lib.rs:28:9");
    assert!(f("stack").contains("4: rust_basic::tests::subtracts"));
    // cargo's own lines are output, none lost.
    let out = outputs(&events);
    assert!(out
        .iter()
        .any(|l| l.contains("Running unittests src/lib.rs")));
    assert!(out
        .iter()
        .any(|l| l.starts_with("test result: FAILED. 2 passed")));
    // After the failed point only comments: libtest's framing and cargo's closing lines are
    // no failure's output.
    let last = events.iter().rposition(|e| matches!(e, Event::Assert(_)));
    let after = &events[last.map_or(0, |i| i + 1)..];
    assert!(
        !after.iter().any(|e| matches!(e, Event::Output { .. })),
        "{after:?}"
    );
}

#[test]
fn every_kind_of_failure_says_why() {
    let events = parse(FAILURES);
    let v = end(&events);
    assert_eq!((v.count, v.pass, v.fail, v.skip), (8, 0, 7, 1));
    let f = |name, key| field(&events, name, key);
    assert_eq!(
        f("tests::custom_message", "message"),
        "assertion `left == right` failed: vectors at x"
    );
    assert_eq!(f("tests::custom_message", "found"), "[1, 2]");
    assert_eq!(f("tests::custom_message", "wanted"), "[1, 3]");
    assert_eq!(f("tests::prints_then_fails", "operator"), "!=");
    assert_eq!(f("tests::prints_then_fails", "at"), "src/lib.rs:30:9");
    assert_eq!(
        f("tests::prints_then_fails", "message"),
        "assertion `left != right` failed: they differ? 1"
    );
    // What the test printed stays, as its output.
    assert!(outputs(&events).contains(&"hello from the test".to_owned()));
    assert_eq!(
        f("tests::does_not_panic", "message"),
        "test did not panic as expected"
    );
    assert_eq!(f("tests::does_not_panic", "at"), "src/lib.rs:46:8");
    let m = f("tests::wrong_panic", "message");
    assert!(
        m.starts_with("abc\npanic did not contain expected string"),
        "{m}"
    );
    assert_eq!(f("tests::plain_panic", "message"), "boom\nsecond line");
    assert_eq!(f("tests::result_err", "message"), "Error: \"bad result\"");
}

#[test]
fn doc_tests_are_located_in_their_source() {
    let events = parse(DOC);
    assert_eq!(
        points(&events),
        [
            "skip src/lib.rs - double (line 15) (ignored)",
            "ok src/lib.rs - double (line 7)",
            // Failures in libtest's `failures:` list's order: by name.
            "not ok src/lib.rs - double (line 11)",
            "not ok src/lib.rs - double (line 3)",
            "ok src/lib.rs - double (line 19)",
        ]
    );
    let f = |name, key| field(&events, name, key);
    // The panic is in rustdoc's temporary bundle: the doc test's own line says where.
    assert_eq!(f("src/lib.rs - double (line 3)", "at"), "src/lib.rs:3");
    assert_eq!(f("src/lib.rs - double (line 3)", "found"), "4");
    assert_eq!(f("src/lib.rs - double (line 3)", "wanted"), "5");
    assert_eq!(f("src/lib.rs - double (line 11)", "at"), "src/lib.rs:11:0");
    // Before edition 2024 the line is the wrapper's: the doc test's own line says where.
    assert_eq!(
        doc_location("src/lib.rs - take (line 654)", "src/lib.rs:12:1"),
        "src/lib.rs:654"
    );
    assert_eq!(
        doc_location("src/lib.rs - take (line 654)", "src/lib.rs:660:5"),
        "src/lib.rs:660:5"
    );
    assert_eq!(
        doc_location("tests::x", "src/lib.rs:12:1"),
        "src/lib.rs:12:1"
    );
}

#[test]
fn a_crash_fails_the_test_that_was_running() {
    // One thread: libtest named the test before it ran.
    let events = parse(CRASH_ONE);
    assert_eq!(points(&events), ["not ok aborts"]);
    let m = field(&events, "aborts", "message");
    assert!(
        m.contains("(signal: 6, SIGABRT: process abort signal)"),
        "{m}"
    );
    assert!(!end(&events).ok);
    // Several threads: libtest names a test when it ends, so the crash is one failing point.
    let events = parse(CRASH);
    assert_eq!(points(&events), ["ok fine", "not ok (test binary crashed)"]);
    let m = field(&events, "(test binary crashed)", "message");
    assert!(
        m.contains("SIGABRT") && m.contains("2 of 3 tests never reported"),
        "{m}"
    );
}

#[test]
fn a_binary_that_did_not_build_fails_with_the_compilers_error() {
    let events = parse(BUILD);
    let v = end(&events);
    assert!(!v.ok);
    assert_eq!(v.count, 0);
    let reason = v.reasons.join("\n");
    assert!(
        reason.contains("error[E0308]: mismatched types at tests/broken.rs:1:34"),
        "{reason}"
    );
    assert!(outputs(&events)
        .iter()
        .any(|l| l.contains("expected `i32`, found `&str`")));
}

#[test]
fn older_rust_panics_read_alike() {
    // Rust before 1.73 (written from its format: no such toolchain here).
    let stream = b"running 2 tests\n\
test t::a ... FAILED\n\
test t::b ... FAILED\n\
\n\
failures:\n\
\n\
---- t::a stdout ----\n\
thread 't::a' panicked at 'assertion failed: `(left == right)`\n  left: `1`,\n right: `2`', src/lib.rs:5:5\n\
note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\n\
\n\
---- t::b stdout ----\n\
thread 't::b' panicked at 'assertion failed: `(left != right)`\n  left: `3`,\n right: `3`: they differ', src/lib.rs:9:5\n\
\n\
\n\
failures:\n    t::a\n    t::b\n\n\
test result: FAILED. 0 passed; 2 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s\n";
    let events = parse(stream);
    let f = |name, key| field(&events, name, key);
    assert_eq!(
        (f("t::a", "found"), f("t::a", "wanted")),
        ("1".into(), "2".into())
    );
    assert_eq!(f("t::a", "at"), "src/lib.rs:5:5");
    assert_eq!(f("t::a", "operator"), "==");
    assert_eq!(f("t::a", "message"), "assertion failed: `(left == right)`");
    assert_eq!(
        (f("t::b", "found"), f("t::b", "wanted")),
        ("3".into(), "3".into())
    );
    assert_eq!(
        f("t::b", "message"),
        "assertion failed: `(left != right)`: they differ"
    );
}

#[test]
fn uncaptured_output_between_a_name_and_its_result() {
    let stream = b"running 2 tests\ntest a ... hello\nworld ok\ntest b ... \nsome text\nFAILED\n\nfailures:\n\n---- b stdout ----\nthread 'b' panicked at src/x.rs:1:1:\nno\n\n\nfailures:\n    b\n\ntest result: FAILED. 1 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s\n";
    let events = parse(stream);
    assert_eq!(points(&events), ["ok a", "not ok b"]);
    let out = outputs(&events);
    for l in ["hello", "world", "some text"] {
        assert!(out.contains(&l.to_owned()), "{l}: {out:?}");
    }
}

#[test]
fn any_chunking_gives_the_same_events() {
    let whole = {
        let mut p = LibtestParser::new(Vec::new());
        p.feed(FAILURES);
        p.finish()
    };
    for size in [1, 3, 64] {
        let mut p = LibtestParser::new(Vec::new());
        for c in FAILURES.chunks(size) {
            p.feed(c);
        }
        assert_eq!(p.finish(), whole, "chunks of {size}");
    }
}

#[test]
fn an_empty_stream_fails() {
    let events = parse(b"");
    assert!(!end(&events).ok);
    let events = parse(b"running 0 tests\n\ntest result: ok. 0 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s\n");
    assert!(end(&events).ok);
}

/// nextest's `--message-format libtest-json` (NEXTEST_EXPERIMENTAL_LIBTEST_JSON=1) of the
/// fixture's lib, its own lines on stderr beside (VERSIONS.txt).
const NEXTEST: &[u8] = include_bytes!("../../../../test-data/formats/libtest-nextest.txt");

#[test]
fn libtests_json_form_reads_alike() {
    let events = parse(NEXTEST);
    assert_eq!(
        points(&events),
        [
            "skip tests::slow (ignored)",
            "ok tests::overflows",
            "ok tests::adds",
            "not ok tests::subtracts",
        ]
    );
    let v = end(&events);
    assert_eq!((v.ok, v.count, v.pass, v.fail, v.skip), (false, 4, 2, 1, 1));
    let f = |key| field(&events, "tests::subtracts", key);
    assert_eq!(f("message"), "assertion `left == right` failed");
    assert_eq!((f("found"), f("wanted")), ("8".to_owned(), "2".to_owned()));
    assert_eq!(f("at"), "src/lib.rs:28:9");
}

fn parse_listed(bytes: &[u8], lister: Option<TestLister>) -> Vec<Event<'static>> {
    let mut p = LibtestParser::new(Vec::new()).listed_by(lister);
    p.feed(bytes);
    p.finish()
}

/// A lister that answers `names` with `threads` for the recorded binary's command.
fn lister(names: &[&str], threads: usize, asked: &'static str) -> TestLister {
    let names: Vec<String> = names.iter().map(|n| n.to_string()).collect();
    Arc::new(move |command: &str| {
        (command == asked).then(|| Listed {
            names: names.clone(),
            threads,
        })
    })
}

const ABORT_THREADS: &str = "/tmp/rbad/target/debug/deps/crash-b74575734b345169";

#[test]
fn a_crash_under_threads_names_the_tests_started_and_not_ended() {
    // libtest ran a, b, c in its order, two at a time; `fine` reported, so the running ones are
    // the next two: `aborts` and `slow`.
    let events = parse_listed(
        CRASH,
        Some(lister(&["aborts", "fine", "slow"], 2, ABORT_THREADS)),
    );
    assert_eq!(points(&events), ["ok fine", "not ok (test binary crashed)"]);
    let m = field(&events, "(test binary crashed)", "message");
    assert!(
        m.contains("SIGABRT") && m.contains("while running one of \"aborts\", \"slow\""),
        "{m}"
    );
    // One thread left one test running: that test failed.
    let events = parse_listed(
        CRASH,
        Some(lister(&["fine", "aborts", "slow"], 1, ABORT_THREADS)),
    );
    assert_eq!(points(&events), ["ok fine", "not ok aborts"]);
    // A binary that cannot say (gone, another command) names none.
    let events = parse_listed(CRASH, Some(Arc::new(|_: &str| None)));
    let m = field(&events, "(test binary crashed)", "message");
    assert!(m.contains("--test-threads=1 to see which"), "{m}");
}

#[test]
fn a_stack_overflow_names_its_thread() {
    let text = b"running 3 tests\ntest a_fine ... ok\n\nthread 'b_overflows' (23379) has overflowed its stack\nfatal runtime error: stack overflow, aborting\nerror: test failed, to rerun pass `--test overflow`\n\nCaused by:\n  process didn't exit successfully: `/t/overflow-c6a4 --quiet` (signal: 6, SIGABRT: process abort signal)\n";
    let events = parse_listed(text, None);
    assert_eq!(points(&events), ["ok a_fine", "not ok b_overflows"]);
    assert!(outputs(&events)
        .iter()
        .any(|l| l.starts_with("fatal runtime error")));
}

#[test]
fn the_running_window_is_the_reported_plus_the_threads() {
    let listed = Listed {
        names: ["a", "b", "c", "d", "e"].map(String::from).to_vec(),
        threads: 2,
    };
    let ended = |n: &[&str]| n.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert_eq!(running_when_crashed(&listed, &[]), ["a", "b"]);
    assert_eq!(running_when_crashed(&listed, &ended(&["b"])), ["a", "c"]);
    assert_eq!(
        running_when_crashed(&listed, &ended(&["a", "b", "c", "d"])),
        ["e"]
    );
}

#[test]
fn a_panic_while_panicking_is_explained_by_its_panics_fatal_line_first() {
    let text = b"running 3 tests\ntest a_fine ... ok\n\nthread 'b_double_panic' (23389) panicked at tests/double.rs:6:38:\nfirst panic\nnote: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\n\nthread 'b_double_panic' (23389) panicked at tests/double.rs:2:43:\nboom in drop\n\nthread 'b_double_panic' (23389) panicked at /rustc/5980/library/core/src/panicking.rs:233:5:\npanic in a destructor during cleanup\nthread caused non-unwinding panic. aborting.\nerror: test failed, to rerun pass `--test double`\n\nCaused by:\n  process didn't exit successfully: `/t/double-292c --quiet` (signal: 6, SIGABRT: process abort signal)\n";
    let events = parse_listed(text, None);
    assert_eq!(points(&events), ["ok a_fine", "not ok b_double_panic"]);
    let m = field(&events, "b_double_panic", "message");
    assert!(
        m.starts_with("thread caused non-unwinding panic. aborting.\n"),
        "{m}"
    );
    assert!(m.contains("SIGABRT") && m.contains("first panic"), "{m}");
    assert_eq!(
        field(&events, "b_double_panic", "at"),
        "tests/double.rs:6:38"
    );
    // Each line once.
    let out = outputs(&events);
    assert_eq!(
        out.iter().filter(|l| l.as_str() == "first panic").count(),
        1,
        "{out:?}"
    );
}

#[test]
fn rustdocs_own_headings_are_no_doc_tests_output() {
    let events = parse(DOC);
    let out = outputs(&events);
    assert!(
        !out.iter().any(|l| l.starts_with("Test executable failed")),
        "{out:?}"
    );
    assert!(!out.iter().any(|l| l == "stderr:"), "{out:?}");
}

#[test]
fn a_stack_overflow_written_between_libtests_lines_names_its_thread() {
    // Seen with two threads: the runtime's `thread '` came before libtest's line.
    let text = b"running 3 tests\nthread 'test a_fine ... ok\nb_overflows' (24592) has overflowed its stack\nfatal runtime error: stack overflow, aborting\nerror: test failed, to rerun pass `--test overflow`\n\nCaused by:\n  process didn't exit successfully: `/t/overflow-c6a4` (signal: 6, SIGABRT: process abort signal)\n";
    let events = parse_listed(text, None);
    assert_eq!(points(&events), ["ok a_fine", "not ok b_overflows"]);
    let m = field(&events, "b_overflows", "message");
    assert!(
        m.starts_with("b_overflows' (24592) has overflowed its stack\nfatal runtime error"),
        "{m}"
    );
}
