//! ava's failure details: its TAP reporter's YAML (`ava --tap`) puts what an assertion saw
//! under `values:` (ava ≤ 5) or `details:` (ava 6), a map from ava's label to the value it
//! formatted (concordance), as its own reporter prints them:
//!
//! ```yaml
//! name: AssertionError
//! assertion: t.is()
//! details:
//!   'Difference (- actual, + expected):': |-
//!     - 2
//!     + 3
//! message: ''
//! at: >-
//!   ExecutionContext.is
//!   (file:///w/node_modules/ava/lib/assert.js:309:16)
//! ```
//!
//! The `Difference` block is ava's diff with ava's sides, the reverse of tapline's: `-` is the
//! actual value, `+` the expected one. Its two sides are read as values (concordance's
//! literals are JavaScript's) and diffed as every producer's are, `- Expected` being ava's
//! `+`; a side that reads as no value keeps ava's lines, drawn with their meaning (headers
//! `--- actual` / `+++ expected`). Every other label (`Value is not \`true\`:`, `Error thrown
//! in test:`, `Regular expression:`) is a diagnostic of its own, as ava prints it. tapline's
//! ava driver writes the same map (`details:`), so a bare run and `ava --tap` read alike.
use super::{node_error, Details};
use serde_json::{Map, Value};

/// ava's label over its diff (`Difference (- actual, + expected):`; ava 3 wrote
/// `Difference:`).
const DIFFERENCE: &str = "Difference";
/// The YAML keys ava keeps its labelled values under, by version.
const KEYS: [&str; 2] = ["details", "values"];

/// Reads ava's labelled values in `map` into `d`; whether there were any.
pub(super) fn read(map: &Map<String, Value>, d: &mut Details) -> bool {
    let Some(labelled) = KEYS
        .iter()
        .find_map(|k| map.get(*k).and_then(Value::as_object))
        .filter(|m| is_avas(m))
    else {
        return false;
    };
    for (label, formatted) in labelled {
        let text = match formatted {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        if label.starts_with(DIFFERENCE) {
            read_difference(&text, d);
        } else {
            let key = label.trim_end().trim_end_matches(':').to_owned();
            d.other.push((key, text));
        }
    }
    true
}

/// Whether a map is ava's: every key a label ending in `:`.
fn is_avas(m: &Map<String, Value>) -> bool {
    !m.is_empty() && m.keys().all(|k| k.trim_end().ends_with(':'))
}

/// ava's difference block: its two sides as values when both read, else its lines with
/// ava's headers, so the renderer knows `-` is the actual side.
fn read_difference(text: &str, d: &mut Details) {
    let lines: Vec<&str> = text.lines().collect();
    // Node's reader takes `-` for the expected side: ava's `-` is the actual one.
    if let Some((actual, expected)) = node_error::diff_values(&lines) {
        d.expected_actual = Some((expected, actual));
        return;
    }
    if let Some(unified) = node_error::unified(&lines) {
        let body = unified
            .split_once('\n')
            .and_then(|(_, rest)| rest.split_once('\n'));
        if let Some((_, body)) = body {
            d.text_diff = Some(format!("--- actual\n+++ expected\n{body}"));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn map(yaml: &str) -> Map<String, Value> {
        match serde_saphyr::from_str::<Value>(yaml) {
            Ok(Value::Object(m)) => m,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn avas_minus_is_the_actual_side() {
        // ava 6.4.1, `t.is(1 + 1, 3)` and `t.deepEqual({a: 1, b: [1, 2]}, {a: 1, b: [1, 3]})`.
        let mut d = Details::default();
        assert!(read(
            &map("details:\n  'Difference (- actual, + expected):': |-\n    - 2\n    + 3\n"),
            &mut d
        ));
        assert_eq!(d.expected_actual, Some((json!(3), json!(2))));
        let mut d = Details::default();
        read(
            &map(
                "values:\n  'Difference (- actual, + expected):': |2-\n      {\n        a: 1,\n        b: [\n          1,\n    -     2,\n    +     3,\n        ],\n      }\n",
            ),
            &mut d,
        );
        assert_eq!(
            d.expected_actual,
            Some((json!({"a": 1, "b": [1, 3]}), json!({"a": 1, "b": [1, 2]})))
        );
    }

    #[test]
    fn a_side_no_value_reads_keeps_avas_lines_with_their_meaning() {
        let mut d = Details::default();
        read(
            &map("values:\n  'Difference (- actual, + expected):': |-\n    - Foo <\n    + Bar <\n"),
            &mut d,
        );
        assert_eq!(d.expected_actual, None);
        assert_eq!(
            d.text_diff.as_deref(),
            Some("--- actual\n+++ expected\n-Foo <\n+Bar <")
        );
    }

    #[test]
    fn other_labels_are_diagnostics_and_a_map_of_another_producers_is_left() {
        let mut d = Details::default();
        read(
            &map(
                "details:\n  'Value must match expression:': '''abc'''\n  'Regular expression:': /x/\n",
            ),
            &mut d,
        );
        assert_eq!(
            d.other,
            [
                ("Value must match expression".to_owned(), "'abc'".to_owned()),
                ("Regular expression".to_owned(), "/x/".to_owned())
            ]
        );
        let mut d = Details::default();
        assert!(!read(&map("details:\n  a: 1\n"), &mut d));
        assert_eq!(d, Details::default());
    }
}
