//! Issue 41's tap.py reader: unittest's failures as tap.py prints them (`# TAP results for
//! Class` headings, each failure's traceback as `#` comments) explained as unittest means
//! them: a test's `print("# …")` names no failure (the class's heading does), each failure is
//! located at the deepest frame of the test's method in its traceback, and `first != second`
//! is read as actual and expected, unittest's own ndiff of the same values dropped for the
//! diff drawn from them. Recorded from tap.py (test-data/producers/tappy-mixed.tap, its source
//! in test-data/producers/src/tappy/).
use crate::util::{parse_cli, repo};

fn explained() -> String {
    let recording =
        std::fs::read(repo().join("test-data/producers/tappy-mixed.tap")).expect("recording");
    let (_, stdout, stderr) = parse_cli(&["--color", "never"], &recording);
    format!("{stdout}{stderr}")
}

#[test]
fn issue41_tappy_a_printed_comment_names_no_failure() {
    let text = explained();
    assert!(
        text.contains(
            "✗ TAP results for TestMixed > test_subtests (__main__.TestMixed.test_subtests) (value='with # hash')"
        ),
        "{text}"
    );
    assert!(
        !text.contains("a print that looks like a comment >"),
        "{text}"
    );
    // The line the test printed is still shown, as the output it is.
    assert!(text.contains("a print that looks like a comment"), "{text}");
}

#[test]
fn issue41_tappy_failures_are_located_at_the_tests_line() {
    let text = explained();
    for place in ["mixed.py:43", "mixed.py:14", "mixed.py:35"] {
        assert!(text.contains(place), "no {place}:\n{text}");
    }
}

#[test]
fn issue41_tappy_unittest_values_are_diffed_once() {
    let text = explained();
    // unittest's ndiff (`?` marks under its `-`/`+` lines) is no longer output…
    assert!(!text.contains("# ?                   ^"), "{text}");
    assert!(!text.contains("# - {'a': 1"), "{text}");
    // …the diff is drawn from the values: expected the second, actual the first.
    for line in ["- Expected", "+ Received", "-     3,", "+     2,"] {
        assert!(text.contains(line), "no {line:?}:\n{text}");
    }
}
