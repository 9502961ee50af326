//! How each real producer's failures read in the terminal report (`tapline run`, styles off):
//! one diff, the producer's machine fields on one quiet line, runtime-internal stack frames
//! dropped unless `-v`, arrays as arrays, `Infinity`/`NaN` as numbers, a parent before its
//! failing children, Test::More's `got:`/`expected:` as a diff. The recordings are the
//! producers' own bytes (test-data/producers/, see its README).

use crate::util::{one_file_run, repo};
use tapline::event::run::RunEvent;
use tapline::event::Event;
use tapline::protocol::Parser;
use tapline::report::human::HumanReport;
use tapline::report::sink::{Explaining, RunSink};
use tapline::report::style::Style;
use tapline::report::terminal::{TerminalOptions, TerminalReporter, Verbosity};

/// The recording's events as a run of one file would carry them, with a fixed duration.
fn run_events(recording: &str) -> Vec<RunEvent> {
    let path = repo().join("test-data/producers").join(recording);
    let bytes = std::fs::read(&path).expect("recording readable");
    let mut p = Parser::new(Vec::<Event<'static>>::new());
    p.feed(&bytes);
    let rel = format!("test-data/producers/{recording}");
    one_file_run(&p.finish(), &rel, &format!("cat {rel}"))
}

fn terminal(recording: &str, verbosity: Verbosity) -> String {
    // As a run has it: behind the stage that explains the failures.
    let mut r = Explaining::new(TerminalReporter::new(
        Vec::new(),
        TerminalOptions {
            style: Style::default(),
            live: false,
            verbosity,
            width: 100,
        },
    ));
    for ev in run_events(recording) {
        r.on_owned(ev).expect("writing to a Vec");
    }
    let out = r.into_inner().finish().expect("writing to a Vec");
    String::from_utf8(out).expect("utf-8 report")
}

/// Each producer's recordings with failures, with the producer's name for the test messages.
const RECORDINGS: [&str; 21] = [
    "node-test-failures.tap",
    "node-test-mixed.tap",
    "node-test-values.tap",
    "tape-values.tap",
    "perl-values.tap",
    "pytest-tap-values.tap",
    "node-tap-failures.tap",
    "node-tap-mixed.tap",
    "tape-failures.tap",
    "tape-mixed.tap",
    "perl-failures.tap",
    "perl-merged.tap",
    "perl-test2-failures.tap",
    "pytest-tap-failures.tap",
    "pytest-tap-mixed.tap",
    "bats-failures.tap",
    "bats-mixed.tap",
    "bats-tap13-mixed.tap",
    "tapbundle-assert.tap",
    "tapbundle-mixed.tap",
    "tapbundle-parallel.tap",
];

#[test]
fn failure_rendering_of_every_producer() {
    for recording in RECORDINGS {
        let name = recording.trim_end_matches(".tap");
        insta::assert_snapshot!(
            format!("terminal__{name}"),
            terminal(recording, Verbosity::Normal)
        );
    }
}

#[test]
fn failure_rendering_with_v_keeps_runtime_frames() {
    insta::assert_snapshot!(
        "terminal_verbose__node-test-failures",
        terminal("node-test-failures.tap", Verbosity::Verbose)
    );
}

/// The report's failure blocks: from a `  ✗ ` line to the next one (or the recap).
fn failure_blocks(report: &str) -> Vec<String> {
    let mut blocks: Vec<String> = Vec::new();
    for line in report.lines() {
        if line == "Failures:" {
            break;
        }
        if line.starts_with("  ✗ ") {
            blocks.push(String::new());
        }
        if let Some(block) = blocks.last_mut() {
            block.push_str(line);
            block.push('\n');
        }
    }
    blocks
}

#[test]
fn each_failure_shows_at_most_one_diff_and_no_producer_diff_beside_ours() {
    for recording in RECORDINGS {
        let report = terminal(recording, Verbosity::Normal);
        let blocks = failure_blocks(&report);
        assert!(
            !blocks.is_empty(),
            "{recording}: no failure shown:\n{report}"
        );
        for block in blocks {
            let legends = block
                .lines()
                .filter(|l| l.trim() == "- Expected" || l.trim_start().starts_with("- Expected: "))
                .count();
            assert!(
                legends <= 1,
                "{recording}: two diffs in one failure:\n{block}"
            );
            for theirs in [
                "+ actual - expected",
                "--- expected",
                "E         - ",
                "got: '",
            ] {
                assert!(
                    !(legends == 1 && block.contains(theirs)),
                    "{recording}: the producer's diff ({theirs:?}) beside ours:\n{block}"
                );
            }
        }
    }
}

#[test]
fn every_producer_with_values_gets_our_diff() {
    for recording in [
        "node-test-failures.tap",
        "node-tap-failures.tap",
        "tape-failures.tap",
        "perl-failures.tap",
        "perl-test2-failures.tap",
        "pytest-tap-failures.tap",
        "bats-failures.tap",
        "tapbundle-assert.tap",
    ] {
        let report = terminal(recording, Verbosity::Normal);
        assert!(
            report.contains("- Expected"),
            "{recording}: no diff:\n{report}"
        );
    }
}

#[test]
fn machine_fields_fold_into_one_quiet_line() {
    let report = terminal("node-test-failures.tap", Verbosity::Normal);
    // node:test's wrapper code and its default kind (the test's code threw) say nothing
    // (#41); another kind does.
    assert!(report.contains("    operator deepStrictEqual · AssertionError [ERR_ASSERTION]\n"));
    assert!(report.contains("    subtestsFailed\n"));
    assert!(!report.contains("ERR_TEST_FAILURE"), "{report}");
    for field in ["failureType:", "code:", "name:", "operator:"] {
        assert!(
            !report.contains(field),
            "{field} on a line of its own:\n{report}"
        );
    }
    let tape = terminal("tape-failures.tap", Verbosity::Normal);
    assert!(tape.contains("    operator deepEqual\n"));
}

/// tapbundle prints node's error dump (`AssertionError [ERR_ASSERTION]: …`, its diff, its
/// frames, its `{ code: …, operator: … }`) as the failing point's output: it reads like any
/// producer's failure, and what the test printed stays output.
#[test]
fn tapbundle_error_dumps_read_as_failures() {
    let report = terminal("tapbundle-assert.tap", Verbosity::Normal);
    // The machine fields on one line, none on a line of its own.
    assert!(
        report.contains("    operator strictEqual · AssertionError [ERR_ASSERTION]\n"),
        "{report}"
    );
    assert!(report.contains("    operator deepStrictEqual · AssertionError [ERR_ASSERTION]\n"));
    assert!(report.contains("    operator == · AssertionError [ERR_ASSERTION]\n"));
    for field in [
        "code:",
        "operator:",
        "generatedMessage",
        "ERR_ASSERTION]:",
        "+ actual - expected",
        "         ^",
    ] {
        assert!(!report.contains(field), "{field} left in:\n{report}");
    }
    // Values there: our diff of them, as values.
    assert!(report.contains("    - \"hello there\"\n    + \"hello world\"\n"));
    assert!(report.contains("    - Expected: true\n    + Received: false\n"));
    // `actual: [Object]`: the values node's own diff spells, diffed as ours.
    assert!(report.contains(
        "    - Expected\n    + Received\n\n      {\n    -   \"n\": 2,\n    +   \"n\": 1,\n"
    ));
    // The place is the test's first frame; what the test printed stays output.
    assert!(report.contains("    at /tmp/tapline-producers/tapbundle/test/assert.ts:16:10\n"));
    assert!(report.contains("    │ please note: failure allowed!\n"));
    assert!(
        !report.contains("│     at "),
        "frames left as output:\n{report}"
    );
    // tapbundle's own frames are the framework's: hidden like node's unless -v.
    assert!(!report.contains("tapbundle.classes.taptest.ts"), "{report}");
    let verbose = terminal("tapbundle-assert.tap", Verbosity::Verbose);
    for frame in [
        "    at TapTest.run (/tmp/tapline-producers/tapbundle/node_modules/@push.rocks/tapbundle/ts/tapbundle.classes.taptest.ts:53:42)\n",
        "    at ModuleJob.run (node:internal/modules/esm/module_job:325:25)\n",
    ] {
        assert!(verbose.contains(frame), "-v lost {frame:?}:\n{verbose}");
    }

    let mixed = terminal("tapbundle-mixed.tap", Verbosity::Normal);
    // smartexpect's `Error: Expected value to equal …`: the message, the test's frame.
    assert!(mixed.contains("    Expected value to equal \"hello there\"\n"));
    assert!(mixed.contains("    at /tmp/tapline-producers/tapbundle/test/mixed.ts:12:25\n"));
    assert!(mixed.contains("    │ log before the failing expect\n"));
    for noise in ["Error:", "    Error\n", "smartexpect", "runDirectOrNegated"] {
        assert!(!mixed.contains(noise), "{noise} shown:\n{mixed}");
    }
}

#[test]
fn runtime_frames_are_dropped_unless_verbose() {
    for recording in [
        "node-test-failures.tap",
        "tape-failures.tap",
        "tape-mixed.tap",
        "tapbundle-assert.tap",
    ] {
        let normal = terminal(recording, Verbosity::Normal);
        let verbose = terminal(recording, Verbosity::Verbose);
        for internal in ["node:internal", "node:async_hooks", "node_modules/tape/"] {
            assert!(
                !normal.contains(internal),
                "{recording}: {internal} shown:\n{normal}"
            );
        }
        assert!(normal.contains("runtime frames hidden (-v shows them)"));
        assert!(
            verbose.contains("node:internal/"),
            "{recording}: -v lost frames:\n{verbose}"
        );
        // The test's own frames stay either way.
        assert!(normal.contains(".js:") || normal.contains(".mjs:") || normal.contains(".ts:"));
    }
}

#[test]
fn arrays_stay_arrays() {
    let report = terminal("node-test-failures.tap", Verbosity::Normal);
    assert!(!report.contains("\"0\":"), "an array as a map:\n{report}");
    assert!(report
        .contains("      [\n        1,\n        [\n          2,\n    -     4,\n    +     3,\n"));
}

#[test]
fn infinity_and_nan_are_numbers() {
    for (recording, lines) in [
        (
            "node-test-failures.tap",
            [
                "+ Received: Infinity",
                "- Expected: NaN",
                "+   \"low\": -Infinity,",
            ],
        ),
        (
            "tape-failures.tap",
            ["+ Received: Infinity", "- Expected: NaN", "+ Received: 0"],
        ),
    ] {
        let report = terminal(recording, Verbosity::Normal);
        for line in lines {
            assert!(report.contains(line), "{recording}: no {line:?}:\n{report}");
        }
        assert!(
            !report.contains("different types"),
            "{recording}:\n{report}"
        );
    }
    // Python's spelling, as pytest printed them.
    let pytest = terminal("pytest-tap-failures.tap", Verbosity::Normal);
    assert!(pytest.contains("+ Received: inf") && pytest.contains("- Expected: nan"));
    assert!(!pytest.contains("different types"), "{pytest}");
}

#[test]
fn a_parent_comes_before_its_failing_children() {
    let recording = "node-test-failures.tap";
    let report = terminal(recording, Verbosity::Normal);
    let at = |name: &str| {
        report
            .find(&format!("  ✗ {name}"))
            .unwrap_or_else(|| panic!("{recording}: no {name:?}:\n{report}"))
    };
    assert!(at("outer") < at("outer > middle"), "{recording}:\n{report}");
    assert!(at("outer > middle") < at("outer > middle > inner fails"));
}

/// node-tap's subtests that failed through their child say only where they are (`at:` and
/// the `source:` excerpt of their `t.test(` line): the child's path says them, as tap counts
/// them (issue 41, isaacs/minipass), so no parent is a failure of its own.
#[test]
fn node_tap_parents_are_said_by_their_failing_childs_path() {
    let report = terminal("node-tap-failures.tap", Verbosity::Normal);
    assert!(
        report.contains("  ✗ outer > middle > inner fails\n"),
        "{report}"
    );
    for parent in [
        "  ✗ outer\n",
        "  ✗ outer  ",
        "  ✗ outer > middle\n",
        "  ✗ outer > middle  ",
    ] {
        assert!(!report.contains(parent), "{parent:?}:\n{report}");
    }
}

/// Test::More's subtests that failed through their child say nothing of their own but
/// `Failed test 'middle'` after their point, and `# Looks like you failed 1 test of 2.` (the
/// subtest's closing line, no test's) before it: the child's path says them, and neither
/// parent's lines land under another point.
#[test]
fn test_more_parents_are_said_by_their_failing_childs_path() {
    for recording in ["perl-failures.tap", "perl-test2-failures.tap"] {
        let report = terminal(recording, Verbosity::Normal);
        assert!(
            report.contains("  ✗ outer > middle > inner fails\n"),
            "{recording}:\n{report}"
        );
        for parent in ["  ✗ outer\n", "  ✗ outer > middle\n"] {
            assert!(!report.contains(parent), "{recording}:\n{report}");
        }
        assert!(!report.contains("Looks like you failed 1 test"), "{report}");
    }
}

#[test]
fn test_more_got_and_expected_are_a_diff() {
    let report = terminal("perl-failures.tap", Verbosity::Normal);
    for line in [
        "    at test-data/producers/src/perl/failures.t:14\n\n    - Expected\n    + Received\n\n    - \"wanted\"\n    + \"got\"\n",
        "    Structures begin differing at ->[1][1]\n\n    - Expected\n    + Received\n\n    - \"4\"\n    + \"3\"\n",
        "    Structures begin differing at ->{b}{d}\n\n    - Expected: \"2\"\n    + Received: Does not exist\n",
        "    - Expected: \"defined\"\n    + Received: undef\n",
    ] {
        assert!(report.contains(line), "no {line:?} in:\n{report}");
    }
    for theirs in [
        "got:",
        "expected:",
        "Failed test 'inner",
        "Structures begin differing at:",
    ] {
        assert!(!report.contains(theirs), "{theirs} left in:\n{report}");
    }
    // Test2's one-row table is the same diff.
    let test2 = terminal("perl-test2-failures.tap", Verbosity::Normal);
    assert!(test2.contains("    Structures begin differing at {b}{c}\n\n    - Expected\n    + Received\n\n    - \"3\"\n    + \"2\"\n"));
    assert!(!test2.contains("| GOT"), "{test2}");
}

fn human(recording: &str) -> String {
    let path = repo().join("test-data/producers").join(recording);
    let bytes = std::fs::read(&path).expect("recording readable");
    let mut p = Parser::new(HumanReport::new(Vec::new(), Style::default()));
    p.feed(&bytes);
    String::from_utf8(p.finish().finish().expect("Vec write")).expect("utf-8 report")
}

#[test]
fn the_human_report_reads_failures_the_same_way() {
    for recording in [
        "perl-failures.tap",
        "node-test-failures.tap",
        "node-tap-failures.tap",
    ] {
        let report = human(recording);
        let at = |line: &str| {
            report
                .find(&format!("\n{line}"))
                .unwrap_or_else(|| panic!("{recording}: no {line:?}:\n{report}"))
        };
        let (outer, middle) = (at("✗ outer"), at("  ✗ middle"));
        assert!(
            outer < middle,
            "{recording}: the parent after its child:\n{report}"
        );
        assert!(middle < at("    ✗ inner fails"), "{recording}:\n{report}");
        assert!(report.contains("- \"wanted\"\n") || report.contains("- wanted\n"));
    }
    let perl = human("perl-failures.tap");
    assert!(
        !perl.contains("got: 'got'"),
        "Test::More's got/expected left as text:\n{perl}"
    );
    assert!(perl.contains("    at test-data/producers/src/perl/failures.t:14\n"));
}
