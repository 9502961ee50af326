//! The expected and actual values as the test wrote them, undoing what the producer's YAML did
//! to them: node:test writes arrays as `0:`, `1:` maps, and YAML has no JSON for `Infinity` or
//! `NaN` (the YAML reader gives the words `.inf`, `-.inf`, `.nan`), and tape writes values
//! as JavaScript (`{ a: 1, b: [ 1, 3 ] }`), which YAML reads as a string.
use super::literal;
use crate::report::diff;
use serde_json::Value;

/// Deeper than this the values are left as they are: the walk recurses, and the diff prints
/// such depths on one line anyway.
const MAX_DEPTH: usize = 64;

/// Both values, normalised for the diff: index maps back into arrays, and number words read
/// as numbers where the other side has a number (or a number word) at the same place.
pub(super) fn normalise(expected: &mut Value, actual: &mut Value) {
    printed_structures(expected, actual);
    arrays(expected, 0);
    arrays(actual, 0);
    numbers(expected, actual, 0);
}

/// Two strings that are both structures printed as JavaScript or Python are those structures.
/// JSON text is left to the diff, which compares it parsed and says so (the strings may be
/// the values under test).
fn printed_structures(expected: &mut Value, actual: &mut Value) {
    let (Value::String(e), Value::String(a)) = (&*expected, &*actual) else {
        return;
    };
    let json = |s: &str| serde_json::from_str::<Value>(s).is_ok();
    if json(e) && json(a) {
        return;
    }
    if let (Some(e), Some(a)) = (literal::parse_container(e), literal::parse_container(a)) {
        *expected = e;
        *actual = a;
    }
}

/// A map whose keys are exactly `0`, `1`, … `n-1`, in order, is an array node's YAML wrote as
/// a map. (A real object with such keys reads the same; node's YAML cannot tell them apart.)
fn arrays(v: &mut Value, depth: usize) {
    if depth > MAX_DEPTH {
        return;
    }
    match v {
        Value::Object(map) => {
            let indexed =
                !map.is_empty() && (0..map.len()).all(|i| map.contains_key(i.to_string().as_str()));
            if indexed {
                let mut items = Vec::with_capacity(map.len());
                for i in 0..map.len() {
                    items.push(map.remove(i.to_string().as_str()).unwrap_or(Value::Null));
                }
                *v = Value::Array(items);
                arrays(v, depth);
                return;
            }
            for item in map.values_mut() {
                arrays(item, depth + 1);
            }
        }
        Value::Array(items) => {
            for item in items {
                arrays(item, depth + 1);
            }
        }
        _ => {}
    }
}

fn is_numberish(v: &Value) -> bool {
    matches!(v, Value::Number(_)) || word(v).is_some()
}

fn word(v: &Value) -> Option<&str> {
    v.as_str().filter(|s| diff::is_number_word(s))
}

/// JavaScript's spelling, which node, tape and node-tap users wrote in their tests.
fn canonical(word: &str) -> &'static str {
    match word {
        "-Infinity" | "-.inf" => "-Infinity",
        "NaN" | ".nan" | ".NaN" => "NaN",
        _ => "Infinity",
    }
}

fn numbers(e: &mut Value, a: &mut Value, depth: usize) {
    if depth > MAX_DEPTH {
        return;
    }
    match (&mut *e, &mut *a) {
        (Value::Object(em), Value::Object(am)) => {
            for (key, ev) in em.iter_mut() {
                if let Some(av) = am.get_mut(key) {
                    numbers(ev, av, depth + 1);
                }
            }
        }
        (Value::Array(ei), Value::Array(ai)) => {
            for (ev, av) in ei.iter_mut().zip(ai.iter_mut()) {
                numbers(ev, av, depth + 1);
            }
        }
        _ => {
            if is_numberish(e) && is_numberish(a) {
                for side in [e, a] {
                    if let Some(w) = word(side) {
                        *side = diff::bare(canonical(w));
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn norm(mut e: Value, mut a: Value) -> (Value, Value) {
        normalise(&mut e, &mut a);
        (e, a)
    }

    #[test]
    fn index_maps_are_arrays_again() {
        let (e, a) = norm(
            json!({"a": 1, "b": {"0": 1, "1": 3}}),
            json!({"a": 1, "b": {"0": 1, "1": {"0": "x"}}}),
        );
        assert_eq!(e, json!({"a": 1, "b": [1, 3]}));
        assert_eq!(a, json!({"a": 1, "b": [1, ["x"]]}));
        // Keys that are not exactly 0..n stay a map.
        let (e, _) = norm(json!({"0": 1, "2": 3}), json!(null));
        assert_eq!(e, json!({"0": 1, "2": 3}));
        let (e, _) = norm(json!({"1": 1}), json!(null));
        assert_eq!(e, json!({"1": 1}));
    }

    #[test]
    fn structures_printed_as_code_are_structures() {
        let (e, a) = norm(
            json!("{ a: 1, b: [ 1, 3 ] }"),
            json!("{ a: 1, b: [ 1, 2 ] }"),
        );
        assert_eq!(
            (e, a),
            (json!({"a": 1, "b": [1, 3]}), json!({"a": 1, "b": [1, 2]}))
        );
        // JSON text stays text for the diff; so does one side that is not a structure.
        let (e, _) = norm(json!("[1, 2]"), json!("[1, 3]"));
        assert_eq!(e, json!("[1, 2]"));
        let (e, _) = norm(json!("{ a: 1 }"), json!("plain"));
        assert_eq!(e, json!("{ a: 1 }"));
    }

    #[test]
    fn number_words_are_numbers_against_numbers_only() {
        let (e, a) = norm(json!(5), json!(".inf"));
        assert_eq!((e, a), (json!(5), diff::bare("Infinity")));
        let (e, a) = norm(json!(".nan"), json!("-.inf"));
        assert_eq!((e, a), (diff::bare("NaN"), diff::bare("-Infinity")));
        // Inside structures, place by place.
        let (e, a) = norm(json!([1, ".inf"]), json!([1, 2]));
        assert_eq!((e, a), (json!([1, diff::bare("Infinity")]), json!([1, 2])));
        // Against a string the word is a string.
        let (e, a) = norm(json!("NaN"), json!("x"));
        assert_eq!((e, a), (json!("NaN"), json!("x")));
    }
}
