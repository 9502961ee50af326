//! The expected and actual values as the test wrote them, undoing what the producer's YAML did
//! to them: node:test writes arrays as `0:`, `1:` maps, and YAML has no JSON for `Infinity` or
//! `NaN` (the YAML reader gives the words `.inf`, `-.inf`, `.nan`).
//!
//! Two producers write values as JavaScript into YAML, and what a YAML reader makes of that is
//! not what they meant, so their values are read from the YAML's text ([`from_text`]):
//! * tape writes object-inspect's literal (`'uri://a/'`, `{ a: 1 }`, `Foo { a: 1 }`), plain
//!   or in a `|-` block: YAML reads `'uri://a/'` as `uri://a/` but `'a\nb'` with a backslash,
//!   `{ a: 1 }` as a mapping, and `'it\'s'` not at all;
//! * node:test writes a string quoted (util.inspect's `'…'`), a Date as a plain ISO scalar, a
//!   number, `10n`, `Symbol(x)` plain, and nothing for `undefined`: YAML reads the Date and the
//!   string that spells it as the same string.
use super::literal;
use crate::explain::diff;
use serde_json::{Map, Value};

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

/// The expected and actual values as tape's or node:test's YAML text writes them, `None` for
/// any other producer's (whose YAML means what it says) or when they are not there.
pub(super) fn from_text(yaml: &str, map: &Map<String, Value>) -> Option<(Value, Value)> {
    let lines = dedent(yaml);
    if map.contains_key("failureType") {
        let read = |key| entry(&lines, key).map(|(rest, under)| node_value(rest, under, 0));
        // node writes nothing for `undefined`; an assertion has both sides.
        let undefined = || diff::typed("undefined", "undefined");
        let assertion = map.contains_key("operator");
        return match (read("expected"), read("actual")) {
            (Some(Some(e)), Some(Some(a))) => Some((e, a)),
            (Some(Some(e)), None) if assertion => Some((e, undefined())),
            (None, Some(Some(a))) if assertion => Some((undefined(), a)),
            _ => None,
        };
    }
    if is_tape(&lines) {
        return Some((
            tape_entry(&lines, "expected")?,
            tape_entry(&lines, "actual")?,
        ));
    }
    None
}

/// tape's diagnostics when they are not YAML (`actual: 'it\'s'`): each top-level key's text, a
/// `|-` block's lines joined. `None` for any other producer's.
pub(super) fn tape_fields(yaml: &str) -> Option<Map<String, Value>> {
    let lines = dedent(yaml);
    if !is_tape(&lines) {
        return None;
    }
    let mut map = Map::new();
    for (i, line) in lines.iter().enumerate() {
        if line.starts_with(char::is_whitespace) {
            continue;
        }
        let Some((key, _)) = line.split_once(':') else {
            continue;
        };
        if let Some((rest, children)) = entry(&lines[i..], key) {
            let text = block(rest, children, 2).unwrap_or_else(|| rest.to_owned());
            map.insert(key.to_owned(), Value::String(text));
        }
    }
    Some(map)
}

/// The YAML's lines less the indentation of its first (tape indents its YAML by four, the
/// TAP block's two of which are gone).
fn dedent(yaml: &str) -> Vec<&str> {
    let first = yaml
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or_default();
    let indent = first.len() - first.trim_start().len();
    yaml.lines()
        .map(|l| l.get(indent..).unwrap_or_else(|| l.trim_start()))
        .collect()
}

/// tape writes `operator:` first, then `expected:` and `actual:` (node:test writes it last).
fn is_tape(lines: &[&str]) -> bool {
    lines
        .iter()
        .find(|l| !l.trim().is_empty())
        .is_some_and(|l| l.starts_with("operator:"))
}

/// A top-level `key:` line: what follows the colon, and the more indented lines under it.
fn entry<'a>(lines: &'a [&'a str], key: &str) -> Option<(&'a str, &'a [&'a str])> {
    let at = lines.iter().position(|l| {
        l.strip_prefix(key)
            .and_then(|r| r.strip_prefix(':'))
            .is_some_and(|r| r.is_empty() || r.starts_with(' '))
    })?;
    let rest = lines[at].get(key.len() + 1..)?.trim();
    let under = &lines[at + 1..];
    let end = under
        .iter()
        .position(|l| !l.starts_with(' ') && !l.is_empty())
        .unwrap_or(under.len());
    Some((rest, &under[..end]))
}

/// A `|-` (or `|`) block's lines, less `indent` columns each.
fn block(rest: &str, children: &[&str], indent: usize) -> Option<String> {
    if !matches!(rest, "|-" | "|") {
        return None;
    }
    let lines: Vec<&str> = children
        .iter()
        .map(|l| l.get(indent..).unwrap_or_else(|| l.trim_start()))
        .collect();
    Some(lines.join("\n"))
}

/// tape's value: one object-inspect literal, on the key's line or alone in a `|-` block.
fn tape_entry(lines: &[&str], key: &str) -> Option<Value> {
    let (rest, children) = entry(lines, key)?;
    let text = match block(rest, children, 2) {
        Some(text) => text,
        None if !rest.is_empty() => rest.to_owned(),
        // A mapping is some other producer's YAML.
        None => return None,
    };
    Some(literal::read(&text))
}

/// One value of node's YAML: `~` is null, a `|-` block a string of several lines, a quoted
/// scalar a string, a plain one util.inspect's word (a number, `10n`, `Symbol(x)`, a Date's
/// ISO form), nothing after the colon an object whose entries are the lines under it (an
/// array's are `0:`, `1:`, made arrays again by [`normalise`]).
fn node_value(rest: &str, children: &[&str], depth: usize) -> Option<Value> {
    if depth > MAX_DEPTH {
        return None;
    }
    if rest == "~" {
        return Some(Value::Null);
    }
    if let Some(text) = block(rest, children, 2) {
        return Some(Value::String(text));
    }
    if !rest.is_empty() {
        return Some(literal::read(rest));
    }
    let mut map = Map::new();
    let mut i = 0;
    while i < children.len() {
        let line = children[i].get(2..).unwrap_or_default();
        i += 1;
        if line.starts_with(' ') || line.is_empty() {
            continue;
        }
        let (key, value) = match line.split_once(": ") {
            Some((key, value)) => (key, value.trim()),
            None => (line.strip_suffix(':')?, ""),
        };
        let start = i;
        while children.get(i).is_some_and(|l| {
            l.get(2..)
                .is_some_and(|r| r.starts_with(' ') || r.is_empty())
        }) {
            i += 1;
        }
        let under: Vec<&str> = children[start..i]
            .iter()
            .map(|l| l.get(2..).unwrap_or_default())
            .collect();
        map.insert(key.to_owned(), node_value(value, &under, depth + 1)?);
    }
    Some(Value::Object(map))
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
    use proptest::prelude::*;
    use serde_json::json;

    const PIECES: [&str; 14] = [
        "expected:",
        "actual:",
        "operator: equal",
        "failureType: 'x'",
        "  a: 1",
        "  b:",
        "    c: |-",
        "      x",
        " |-",
        " ~",
        " 'it\\'s'",
        "    ",
        "",
        "      ",
    ];

    proptest! {
        #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

        #[test]
        fn no_yaml_text_panics(picks in prop::collection::vec((0..PIECES.len(), 0..PIECES.len()), 0..12)) {
            let yaml: String = picks
                .iter()
                .map(|(a, b)| format!("{}{}\n", PIECES[*a], PIECES[*b]))
                .collect();
            let mut map = Map::new();
            map.insert("failureType".to_owned(), json!("x"));
            map.insert("operator".to_owned(), json!("x"));
            let _ = from_text(&yaml, &map);
            let _ = from_text(&yaml, &Map::new());
            let _ = tape_fields(&yaml);
        }
    }

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
