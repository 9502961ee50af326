//! node:test's TAP diagnostics read as node means them (a YAML block with `failureType:`, which
//! only node's test runner writes):
//! * a thrown error is its own class and message, `TypeError: x is not a function`, as node
//!   prints an uncaught error; node's wrapper (`code: 'ERR_TEST_FAILURE'`) and the default
//!   kind of failure (`failureType: 'testCodeFailure'`, the test's code threw) say nothing and
//!   leave the quiet line ([`label`]);
//! * an assertion's message is node's headline (`Expected values to be strictly equal:`)
//!   when its values are diffed: the two values it renders below are the diff's ([`headline`]);
//! * the location is the first frame of the error's stack in the project, the assertion's
//!   line, before the `test()` call's `location:` ([`locate`]);
//! * node 20 writes a nested error's fields at its parent's indent (`assert.throws(fn,
//!   { message: /re/ })`: the thrown error is `actual:`), a YAML mapping with duplicate keys
//!   that is read with them back under their key, and a string holding both kinds of quote
//!   in util.inspect's backticks, which is read as that string ([`repair`]);
//! * `assert.throws`/`assert.rejects` draw no diff: the message says what was expected and
//!   what was thrown, and the thrown value is the `actual` line below it, an error with the
//!   stack where it was thrown, as node's spec reporter prints them ([`errors_as_values`]);
//! * node's run summary (`# tests 4` … `# duration_ms 12.5`) is the run's, no test's output
//!   ([`strip_run_summary`]).
use super::{stack, Details};
use crate::explain::diff;
use serde_json::Value;

/// The kinds of failure where node hands on the error the test's own code threw (node's
/// `kUnwrapErrors`): its class and message are the failure's.
const THROWN: [&str; 4] = [
    "testCodeFailure",
    "hookFailed",
    "uncaughtException",
    "unhandledRejection",
];
/// node's wrapper around whatever a test threw.
const WRAPPER: &str = "ERR_TEST_FAILURE";
/// The error fields node writes for an error value, in its order (`jsToYaml`).
const ERROR_FIELDS: [&str; 7] = [
    "error", "code", "name", "expected", "actual", "operator", "stack",
];
/// node's run summary, in its order: `# tests 4` … `# duration_ms 12.5`.
const SUMMARY: [&str; 8] = [
    "tests",
    "suites",
    "pass",
    "fail",
    "cancelled",
    "skipped",
    "todo",
    "duration_ms",
];

/// Whether a YAML mapping is node:test's.
pub(super) fn is_node_test(map: &serde_json::Map<String, serde_json::Value>) -> bool {
    map.get("failureType").is_some_and(|v| v.is_string())
}

/// The location: the first frame of the stack in the project (a library's only when no frame
/// is the project's), the assertion's line, else node's `location:`, the `test()` call.
pub(super) fn locate(d: &mut Details) {
    let Some(stack) = d.stack.as_deref() else {
        return;
    };
    let places: Vec<&str> = stack
        .lines()
        .filter(|l| !stack::is_internal(l))
        .filter_map(|l| super::frame_location(l).or_else(|| bare(l)))
        .filter(|p| !stack::is_tapline_own(p))
        .collect();
    let place = places
        .iter()
        .find(|p| !p.contains("node_modules/"))
        .or_else(|| places.first());
    if let Some(place) = place {
        d.location = Some(place.strip_prefix("file://").unwrap_or(place).to_owned());
    }
}

/// A frame without a function, `file:///w/t.mjs:5:3`: a place with a line and a column.
fn bare(line: &str) -> Option<&str> {
    let t = line.trim();
    let mut parts = t.rsplitn(3, ':');
    let column = parts.next()?;
    let line_no = parts.next()?;
    let numeric = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    (numeric(column) && numeric(line_no) && parts.next().is_some() && !t.contains(' ')).then_some(t)
}

/// A thrown error labelled with its class (`TypeError: x is not a function`; a bare `Error`
/// too, as node prints it) and node's wrapper and default kind left off the quiet line. A
/// failure without a stack is no thrown error (`throw 'text'`, node's own `test failed` of a
/// file that exited): its message stays as node wrote it. node's assertions
/// (`ERR_ASSERTION`) keep their headline and `AssertionError [ERR_ASSERTION]`.
pub(super) fn label(d: &mut Details, machine: &mut Vec<(String, String)>) {
    let get = |m: &[(String, String)], key: &str| {
        m.iter().find(|(k, _)| k == key).map(|(_, v)| v.clone())
    };
    let kind = get(machine, "failureType");
    let code = get(machine, "code");
    let thrown = kind.as_deref().is_some_and(|k| THROWN.contains(&k))
        && code.as_deref() != Some("ERR_ASSERTION")
        && d.stack.is_some();
    if thrown {
        let name = get(machine, "name").unwrap_or_else(|| "Error".to_owned());
        d.message = Some(match d.message.take() {
            Some(m) if !m.is_empty() => format!("{name}: {m}"),
            _ => name,
        });
        machine.retain(|(k, _)| k != "name");
    }
    machine.retain(|(k, v)| {
        !(k == "code" && v == WRAPPER || k == "failureType" && v == "testCodeFailure")
    });
}

/// node's generated message of a comparison (`Expected values to be strictly equal:`, then
/// the two values, `3 !== 4`, or both values in full for a loose one) is its first line when
/// the values are diffed. A message the test gave (`assert.equal(a, b, 'the greeting')`) is
/// kept, less the one-line comparison node appends to it (`41 !== 42`).
pub(super) fn headline(d: &mut Details) {
    if d.expected_actual.is_none() && d.text_diff.is_none() {
        return;
    }
    let Some(message) = d.message.as_deref() else {
        return;
    };
    let Some((first, _)) = message.split_once('\n') else {
        return;
    };
    if first.starts_with("Expected values to be ") && first.ends_with(':') {
        d.message = Some(first.to_owned());
        return;
    }
    // node puts its one-line comparison after a message the test gave (`the answer`, a blank
    // line, `41 !== 42`: node 20 for numbers, node 22 for strings too): the diff says it.
    if let Some((own, last)) = message.trim_end().rsplit_once("\n\n") {
        if !last.contains('\n') && last.contains(" !== ") && !own.trim().is_empty() {
            d.message = Some(own.trim_end().to_owned());
        }
    }
}

/// A compared value that is an error is that error as node prints it, `RangeError: Value is
/// not an object.`, not a structure of its YAML fields.
///
/// Under `throws`/`rejects` (`assert.throws(fn, TypeError)`, `assert.rejects(p, /re/)`) the
/// pair is no diff at all, as node's spec reporter (node 20 and 22) draws none: node's message
/// names what was expected and what was thrown (`… to be an instance of "TypeError". Received
/// "RangeError"`, then its `Error message:` paragraph; `Missing expected exception
/// (TypeError).`), and the expected side is a class (`[Function: TypeError]`) or lost (a
/// RegExp has no fields for node's YAML: an empty `expected:`). What node prints below the
/// message is the thrown value, `actual: RangeError: out of range` with the stack where it was
/// thrown (`undefined` when nothing was): it is the failure's `actual` line ([`thrown`]), its
/// stack the project's frames. node's own comparison of the two, when its message has one
/// (`Comparison { message: … }`), is read after this and is the diff.
pub(super) fn errors_as_values(d: &mut Details, machine: &[(String, String)]) {
    let throws = machine
        .iter()
        .any(|(k, v)| k == "operator" && matches!(v.as_str(), "throws" | "rejects"));
    if throws {
        if let Some((_, actual)) = d.expected_actual.take() {
            d.other.push(("actual".to_owned(), thrown(&actual)));
        }
        return;
    }
    let Some((expected, actual)) = &mut d.expected_actual else {
        return;
    };
    for v in [expected, actual] {
        if let Some(error) = as_error(v) {
            *v = error;
        }
    }
}

/// The value `assert.throws` caught as node's spec reporter prints it: an error as its class,
/// message and the project's frames of its stack (`RangeError: out of range`, `    at
/// file:///w/t.mjs:6:11`), a string as util.inspect quotes it (`'text'`), a word as written
/// (`undefined`), anything else as JSON.
fn thrown(v: &Value) -> String {
    if let Some(word) = diff::as_bare(v) {
        return word.to_owned();
    }
    match v {
        Value::String(s) => js_quoted(s),
        Value::Object(map) => match (as_error(v), map.get("stack").and_then(Value::as_str)) {
            (Some(error), Some(stack)) => {
                let mut text = diff::as_bare(&error).unwrap_or_default().to_owned();
                let frames = stack.lines().map(str::trim).filter(|l| {
                    !l.is_empty() && !stack::is_internal(l) && !l.contains("node_modules/")
                });
                for frame in frames {
                    text.push_str(&format!("\n    at {frame}"));
                }
                text
            }
            _ => v.to_string(),
        },
        _ => v.to_string(),
    }
}

/// A string as util.inspect prints it: in single quotes, unless it holds one and no double
/// quote (then in double quotes).
fn js_quoted(s: &str) -> String {
    if s.contains('\'') && !s.contains('"') {
        return format!("\"{s}\"");
    }
    format!("'{}'", s.replace('\\', "\\\\").replace('\'', "\\'"))
}

fn as_error(v: &Value) -> Option<Value> {
    let Value::Object(map) = v else {
        return None;
    };
    let message = map.get("error")?.as_str()?;
    let fields = map.keys().all(|k| ERROR_FIELDS.contains(&k.as_str()));
    if !fields || !map.contains_key("stack") {
        return None;
    }
    let name = map.get("name").and_then(Value::as_str).unwrap_or("Error");
    Some(diff::typed(&format!("{name}: {message}"), name))
}

/// node's YAML as a YAML reader takes it, `None` when neither of node's two shapes no reader
/// takes is there: a string holding both kinds of quote written as util.inspect quotes it, in
/// backticks ([`requote`]), and a nested error's fields at its parent's indent ([`unnest`]).
pub(super) fn repair(yaml: &str) -> Option<String> {
    let requoted = requote(yaml);
    let text = requoted.as_deref().unwrap_or(yaml);
    unnest(text).or(requoted)
}

/// node writes a one-line string as util.inspect prints it, which is YAML's own quoting
/// unless the string holds both `'` and `"` (`assert.throws(() => { throw 'text' },
/// TypeError)`: ``error: `… Received "'text'"` ``): then in backticks, which no YAML reader
/// takes. Such a value is written again in YAML's double quotes (util.inspect's escapes,
/// `\\`, `\n`, `\x0B`, are JSON's and YAML's but `\xNN`, which becomes `\u00NN`).
fn requote(yaml: &str) -> Option<String> {
    let mut changed = false;
    let lines: Vec<String> = yaml
        .lines()
        .map(|line| match backticked(line) {
            Some(fixed) => {
                changed = true;
                fixed
            }
            None => line.to_owned(),
        })
        .collect();
    changed.then(|| lines.join("\n") + "\n")
}

/// `key: `text`` as `key: "text"`, `None` for any other line.
fn backticked(line: &str) -> Option<String> {
    let (key, value) = line.split_once(": `")?;
    let inner = value.strip_suffix('`')?;
    let bare_key = key.trim_start();
    if bare_key.is_empty() || bare_key.contains(' ') || inner.contains('`') {
        return None;
    }
    let mut out = format!("{key}: \"");
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => match chars.next() {
                Some('x') => out.push_str("\\u00"),
                Some('\'') => out.push('\''),
                Some(e) => {
                    out.push('\\');
                    out.push(e);
                }
                None => out.push_str("\\\\"),
            },
            c => out.push(c),
        }
    }
    out.push('"');
    Some(out)
}

/// node 20's YAML for an error whose field is itself an error (`assert.throws` against a
/// `{ message: /re/ }`: the thrown error is `actual:`) writes the inner error's fields at the
/// outer's indent, after an empty `actual:`, so the mapping repeats `error:`, `name:` and
/// `stack:`, which no YAML reader takes. The inner fields (a run in node's order, from an
/// `error:` straight after a key with no value) are put back under that key, so the outer
/// error keeps its message, stack and location and the inner one is its `actual`, as node's
/// spec reporter shows them. `None` when the text is not that shape.
fn unnest(yaml: &str) -> Option<String> {
    let lines: Vec<&str> = yaml.lines().collect();
    let indent = lines
        .iter()
        .find(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start().len())?;
    // Each key at the mapping's own indent: its line.
    let key_at = |i: usize| -> Option<&str> {
        let l = lines[i];
        let own = l.len() - l.trim_start().len() == indent && !l.trim().is_empty();
        let key = l.trim().split_once(':')?.0;
        (own && !key.contains(' ')).then_some(key)
    };
    let keys: Vec<(usize, &str)> = (0..lines.len())
        .filter_map(|i| key_at(i).map(|k| (i, k)))
        .collect();
    let mut out: Vec<String> = Vec::with_capacity(lines.len());
    let mut k = 0;
    let mut repaired = false;
    let mut copied = 0;
    while k < keys.len() {
        let (line, key) = keys[k];
        let empty = lines[line].trim_end().ends_with(':');
        let next_is_error = keys.get(k + 1).is_some_and(|(_, n)| *n == "error");
        if !(empty && next_is_error && key != "error") {
            k += 1;
            continue;
        }
        // The run of error fields in node's order after the empty key.
        let mut end = k + 1;
        let mut order = 0;
        while let Some((_, f)) = keys.get(end) {
            match ERROR_FIELDS.iter().position(|e| e == f) {
                Some(p) if p >= order && (end == k + 1 || p > order) => {
                    order = p;
                    end += 1;
                }
                _ => break,
            }
        }
        let from = keys[k + 1].0;
        let to = keys.get(end).map_or(lines.len(), |(l, _)| *l);
        out.extend(lines[copied..from].iter().map(|l| (*l).to_owned()));
        out.extend(lines[from..to].iter().map(|l| format!("  {l}")));
        copied = to;
        repaired = true;
        k = end;
    }
    if !repaired {
        return None;
    }
    out.extend(lines[copied..].iter().map(|l| (*l).to_owned()));
    Some(out.join("\n") + "\n")
}

/// `lines` without node's run summary at their end (`# tests 4`, `# suites 0`, `# pass 3`,
/// `# fail 1`, `# cancelled 0`, `# skipped 0`, `# todo 0`, `# duration_ms 12.5`, each once,
/// in node's order, `# tests` first and `# duration_ms` last): the run's counts, which tapline
/// says itself, never a test's or a file's output. The file's log keeps them, as every byte.
pub(crate) fn strip_run_summary(lines: &mut Vec<String>) {
    let mut end = lines.len();
    while end > 0 && lines[end - 1].trim().is_empty() {
        end -= 1;
    }
    let mut start = end;
    let mut next = SUMMARY.len();
    while start > 0 {
        let Some(at) = summary_key(&lines[start - 1]) else {
            break;
        };
        if at >= next {
            break;
        }
        next = at;
        start -= 1;
    }
    let whole = next == 0 && end > start && summary_key(&lines[end - 1]) == Some(SUMMARY.len() - 1);
    if whole {
        lines.truncate(start);
    }
}

/// Which of node's summary lines `line` is (`# pass 3` is 2), if any.
fn summary_key(line: &str) -> Option<usize> {
    let rest = line.trim_end().strip_prefix("# ")?;
    let (key, value) = rest.split_once(' ')?;
    let number = !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit() || b == b'.');
    SUMMARY.iter().position(|k| *k == key).filter(|_| number)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_nested_errors_fields_go_back_under_its_key() {
        // node 20.20.2: assert.throws(() => JSON.parse('{"a":'), { message: /never matches/ })
        let yaml = "duration_ms: 0.8\nfailureType: 'testCodeFailure'\nerror: |-\n  Expected values to be strictly deep-equal:\ncode: 'ERR_ASSERTION'\nname: 'AssertionError'\nexpected:\n  message:\nactual:\nerror: 'Unexpected end of JSON input'\nname: 'SyntaxError'\nstack: |-\n  JSON.parse (<anonymous>)\n  parse (file:///w/t.mjs:5:15)\noperator: 'throws'\nstack: |-\n  TestContext.<anonymous> (file:///w/t.mjs:38:10)\n";
        let fixed = repair(yaml).expect("repaired");
        assert!(
            fixed.contains("actual:\n  error: 'Unexpected end of JSON input'\n  name: 'SyntaxError'\n  stack: |-\n    JSON.parse (<anonymous>)\n"),
            "{fixed}"
        );
        assert!(
            fixed.ends_with(
                "operator: 'throws'\nstack: |-\n  TestContext.<anonymous> (file:///w/t.mjs:38:10)\n"
            ),
            "{fixed}"
        );
        // Valid YAML is no repair's business.
        assert_eq!(repair("error: 'x'\ncode: 'ERR_ASSERTION'\n"), None);
    }

    #[test]
    fn a_string_in_backticks_is_read_as_that_string() {
        // node 20.20.2: assert.throws(() => { throw 'text'; }, TypeError)
        let yaml = "failureType: 'testCodeFailure'\nerror: `The error is expected to be an instance of \"TypeError\". Received \"'text'\"`\ncode: 'ERR_ASSERTION'\nactual: 'text'\n";
        let fixed = repair(yaml).expect("repaired");
        let v: Value = serde_saphyr::from_str(&fixed).expect("valid YAML");
        assert_eq!(
            v["error"],
            "The error is expected to be an instance of \"TypeError\". Received \"'text'\""
        );
        let escaped = backticked("  error: `a\\x0Bb \\\\ \"'c'\"`").expect("backticked");
        let v: Value = serde_saphyr::from_str(&escaped).expect("valid YAML");
        assert_eq!(v["error"], "a\u{b}b \\ \"'c'\"");
        assert_eq!(backticked("error: 'plain'"), None);
    }

    #[test]
    fn a_thrown_value_is_printed_as_node_prints_it() {
        let error = serde_json::json!({
            "error": "out of range",
            "name": "RangeError",
            "stack": "file:///w/t.mjs:6:11\nTestContext.<anonymous> (file:///w/t.mjs:5:10)\nnode:internal/test_runner/harness:255:12\nfile:///w/node_modules/lib/x.js:1:1",
        });
        assert_eq!(
            thrown(&error),
            "RangeError: out of range\n    at file:///w/t.mjs:6:11\n    at TestContext.<anonymous> (file:///w/t.mjs:5:10)"
        );
        assert_eq!(thrown(&diff::typed("undefined", "undefined")), "undefined");
        assert_eq!(thrown(&Value::String("it's".into())), "\"it's\"");
        assert_eq!(
            thrown(&Value::String("a 'b' \"c\"".into())),
            "'a \\'b\\' \"c\"'"
        );
        assert_eq!(thrown(&serde_json::json!(3)), "3");
    }

    #[test]
    fn the_run_summary_goes_only_whole_and_at_the_end() {
        let summary = "# tests 4\n# suites 0\n# pass 3\n# fail 1\n# cancelled 0\n# skipped 0\n# todo 0\n# duration_ms 84.9";
        let mut lines: Vec<String> = format!("printed\n{summary}\n")
            .lines()
            .map(str::to_owned)
            .collect();
        strip_run_summary(&mut lines);
        assert_eq!(lines, ["printed"]);
        // Part of it, or a test's own `# pass 3`, stays.
        let mut lines: Vec<String> = vec!["# pass 3".into(), "# fail 1".into()];
        strip_run_summary(&mut lines);
        assert_eq!(lines.len(), 2);
    }
}
