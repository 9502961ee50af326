//! smartexpect's failures (tapbundle 5's `expect`), whose only trace of the values is its
//! message: it throws a plain `Error`, no `actual`/`expected` fields, so node's dump of it
//! (read by [`super::node_error`]) carries none. Its messages name both sides when it knows
//! them, in one template:
//!
//! ```text
//! Error: Expected value to be true, but got false
//! Error: Expected value.a[0] to be null, but got {"b":1}
//! Error: Expected property 'name' of value to equal "b", but got "a"
//! Error: Expected value to have length 3, but got length 2
//! ```
//!
//! read into expected/actual with smartexpect's meaning: `expect(x)` is the actual side
//! (`but got …`), the argument or the constant the assertion names (`to be true`) the
//! expected one. Values are written by smartexpect's `formatValue`: `null`, `undefined`,
//! `JSON.stringify` of an object, `"…"` around a string (not escaped), `String(x)` of the
//! rest.
//!
//! Only equality reads as values: a relation (`to be greater than 5, but got 3`, `to start
//! with "a"`, `to be of type string, but got number`) has no expected value to diff against,
//! and `to equal X` (`toEqual`) names the expected value only: their message says what failed.
//! Read only when the error's stack runs through smartexpect, so a test's own message of
//! the same words is left as it is.
use super::literal;
use crate::explain::diff;
use serde_json::Value;

/// The frame of smartexpect's assertion class, in its sources and its build.
const FRAME: &str = "smartexpect.classes.assertion.";
/// What comes between the subject and the actual value.
const GOT: &str = ", but got ";

/// The expected and actual values a smartexpect message names, when `stack` is one of
/// smartexpect's assertions.
pub(super) fn values(message: &str, stack: &str) -> Option<(Value, Value)> {
    if !stack.lines().any(|f| f.contains(FRAME)) {
        return None;
    }
    let (expected, actual) = sides(message)?;
    Some((expected, read_value(actual)?))
}

/// The expected value and the actual one's text of an equality message.
fn sides(message: &str) -> Option<(Value, &str)> {
    if let Some(rest) = message.strip_prefix("Expected property '") {
        // `Expected property 'p' of value{path} to equal X, but got Y`: X is JSON or a
        // formatted scalar, so the first `, but got ` after one that reads splits them.
        let (_, claim) = rest.split_once("' of value")?;
        let (_, pair) = claim.split_once(" to equal ")?;
        return pair.match_indices(GOT).find_map(|(at, _)| {
            let expected = read_strict(&pair[..at])?;
            Some((expected, &pair[at + GOT.len()..]))
        });
    }
    let rest = message.strip_prefix("Expected value")?;
    let claim = rest.split_once(" to ")?.1;
    for (word, expected) in [
        ("be true", Value::Bool(true)),
        ("be false", Value::Bool(false)),
        ("be null", Value::Null),
        ("be undefined", literal::read("undefined")),
    ] {
        if let Some(actual) = claim.strip_prefix(word).and_then(|r| r.strip_prefix(GOT)) {
            return Some((expected, actual));
        }
    }
    let (wanted, got) = claim
        .strip_prefix("have length ")?
        .split_once(", but got length ")?;
    Some((number(wanted)?, got))
}

/// A length smartexpect printed.
fn number(text: &str) -> Option<Value> {
    text.parse::<u64>().ok().map(Value::from)
}

/// A value as smartexpect's `formatValue` wrote it; what no rule reads is kept as a bare
/// word (`[Object Foo]`, a Symbol's text).
fn read_value(text: &str) -> Option<Value> {
    if text.is_empty() || (text.starts_with('"') && !is_quoted(text)) {
        return None;
    }
    Some(read_strict(text).unwrap_or_else(|| diff::bare(text)))
}

/// A value only when a rule reads the whole of `text`.
fn read_strict(text: &str) -> Option<Value> {
    if is_quoted(text) {
        // Not escaped: what is between the quotes is the string.
        return Some(Value::String(text[1..text.len() - 1].to_owned()));
    }
    if text.starts_with(['{', '[']) {
        if let Ok(v) = serde_json::from_str::<Value>(text) {
            return Some(v);
        }
    }
    literal::parse(text)
}

/// `"…"`: a string as smartexpect prints it.
fn is_quoted(text: &str) -> bool {
    text.len() >= 2 && text.starts_with('"') && text.ends_with('"')
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const STACK: &str = "at Assertion.toBeTrue (/w/node_modules/@push.rocks/smartexpect/ts/smartexpect.classes.assertion.ts:231:15)\nat TapTest.testFunction (/w/test/a.ts:5:20)";

    fn read(message: &str) -> Option<(Value, Value)> {
        values(message, STACK)
    }

    #[test]
    fn constants_are_expected_and_what_it_got_actual() {
        assert_eq!(
            read("Expected value to be true, but got false"),
            Some((json!(true), json!(false)))
        );
        assert_eq!(
            read("Expected value.a[0] to be null, but got {\"b\":1}"),
            Some((json!(null), json!({"b": 1})))
        );
        assert_eq!(
            read("Expected value to be false, but got \"yes\""),
            Some((json!(false), json!("yes")))
        );
        assert_eq!(
            read("Expected value to be undefined, but got 0"),
            Some((literal::read("undefined"), json!(0)))
        );
    }

    #[test]
    fn a_property_and_a_length_read_both_sides() {
        assert_eq!(
            read("Expected property 'name' of value to equal \"b, but got c\", but got \"a\""),
            Some((json!("b, but got c"), json!("a")))
        );
        assert_eq!(
            read("Expected property 'n' of value.x to equal [1,2], but got undefined"),
            Some((json!([1, 2]), literal::read("undefined")))
        );
        assert_eq!(
            read("Expected value to have length 3, but got length 2"),
            Some((json!(3), json!(2)))
        );
    }

    #[test]
    fn strings_are_not_unescaped() {
        assert_eq!(
            read(r#"Expected value to be null, but got "a\nb""#),
            Some((json!(null), json!(r"a\nb")))
        );
    }

    #[test]
    fn relations_to_equal_and_other_stacks_read_nothing() {
        for message in [
            "Expected value to be greater than 5, but got 3",
            "Expected value to be of type string, but got number",
            "Expected string to start with \"a\", but got \"b\"",
            "Expected value to equal \"hello there\"",
            "Expected value to be defined, but got undefined",
            "Negated assertion failed",
        ] {
            assert_eq!(read(message), None, "{message}");
        }
        let mine = "at TapTest.testFunction (/w/test/a.ts:5:20)";
        assert_eq!(
            values("Expected value to be true, but got false", mine),
            None
        );
    }
}
