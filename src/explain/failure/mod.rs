//! Explains one failing test point: where, what, the expected/actual diff, the stack and the
//! test's own output, from whatever the producer attached (TAP YAML, v2 META and ERROR, and
//! the `#` diagnostics some producers print instead).
//!
//! Every producer says it differently; the report says it one way:
//! * **one diff**: ours, of the values. A producer's own text diff is dropped when the values
//!   are there (node:test's `+ actual - expected` block in its message, whose lines spell the
//!   values with what node's YAML loses), and shown through the same renderer when they are
//!   not (node-tap's `diff:`, node's block when it skipped lines);
//! * the producer's **machine fields** (`operator`/`compare`, `name`, `code`, `failureType`)
//!   on one quiet line: `operator deepStrictEqual · AssertionError [ERR_ASSERTION] ·
//!   hookFailed`; node:test's own ([`node_test`]: a thrown error is `TypeError: message`,
//!   node's wrapper and default kind say nothing);
//! * **runtime-internal stack frames** left out unless `-v` (see [`stack`] for which);
//! * the values as the test wrote them ([`values`]: arrays, `Infinity`, `NaN`; tape's and
//!   node:test's read from their YAML's text; [`literal`]: a Date, `undefined`, a Symbol, a
//!   class instance, Python's reprs keep what they are);
//! * Test::More's, Test2's, pytest's, bats' and Python tracebacks' `#` diagnostics read into
//!   the same fields
//!   ([`comments`]);
//! * a Node error dump printed as the output (tapbundle's failures: `AssertionError
//!   [ERR_ASSERTION]: …`, its frames, its `{ code, actual, expected, operator }`) read into
//!   them too when nothing attached said what failed ([`node_error`]); smartexpect's values,
//!   which only its message names, read from it ([`smartexpect`]).
use super::diff::{self, Budget, Diff};
use serde_json::{Map, Value};
use tapline_protocol::event::Assert;

mod ava;
pub(crate) mod comments;
pub(crate) mod crash;
mod gobuild;
mod literal;
mod luassert;
mod node_error;
pub(crate) use node_error::DumpEnd;
mod node_test;
pub(crate) use comments::strip_totals;
pub(crate) use node_test::strip_run_summary;
mod pgtap;
pub(crate) mod shell_lib;
mod smartexpect;
pub(crate) mod source_mapped;
pub mod stack;
mod tap_runner;
mod test2;
mod values;

/// What a failing point's attachments say, normalised across producers.
#[derive(Debug, Default, PartialEq)]
pub struct Details {
    pub location: Option<String>,
    pub message: Option<String>,
    pub expected_actual: Option<(Value, Value)>,
    /// The producer's own unified diff, kept only when it gave no values to diff (node-tap's
    /// `diff:`); rendered by the same diff renderer.
    pub text_diff: Option<String>,
    pub stack: Option<String>,
    /// The producer's machine fields on one line (`operator deepStrictEqual · AssertionError
    /// [ERR_ASSERTION]`).
    pub machine: Option<String>,
    /// Other diagnostics worth a line each (`source: …`).
    pub other: Vec<(String, String)>,
    /// The YAML did not parse: shown raw with the parser's complaint.
    pub raw_yaml: Option<(String, String)>,
    /// What the test printed, less the `#` diagnostics read into the fields above.
    pub output: Vec<String>,
    /// The producer's names for the diff's sides, where they are not expected and received
    /// (Rust's `left` and `right`).
    pub sides: Option<diff::Sides>,
}

impl Details {
    /// The one diff of this failure, for any renderer: of the values, or else of the
    /// producer's own text diff. `highlight` marks changed characters (values only).
    pub fn diff(&self, budget: &Budget, highlight: bool) -> Option<Diff> {
        if let Some((expected, actual)) = &self.expected_actual {
            let sides = self.sides.unwrap_or_default();
            return Some(diff::compute_sides(
                expected, actual, budget, highlight, sides,
            ));
        }
        diff::from_unified(self.text_diff.as_deref()?, budget)
    }
}

/// Keys naming the expected and actual values, in the order producers use them.
const PAIRS: [(&str, &str); 3] = [
    ("wanted", "found"),
    ("expected", "actual"),
    ("expected", "got"),
];
/// The producer's machine fields, in the order the quiet line gives them: the comparison,
/// the error's class and code, node:test's kind of failure.
const MACHINE: [&str; 6] = [
    "operator",
    "compare",
    "assertion",
    "name",
    "code",
    "failureType",
];
/// Keys that are shown elsewhere or are noise in a failure report.
const CONSUMED: [&str; 15] = [
    "diff",
    "wanted",
    "found",
    "expected",
    "actual",
    "got",
    "message",
    "error",
    "stack",
    "at",
    "location",
    "duration_ms",
    "severity",
    "type",
    "repr",
];

/// Explains a failing point from its attachments and `output`, what its test printed (its
/// `#` diagnostics are read, the rest is left in [`Details::output`]).
pub fn details(a: &Assert<'_>, output: &[String]) -> Details {
    let mut d = Details::default();
    let mut machine = Vec::new();
    let mut node_test = false;
    if let Some(yaml) = a.diagnostics.as_deref() {
        match read_diagnostics(yaml) {
            Ok((yaml, Value::Object(map))) => {
                read_yaml(&yaml, &map, &mut d, &mut machine);
                node_test = node_test::is_node_test(&map);
            }
            Ok((_, Value::Null)) => {}
            Ok((_, other)) => d.message = Some(scalar(&other)),
            // tape writes JavaScript no YAML reader takes (`actual: 'it\'s'`).
            Err(e) => match values::tape_fields(yaml) {
                Some(map) => read_yaml(yaml, &map, &mut d, &mut machine),
                None => d.raw_yaml = Some((yaml.to_owned(), first_line(&e.to_string()))),
            },
        }
    }
    if node_test {
        node_test::locate(&mut d);
    }
    if let Some(meta) = a
        .meta
        .as_deref()
        .and_then(|m| serde_json::from_str::<Value>(m).ok())
    {
        if d.location.is_none() {
            d.location = file_line(&meta);
        }
    }
    for block in a.blocks.iter().filter(|b| b.kind == "ERROR") {
        let Ok(v) = serde_json::from_str::<Value>(&block.payload) else {
            d.message
                .get_or_insert_with(|| block.payload.trim().to_owned());
            continue;
        };
        let err = v.get("error").unwrap_or(&v);
        if let Value::Object(map) = err {
            read_map(map, &mut d, &mut machine);
            printed_values(map, &mut d);
            if let Some(Value::Object(diffmap)) = map.get("diff") {
                if d.expected_actual.is_none() {
                    d.expected_actual = pair(diffmap);
                }
            }
        }
        if d.location.is_none() {
            d.location = file_line(&v);
        }
    }
    read_pytest_text(&mut d);
    read_comments(&mut d, output);
    if d.location.is_none() {
        let test = comments::unittest_method(&a.name);
        d.location = d
            .stack
            .as_deref()
            .and_then(|s| comments::traceback_location(s, test));
    }
    gobuild::read(&mut d);
    read_node_error(&mut d, &mut machine);
    read_shell_diff(&mut d);
    if node_test {
        node_test::label(&mut d, &mut machine);
    }
    d.machine = machine_line(&machine);
    if node_test {
        node_test::errors_as_values(&mut d, &machine);
    }
    if let Some((expected, actual)) = &mut d.expected_actual {
        values::normalise(expected, actual);
    }
    read_own_diff(&mut d);
    if node_test {
        node_test::headline(&mut d);
    }
    if d.expected_actual.is_some() {
        // One diff: ours replaces the producer's.
        d.text_diff = None;
    }
    d
}

/// A YAML block's text and value; node 20's duplicate keys of a nested error put back under
/// their key first ([`node_test::repair`]), the text then being the repaired one.
fn read_diagnostics(yaml: &str) -> Result<(std::borrow::Cow<'_, str>, Value), serde_saphyr::Error> {
    match serde_saphyr::from_str::<Value>(yaml) {
        Ok(v) => Ok((yaml.into(), v)),
        Err(e) => match node_test::repair(yaml) {
            Some(fixed) => match serde_saphyr::from_str::<Value>(&fixed) {
                Ok(v) => Ok((fixed.into(), v)),
                Err(_) => Err(e),
            },
            None => Err(e),
        },
    }
}

/// Expected and actual values printed as code, as the field `repr` says: Python reprs in an
/// ERROR block (`"repr": "python"`, tapline's pytest plugin), JavaScript's (`repr: js`, the
/// YAML of tapline's harness reporters: util.inspect's literal, vitest's printing). The values
/// they denote ([`literal`]), so the diff compares them as the test did (`2` a number, `'2'` a
/// string); a repr no value reads (`<object at 0x…>`) is shown as written. Two reprs that
/// differ where JSON cannot (`{1: 'a'}` against `{'1': 'a'}`, a tuple against a list) are
/// diffed as written, as pytest's `Full diff` does, never "no visual difference".
fn printed_values(map: &Map<String, Value>, d: &mut Details) {
    if !matches!(
        map.get("repr").and_then(Value::as_str),
        Some("python" | "js")
    ) {
        return;
    }
    if let Some((Value::String(e), Value::String(a))) = &d.expected_actual {
        if pair(map).as_ref() == d.expected_actual.as_ref() {
            let (expected, actual) = (literal::read(e), literal::read(a));
            d.expected_actual = Some(if e != a && diff::same(&expected, &actual) {
                (diff::bare(e), diff::bare(a))
            } else {
                (expected, actual)
            });
        }
    }
}

/// A YAML mapping's fields, its expected and actual values read from its text where the
/// producer wrote them as JavaScript ([`values::from_text`]).
fn read_yaml(
    yaml: &str,
    map: &Map<String, Value>,
    d: &mut Details,
    machine: &mut Vec<(String, String)>,
) {
    d.expected_actual = values::from_text(yaml, map);
    read_map(map, d, machine);
    printed_values(map, d);
    ava::read(map, d);
    rust_debug(map, d);
}

/// libtest's `left`/`right` (`"repr": "rust"`): each side's `Debug` text, shown as Rust prints
/// it (`3`, `"a1"`, `Point { x: 1, y: 2 }`), never re-quoted as a string of its text. Rust
/// means neither side as the expected one (`assert_eq!(3, f())` and `assert_eq!(f(), 3)` are
/// both common), so the sides are called as Rust calls them, `- left` / `+ right`, in the
/// order it prints them (as pretty_assertions' `< left` / `> right`).
fn rust_debug(map: &Map<String, Value>, d: &mut Details) {
    if map.get("repr").and_then(Value::as_str) != Some("rust") {
        return;
    }
    if let (Some(right), Some(left)) = (map.get("wanted"), map.get("found")) {
        d.expected_actual = Some((diff::bare(&scalar(left)), diff::bare(&scalar(right))));
        d.sides = Some(diff::Sides {
            expected: "left",
            received: "right",
        });
    }
}

/// Node's own diff in the message (node:test's `error:`, from its `+ actual - expected` legend
/// on) leaves it for ours. The values its lines spell are the assertion's own, with what
/// node's YAML loses (a class's name, `undefined`, a Symbol): they are the ones diffed. When
/// it left lines out and no values read elsewhere differ, its lines are the diff: two values
/// that print the same never read "no visual difference" while node saw one.
fn read_own_diff(d: &mut Details) {
    let Some(message) = d.message.as_deref() else {
        return;
    };
    let lines: Vec<&str> = message.lines().collect();
    let Some(at) = lines.iter().position(|l| node_error::is_legend(l)) else {
        return;
    };
    let block = &lines[at + 1..];
    if let Some(values) = node_error::diff_values(block) {
        d.expected_actual = Some(values);
    } else if d
        .expected_actual
        .as_ref()
        .is_none_or(|(e, a)| diff::same(e, a))
    {
        let Some(text) = node_error::unified(block) else {
            return; // Only the message shows it.
        };
        d.expected_actual = None;
        d.text_diff = Some(text);
    }
    let kept = lines[..at].join("\n");
    let kept = kept.trim_end();
    d.message = (!kept.is_empty()).then(|| kept.to_owned());
}

/// pytest's JUnit XML gives a failure's text as its own report of it (the test's source, its
/// `E` lines, `FILE.py:N: Error` closing the test's frame), which the reader keeps as the
/// stack: it is read as pytest-tap's comments of the same failure are (the location, the
/// values of `assert X == Y` or unittest's `X != Y`, the message pytest's `E` lines say), so a
/// JUnit report of a test explains it as a pytest stream does. The text stays the stack.
fn read_pytest_text(d: &mut Details) {
    let Some(stack) = &d.stack else {
        return;
    };
    let lines: Vec<String> = stack.lines().map(str::to_owned).collect();
    // pytest's only: its `E` lines and the location line that says pytest wrote them.
    if !lines.iter().any(|l| l.starts_with("E ")) {
        return;
    }
    let read = comments::read(&lines, false);
    let Some(location) = read.location else {
        return;
    };
    d.location.get_or_insert(location);
    if d.expected_actual.is_none() {
        d.expected_actual = read.expected_actual;
    }
    if read.message.is_some() {
        d.message = read.message;
    }
}

/// The `#` diagnostics in the output, and a message that is bats' own (`(in test file …)`).
///
/// bats' TAP 13 formatter (`bats --formatter tap13`) writes as `message:` every line that
/// `bats --tap` prints as a comment after the point: its stack (`(in test file …)`,
/// `(from function …`), the failed command, then what the test printed. So the stack and
/// the command are read as the location and the message, and the rest is the test's output,
/// as from `bats --tap`, before any output that followed the YAML.
fn read_comments(d: &mut Details, output: &[String]) {
    let from_output = comments::read(output, true);
    d.output = from_output.rest.clone();
    let from_message = match &d.message {
        Some(m) if is_bats_stack(m) => {
            let lines: Vec<String> = m.lines().map(str::to_owned).collect();
            let mut r = comments::read(&lines, false);
            d.message = None;
            let printed = std::mem::take(&mut r.rest);
            d.output.splice(0..0, trim_blank_edges(printed));
            Some(r)
        }
        _ => None,
    };
    for r in [Some(from_output), from_message].into_iter().flatten() {
        if d.location.is_none() {
            d.location = r.location;
        }
        if d.expected_actual.is_none() {
            d.expected_actual = r.expected_actual;
        }
        if d.stack.is_none() {
            d.stack = r.stack;
        }
        d.message = match (d.message.take(), r.message) {
            (Some(m), Some(more)) => Some(format!("{more}\n{m}")),
            (m, more) => m.or(more),
        };
    }
}

/// A message bats wrote: its stack trace's first line.
fn is_bats_stack(message: &str) -> bool {
    message.starts_with("(in test file ") || message.starts_with("(from function ")
}

/// `lines` without the blank lines at either end, which only framed what was read.
fn trim_blank_edges(mut lines: Vec<String>) -> Vec<String> {
    while lines.last().is_some_and(|l| l.trim().is_empty()) {
        lines.pop();
    }
    let lead = lines.iter().take_while(|l| l.trim().is_empty()).count();
    lines.drain(..lead);
    lines
}

/// A Node error dump in the output (tapbundle's way of explaining a failure), when nothing
/// attached said what failed: its fields fill the failure's, its lines leave the output.
fn read_node_error(d: &mut Details, machine: &mut Vec<(String, String)>) {
    if d.message.is_some() || d.stack.is_some() {
        return;
    }
    let Some(dump) = node_error::read(&d.output) else {
        return;
    };
    d.output = dump.rest;
    d.message = dump.message;
    d.stack = Some(dump.stack);
    if d.location.is_none() {
        d.location = dump.location;
    }
    if d.expected_actual.is_none() {
        d.expected_actual = dump.expected_actual.or_else(|| {
            let message = d.message.as_deref()?;
            smartexpect::values(message, d.stack.as_deref()?)
        });
    }
    if d.text_diff.is_none() {
        d.text_diff = dump.text_diff;
    }
    for (k, v) in dump.machine {
        if !machine.iter().any(|(m, _)| *m == k) {
            machine.push((k, v));
        }
    }
    d.other.extend(dump.other);
}

/// A `diff -u` among a failure's output (a shell test library's `test_cmp expect actual` in
/// verbose mode), when nothing attached gave values or a diff: the failure's diff, its lines
/// leaving the output ([`shell_lib::unified`]).
fn read_shell_diff(d: &mut Details) {
    if d.expected_actual.is_some() || d.text_diff.is_some() {
        return;
    }
    if let Some((text, rest)) = shell_lib::unified(&d.output) {
        d.text_diff = Some(text);
        d.output = rest;
    }
}

/// `operator deepStrictEqual · AssertionError [ERR_ASSERTION] · hookFailed`; a code
/// without a class is `code EACCES`.
fn machine_line(fields: &[(String, String)]) -> Option<String> {
    let get = |key: &str| {
        fields
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    };
    let mut parts = Vec::new();
    for key in ["operator", "compare", "assertion"] {
        if let Some(v) = get(key) {
            parts.push(format!("{key} {v}"));
        }
    }
    match (get("name"), get("code")) {
        (Some(name), Some(code)) => parts.push(format!("{name} [{code}]")),
        (Some(name), None) => parts.push(name.to_owned()),
        (None, Some(code)) => parts.push(format!("code {code}")),
        (None, None) => {}
    }
    if let Some(kind) = get("failureType") {
        parts.push(kind.to_owned());
    }
    if let Some(code) = get("exitCode") {
        parts.push(format!("exit code {code}"));
    }
    if let Some(signal) = get("signal") {
        parts.push(format!("signal {signal}"));
    }
    (!parts.is_empty()).then(|| parts.join(" · "))
}

fn read_map(map: &Map<String, Value>, d: &mut Details, machine: &mut Vec<(String, String)>) {
    if d.message.is_none() {
        // ava 6 writes `message: ''` for an assertion given none: no message.
        d.message = (map.get("message").or_else(|| map.get("error")))
            .map(scalar)
            .filter(|m| !m.trim().is_empty());
    }
    if d.expected_actual.is_none() {
        d.expected_actual = pair(map);
    }
    if d.text_diff.is_none() {
        d.text_diff = map.get("diff").and_then(Value::as_str).map(str::to_owned);
    }
    if d.stack.is_none() {
        d.stack = map.get("stack").map(scalar);
    }
    if d.location.is_none() {
        d.location = map
            .get("at")
            .or_else(|| map.get("location"))
            .and_then(location);
    }
    // node-tap names a thrown error's class `type` (node:test's `type` is `test`/`suite`).
    if let Some(class) = map.get("type").and_then(Value::as_str) {
        if is_error_class(class) && !machine.iter().any(|(m, _)| m == "name") {
            machine.push(("name".to_owned(), class.to_owned()));
        }
    }
    // node-tap's `t.notSame`/`t.notMatch`: what it found is what it did not want; no diff.
    if d.expected_actual.is_none() && map.contains_key("doNotWant") {
        for key in ["found", "doNotWant"] {
            if let Some(v) = map.get(key) {
                d.other.push((key.to_owned(), scalar(v)));
            }
        }
    }
    // tap's runner's account of a file's process: how it ended is all that is said of it.
    let process = tap_runner::is_process(map);
    if process {
        for (k, v) in tap_runner::ending(map) {
            if !machine.iter().any(|(m, _)| *m == k) {
                machine.push((k, v));
            }
        }
    }
    for (k, v) in map {
        if k == "doNotWant" || (process && tap_runner::is_field(k)) {
            continue;
        }
        if matches!(v, Value::Object(_) | Value::Array(_)) || CONSUMED.contains(&k.as_str()) {
            continue;
        }
        if MACHINE.contains(&k.as_str()) {
            if !machine.iter().any(|(m, _)| m == k) {
                machine.push((k.clone(), scalar(v)));
            }
        } else {
            d.other.push((k.clone(), scalar(v)));
        }
    }
}

/// `TypeError`, `AssertionError`, `DOMException`: a JavaScript error's class.
fn is_error_class(s: &str) -> bool {
    (s.ends_with("Error") || s.ends_with("Exception"))
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
}

fn pair(map: &Map<String, Value>) -> Option<(Value, Value)> {
    PAIRS
        .iter()
        .find_map(|(e, a)| Some((map.get(*e)?.clone(), map.get(*a)?.clone())))
}

fn location(v: &Value) -> Option<String> {
    match v {
        // A warm file's exit listeners run from tapline's driver: `node FILE` names no place;
        // ava 6's `at:` is its own assert.js, never the test's place.
        Value::String(s) if stack::is_internal(frame_location(s).unwrap_or(s)) => None,
        // A file URL (ava's, ES modules') is its path.
        Value::String(s) => {
            let place = frame_location(s).unwrap_or(s);
            Some(place.strip_prefix("file://").unwrap_or(place).to_owned())
        }
        Value::Object(_) => file_line(v),
        _ => None,
    }
}

/// The place in a stack frame as tape writes its `at:` (`Test.<anonymous> (/t/a.js:14:5)`).
fn frame_location(s: &str) -> Option<&str> {
    let inner = s.trim().strip_suffix(')')?;
    let place = inner.get(inner.rfind('(')? + 1..)?;
    place.contains(':').then_some(place)
}

/// `file:line:column` from `{file, line, column}` (v2 META) or node-tap's
/// `{fileName, lineNumber, columnNumber}`.
fn file_line(v: &Value) -> Option<String> {
    let field = |a: &str, b: &str| v.get(a).or_else(|| v.get(b));
    let file = field("file", "fileName")?.as_str()?;
    let mut s = file.to_owned();
    if let Some(line) = field("line", "lineNumber").and_then(Value::as_u64) {
        s.push_str(&format!(":{line}"));
        if let Some(col) = field("column", "columnNumber").and_then(Value::as_u64) {
            s.push_str(&format!(":{col}"));
        }
    }
    Some(s)
}

fn scalar(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn first_line(s: &str) -> String {
    s.lines().next().unwrap_or("").to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::borrow::Cow;

    fn failing(yaml: &str) -> Assert<'static> {
        Assert {
            diagnostics: Some(Cow::Owned(yaml.to_owned())),
            ..Assert::plain(false, "t")
        }
    }

    /// Issue 25: tapline's pytest plugin writes the compared values as Python reprs.
    #[test]
    fn python_reprs_in_an_error_block_are_their_values() {
        let error = |payload: &str| Assert {
            blocks: vec![tapline_protocol::event::Block {
                kind: Cow::Borrowed("ERROR"),
                payload: Cow::Owned(payload.to_owned()),
                unterminated: false,
            }],
            ..Assert::plain(false, "t")
        };
        let d = details(
            &error(
                r#"{"error": {"message": "assert x", "operator": "==", "expected": "{'a': [1, None]}", "actual": "'it\\'s'", "repr": "python"}, "file": "tests/test_a.py", "line": 3}"#,
            ),
            &[],
        );
        assert_eq!(d.location.as_deref(), Some("tests/test_a.py:3"), "{d:?}");
        let (expected, actual) = d.expected_actual.expect("values");
        assert_eq!(expected["a"][0], json!(1));
        assert_eq!(actual, json!("it's"));
        assert!(
            d.other.is_empty(),
            "`repr` is no diagnostic of its own: {:?}",
            d.other
        );
        // Without the mark, a string is a string.
        let d = details(
            &error(r#"{"error": {"expected": "'a'", "actual": "'b'"}}"#),
            &[],
        );
        assert_eq!(d.expected_actual, Some((json!("'a'"), json!("'b'"))));
    }

    #[test]
    fn node_test_message_loses_its_own_diff_and_machine_fields_fold() {
        let yaml = "error: |-\n  Expected values to be strictly deep-equal:\n  + actual - expected\n\n    [\n  +   2\n  -   3\n    ]\ncode: 'ERR_ASSERTION'\nname: 'AssertionError'\nexpected:\n  0: 3\nactual:\n  0: 2\noperator: 'deepStrictEqual'\nfailureType: 'testCodeFailure'\n";
        let d = details(&failing(yaml), &[]);
        assert_eq!(
            d.message.as_deref(),
            Some("Expected values to be strictly deep-equal:")
        );
        assert_eq!(
            d.machine.as_deref(),
            // node:test's default kind of failure (the test's code threw) says nothing.
            Some("operator deepStrictEqual · AssertionError [ERR_ASSERTION]")
        );
        assert_eq!(d.expected_actual, Some((json!([3]), json!([2]))));
        assert!(d.other.is_empty(), "{:?}", d.other);
    }

    #[test]
    fn node_tap_diff_is_kept_only_without_values_and_its_at_is_a_location() {
        let yaml = "compare: ===\nat:\n  fileName: t/a.js\n  lineNumber: 11\n  columnNumber: 5\ndiff: |\n  --- expected\n  +++ actual\n  -a\n  +b\n";
        let d = details(&failing(yaml), &[]);
        assert_eq!(d.location.as_deref(), Some("t/a.js:11:5"));
        assert_eq!(d.machine.as_deref(), Some("compare ==="));
        assert!(d.diff(&Budget::default(), false).is_some());
        // With the values there, theirs goes: one diff.
        let d = details(&failing(&format!("{yaml}found: b\nwanted: a\n")), &[]);
        assert_eq!(d.text_diff, None);
        assert_eq!(d.expected_actual, Some((json!("a"), json!("b"))));
    }

    #[test]
    fn tape_at_is_the_place_in_the_frame_and_a_lone_code_says_so() {
        let yaml = "operator: equal\nat: Test.<anonymous> (/w/t/a.js:14:5)\ncode: EACCES\n";
        let d = details(&failing(yaml), &[]);
        assert_eq!(d.location.as_deref(), Some("/w/t/a.js:14:5"));
        assert_eq!(d.machine.as_deref(), Some("operator equal · code EACCES"));
    }

    #[test]
    fn a_warm_files_exit_listener_has_no_place_as_under_node_alone() {
        // tape 2.3.3's "test exited without ending", its listener run by tapline's driver.
        let yaml = "operator: fail\nat: emulateExit (/tmp/tapline-trace-0/warm-d788e5e24bd011b3/tapline-warm.cjs:353:32)\n";
        assert_eq!(details(&failing(yaml), &[]).location, None);
    }

    /// The diff's lines as text, without styles.
    fn diff_lines(d: &Details) -> Vec<String> {
        d.diff(&Budget::default(), false)
            .map(|diff| diff.lines.iter().map(diff::DiffLine::plain_text).collect())
            .unwrap_or_default()
    }

    #[test]
    fn tape_inspected_literals_are_the_values_they_denote() {
        // tape 5.10.2 (object-inspect 1.14.0), node 20.20.2: `t.equal('uri://a/', 'uri://b/')`.
        let yaml = "  operator: equal\n  expected: |-\n    'uri://b/'\n  actual: |-\n    'uri://a/'\n  at: Test.<anonymous> (/tmp/p/tape-values.js:5:5)\n";
        let d = details(&failing(yaml), &[]);
        assert_eq!(
            d.expected_actual,
            Some((json!("uri://b/"), json!("uri://a/")))
        );
        assert_eq!(d.location.as_deref(), Some("/tmp/p/tape-values.js:5:5"));
        // `t.deepEqual(new Foo(), { a: 1 })`: the class is part of the value.
        let yaml = "  operator: deepEqual\n  expected: |-\n    { a: 1 }\n  actual: |-\n    Foo { a: 1 }\n  at: Test.<anonymous> (/tmp/p/tape-values.js:12:5)\n";
        let d = details(&failing(yaml), &[]);
        let lines = diff_lines(&d);
        assert!(
            lines.contains(&"- {".to_owned()) && lines.contains(&"+ Foo {".to_owned()),
            "{lines:?}"
        );
        // `t.equal("it's", 'it"s')`: JavaScript no YAML reader takes, read all the same.
        let yaml = "  operator: equal\n  expected: 'it\"s'\n  actual:   'it\\'s'\n  at: Test.<anonymous> (/tmp/p/tape-values.js:14:5)\n";
        let d = details(&failing(yaml), &[]);
        assert_eq!(d.raw_yaml, None);
        assert_eq!(d.expected_actual, Some((json!("it\"s"), json!("it's"))));
        assert_eq!(d.machine.as_deref(), Some("operator equal"));
        assert_eq!(d.location.as_deref(), Some("/tmp/p/tape-values.js:14:5"));
    }

    #[test]
    fn node_test_dates_undefined_symbols_and_classes_stay_what_they_are() {
        // node 20.20.2, `node --test --test-reporter=tap` (stack and location left out).
        let head = "failureType: 'testCodeFailure'\nerror: |-\n  Expected values to be strictly deep-equal:\n  + actual - expected\n  \n";
        let tail = "code: 'ERR_ASSERTION'\nname: 'AssertionError'\n";
        // deepStrictEqual({ d: new Date(0) }, { d: '1970-01-01T00:00:00.000Z' })
        let yaml = format!(
            "{head}    {{\n  +   d: 1970-01-01T00:00:00.000Z\n  -   d: '1970-01-01T00:00:00.000Z'\n    }}\n{tail}expected:\n  d: '1970-01-01T00:00:00.000Z'\nactual:\n  d: 1970-01-01T00:00:00.000Z\noperator: 'deepStrictEqual'\n"
        );
        let d = details(&failing(&yaml), &[]);
        assert_eq!(
            diff_lines(&d)[3..],
            [
                "  {",
                "-   \"d\": \"1970-01-01T00:00:00.000Z\",",
                "+   \"d\": 1970-01-01T00:00:00.000Z,",
                "  }"
            ]
        );
        assert_eq!(
            d.message.as_deref(),
            Some("Expected values to be strictly deep-equal:")
        );
        // deepStrictEqual({ u: undefined }, { u: null }): node's YAML has no `u` in actual.
        let yaml = format!(
            "{head}    {{\n  +   u: undefined\n  -   u: null\n    }}\n{tail}expected:\n  u: ~\nactual:\noperator: 'deepStrictEqual'\n"
        );
        let d = details(&failing(&yaml), &[]);
        assert_eq!(
            d.expected_actual,
            Some((
                json!({"u": null}),
                json!({"u": diff::typed("undefined", "undefined")})
            ))
        );
        // strictEqual(Symbol('x'), 'Symbol(x)'): no values in the YAML at all.
        let yaml = "failureType: 'testCodeFailure'\nerror: |-\n  Expected values to be strictly equal:\n  + actual - expected\n  \n  + Symbol(x)\n  - 'Symbol(x)'\ncode: 'ERR_ASSERTION'\nname: 'AssertionError'\n";
        let d = details(&failing(yaml), &[]);
        assert_eq!(
            diff_lines(&d),
            [
                "- Expected: \"Symbol(x)\"",
                "+ Received: Symbol(x)",
                "",
                "(different types: string vs symbol)"
            ]
        );
        // strictEqual(undefined, 'undefined'): node writes no `actual:`.
        let yaml = "failureType: 'testCodeFailure'\nerror: |-\n  Expected values to be strictly equal:\n  + actual - expected\n  \n  + undefined\n  - 'undefined'\ncode: 'ERR_ASSERTION'\nname: 'AssertionError'\nexpected: 'undefined'\noperator: 'strictEqual'\n";
        let d = details(&failing(yaml), &[]);
        assert_eq!(
            d.expected_actual,
            Some((json!("undefined"), diff::typed("undefined", "undefined")))
        );
        // deepStrictEqual(new Foo(), { a: 1 }): the YAML has the same `a: 1` on both sides.
        let yaml = format!(
            "{head}  + Foo {{\n  - {{\n      a: 1\n    }}\n{tail}expected:\n  a: 1\nactual:\n  a: 1\noperator: 'deepStrictEqual'\n"
        );
        let d = details(&failing(&yaml), &[]);
        assert_eq!(
            diff_lines(&d)[3..],
            ["- {", "+ Foo {", "    \"a\": 1,", "  }"]
        );
    }

    #[test]
    fn node_test_diff_with_lines_left_out_falls_back_on_the_yaml_then_on_its_own_lines() {
        // node 20.20.2: a Date against its ISO string among 12 keys; node's diff skips lines,
        // so the YAML's values are read, the Date as a Date by its plain scalar.
        let keys = |k5: &str| {
            (0..12)
                .map(|i| {
                    if i == 5 {
                        format!("  k5: {k5}\n")
                    } else {
                        format!("  k{i}: {i}\n")
                    }
                })
                .collect::<String>()
        };
        let head = "failureType: 'testCodeFailure'\nerror: |-\n  Expected values to be strictly deep-equal:\n  + actual - expected ... Lines skipped\n  \n    {\n      k0: 0,\n  ...\n      k3: 3,\n      k4: 4,\n";
        let tail = "      k6: 6,\n  ...\n      k8: 8,\n      k9: 9\n    }\ncode: 'ERR_ASSERTION'\nname: 'AssertionError'\n";
        let yaml = format!(
            "{head}  +   k5: 1970-01-01T00:00:00.000Z,\n  -   k5: '1970-01-01T00:00:00.000Z',\n{tail}expected:\n{}actual:\n{}operator: 'deepStrictEqual'\n",
            keys("'1970-01-01T00:00:00.000Z'"),
            keys("1970-01-01T00:00:00.000Z"),
        );
        let d = details(&failing(&yaml), &[]);
        let lines = diff_lines(&d);
        assert!(
            lines.contains(&"-   \"k5\": \"1970-01-01T00:00:00.000Z\",".to_owned())
                && lines.contains(&"+   \"k5\": 1970-01-01T00:00:00.000Z,".to_owned()),
            "{lines:?}"
        );
        assert_eq!(
            d.message.as_deref(),
            Some("Expected values to be strictly deep-equal:")
        );
        // A class instance among them: the YAML's values print the same, node's lines are
        // the diff.
        let tail = "  ...\n      k8: 8,\n      k9: 9\n    }\ncode: 'ERR_ASSERTION'\nname: 'AssertionError'\n";
        let fields = keys("\n    a: 1").replace("k5: \n", "k5:\n");
        let yaml = format!(
            "{head}  +   k5: Foo {{\n  -   k5: {{\n        a: 1\n{tail}expected:\n{fields}actual:\n{fields}operator: 'deepStrictEqual'\n",
        );
        let d = details(&failing(&yaml), &[]);
        assert_eq!(d.expected_actual, None);
        let lines = diff_lines(&d);
        assert!(
            lines.contains(&"+   k5: Foo {".to_owned()) && lines.contains(&"-   k5: {".to_owned()),
            "{lines:?}"
        );
        assert_eq!(
            d.message.as_deref(),
            Some("Expected values to be strictly deep-equal:")
        );
    }

    #[test]
    fn test_more_strings_read_as_written_and_undef_stays_a_word() {
        // perl 5.36.0, Test::More 1.302190, diagnostics merged into stdout.
        let output = |got: &str, expected: &str| -> Vec<String> {
            vec![
                "#   Failed test 'json text'".to_owned(),
                "#   at values.t line 3.".to_owned(),
                format!("#          got: {got}"),
                format!("#     expected: {expected}"),
            ]
        };
        let d = details(
            &Assert::plain(false, "json text"),
            &output("'\"\\u00b6\"'", "'\"\\x{b6}\"'"),
        );
        assert_eq!(diff_lines(&d)[3..], ["- '\"\\x{b6}\"'", "+ '\"\\u00b6\"'"]);
        let d = details(&Assert::plain(false, "t"), &output("undef", "'undef'"));
        assert_eq!(
            diff_lines(&d),
            ["- Expected: \"undef\"", "+ Received: undef"]
        );
        // A tab only an escape shows: JSON's quotes and escapes.
        let d = details(&Assert::plain(false, "t"), &output("'tab\t '", "'tab'"));
        assert_eq!(diff_lines(&d)[3..], ["- \"tab\"", "+ \"tab\\t \""]);
        let d = details(
            &Assert::plain(false, "t"),
            &output("'it's \"x\"'", "'it's'"),
        );
        assert_eq!(diff_lines(&d)[3..], ["- 'it's'", "+ 'it's \"x\"'"]);
    }

    #[test]
    fn comment_diagnostics_fill_the_fields_and_leave_the_rest() {
        let output: Vec<String> = [
            "# Subtest: t",
            "#   Failed test 't'",
            "#   at t/a.t line 3.",
            "#          got: 'x'",
            "#     expected: 'y'",
            "printed by the test",
        ]
        .map(str::to_owned)
        .to_vec();
        let d = details(&Assert::plain(false, "t"), &output);
        assert_eq!(d.location.as_deref(), Some("t/a.t:3"));
        assert_eq!(d.expected_actual, Some((json!("y"), json!("x"))));
        assert_eq!(d.output, ["printed by the test"]);
    }
}
