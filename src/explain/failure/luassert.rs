//! busted's failure comments (its TAP output handler), read into the failure's fields:
//!
//! ```text
//! # spec/a_spec.lua @ 4                      where the test is defined
//! # Failure message: spec/a_spec.lua:10: Expected objects to be the same.
//! # Passed in:                               the actual value, as luassert formats it
//! # (table: 0x55…) {
//! #  *[2] = 'WORLD' }
//! # Expected:                                the expected value
//! # (table: 0x55…) {
//! #  *[2] = 'world' }
//! # stack traceback:                         the stack (busted's --verbose)
//! #     spec/a_spec.lua:10: in function <spec/a_spec.lua:4>
//! ```
//!
//! The location is the failure message's `FILE:LINE:` (where the assertion failed), else the
//! definition's; the message is the rest of that line; `Passed in:`/`Expected:` are the actual
//! and expected values, diffed (a scalar's `(number) 5` read as its value, a table's dump as
//! text without its address, which differs every run); the traceback is the stack.
use super::comments::Read;
use serde_json::Value;

impl Read {
    /// busted's block, from its `FILE @ LINE` or `Failure message:` line.
    pub(super) fn busted(&mut self, bodies: &[Option<&str>]) -> Option<usize> {
        let body = |k: usize| bodies.get(k).copied().flatten();
        let mut k = 0;
        let mut defined = None;
        if let Some(at) = body(0).and_then(|b| definition(b.trim())) {
            defined = Some(at);
            k = 1;
        }
        let Some(failure) = body(k).and_then(|b| b.trim().strip_prefix("Failure message:")) else {
            // A definition line alone (an error outside an assertion prints no message).
            let at = defined?;
            self.location.get_or_insert(at);
            return Some(1);
        };
        let (at, message) = match located(failure.trim()) {
            Some((at, message)) => (Some(at), message),
            None => (defined, failure.trim().to_owned()),
        };
        if let Some(at) = at {
            self.location.get_or_insert(at);
        }
        k += 1;
        // The message goes on until a heading of busted's.
        let mut message = message;
        while let Some(b) = body(k) {
            if is_heading(b) {
                break;
            }
            message.push('\n');
            message.push_str(b.strip_prefix(' ').unwrap_or(b));
            k += 1;
        }
        self.message
            .get_or_insert_with(|| message.trim_end().to_owned());
        let actual = value_after(bodies, &mut k, "Passed in:");
        let expected = value_after(bodies, &mut k, "Expected:");
        if let (Some(actual), Some(expected)) = (actual, expected) {
            self.expected_actual.get_or_insert((expected, actual));
        }
        if body(k).is_some_and(|b| b.trim() == "stack traceback:") {
            let mut frames = Vec::new();
            k += 1;
            while let Some(b) = body(k) {
                let frame = b.trim();
                if frame.is_empty() {
                    k += 1;
                    break;
                }
                frames.push(frame.to_owned());
                k += 1;
            }
            self.stack.get_or_insert_with(|| frames.join("\n"));
        }
        Some(k)
    }
}

/// `spec/a_spec.lua @ 4` (nothing after the line): the test's definition, as `FILE:LINE`.
fn definition(text: &str) -> Option<String> {
    let (file, line) = text.rsplit_once(" @ ")?;
    let numeric = !line.is_empty() && line.bytes().all(|b| b.is_ascii_digit());
    (numeric && !file.is_empty() && !file.contains(' ')).then(|| format!("{file}:{line}"))
}

/// `spec/a_spec.lua:10: message`: the location and the message.
fn located(text: &str) -> Option<(String, String)> {
    let (file, rest) = text.split_once(':')?;
    let (line, message) = rest.split_once(':')?;
    let numeric = !line.is_empty() && line.bytes().all(|b| b.is_ascii_digit());
    (numeric && !file.is_empty() && !file.contains(' '))
        .then(|| (format!("{file}:{line}"), message.trim().to_owned()))
}

fn is_heading(body: &str) -> bool {
    matches!(
        body.trim(),
        "Passed in:" | "Expected:" | "stack traceback:" | ""
    )
}

/// The value under `heading` (from `k`, which moves past it), when `heading` is there.
fn value_after(bodies: &[Option<&str>], k: &mut usize, heading: &str) -> Option<Value> {
    let body = |k: usize| bodies.get(k).copied().flatten();
    if body(*k)?.trim() != heading {
        return None;
    }
    let mut lines = Vec::new();
    let mut j = *k + 1;
    while let Some(b) = body(j) {
        if is_heading(b) {
            break;
        }
        lines.push(b.strip_prefix(' ').unwrap_or(b));
        j += 1;
    }
    *k = j;
    Some(luassert_value(&lines))
}

/// A value as luassert formats it: `(number) 5`, `(string) 'a'`, `(boolean) true`, `(nil)`,
/// or `(table: 0x…) {` and the table's lines.
fn luassert_value(lines: &[&str]) -> Value {
    let first = lines.first().copied().unwrap_or_default();
    let Some((kind, rest)) = first.strip_prefix('(').and_then(|r| r.split_once(')')) else {
        return Value::String(lines.join("\n"));
    };
    let rest = rest.trim_start();
    match kind {
        "number" if lines.len() == 1 => serde_json::from_str::<Value>(rest)
            .ok()
            .filter(Value::is_number)
            .unwrap_or_else(|| Value::String(rest.to_owned())),
        "string" if lines.len() == 1 => {
            let quoted = rest.strip_prefix('\'').and_then(|r| r.strip_suffix('\''));
            Value::String(quoted.unwrap_or(rest).to_owned())
        }
        "boolean" if rest == "true" || rest == "false" => Value::Bool(rest == "true"),
        "nil" => Value::Null,
        _ => {
            // A table's dump, its address left out.
            let mut text = vec![rest];
            text.extend(&lines[1..]);
            Value::String(text.join("\n"))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::comments::read;
    use serde_json::json;

    fn lines(text: &str) -> Vec<String> {
        text.lines().map(str::to_owned).collect()
    }

    #[test]
    fn an_equality_failure_is_located_and_diffed() {
        let r = read(
            &lines("# spec/a_spec.lua @ 2\n# Failure message: spec/a_spec.lua:3: Expected objects to be equal.\n# Passed in:\n# (number) 5\n# Expected:\n# (number) 4"),
            true,
        );
        assert_eq!(r.location.as_deref(), Some("spec/a_spec.lua:3"));
        assert_eq!(r.message.as_deref(), Some("Expected objects to be equal."));
        assert_eq!(r.expected_actual, Some((json!(4), json!(5))));
        assert!(r.rest.is_empty(), "{:?}", r.rest);
    }

    #[test]
    fn a_table_diff_leaves_the_addresses_out_and_the_traceback_is_the_stack() {
        let r = read(
            &lines("# spec/s_spec.lua @ 4\n# Failure message: spec/s_spec.lua:10: Expected objects to be the same.\n# Passed in:\n# (table: 0x5580e3133690) {\n#   [1] = 'hello'\n#  *[2] = 'WORLD' }\n# Expected:\n# (table: 0x5580e31335f0) {\n#   [1] = 'hello'\n#  *[2] = 'world' }\n# stack traceback:\n# \tspec/s_spec.lua:10: in function <spec/s_spec.lua:4>\n# "),
            true,
        );
        assert_eq!(r.location.as_deref(), Some("spec/s_spec.lua:10"));
        assert_eq!(
            r.expected_actual,
            Some((
                json!("{\n  [1] = 'hello'\n *[2] = 'world' }"),
                json!("{\n  [1] = 'hello'\n *[2] = 'WORLD' }")
            ))
        );
        assert_eq!(
            r.stack.as_deref(),
            Some("spec/s_spec.lua:10: in function <spec/s_spec.lua:4>")
        );
        assert!(r.rest.is_empty(), "{:?}", r.rest);
    }

    #[test]
    fn an_error_is_its_message_at_its_line() {
        let r = read(
            &lines("# spec/a_spec.lua @ 8\n# Failure message: spec/a_spec.lua:9: boom"),
            true,
        );
        assert_eq!(r.location.as_deref(), Some("spec/a_spec.lua:9"));
        assert_eq!(r.message.as_deref(), Some("boom"));
        let strings = read(
            &lines("# Failure message: t_spec.lua:3: Expected objects to be equal.\n# Passed in:\n# (string) 'a b'\n# Expected:\n# (string) 'a c'"),
            true,
        );
        assert_eq!(strings.expected_actual, Some((json!("a c"), json!("a b"))));
    }
}
