//! A Node error printed into a failing test's output rather than attached as diagnostics, as
//! tapbundle (tstest's TAP framework) prints every failure after its `not ok` line:
//!
//! ```text
//! AssertionError [ERR_ASSERTION]: Expected values to be strictly equal:
//! + actual - expected
//!
//! + 'hello world'
//! - 'hello there'
//!     at TapTest.testFunction (/w/test/assert.ts:7:10)
//!     at ModuleJob.run (node:internal/modules/esm/module_job:325:25) {
//!   generatedMessage: true,
//!   code: 'ERR_ASSERTION',
//!   actual: 'hello world',
//!   expected: 'hello there',
//!   operator: 'strictEqual'
//! }
//! ```
//!
//! read into the failure's fields: the `Name [CODE]: message` line gives the message (the
//! headline, without node's own diff) and the error's class and code (machine fields; a bare
//! `Error`, the class of anything `throw new Error(…)` threw, says nothing and is left out); the
//! `at …` lines give the stack and the location (the first frame that is not the runtime's
//! or a framework's); the trailing `{ … }` gives the values (JavaScript literals) and the
//! `operator`/`code`. Node's `+ actual - expected` block goes when the values are there (ours
//! is drawn instead) and is drawn as ours when they are not (`actual: [Object]`: util.inspect
//! stopped at its depth).
//!
//! A dump is a header line (an error class: `Error`, `TypeError`, `AssertionError [CODE]`…)
//! followed, after its message, by at least one `at …` frame; nothing else in the output is
//! touched, and only the first dump is read.
use super::{frame_location, literal, stack};
use crate::explain::diff::{self, Budget};
use serde_json::{Map, Value};

/// What one dump said, and the output's lines around it.
#[derive(Debug, Default, PartialEq)]
pub(super) struct Dump {
    pub(super) message: Option<String>,
    pub(super) location: Option<String>,
    pub(super) expected_actual: Option<(Value, Value)>,
    /// Node's own diff as a unified diff (`--- expected` / `+++ actual`), when the values
    /// are not there to diff.
    pub(super) text_diff: Option<String>,
    pub(super) stack: String,
    /// `name`, `code`, `operator`, as [`super::MACHINE`] names them.
    pub(super) machine: Vec<(String, String)>,
    /// The property object's other scalar fields (`errno`, `syscall`…).
    pub(super) other: Vec<(String, String)>,
    /// The output less the dump.
    pub(super) rest: Vec<String>,
}

/// Most lines of message read between a header and its first frame.
const MAX_MESSAGE_LINES: usize = 2000;
/// Most lines of a trailing property object.
const MAX_PROPERTY_LINES: usize = 500;
/// Node's legends over its own diff.
const LEGENDS: [&str; 2] = ["+ actual - expected", "- expected + actual"];
/// Property fields that say nothing to the reader: node's `generatedMessage`, chai's
/// `showDiff`.
const NOISE: [&str; 2] = ["generatedMessage", "showDiff"];

/// The first Node error dump in `lines`, or `None` when there is none: at the margin, or
/// indented under the point as mocha's TAP reporter writes `err.message` then `err.stack`
/// ([`read_indented`]).
pub(super) fn read(lines: &[String]) -> Option<Dump> {
    read_flush(lines).or_else(|| read_indented(lines))
}

/// mocha's `--reporter tap` writes a failure as the error's message and then its stack, each
/// line indented by two spaces, straight after the `not ok` line:
///
/// ```text
///   expected 200 got 404
///   Error: expected 200 got 404
///       at Context.<anonymous> (test/x.js:9:11)
/// ```
///
/// The indented lines from the top are read as a dump without their indent; the lines after
/// them (the test's later output, the run's `#` counts) stay output as they were.
fn read_indented(lines: &[String]) -> Option<Dump> {
    let n = lines
        .iter()
        .take_while(|l| l.starts_with(INDENT) || l.trim().is_empty())
        .count();
    let block: Vec<String> = lines[..n]
        .iter()
        .map(|l| l.strip_prefix(INDENT).unwrap_or(l.trim_start()).to_owned())
        .collect();
    let mut d = read_flush(&block)?;
    d.rest.extend_from_slice(&lines[n..]);
    Some(d)
}

/// The indent of mocha's TAP reporter under a point.
const INDENT: &str = "  ";

/// A dump whose header starts at the margin.
fn read_flush(lines: &[String]) -> Option<Dump> {
    let (start, first_frame) = find(lines)?;
    let (name, code, headline) = header(&lines[start])?;
    let mut end = first_frame;
    while end < lines.len() && (is_frame(&lines[end]) || joins_stacks(lines, end)) {
        end += 1;
        if lines[end - 1].ends_with(" {") {
            break;
        }
    }
    let mut frames: Vec<&str> = lines[first_frame..end].iter().map(|l| l.trim()).collect();
    let mut props = None;
    if let Some(last) = frames.last_mut() {
        if let Some(bare) = last.strip_suffix(" {") {
            *last = bare;
            // Without its closing brace (the output was cut) the object stays output.
            let close = lines[end..]
                .iter()
                .take(MAX_PROPERTY_LINES)
                .position(|l| l.trim_end() == "}");
            if let Some(close) = close {
                props = Some(&lines[end..end + close]);
                end += close + 1;
            }
        }
    }
    let outside = frames.iter().filter(|f| !stack::is_internal(f));
    // The project's own frame first: a library's (`node_modules/supertest/…`) only when no
    // frame is the project's.
    let location = outside
        .clone()
        .filter(|f| !f.contains("node_modules/"))
        .find_map(place)
        .or_else(|| outside.clone().find_map(place));
    let mut d = Dump {
        location: location.map(str::to_owned),
        stack: frames.join("\n"),
        ..Dump::default()
    };
    // A bare `Error` is every thrown error's class: it says nothing on the quiet line.
    if name != "Error" || code.is_some() {
        d.machine.push(("name".to_owned(), name.to_owned()));
    }
    if let Some(code) = code {
        d.machine.push(("code".to_owned(), code.to_owned()));
    }
    if let Some(props) = props {
        d.read_properties(props);
    }
    d.read_message(headline, &lines[start + 1..first_frame]);
    d.rest = lines[..start].to_vec();
    drop_echo(&mut d.rest, headline, &lines[start + 1..first_frame]);
    d.rest.extend_from_slice(&lines[end..]);
    Some(d)
}

/// The error's message printed just before its stack (mocha writes `err.message`, then
/// `err.stack`, which starts with the same message): said once, as the dump's.
fn drop_echo(before: &mut Vec<String>, headline: &str, under: &[String]) {
    let blank = |l: &String| l.trim().is_empty();
    let mut message: Vec<String> = vec![headline.to_owned()];
    message.extend_from_slice(under);
    while message.last().is_some_and(blank) {
        message.pop();
    }
    let mut end = before.len();
    while end > 0 && blank(&before[end - 1]) {
        end -= 1;
    }
    let Some(start) = end.checked_sub(message.len()) else {
        return;
    };
    let same = before[start..end]
        .iter()
        .zip(&message)
        .all(|(a, b)| a.trim_end() == b.trim_end());
    if same && !headline.is_empty() {
        before.truncate(start);
    }
}

/// supertest joins the error's stack and its `.expect()` call's with a `----` line; the
/// frames after it are the same stack's.
fn joins_stacks(lines: &[String], at: usize) -> bool {
    lines[at].trim() == "----" && lines.get(at + 1).is_some_and(|l| is_frame(l))
}

/// Where a frame points: `Fn (place)` or a bare `place`.
fn place<'a>(frame: &&'a str) -> Option<&'a str> {
    frame_location(frame).or_else(|| bare_place(frame))
}

/// The first header line with a frame under its message: its index and the first frame's.
/// A header followed by another before any frame was a line the test printed: the later one
/// heads the dump. One pass, however many lines look like headers.
fn find(lines: &[String]) -> Option<(usize, usize)> {
    let mut last_header = None;
    for (i, line) in lines.iter().enumerate() {
        if header(line).is_some() {
            last_header = Some(i);
        } else if let Some(h) = last_header {
            if i - h > MAX_MESSAGE_LINES {
                last_header = None;
            } else if is_frame(line) {
                return Some((h, i));
            }
        }
    }
    None
}

/// `Name [CODE]: message`, `Name: message` or a bare `Name`: the class, the code and the
/// message. The class is a JavaScript identifier ending in `Error` or `Exception`.
fn header(line: &str) -> Option<(&str, Option<&str>, &str)> {
    if line.starts_with(char::is_whitespace) {
        return None;
    }
    let (head, message) = match line.split_once(':') {
        Some((head, message)) => (head, message.strip_prefix(' ').unwrap_or(message)),
        None => (line.trim_end(), ""),
    };
    let (name, code) = match head.split_once(" [") {
        Some((name, code)) => {
            let code = code.strip_suffix(']')?;
            let codeish = !code.is_empty()
                && code
                    .bytes()
                    .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_');
            if !codeish {
                return None;
            }
            (name, Some(code))
        }
        None => (head, None),
    };
    let identifier = name.starts_with(|c: char| c.is_ascii_uppercase())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'$');
    let classy = name.ends_with("Error") || name.ends_with("Exception");
    (identifier && classy).then_some((name, code, message))
}

/// The place of a frame that names no function (`at file:///w/t.mjs:5:3`, a module's top
/// level).
fn bare_place(frame: &str) -> Option<&str> {
    let t = frame.strip_prefix("at ")?;
    let t = t.strip_prefix("async ").unwrap_or(t);
    (!t.contains(char::is_whitespace) && t.contains(':')).then_some(t)
}

/// Where a Node error dump printed after a failing point ends. tapbundle prints a failure as
/// `console.log(err)` straight after its `not ok` (`please note: failure allowed!` may come
/// first) and a test's own output *before* its point, so what follows the dump up to the next
/// point is the next test's output, not the failure's (protocol-spec/producers.md). Fed the
/// failure's lines one at a time; a dump is a header, its message, its frames and node's
/// trailing `{ … }`, as [`read`] reads it.
#[derive(Debug, Default)]
pub(crate) struct DumpEnd {
    state: DumpState,
}

#[derive(Debug, Default)]
enum DumpState {
    /// No header read yet.
    #[default]
    Before,
    /// A header read, then this many lines of its message.
    Message(usize),
    /// Inside its frames.
    Frames,
    /// Inside node's property object, this many lines read.
    Properties(usize),
    /// The dump is over.
    Done,
}

impl DumpEnd {
    /// Reads the failure's next line: `true` when a whole dump came before it, so the line
    /// is no longer the failure's.
    pub(crate) fn after_dump(&mut self, line: &str) -> bool {
        self.state = match std::mem::take(&mut self.state) {
            DumpState::Before if header(line).is_some() => DumpState::Message(0),
            DumpState::Before => DumpState::Before,
            DumpState::Message(_) if is_frame(line) => Self::frame(line),
            DumpState::Message(_) if header(line).is_some() => DumpState::Message(0),
            DumpState::Message(n) if n >= MAX_MESSAGE_LINES => DumpState::Before,
            DumpState::Message(n) => DumpState::Message(n + 1),
            DumpState::Frames if is_frame(line) || line.trim() == "----" => Self::frame(line),
            DumpState::Properties(_) if line.trim_end() == "}" => DumpState::Done,
            // An object never closed: what follows stays the failure's, as [`read`] leaves it
            // output.
            DumpState::Properties(n) if n >= MAX_PROPERTY_LINES => DumpState::Before,
            DumpState::Properties(n) => DumpState::Properties(n + 1),
            DumpState::Frames | DumpState::Done => {
                self.state = DumpState::Done;
                return true;
            }
        };
        false
    }

    /// The state after a frame: node's property object opens on the last frame's line.
    fn frame(line: &str) -> DumpState {
        match line.trim_end().ends_with(" {") {
            true => DumpState::Properties(0),
            false => DumpState::Frames,
        }
    }
}

/// `    at Fn (place)`, `    at place` or `    at async Fn (place)`: one V8 stack frame.
fn is_frame(line: &str) -> bool {
    if !line.starts_with(char::is_whitespace) {
        return false;
    }
    let t = line.trim();
    let t = t.strip_suffix(" {").unwrap_or(t);
    t.strip_prefix("at ")
        .is_some_and(|rest| rest.ends_with(')') || rest.contains(':'))
}

impl Dump {
    /// The message: the headline and the lines under it, less node's diff, which becomes
    /// ours when there are no values (and stays in the message when it cannot be read).
    fn read_message(&mut self, headline: &str, under: &[String]) {
        let legend = under.iter().position(|l| is_legend(l));
        let (text, block) = match legend {
            Some(k) => (&under[..k], Some((&under[k], &under[k + 1..]))),
            None => (under, None),
        };
        let mut message: Vec<&str> = vec![headline];
        message.extend(text.iter().map(String::as_str));
        if let Some((legend, block)) = block {
            if self.expected_actual.is_none() {
                self.expected_actual = diff_values(block);
            }
            if self.expected_actual.is_none() {
                match unified(block) {
                    Some(u) => self.text_diff = Some(u),
                    None => {
                        message.push(legend);
                        message.extend(block.iter().map(String::as_str));
                    }
                }
            }
        }
        let message = message.join("\n");
        let message = message.trim();
        self.message = (!message.is_empty()).then(|| message.to_owned());
    }

    /// The `{ … }` node prints after the frames: one JavaScript object, or, when util.inspect
    /// cut it short (`[Object]`) or printed something no literal reads, its one-line fields.
    fn read_properties(&mut self, lines: &[String]) {
        let text = format!("{{\n{}\n}}", lines.join("\n"));
        let fields = match literal::parse(&text) {
            Some(Value::Object(map)) => map,
            _ => line_fields(lines),
        };
        if let (Some(expected), Some(actual)) = (fields.get("expected"), fields.get("actual")) {
            self.expected_actual = Some((expected.clone(), actual.clone()));
        }
        for (key, value) in &fields {
            let scalar = match value {
                Value::String(s) => s.clone(),
                Value::Number(_) | Value::Bool(_) | Value::Null => value.to_string(),
                _ => continue,
            };
            match key.as_str() {
                "expected" | "actual" => {}
                k if NOISE.contains(&k) => {}
                "name" | "code" | "operator" => {
                    if !self.machine.iter().any(|(m, _)| m == key) {
                        self.machine.push((key.clone(), scalar));
                    }
                }
                _ => self.other.push((key.clone(), scalar)),
            }
        }
    }
}

/// The fields of a property object one line each (`  key: value,` at its first indentation)
/// whose value reads as a literal; others (`[Object]`, a value over several lines) are left out.
fn line_fields(lines: &[String]) -> Map<String, Value> {
    let mut map = Map::new();
    for line in lines {
        let Some(field) = line.strip_prefix("  ") else {
            continue;
        };
        if field.starts_with(char::is_whitespace) {
            continue;
        }
        let Some((key, value)) = field.split_once(": ") else {
            continue;
        };
        let value = value.trim_end();
        let value = value.strip_suffix(',').unwrap_or(value);
        if let Some(v) = literal::parse(value) {
            map.insert(key.trim_matches(['\'', '"']).to_owned(), v);
        }
    }
    map
}

/// Node's legend over its own diff: `+ actual - expected`, followed by `... Lines skipped`
/// when the diff leaves unchanged lines out.
pub(super) fn is_legend(line: &str) -> bool {
    let t = line.trim();
    LEGENDS.iter().any(|l| {
        t.strip_prefix(l)
            .is_some_and(|r| r.is_empty() || r.starts_with(" ..."))
    })
}

/// The two values node's diff lines spell (context and `-` lines the expected one, context
/// and `+` lines the actual one), read as util.inspect literals: they keep what node's YAML
/// loses (a class's name, `undefined`, a Symbol). `None` when lines were left out (`...`) or
/// a side does not read.
pub(super) fn diff_values<S: AsRef<str>>(block: &[S]) -> Option<(Value, Value)> {
    let (mut expected, mut actual) = (Vec::new(), Vec::new());
    for line in diff_lines(block) {
        let t = line.trim();
        if let Some(rest) = line.strip_prefix('+') {
            actual.push(rest.strip_prefix(' ').unwrap_or(rest));
        } else if let Some(rest) = line.strip_prefix('-') {
            expected.push(rest.strip_prefix(' ').unwrap_or(rest));
        } else if t.is_empty() || line.starts_with("  ") {
            let rest = line.get(2..).unwrap_or_default();
            expected.push(rest);
            actual.push(rest);
        } else {
            return None;
        }
    }
    let expected = literal::parse(&expected.join("\n"))?;
    let actual = literal::parse(&actual.join("\n"))?;
    Some((expected, actual))
}

/// The lines of node's diff block, from its first non-blank one, less the `^` lines under a
/// string that mark where it differs (the inline highlight says that).
fn diff_lines<S: AsRef<str>>(block: &[S]) -> impl Iterator<Item = &str> {
    block
        .iter()
        .map(AsRef::as_ref)
        .skip_while(|l| l.trim().is_empty())
        .filter(|l| {
            let t = l.trim();
            t.is_empty() || !t.chars().all(|c| c == '^')
        })
}

/// Node's diff lines (`+ x`, `- x`, `  x`, `...`) as a unified diff the diff renderer reads;
/// `None` if one is no diff line or nothing changed. The `^` line under a string marks where
/// it differs, which our inline highlight says: it goes.
pub(super) fn unified<S: AsRef<str>>(block: &[S]) -> Option<String> {
    let mut body = String::new();
    for line in diff_lines(block) {
        let t = line.trim();
        let converted = if let Some(rest) = line.strip_prefix("+ ") {
            format!("+{rest}")
        } else if let Some(rest) = line.strip_prefix("- ") {
            format!("-{rest}")
        } else if let Some(rest) = line.strip_prefix("  ") {
            format!(" {rest}")
        } else if t.is_empty() {
            String::new()
        } else if t.starts_with("...") {
            format!(" {t}")
        } else if line == "+" || line == "-" {
            line.to_owned()
        } else {
            return None;
        };
        body.push_str(&converted);
        body.push('\n');
    }
    let text = format!("--- expected\n+++ actual\n{}", body.trim_end_matches('\n'));
    diff::from_unified(&text, &Budget::default()).map(|_| text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn lines(text: &str) -> Vec<String> {
        text.lines().map(str::to_owned).collect()
    }

    /// The lines of `text` that [`DumpEnd`] says come after a whole dump.
    fn after_dump(text: &str) -> Vec<&str> {
        let mut end = DumpEnd::default();
        text.lines().filter(|l| end.after_dump(l)).collect()
    }

    #[test]
    fn a_dump_ends_at_its_closing_brace_or_after_its_last_frame() {
        let with_fields = "please note: failure allowed!
AssertionError [ERR_ASSERTION]: no
+ actual - expected

    at TapTest.testFunction (/w/test/a.ts:7:10) {
  code: 'ERR_ASSERTION',
  actual: false
}
next test's line
another";
        assert_eq!(after_dump(with_fields), ["next test's line", "another"]);
        let frames_only = "Error: Expected value to equal \"x\"
    at <anonymous> (/w/node_modules/@push.rocks/smartexpect/ts/a.ts:207:15)
    at TapTest.testFunction (/w/test/a.ts:12:25)
log from the next passing test";
        assert_eq!(after_dump(frames_only), ["log from the next passing test"]);
    }

    #[test]
    fn no_dump_or_an_open_one_ends_nothing() {
        // A header without frames is a line the test printed; an object never closed (the
        // output was cut) leaves the rest the failure's, as `read` leaves it output.
        assert!(after_dump("Error: only a line\nmore output\nstill more").is_empty());
        let open = format!(
            "TypeError: x\n    at f (/w/a.js:1:1) {{\n{}",
            "  field: 1,\n".repeat(MAX_PROPERTY_LINES + 5)
        );
        assert!(after_dump(&format!("{open}later")).is_empty());
    }

    /// mocha's `--reporter tap` under body-parser's failing test (supertest's joined stack).
    const MOCHA_SUPERTEST: &str = "  Unexpected token 'p', \"[parameters\"... is not valid JSON
  SyntaxError: Unexpected token 'p', \"[parameters\"... is not valid JSON
      at Context.<anonymous> (test/urlencoded.js:252:12)
      at process.processImmediate (node:internal/timers:483:21)
  ----
      at JSON.parse (<anonymous>)
      at /w/body-parser/node_modules/supertest/lib/test.js:591:13
# pass 90";

    #[test]
    fn mochas_indented_dump_is_read_its_message_once_supertests_stack_joined() {
        let d = read(&lines(MOCHA_SUPERTEST)).expect("a dump");
        assert_eq!(
            d.message.as_deref(),
            Some("Unexpected token 'p', \"[parameters\"... is not valid JSON")
        );
        assert_eq!(d.location.as_deref(), Some("test/urlencoded.js:252:12"));
        assert_eq!(
            d.machine,
            vec![("name".to_owned(), "SyntaxError".to_owned())]
        );
        assert!(d
            .stack
            .ends_with("at /w/body-parser/node_modules/supertest/lib/test.js:591:13"));
        assert_eq!(d.rest, vec!["# pass 90".to_owned()]);
    }

    #[test]
    fn a_library_frame_is_the_location_only_when_no_frame_is_the_projects() {
        let d = read(&lines(
            "Error: expected 200 \"OK\", got 404 \"Not Found\"
    at Test._assertStatus (node_modules/supertest/lib/test.js:309:14)
    at Context.<anonymous> (test/app.js:12:8)",
        ))
        .expect("a dump");
        assert_eq!(d.location.as_deref(), Some("test/app.js:12:8"));
        let d = read(&lines("Error: x\n    at f (node_modules/lib/a.js:1:2)")).expect("a dump");
        assert_eq!(d.location.as_deref(), Some("node_modules/lib/a.js:1:2"));
    }

    const STRICT: &str = "before
AssertionError [ERR_ASSERTION]: Expected values to be strictly equal:
+ actual - expected

+ 'hello world'
- 'hello there'
         ^
    at TapTest.testFunction (/w/test/assert.ts:7:10)
    at ModuleJob.run (node:internal/modules/esm/module_job:325:25)
    at async ModuleLoader.import (node:internal/modules/esm/loader:606:24) {
  generatedMessage: true,
  code: 'ERR_ASSERTION',
  actual: 'hello world',
  expected: 'hello there',
  operator: 'strictEqual'
}
after";

    #[test]
    fn a_dump_with_values_gives_them_and_drops_node_diff() {
        let d = read(&lines(STRICT)).expect("a dump");
        assert_eq!(
            d.message.as_deref(),
            Some("Expected values to be strictly equal:")
        );
        assert_eq!(
            d.expected_actual,
            Some((json!("hello there"), json!("hello world")))
        );
        assert_eq!(d.text_diff, None);
        assert_eq!(d.location.as_deref(), Some("/w/test/assert.ts:7:10"));
        assert_eq!(
            d.machine,
            [
                ("name".to_owned(), "AssertionError".to_owned()),
                ("code".to_owned(), "ERR_ASSERTION".to_owned()),
                ("operator".to_owned(), "strictEqual".to_owned()),
            ]
        );
        assert!(d.other.is_empty(), "{:?}", d.other);
        assert_eq!(d.stack.lines().count(), 3);
        assert!(d.stack.ends_with("loader:606:24)"), "{}", d.stack);
        assert_eq!(d.rest, ["before", "after"]);
    }

    #[test]
    fn placeholders_take_the_values_node_diff_spells() {
        let text = "AssertionError [ERR_ASSERTION]: Expected values to be strictly deep-equal:
+ actual - expected

  {
+   n: 1,
-   n: 2,
    tags: [
      'a'
    ]
  }
    at TapTest.testFunction (/w/test/assert.ts:16:10) {
  generatedMessage: true,
  code: 'ERR_ASSERTION',
  actual: [Object],
  expected: [Object],
  operator: 'deepStrictEqual'
}";
        let d = read(&lines(text)).expect("a dump");
        assert_eq!(
            d.expected_actual,
            Some((
                json!({"n": 2, "tags": ["a"]}),
                json!({"n": 1, "tags": ["a"]})
            ))
        );
        assert_eq!(d.text_diff, None);
        assert_eq!(
            d.message.as_deref(),
            Some("Expected values to be strictly deep-equal:")
        );
        assert!(d
            .machine
            .contains(&("operator".to_owned(), "deepStrictEqual".to_owned())));
        assert!(d.rest.is_empty());
        // Lines left out: node's diff is drawn as ours.
        let elided = text
            .replace(
                "+ actual - expected",
                "+ actual - expected ... Lines skipped",
            )
            .replace("    tags: [", "...\n    tags: [");
        let d = read(&lines(&elided)).expect("a dump");
        assert_eq!(d.expected_actual, None);
        assert_eq!(
            d.text_diff.as_deref(),
            Some(
                "--- expected\n+++ actual\n {\n+  n: 1,\n-  n: 2,\n ...\n   tags: [\n     'a'\n   ]\n }"
            )
        );
    }

    #[test]
    fn a_plain_error_and_its_system_fields() {
        let text = "Error: ENOENT: no such file, open 'x'
    at open (/w/t.js:3:1) {
  errno: -2,
  code: 'ENOENT',
  syscall: 'open'
}";
        let d = read(&lines(text)).expect("a dump");
        assert_eq!(d.message.as_deref(), Some("ENOENT: no such file, open 'x'"));
        assert_eq!(
            d.other,
            [
                ("errno".to_owned(), "-2".to_owned()),
                ("syscall".to_owned(), "open".to_owned()),
            ]
        );
        assert_eq!(d.machine, [("code".to_owned(), "ENOENT".to_owned())]);
    }

    #[test]
    fn chai_assertion_error_and_a_top_level_frame() {
        let text = "AssertionError: expected 'a' to equal 'b'
    at file:///w/test/a.mjs:5:3 {
  showDiff: true,
  actual: 'a',
  expected: 'b',
  operator: 'strictEqual'
}";
        let d = read(&lines(text)).expect("a dump");
        assert_eq!(d.message.as_deref(), Some("expected 'a' to equal 'b'"));
        assert_eq!(d.expected_actual, Some((json!("b"), json!("a"))));
        assert_eq!(d.location.as_deref(), Some("file:///w/test/a.mjs:5:3"));
        assert!(d.other.is_empty(), "{:?}", d.other);
        assert_eq!(
            d.machine,
            [
                ("name".to_owned(), "AssertionError".to_owned()),
                ("operator".to_owned(), "strictEqual".to_owned()),
            ]
        );
    }

    #[test]
    fn printed_lines_that_look_like_errors_are_no_dump() {
        for text in [
            "Error: printed by the test\nand nothing more",
            "not an Error: x\n    at f (/w/a.js:1:1)",
            "MyError: one\nTypeError: two",
            "    at f (/w/a.js:1:1)",
        ] {
            assert_eq!(read(&lines(text)), None, "{text}");
        }
        // A header printed before the real one is output, not the message.
        let d = read(&lines(
            "Error: printed\nTypeError: x\n    at f (/w/a.js:1:1)",
        ))
        .expect("one");
        assert_eq!(d.message.as_deref(), Some("x"));
        assert_eq!(d.rest, ["Error: printed"]);
        // A frame far below a header is someone else's.
        let mut far = vec!["Error: x".to_owned()];
        far.extend((0..=MAX_MESSAGE_LINES).map(|k| format!("line {k}")));
        far.push("    at f (/w/a.js:1:1)".to_owned());
        assert_eq!(read(&far), None);
        let many: Vec<String> = (0..10_000).map(|_| "Error: x".to_owned()).collect();
        assert_eq!(read(&many), None);
    }

    #[test]
    fn an_unreadable_diff_stays_in_the_message_and_an_open_object_in_the_output() {
        let text = "AssertionError: m\n+ actual - expected\n\nstray\n    at f (/w/a.js:1:1) {\n  code: 'X'";
        let d = read(&lines(text)).expect("a dump");
        assert_eq!(
            d.message.as_deref(),
            Some("m\n+ actual - expected\n\nstray")
        );
        assert_eq!(d.text_diff, None);
        assert_eq!(d.stack, "at f (/w/a.js:1:1)");
        assert_eq!(d.location.as_deref(), Some("/w/a.js:1:1"));
        assert_eq!(d.rest, ["  code: 'X'"]);
    }
}
