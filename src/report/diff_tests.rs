//! Known-output tests of every diff form (`explain::diff`), the budget and terminal safety,
//! read painted as the reports paint them.
use crate::explain::diff::internals::*;
use crate::explain::diff::*;
use crate::report::paint::{ansi, render};
use crate::report::style::Style;
use serde_json::json;
use serde_json::Value;
use std::io::{self, Write};

fn generous() -> Budget {
    Budget::default()
}

fn run(expected: &Value, actual: &Value, enabled: bool, budget: &Budget) -> (String, Outcome) {
    let mut out = Vec::new();
    let outcome = render(&mut out, expected, actual, &Style { enabled }, budget)
        .expect("writing to a Vec cannot fail");
    (String::from_utf8(out).expect("output is UTF-8"), outcome)
}

fn plain(expected: Value, actual: Value) -> String {
    let (text, outcome) = run(&expected, &actual, false, &generous());
    assert_eq!(outcome, Outcome::Full, "unexpected outcome for:\n{text}");
    text
}

fn colored(expected: Value, actual: Value) -> String {
    run(&expected, &actual, true, &generous()).0
}

/// Lines of a styled output with this module's own escape sequences
/// removed; anything left that starts with ESC came from the input.
fn strip_own_codes(text: &str) -> String {
    let mut s = text.to_owned();
    for code in [
        ansi::GREEN,
        ansi::RED,
        ansi::YELLOW,
        ansi::DIM,
        ansi::INVERSE,
        ansi::INVERSE_OFF,
        ansi::RESET,
    ] {
        s = s.replace(code, "");
    }
    s
}

const LEGEND: &str = "- Expected\n+ Received\n\n";

#[test]
fn equal_values_print_one_line_without_colour() {
    for (e, a) in [
        (json!("same"), json!("same")),
        (json!(1), json!(1)),
        (json!(null), json!(null)),
        (json!({"a": [1, {"b": "c"}]}), json!({"a": [1, {"b": "c"}]})),
    ] {
        assert_eq!(
            plain(e.clone(), a.clone()),
            "Compared values have no visual difference.\n"
        );
        let (text, outcome) = run(&e, &a, true, &generous());
        assert_eq!(text, "Compared values have no visual difference.\n");
        assert_eq!(outcome, Outcome::Full);
    }
}

#[test]
fn single_line_strings_are_quoted() {
    assert_eq!(
        plain(json!("hello world"), json!("hello wurld")),
        format!("{LEGEND}- \"hello world\"\n+ \"hello wurld\"\n")
    );
}

#[test]
fn single_line_strings_escape_like_json_literals() {
    assert_eq!(
        plain(json!("say \"hi\"\\\t"), json!("say \"ho\"\\")),
        format!("{LEGEND}- \"say \\\"hi\\\"\\\\\\t\"\n+ \"say \\\"ho\\\"\\\\\"\n")
    );
}

#[test]
fn single_line_trailing_whitespace_is_visible_inside_quotes() {
    assert_eq!(
        plain(json!("foo "), json!("foo")),
        format!("{LEGEND}- \"foo \"\n+ \"foo\"\n")
    );
}

#[test]
fn empty_string_against_text() {
    assert_eq!(
        plain(json!(""), json!("a")),
        format!("{LEGEND}- \"\"\n+ \"a\"\n")
    );
}

#[test]
fn single_line_styled_highlights_changed_characters() {
    // A change inside a word marks the whole word (issue 43).
    assert_eq!(
        colored(json!("hello world"), json!("hello wurld")),
        "\x1b[32m- Expected\x1b[0m\n\
         \x1b[31m+ Received\x1b[0m\n\
         \n\
         \x1b[32m- \"hello \x1b[7mworld\x1b[27m\"\x1b[0m\n\
         \x1b[31m+ \"hello \x1b[7mwurld\x1b[27m\"\x1b[0m\n"
    );
}

#[test]
fn short_common_runs_fold_into_the_change() {
    // Character-level Myers would keep ` ` and `o` (of "brown"/"fox")
    // as common islands; whole words read better.
    assert_eq!(
        colored(
            json!("The quick brown fox"),
            json!("The quick red fox jumps")
        ),
        "\x1b[32m- Expected\x1b[0m\n\
         \x1b[31m+ Received\x1b[0m\n\
         \n\
         \x1b[32m- \"The quick \x1b[7mbrown fox\x1b[27m\"\x1b[0m\n\
         \x1b[31m+ \"The quick \x1b[7mred fox jumps\x1b[27m\"\x1b[0m\n"
    );
}

#[test]
fn unrelated_strings_are_not_highlighted() {
    let text = colored(json!("cat"), json!("dog"));
    assert!(!text.contains(ansi::INVERSE), "{text:?}");
    assert!(text.contains("\x1b[32m- \"cat\"\x1b[0m\n"), "{text:?}");
}

#[test]
fn highlighting_respects_multibyte_characters() {
    assert_eq!(
        colored(json!("héllo wörld"), json!("hallo wörld!")),
        "\x1b[32m- Expected\x1b[0m\n\
         \x1b[31m+ Received\x1b[0m\n\
         \n\
         \x1b[32m- \"\x1b[7mhéllo\x1b[27m wörld\"\x1b[0m\n\
         \x1b[31m+ \"\x1b[7mhallo\x1b[27m wörld\x1b[7m!\x1b[27m\"\x1b[0m\n"
    );
}

#[test]
fn multi_line_strings_diff_by_line() {
    assert_eq!(
        plain(
            json!("line1\nline2\nline3"),
            json!("line1\nline 2\nline3\n")
        ),
        format!(
            "{LEGEND}  line1\n\
             - line2\n\
             + line 2\n  line3\n\
             +\n"
        )
    );
}

#[test]
fn multi_line_strings_styled() {
    assert_eq!(
        colored(json!("a\nline2\nb"), json!("a\nline 2\nb")),
        "\x1b[32m- Expected\x1b[0m\n\
         \x1b[31m+ Received\x1b[0m\n\
         \n\
         \x1b[2m  a\x1b[0m\n\
         \x1b[32m- line2\x1b[0m\n\
         \x1b[31m+ line\x1b[7m \x1b[27m2\x1b[0m\n\
         \x1b[2m  b\x1b[0m\n"
    );
}

#[test]
fn one_side_multi_line_is_enough_for_a_line_diff() {
    assert_eq!(
        plain(json!("only"), json!("only\nmore")),
        format!("{LEGEND}  only\n+ more\n")
    );
}

#[test]
fn multi_line_context_collapses_into_hunks() {
    let expected: String = (1..=30).map(|i| format!("line {i}\n")).collect();
    let actual = expected
        .replace("line 6\n", "line six\n")
        .replace("line 20\n", "line 20\ninserted\n");
    assert_eq!(
        plain(json!(expected), json!(actual)),
        format!(
            "{LEGEND}@@ -3,7 +3,7 @@\n\
             \x20 line 3\n\
             \x20 line 4\n\
             \x20 line 5\n\
             - line 6\n\
             + line six\n\
             \x20 line 7\n\
             \x20 line 8\n\
             \x20 line 9\n\
             @@ -18,6 +18,7 @@\n\
             \x20 line 18\n\
             \x20 line 19\n\
             \x20 line 20\n\
             + inserted\n\
             \x20 line 21\n\
             \x20 line 22\n\
             \x20 line 23\n"
        )
    );
}

#[test]
fn a_single_hidden_line_is_shown_instead_of_a_hunk_header() {
    let expected: String = (1..=12).map(|i| format!("{i}\n")).collect();
    let actual = expected.replace("5\n", "five\n");
    // `similar`'s grouping would hide just line 1 behind a header.
    let actual = actual.replace("12\n", "twelve\n");
    let text = plain(json!(expected), json!(actual));
    assert!(!text.contains("@@"), "{text}");
    assert_eq!(text.lines().count(), 3 + 15);
}

#[test]
fn multi_line_hunks_at_the_edges() {
    let expected: String = (1..=10).map(|i| format!("{i}\n")).collect();
    let actual = format!("0\n{}", expected.trim_end_matches('\n'));
    assert_eq!(
        plain(json!(expected), json!(actual)),
        format!(
            "{LEGEND}@@ -1,3 +1,4 @@\n\
             + 0\n\
             \x20 1\n\
             \x20 2\n\
             \x20 3\n\
             @@ -8,4 +9,3 @@\n\
             \x20 8\n\
             \x20 9\n\
             \x20 10\n\
             -\n"
        )
    );
}

#[test]
fn multi_line_trailing_whitespace_is_marked() {
    assert_eq!(
        plain(json!("a  \nb\t\n  \nc"), json!("a\nb\n\nc")),
        format!("{LEGEND}- a··\n- b→\n- ··\n+ a\n+ b\n+\n  c\n")
    );
}

#[test]
fn trailing_newline_difference_is_an_empty_line() {
    assert_eq!(
        plain(json!("foo\nbar\n"), json!("foo\nbar")),
        format!("{LEGEND}  foo\n  bar\n-\n")
    );
}

#[test]
fn control_characters_are_escaped() {
    let expected = json!("a\u{1b}[31mred\tx\u{7}");
    let actual = json!("a\u{1b}[32mred\tx\u{7}");
    assert_eq!(
        plain(expected.clone(), actual.clone()),
        format!("{LEGEND}- \"a\\u001b[31mred\\tx\\u0007\"\n+ \"a\\u001b[32mred\\tx\\u0007\"\n")
    );
    assert_eq!(
        plain(json!("\u{1b}]0;title\u{7}\r\n\tx\u{9b}"), json!("\u{1b}]0;title\u{7}\n\tx")),
        format!("{LEGEND}- \\u{{1b}}]0;title\\u{{7}}\\r\n- \tx\\u{{9b}}\n+ \\u{{1b}}]0;title\\u{{7}}\n+ \tx\n")
    );
    let styled = colored(json!({"k": "\u{1b}[2J"}), json!({"k": "\u{1b}[3J"}));
    assert!(!strip_own_codes(&styled).contains('\u{1b}'), "{styled:?}");
}

#[test]
fn invisible_and_lookalike_characters_are_escaped() {
    // Number formatting uses narrow/no-break spaces; these are the
    // "identical looking" failures the escapes exist for.
    assert_eq!(
        plain(json!("1\u{202f}234,56\u{a0}€"), json!("1 234,56 €")),
        format!("{LEGEND}- \"1\\u202f234,56\\u00a0€\"\n+ \"1 234,56 €\"\n")
    );
    assert_eq!(
        plain(json!("x\u{200b}\u{202e}y\u{feff}\nz"), json!("xy\nz")),
        format!("{LEGEND}- x\\u{{200b}}\\u{{202e}}y\\u{{feff}}\n+ xy\n  z\n")
    );
    // Joiners stay, or emoji sequences would be torn apart.
    assert_eq!(
        plain(json!("👩\u{200d}💻"), json!("👩")),
        format!("{LEGEND}- \"👩\u{200d}💻\"\n+ \"👩\"\n")
    );
}

#[test]
fn objects_show_nested_differences_and_missing_keys() {
    let expected = json!({
        "name": "bob", "age": 3, "tags": ["a", "b"], "addr": {"city": "X", "zip": "1"}
    });
    let actual = json!({
        "name": "alice", "age": 3, "tags": ["a", "b", "c"], "addr": {"city": "X"}, "extra": null
    });
    assert_eq!(
        plain(expected, actual),
        format!(
            "{LEGEND}  {{\n\
             \x20   \"addr\": {{\n\
             \x20     \"city\": \"X\",\n\
             -     \"zip\": \"1\",\n\
             \x20   }},\n\
             \x20   \"age\": 3,\n\
             -   \"name\": \"bob\",\n\
             +   \"extra\": null,\n\
             +   \"name\": \"alice\",\n\
             \x20   \"tags\": [\n\
             \x20     \"a\",\n\
             \x20     \"b\",\n\
             +     \"c\",\n\
             \x20   ],\n\
             \x20 }}\n"
        )
    );
}

#[test]
fn changed_json_lines_are_paired_by_similarity_not_position() {
    let styled = colored(
        json!({"name": "bob"}),
        json!({"extra": null, "name": "alice"}),
    );
    assert_eq!(
        styled,
        "\x1b[32m- Expected\x1b[0m\n\
         \x1b[31m+ Received\x1b[0m\n\
         \n\
         \x1b[2m  {\x1b[0m\n\
         \x1b[32m-   \"name\": \"\x1b[7mbob\x1b[27m\",\x1b[0m\n\
         \x1b[31m+   \"extra\": null,\x1b[0m\n\
         \x1b[31m+   \"name\": \"\x1b[7malice\x1b[27m\",\x1b[0m\n\
         \x1b[2m  }\x1b[0m\n"
    );
}

#[test]
fn keys_are_sorted() {
    assert_eq!(
        plain(json!({"b": 1, "a": 2}), json!({"b": 1, "a": 3})),
        format!("{LEGEND}  {{\n-   \"a\": 2,\n+   \"a\": 3,\n    \"b\": 1,\n  }}\n")
    );
}

#[test]
fn arrays_with_insertions_only_add_lines() {
    assert_eq!(
        plain(json!([1, 2, 3]), json!([1, 2, 4, 3])),
        format!("{LEGEND}  [\n    1,\n    2,\n+   4,\n    3,\n  ]\n")
    );
    // The trailing comma on every element keeps an append from also
    // changing the previous line.
    assert_eq!(
        plain(json!([[1]]), json!([[1], []])),
        format!("{LEGEND}  [\n    [\n      1,\n    ],\n+   [],\n  ]\n")
    );
}

#[test]
fn inserted_and_removed_objects_are_shown_whole() {
    let expected = json!([{"id": 1}, {"id": 2}]);
    let actual = json!([{"id": 1}, {"id": 3}, {"id": 2}]);
    assert_eq!(
        plain(expected.clone(), actual.clone()),
        format!(
            "{LEGEND}  [\n\
             \x20   {{\n\
             \x20     \"id\": 1,\n\
             \x20   }},\n\
             +   {{\n\
             +     \"id\": 3,\n\
             +   }},\n\
             \x20   {{\n\
             \x20     \"id\": 2,\n\
             \x20   }},\n\
             \x20 ]\n"
        )
    );
    assert_eq!(
        plain(actual, expected),
        format!(
            "{LEGEND}  [\n\
             \x20   {{\n\
             \x20     \"id\": 1,\n\
             \x20   }},\n\
             -   {{\n\
             -     \"id\": 3,\n\
             -   }},\n\
             \x20   {{\n\
             \x20     \"id\": 2,\n\
             \x20   }},\n\
             \x20 ]\n"
        )
    );
}

#[test]
fn large_json_collapses_and_names_the_path() {
    let users: Vec<Value> = (0..40)
        .map(|i| json!({"id": i, "name": format!("user{i}")}))
        .collect();
    let mut changed = users.clone();
    changed[20]["name"] = json!("changed");
    assert_eq!(
        plain(json!({ "users": users }), json!({ "users": changed })),
        format!(
            "{LEGEND}@@ $.users[20].name @@\n\
             \x20     }},\n\
             \x20     {{\n\
             \x20       \"id\": 20,\n\
             -       \"name\": \"user20\",\n\
             +       \"name\": \"changed\",\n\
             \x20     }},\n\
             \x20     {{\n\
             \x20       \"id\": 21,\n"
        )
    );
}

#[test]
fn paths_quote_keys_that_are_not_identifiers() {
    let filler = json!({"a": 1, "b": 2, "c": 3, "d": 4, "e": 5});
    let expected = json!({"a b": {"c-d": [1, {"x": 1}]}, "z": filler});
    let actual = json!({"a b": {"c-d": [1, {"x": 2}]}, "z": filler});
    let text = plain(expected, actual);
    assert!(
        text.starts_with(&format!("{LEGEND}@@ $[\"a b\"][\"c-d\"][1].x @@\n")),
        "{text}"
    );
}

#[test]
fn insertion_path_comes_from_the_received_side() {
    let base: serde_json::Map<String, Value> =
        (0..10).map(|i| (format!("k{i}"), json!(i))).collect();
    let mut more = base.clone();
    more.insert("k55".to_owned(), json!({"new": true}));
    let text = plain(Value::Object(base), Value::Object(more));
    assert!(text.contains("@@ $.k55 @@\n"), "{text}");
    assert!(
        text.contains("+   \"k55\": {\n+     \"new\": true,\n+   },\n"),
        "{text}"
    );
}

#[test]
fn primitives_of_different_types_get_a_note() {
    assert_eq!(
        plain(json!(5), json!("5")),
        "- Expected: 5\n+ Received: \"5\"\n\n(different types: number vs string)\n"
    );
    assert_eq!(
        plain(json!(true), json!(null)),
        "- Expected: true\n+ Received: null\n\n(different types: boolean vs null)\n"
    );
}

#[test]
fn primitives_of_the_same_type_have_no_note() {
    assert_eq!(
        plain(json!(5), json!(6.5)),
        "- Expected: 5\n+ Received: 6.5\n"
    );
    assert_eq!(
        plain(json!(false), json!(true)),
        "- Expected: false\n+ Received: true\n"
    );
}

#[test]
fn container_against_primitive_is_side_by_side() {
    assert_eq!(
        plain(json!({"a": [1, 2]}), json!(null)),
        "- Expected: {\n-   \"a\": [\n-     1,\n-     2,\n-   ],\n- }\n+ Received: null\n\n\
         (different types: object vs null)\n"
    );
    assert_eq!(
        plain(json!("[1]"), json!([1])),
        "- Expected: \"[1]\"\n+ Received: [\n+   1,\n+ ]\n\n(different types: string vs array)\n"
    );
}

#[test]
fn array_against_object_is_diffed_with_a_note() {
    assert_eq!(
        plain(json!([1]), json!({"0": 1})),
        "- Expected\n+ Received\n(different types: array vs object)\n\n\
         - [\n-   1,\n- ]\n+ {\n+   \"0\": 1,\n+ }\n"
    );
    assert_eq!(
        plain(json!({}), json!([])),
        "- Expected\n+ Received\n(different types: object vs array)\n\n- {}\n+ []\n"
    );
}

#[test]
fn json_in_strings_is_diffed_structurally() {
    assert_eq!(
        plain(json!(r#"{"a":1,"b":[1,2]}"#), json!(r#"{"b":[1,2],"a":2}"#)),
        "- Expected\n+ Received\n(both strings are JSON; compared as parsed values)\n\n\
         @@ $.a @@\n  {\n-   \"a\": 1,\n+   \"a\": 2,\n    \"b\": [\n      1,\n      2,\n"
    );
}

#[test]
fn json_strings_differing_only_in_formatting_are_diffed_as_text() {
    assert_eq!(
        plain(json!(r#"{"a":1}"#), json!(r#"{ "a": 1 }"#)),
        format!("{LEGEND}- '{{\"a\":1}}'\n+ '{{ \"a\": 1 }}'\n")
    );
    // Only one side parses: plain text diff.
    assert_eq!(
        plain(json!("[1, 2"), json!("[1, 2]")),
        format!("{LEGEND}- \"[1, 2\"\n+ \"[1, 2]\"\n")
    );
}

#[test]
fn output_is_truncated_to_the_line_budget() {
    let budget = Budget {
        max_output_lines: 8,
        ..generous()
    };
    let (text, outcome) = run(&json!([1, 2, 3]), &json!([1, 2, 4, 3]), false, &budget);
    assert_eq!(
        text,
        format!("{LEGEND}  [\n    1,\n    2,\n+   4,\n… 2 more lines\n")
    );
    assert_eq!(outcome, Outcome::Truncated { omitted_lines: 2 });
    assert_eq!(text.lines().count(), 8);

    // Exactly at the limit nothing is cut.
    let exact = Budget {
        max_output_lines: 9,
        ..generous()
    };
    let (text, outcome) = run(&json!([1, 2, 3]), &json!([1, 2, 4, 3]), false, &exact);
    assert_eq!(text.lines().count(), 9);
    assert_eq!(outcome, Outcome::Full);

    let zero = Budget {
        max_output_lines: 0,
        ..generous()
    };
    let (text, outcome) = run(&json!("a"), &json!("b"), false, &zero);
    assert_eq!(text, "… 5 more lines\n");
    assert_eq!(outcome, Outcome::Truncated { omitted_lines: 5 });
}

#[test]
fn truncation_marker_is_styled() {
    let budget = Budget {
        max_output_lines: 4,
        ..generous()
    };
    let (text, outcome) = run(&json!("a"), &json!("b"), true, &budget);
    assert_eq!(
        text,
        "\x1b[32m- Expected\x1b[0m\n\x1b[31m+ Received\x1b[0m\n\n\x1b[2m… 2 more lines\x1b[0m\n"
    );
    assert_eq!(outcome, Outcome::Truncated { omitted_lines: 2 });
}

#[test]
fn huge_diffs_stay_within_the_line_budget() {
    let expected: Vec<Value> = (0..5000).map(|i| json!(i)).collect();
    let actual: Vec<Value> = (0..5000).map(|i| json!(i * 2)).collect();
    let (text, outcome) = run(&json!(expected), &json!(actual), true, &Budget::default());
    assert_eq!(text.lines().count(), 200);
    assert!(matches!(outcome, Outcome::Truncated { omitted_lines } if omitted_lines > 5000));
}

#[test]
fn too_large_inputs_get_a_short_form() {
    let budget = Budget {
        max_input_bytes: 10,
        ..generous()
    };
    let (text, outcome) = run(&json!("0123456789abc"), &json!("x"), false, &budget);
    assert_eq!(
        text,
        format!(
            "{LEGEND}- \"0123456789abc\"\n+ \"x\"\n\n\
             (too large to diff: inputs over 10 bytes are cut to 200 characters)\n"
        )
    );
    assert_eq!(outcome, Outcome::TooLarge);

    let long = "ab\n".repeat(100_000);
    let (text, outcome) = run(&json!(long), &json!({"k": long}), false, &Budget::default());
    assert_eq!(outcome, Outcome::TooLarge);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 7, "{text}");
    assert_eq!(
        lines[6],
        "(too large to diff: inputs over 262144 bytes are cut to 200 characters)"
    );
    assert_eq!(
        lines[3],
        format!("- \"{}…", "ab\\n".repeat(67).get(..266).unwrap_or_default())
    );
    assert!(lines[4].starts_with("+ {\"k\": \"ab\\nab"), "{}", lines[4]);
    assert!(lines[4].ends_with('…'));
    assert_eq!(lines[4].chars().count(), 2 + 200 + 1);
}

#[test]
fn too_large_beats_truncation() {
    let budget = Budget {
        max_input_bytes: 1,
        max_output_lines: 2,
        ..generous()
    };
    let (text, outcome) = run(&json!([1, 2]), &json!([3]), false, &budget);
    assert_eq!(text, "- Expected\n… 6 more lines\n");
    assert_eq!(outcome, Outcome::TooLarge);
}

#[test]
fn deep_nesting_does_not_overflow_the_stack() {
    let mut expected = json!(1);
    let mut actual = json!(2);
    for _ in 0..50_000 {
        expected = Value::Array(vec![expected]);
        actual = Value::Array(vec![actual]);
    }
    // Value's own Drop recurses, so leak rather than crash the test,
    // including when an assertion unwinds.
    let expected = std::mem::ManuallyDrop::new(expected);
    let actual = std::mem::ManuallyDrop::new(actual);
    let (text, outcome) = run(&expected, &actual, true, &Budget::default());
    assert_eq!(outcome, Outcome::Full);
    let plain_text = strip_own_codes(&text);
    // Nesting past the pretty-print limit collapses onto one line.
    let changed: Vec<&str> = plain_text
        .lines()
        .skip(3)
        .filter(|l| l.starts_with('-') || l.starts_with('+'))
        .collect();
    assert_eq!(changed.len(), 2);
    assert!(changed[0].trim_end_matches([']', ',']).ends_with("[1"));
    assert!(changed[1].trim_end_matches([']', ',']).ends_with("[2"));
    assert!(plain_text.lines().count() < 200);
}

#[test]
fn zero_work_budget_still_produces_a_correct_diff() {
    let budget = Budget {
        max_work: 0,
        ..Budget::default()
    };
    let expected: String = (0..500).map(|i| format!("{i}\n")).collect();
    let actual: String = (0..500).map(|i| format!("{}\n", i * 7 % 500)).collect();
    let (text, outcome) = run(&json!(expected), &json!(actual), true, &budget);
    assert!(matches!(outcome, Outcome::Truncated { .. }));
    assert!(
        !text.contains(ansi::INVERSE),
        "highlighting is skipped once the work is spent"
    );
    let (text, outcome) = run(&json!("abc"), &json!("abd"), false, &budget);
    assert_eq!(text, format!("{LEGEND}- \"abc\"\n+ \"abd\"\n"));
    assert_eq!(outcome, Outcome::Full);
}

#[test]
fn styled_lines_always_end_with_a_reset() {
    let cases = [
        (json!("a b c"), json!("a x c")),
        (json!("a\n\nb "), json!("a\nc\nb")),
        (json!({"x": [1, 2]}), json!({"x": [2]})),
        (json!(1), json!("1")),
    ];
    for (e, a) in cases {
        let text = colored(e, a);
        for line in text.lines().filter(|l| !l.is_empty()) {
            assert!(line.starts_with('\u{1b}'), "{line:?}");
            assert!(line.ends_with(ansi::RESET), "{line:?}");
        }
    }
}

#[test]
fn style_off_output_has_no_escape_sequences() {
    let text = plain(json!("a\u{1b}b\nc"), json!({"x\u{1b}": "\u{1b}"}));
    assert!(!text.contains('\u{1b}'), "{text:?}");
}

#[test]
fn write_errors_are_reported() {
    struct Broken;
    impl Write for Broken {
        fn write(&mut self, _: &[u8]) -> io::Result<usize> {
            Err(io::Error::other("closed"))
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }
    let result = render(
        &mut Broken,
        &json!(1),
        &json!(2),
        &Style::default(),
        &Budget::default(),
    );
    assert!(result.is_err());
}

/// Small deterministic generator so the fuzz test needs no extra crate.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: u64) -> usize {
        usize::try_from(self.next() % n).unwrap_or(0)
    }

    fn string(&mut self) -> String {
        const PIECES: [&str; 14] = [
            "a",
            "b",
            " ",
            "\n",
            "\t",
            "\r",
            "\u{1b}[1m",
            "é",
            "👩\u{200d}💻",
            "\u{a0}",
            "\u{202e}",
            "\"",
            "\\",
            "{\"k\": [1]}",
        ];
        let len = self.below(12);
        (0..len)
            .map(|_| PIECES[self.below(PIECES.len() as u64)])
            .collect()
    }

    fn value(&mut self, depth: usize) -> Value {
        match self.below(if depth > 3 { 4 } else { 6 }) {
            0 => Value::Null,
            1 => json!(self.below(3) == 0),
            2 => json!(self.below(5)),
            3 => json!(self.string()),
            4 => (0..self.below(4)).map(|_| self.value(depth + 1)).collect(),
            _ => Value::Object(
                (0..self.below(4))
                    .map(|_| (self.string(), self.value(depth + 1)))
                    .collect(),
            ),
        }
    }
}

#[test]
fn line_diffs_reconstruct_both_inputs() {
    // Guards the hunk grouping and block sliding: whatever they move,
    // context plus `-` lines must still spell the expected text and
    // context plus `+` lines the received one.
    const LINES: [&str; 6] = ["a", "b", "{", "}", "  a", ""];
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut checked = 0;
    for _ in 0..3000 {
        let text = |rng: &mut Rng| {
            let len = 1 + rng.below(8);
            let lines: Vec<&str> = (0..len).map(|_| LINES[rng.below(6)]).collect();
            lines.join("\n")
        };
        let (expected, actual) = (text(&mut rng), text(&mut rng));
        if expected == actual || !(expected.contains('\n') || actual.contains('\n')) {
            continue;
        }
        let out = plain(json!(expected), json!(actual));
        if out.contains("@@") {
            continue;
        }
        let (mut old, mut new) = (Vec::new(), Vec::new());
        for line in out.lines().skip(3) {
            // Lines are `- x`, `+ x`, `  x`, or a bare sign / nothing
            // when the content is empty.
            let rest = line.get(2..).unwrap_or_default();
            match line.chars().next() {
                Some('-') => old.push(rest),
                Some('+') => new.push(rest),
                _ => {
                    old.push(rest);
                    new.push(rest);
                }
            }
        }
        assert_eq!(old.join("\n"), expected, "{out}");
        assert_eq!(new.join("\n"), actual, "{out}");
        checked += 1;
    }
    assert!(checked > 1000, "only {checked} cases checked");
}

#[test]
fn random_inputs_never_panic_or_leak_escapes() {
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    for i in 0..2000 {
        let expected = rng.value(0);
        let actual = if i % 5 == 0 {
            expected.clone()
        } else {
            rng.value(0)
        };
        let budget = Budget {
            max_output_lines: 1 + rng.below(40),
            max_input_bytes: 20 + rng.below(400),
            ..generous()
        };
        for enabled in [false, true] {
            let (text, outcome) = run(&expected, &actual, enabled, &budget);
            let visible = strip_own_codes(&text);
            assert!(!visible.contains('\u{1b}'), "{text:?}");
            assert!(text.lines().count() <= budget.max_output_lines, "{text}");
            if enabled {
                assert_eq!(visible, run(&expected, &actual, false, &budget).0);
            }
            // The structured form spells the same text whatever renders it.
            let model = compute(&expected, &actual, &budget, enabled);
            let spelled: String = model.lines.iter().map(|l| l.plain_text() + "\n").collect();
            assert_eq!(spelled, visible);
            assert_eq!(model.outcome, outcome);
            if let Outcome::Truncated { omitted_lines } = outcome {
                assert!(omitted_lines >= 2);
                assert!(
                    visible.ends_with(&format!("… {omitted_lines} more lines\n")),
                    "{visible}"
                );
            }
        }
    }
}

#[test]
fn the_model_marks_sides_changes_and_hunks() {
    let diff = compute(
        &json!("hello world"),
        &json!("hello wurld"),
        &generous(),
        true,
    );
    assert_eq!(
        diff.lines,
        vec![
            DiffLine::Legend(Sign::Expected, "Expected"),
            DiffLine::Legend(Sign::Received, "Received"),
            DiffLine::Blank,
            DiffLine::Line {
                sign: Sign::Expected,
                segments: vec![
                    Segment {
                        text: "\"hello ".into(),
                        emphasized: false
                    },
                    Segment {
                        text: "world".into(),
                        emphasized: true
                    },
                    Segment {
                        text: "\"".into(),
                        emphasized: false
                    },
                ],
            },
            DiffLine::Line {
                sign: Sign::Received,
                segments: vec![
                    Segment {
                        text: "\"hello ".into(),
                        emphasized: false
                    },
                    Segment {
                        text: "wurld".into(),
                        emphasized: true
                    },
                    Segment {
                        text: "\"".into(),
                        emphasized: false
                    },
                ],
            },
        ]
    );
    // Without highlighting a changed line is one plain segment.
    let plain = compute(&json!("ab"), &json!("ac"), &generous(), false);
    assert!(plain.lines.iter().all(|l| match l {
        DiffLine::Line { segments, .. } => segments.iter().all(|s| !s.emphasized),
        _ => true,
    }));

    let long: String = (0..40).map(|i| format!("{i}\n")).collect();
    let changed = long.replace("20\n", "twenty\n");
    let diff = compute(&json!(long), &json!(changed), &generous(), true);
    assert!(diff
        .lines
        .contains(&DiffLine::Hunk("@@ -18,7 +18,7 @@".into())));
    assert!(diff.lines.contains(&DiffLine::Line {
        sign: Sign::Context,
        segments: vec![Segment {
            text: "19".into(),
            emphasized: false
        }],
    }));
    let budget = Budget {
        max_output_lines: 3,
        ..generous()
    };
    let cut = compute(&json!(long), &json!(changed), &budget, true);
    assert_eq!(cut.lines.last(), Some(&DiffLine::Omitted(10)));
}

#[test]
fn bare_words_print_unquoted_and_number_words_are_numbers() {
    let plain = |e: &Value, a: &Value| -> Vec<String> {
        compute(e, a, &generous(), false)
            .lines
            .iter()
            .map(DiffLine::plain_text)
            .collect()
    };
    // `Infinity` against a number: side by side, no type note.
    assert_eq!(
        plain(&json!(1), &bare("Infinity")),
        ["- Expected: 1", "+ Received: Infinity"]
    );
    // A bare `undef` against a string: unquoted, and no JSON type to compare.
    assert_eq!(
        plain(&json!("x"), &bare("undef")),
        ["- Expected: \"x\"", "+ Received: undef"]
    );
    // Inside a structure, printed in place.
    let lines = plain(&json!({"low": 0}), &json!({"low": bare("-Infinity")}));
    assert!(
        lines.contains(&"+   \"low\": -Infinity,".to_owned()),
        "{lines:?}"
    );
    assert!(is_number_word(".nan") && !is_number_word("nan"));
    // Equal words are equal values.
    assert_eq!(
        plain(&bare("NaN"), &bare("NaN")),
        ["Compared values have no visual difference."]
    );
}

#[test]
fn strings_holding_quotes_or_backslashes_read_as_written() {
    // Tests that compare JSON text: `got: '"\u00b6"'` (protocol-spec/producers.md).
    assert_eq!(
        plain(json!(r#""\u00b6""#), json!(r#""¶""#)),
        format!("{LEGEND}- '\"\\u00b6\"'\n+ '\"¶\"'\n")
    );
    // Trailing blanks stay visible before the closing quote.
    assert_eq!(
        plain(json!("a\" "), json!("a\"")),
        format!("{LEGEND}- 'a\" '\n+ 'a\"'\n")
    );
    // A character only an escape shows (a tab) needs escapes: JSON's, on both sides.
    assert_eq!(
        plain(json!("a\"\t"), json!("a\"")),
        format!("{LEGEND}- \"a\\\"\\t\"\n+ \"a\\\"\"\n")
    );
    // Side by side too.
    assert_eq!(
        plain(json!(r#"say "hi""#), bare("undef")),
        "- Expected: 'say \"hi\"'\n+ Received: undef\n"
    );
    // Plain text keeps JSON's quotes.
    assert_eq!(
        plain(json!("it's"), json!("its")),
        format!("{LEGEND}- \"it's\"\n+ \"its\"\n")
    );
}

#[test]
fn typed_words_say_their_type_and_never_read_as_no_difference() {
    let date = typed("1970-01-01T00:00:00.000Z", "Date");
    assert_eq!(
        plain(json!("1970-01-01T00:00:00.000Z"), date.clone()),
        "- Expected: \"1970-01-01T00:00:00.000Z\"\n+ Received: 1970-01-01T00:00:00.000Z\n\n\
         (different types: string vs Date)\n"
    );
    let lines = plain(
        json!({"d": "1970-01-01T00:00:00.000Z"}),
        json!({ "d": date }),
    );
    assert!(
        lines.contains("-   \"d\": \"1970-01-01T00:00:00.000Z\",\n")
            && lines.contains("+   \"d\": 1970-01-01T00:00:00.000Z,\n"),
        "{lines}"
    );
    assert_eq!(
        plain(json!(null), typed("undefined", "undefined")),
        "- Expected: null\n+ Received: undefined\n\n(different types: null vs undefined)\n"
    );
    // The same word of two types differs.
    assert!(!json_eq(&typed("x", "a"), &typed("x", "b")));
    assert_eq!(as_bare(&typed("x", "a")), Some("x"));
}

#[test]
fn class_instances_print_their_class() {
    let mut fields = serde_json::Map::new();
    fields.insert("a".to_owned(), json!(1));
    let foo = instance("Foo", fields);
    assert_eq!(
        plain(json!({"a": 1}), foo.clone()),
        format!("{LEGEND}- {{\n+ Foo {{\n    \"a\": 1,\n  }}\n")
    );
    let empty = instance("Bar", serde_json::Map::new());
    assert_eq!(
        plain(json!(null), json!([empty])),
        "- Expected: null\n+ Received: [\n+   Bar {},\n+ ]\n\n(different types: null vs array)\n"
    );
}

#[test]
fn a_value_on_one_line_and_its_kind() {
    let mut fields = serde_json::Map::new();
    fields.insert("d".to_owned(), typed("1970-01-01T00:00:00.000Z", "Date"));
    let value = json!([instance("Foo", fields), "a\"b", "x", bare("undef")]);
    assert_eq!(
        one_line(&value),
        r#"[Foo {"d": 1970-01-01T00:00:00.000Z}, "a\"b", "x", undef]"#
    );
    assert_eq!(one_line(&json!(r#""\u00b6""#)), r#"'"\u00b6"'"#);
    assert_eq!(kind(&typed("Symbol(x)", "symbol")), "symbol");
    assert_eq!(kind(&bare("undef")), "bare");
    assert_eq!(kind(&bare("NaN")), "number");
    assert_eq!(kind(&json!({})), "object");
}

#[test]
fn a_line_diff_over_the_work_budget_is_one_change_between_the_common_lines() {
    // Aligning the 3 + 3 lines between `same 2` and `end` costs 36 steps at worst; 35 are
    // allowed.
    let budget = Budget {
        max_work: 35,
        ..Budget::default()
    };
    let expected = json!("same 1\nsame 2\nold a\nmid\nold b\nend");
    let actual = json!("same 1\nsame 2\nnew a\nmid\nnew b\nend");
    let (text, outcome) = run(&expected, &actual, false, &budget);
    assert_eq!(outcome, Outcome::Full);
    assert_eq!(
        text,
        format!(
            "- Expected\n+ Received\n{COARSE_NOTE}\n\n  same 1\n  same 2\n- old a\n- mid\n- old b\n+ new a\n+ mid\n+ new b\n  end\n"
        )
    );
    // With one step more the lines are aligned, and `mid` is common.
    let (text, _) = run(
        &expected,
        &actual,
        false,
        &Budget {
            max_work: 36,
            ..budget
        },
    );
    assert!(!text.contains(COARSE_NOTE), "{text}");
    assert!(text.contains("\n  mid\n"), "{text}");
}

#[test]
fn the_work_a_diff_may_cost_is_its_changed_part_squared() {
    assert_eq!(worst_work(&[1, 2, 3], &[1, 2, 3]), 0);
    // Common prefix `1` and suffix `4` set aside: 2 + 1 units are left.
    assert_eq!(worst_work(&[1, 2, 3, 4], &[1, 9, 4]), 9);
    // A prefix and suffix never count one unit twice.
    assert_eq!(worst_work(&[7, 7], &[7, 7, 7]), 1);
    let work = std::cell::Cell::new(10);
    assert!(charge(&work, 9));
    assert!(!charge(&work, 2), "one step is left");
    assert_eq!(work.get(), 1);
}
