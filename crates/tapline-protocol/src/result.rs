//! Output that is not TAP but one verdict: a file judged by its exit status alone
//! (`exit-status`), and a runner that ends with one JSON result line (`json-result`), read
//! into the same events as TAP. The rules are written in protocol-spec/other-formats.md.
//!
//! Every line the file prints is its output, passed on as it arrives; the points come at the
//! end, once the verdict is known: the exit status (which the caller hands over, this reader
//! starting nothing) or the last line.
use super::build::{yaml_map, Builder, Point};
use super::frame::Framer;
use crate::event::{ProblemKind, Sink};

/// Which verdict the output carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResultKind {
    /// No TAP: the exit status is the verdict, one test named after the file.
    ExitStatus,
    /// One JSON result line at the end: `{"success": …, "result": {"passed": N, "failed": M}}`.
    JsonResult,
}

/// How the file's process ended, as the caller saw it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ended {
    /// Exited 0.
    pub ok: bool,
    /// How, when it did not (`exit 3`, `killed by SIGKILL`), said in the failing point.
    pub how: String,
}

pub struct ResultParser<S: Sink> {
    kind: ResultKind,
    framer: Framer,
    sink: S,
    builder: Builder,
    line_no: u64,
    /// The file's name, which its tests are named after.
    name: String,
    /// A line that may be the last, held back until another comes (json-result).
    held: Option<(u64, String)>,
    /// Blank lines after the held one, passed on if it turns out not to be the last.
    blanks: Vec<u64>,
    ended: Option<Ended>,
}

impl<S: Sink> ResultParser<S> {
    pub fn new(sink: S, kind: ResultKind) -> Self {
        ResultParser {
            kind,
            framer: Framer::new(super::DEFAULT_MAX_LINE),
            sink,
            builder: Builder::new(),
            line_no: 0,
            name: String::new(),
            held: None,
            blanks: Vec::new(),
            ended: None,
        }
    }

    /// The name its tests take (the file's path as the run shows it).
    pub fn named(mut self, name: &str) -> Self {
        self.name = name.to_owned();
        self
    }

    /// How the process ended: the verdict of an `exit-status` file.
    pub fn ended(&mut self, ended: Ended) {
        self.ended = Some(ended);
    }

    pub fn feed(&mut self, bytes: &[u8]) {
        Framer::frame_through(self, |p| &mut p.framer, Some(bytes), Self::line);
    }

    fn line(&mut self, text: &str) {
        self.line_no += 1;
        let n = self.line_no;
        if self.kind == ResultKind::JsonResult {
            if text.trim().is_empty() && self.held.is_some() {
                self.blanks.push(n);
                return;
            }
            self.release();
            if looks_like_result(text) {
                self.held = Some((n, text.to_owned()));
                return;
            }
        }
        self.builder.output(&mut self.sink, n, text);
    }

    /// Passes the held line and the blanks after it on as output: another line came.
    fn release(&mut self) {
        if let Some((n, text)) = self.held.take() {
            self.builder.output(&mut self.sink, n, &text);
        }
        for n in std::mem::take(&mut self.blanks) {
            self.builder.output(&mut self.sink, n, "");
        }
    }

    pub fn finish(mut self) -> S {
        Framer::frame_through(&mut self, |p| &mut p.framer, None, Self::line);
        let line = self.line_no;
        match self.kind {
            ResultKind::ExitStatus => self.exit_point(line),
            ResultKind::JsonResult => self.json_points(line),
        }
        self.builder.finish(&mut self.sink, line);
        self.sink
    }

    fn exit_point(&mut self, line: u64) {
        let (ok, how) = match self.ended.take() {
            Some(e) => (e.ok, e.how),
            None => (false, "its exit status is unknown".to_owned()),
        };
        let diagnostics = (!ok).then(|| yaml_map(&[("message", &how)])).flatten();
        let name = self.name.clone();
        self.builder.point(
            &mut self.sink,
            line,
            Point {
                name,
                ok,
                diagnostics,
                ..Point::default()
            },
        );
    }

    fn json_points(&mut self, line: u64) {
        let held = self.held.take();
        let read = match &held {
            Some((_, text)) => read_result(text),
            None => Err("the output does not end with one (`{\"success\": …}`)".to_owned()),
        };
        let at = held.as_ref().map_or(line, |(n, _)| *n);
        match read {
            Ok(result) => self.counted(at, &result),
            Err(why) => {
                let message = format!("failed to read the JSON result line: {why}");
                self.builder.problem(
                    &mut self.sink,
                    at,
                    ProblemKind::InvalidInput,
                    message.clone(),
                    true,
                );
                if let Some((n, text)) = &held {
                    // Not a verdict: it stays the file's output.
                    self.builder.output(&mut self.sink, *n, text);
                }
                let name = self.name.clone();
                self.builder.point(
                    &mut self.sink,
                    at,
                    Point {
                        name,
                        ok: false,
                        diagnostics: yaml_map(&[("message", &message)]),
                        ..Point::default()
                    },
                );
            }
        }
    }

    /// The points a well-formed result line stands for.
    fn counted(&mut self, line: u64, r: &JsonResult) {
        let (passed, failed, skipped) = match r.counts {
            Some(c) => c,
            // No counts: the file is one test.
            None => (u64::from(r.success), u64::from(!r.success), 0),
        };
        if r.success && failed > 0 {
            let noun = if failed == 1 { "test" } else { "tests" };
            self.builder.problem(
                &mut self.sink,
                line,
                ProblemKind::InvalidInput,
                format!("the JSON result says success, but {failed} {noun} failed"),
                true,
            );
        }
        // A failure with no failed test still fails: one more point carries its error.
        let failed = if r.success { failed } else { failed.max(1) };
        let total = passed + failed + skipped;
        let mut id = 0;
        let mut name = || {
            id += 1;
            match total {
                1 => self.name.clone(),
                _ => format!("{} #{id}", self.name),
            }
        };
        let mut points = Vec::new();
        for _ in 0..passed {
            points.push(Point {
                name: name(),
                ok: true,
                ..Point::default()
            });
        }
        for _ in 0..skipped {
            points.push(Point {
                name: name(),
                ok: true,
                skip: Some(String::new()),
                ..Point::default()
            });
        }
        for k in 0..failed {
            let diagnostics = match k {
                0 => explained(r),
                _ => None,
            };
            points.push(Point {
                name: name(),
                ok: false,
                diagnostics,
                ..Point::default()
            });
        }
        for p in points {
            self.builder.point(&mut self.sink, line, p);
        }
    }

    pub fn sink_mut(&mut self) -> &mut S {
        &mut self.sink
    }
}

/// A read result line.
#[derive(Debug, PartialEq)]
struct JsonResult {
    success: bool,
    /// passed, failed, skipped; `None` without `result`.
    counts: Option<(u64, u64, u64)>,
    error: String,
    stack: String,
}

/// Whether a line is meant as the result line: a JSON object with `success` (a malformed one
/// is still held, to say what is wrong with it).
fn looks_like_result(text: &str) -> bool {
    let t = text.trim();
    t.starts_with('{') && t.ends_with('}') && t.contains("\"success\"")
}

fn read_result(text: &str) -> Result<JsonResult, String> {
    let v: serde_json::Value =
        serde_json::from_str(text.trim()).map_err(|e| format!("it is not JSON ({e})"))?;
    let Some(success) = v.get("success").and_then(serde_json::Value::as_bool) else {
        return Err("`success` is not true or false".to_owned());
    };
    let counts = match v.get("result") {
        None | Some(serde_json::Value::Null) => None,
        Some(r) if r.is_object() => {
            let count = |key: &str| match r.get(key) {
                None => Ok(0),
                Some(n) => n
                    .as_u64()
                    .ok_or_else(|| format!("`result.{key}` is not a count")),
            };
            Some((count("passed")?, count("failed")?, count("skipped")?))
        }
        Some(_) => return Err("`result` is not an object".to_owned()),
    };
    let text_of = |key: &str| match v.get(key) {
        None | Some(serde_json::Value::Null) => String::new(),
        Some(serde_json::Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
    };
    Ok(JsonResult {
        success,
        counts,
        error: text_of("error"),
        stack: text_of("stack"),
    })
}

/// A failure's diagnostics: the error as its message, the stack, and where the stack says it
/// happened.
fn explained(r: &JsonResult) -> Option<String> {
    let message = match r.error.as_str() {
        "" => "the JSON result says it failed",
        e => e,
    };
    let at = location(&r.stack).unwrap_or_default();
    yaml_map(&[("message", message), ("at", &at), ("stack", &r.stack)])
}

/// The first frame of a stack that names a file of the project's: `path:line[:column]` from a
/// JavaScript frame (`at f (path:1:2)`, `at path:1:2`) or a `path:line:` one; a runtime's own
/// (`node:internal/…`) and a dependency's (`node_modules`) are passed over.
pub fn location(stack: &str) -> Option<String> {
    stack.lines().find_map(|frame| {
        let f = frame.trim();
        let f = f.strip_prefix("at ").unwrap_or(f);
        let inner = match (f.rfind('('), f.ends_with(')')) {
            (Some(i), true) => &f[i + 1..f.len() - 1],
            _ => f.split_whitespace().next()?,
        };
        let inner = inner.strip_prefix("file://").unwrap_or(inner);
        let located = with_line(inner)?;
        let foreign = located.starts_with("node:")
            || located.contains("node_modules/")
            || located.starts_with('<');
        (!foreign).then(|| located.to_owned())
    })
}

/// `path:line` or `path:line:column` (a trailing `:` dropped), when the text ends so.
fn with_line(text: &str) -> Option<&str> {
    let text = text.trim_end_matches(':');
    let mut parts = text.rsplitn(3, ':');
    let last = parts.next()?;
    let before = parts.next()?;
    let numeric = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    match parts.next() {
        Some(path) if numeric(last) && numeric(before) && !path.is_empty() => Some(text),
        _ if numeric(last) && !before.is_empty() && !numeric(before) => Some(text),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::{Event, Verdict};

    fn read(kind: ResultKind, bytes: &[u8], ended: Option<Ended>) -> Vec<Event<'static>> {
        let mut p = ResultParser::new(Vec::new(), kind).named("t/a.js");
        for chunk in bytes.chunks(5) {
            p.feed(chunk);
        }
        if let Some(e) = ended {
            p.ended(e);
        }
        p.finish()
    }

    fn verdict(events: &[Event<'static>]) -> Verdict<'static> {
        match events.last() {
            Some(Event::End { verdict }) => verdict.clone(),
            other => panic!("no end: {other:?}"),
        }
    }

    fn points(events: &[Event<'static>]) -> Vec<(String, bool, String)> {
        events
            .iter()
            .filter_map(|e| match e {
                Event::Assert(a) => Some((
                    a.name.to_string(),
                    a.ok,
                    a.diagnostics.as_deref().unwrap_or_default().to_owned(),
                )),
                _ => None,
            })
            .collect()
    }

    fn output(events: &[Event<'static>]) -> Vec<String> {
        events
            .iter()
            .filter_map(|e| match e {
                Event::Output { text, .. } => Some(text.to_string()),
                _ => None,
            })
            .collect()
    }

    fn ok() -> Option<Ended> {
        Some(Ended {
            ok: true,
            how: String::new(),
        })
    }

    #[test]
    fn an_exit_status_is_one_test_named_after_the_file() {
        let passed = read(ResultKind::ExitStatus, b"hello\nworld", ok());
        assert_eq!(output(&passed), ["hello", "world"]);
        assert_eq!(points(&passed), [("t/a.js".into(), true, String::new())]);
        assert!(verdict(&passed).ok);
        let failed = Some(Ended {
            ok: false,
            how: "exit 3".into(),
        });
        let failed = read(ResultKind::ExitStatus, b"boom\n", failed);
        assert_eq!(output(&failed), ["boom"]);
        assert_eq!(
            points(&failed),
            [("t/a.js".into(), false, "message: exit 3\n".into())]
        );
        let v = verdict(&failed);
        assert_eq!((v.ok, v.count, v.fail), (false, 1, 1));
        let unknown = read(ResultKind::ExitStatus, b"", None);
        assert!(!verdict(&unknown).ok, "no exit status: failed");
    }

    #[test]
    fn a_json_result_counts_its_tests() {
        let text = b"loading\n{\"success\": true, \"result\": {\"passed\": 3, \"failed\": 0}}\n\n";
        let e = read(ResultKind::JsonResult, text, None);
        assert_eq!(output(&e), ["loading"], "the result line is no output");
        let names: Vec<_> = points(&e).into_iter().map(|p| (p.0, p.1)).collect();
        assert_eq!(
            names,
            [
                ("t/a.js #1".into(), true),
                ("t/a.js #2".into(), true),
                ("t/a.js #3".into(), true)
            ]
        );
        let v = verdict(&e);
        assert_eq!((v.ok, v.count, v.pass), (true, 3, 3));
    }

    #[test]
    fn a_json_failure_is_explained_at_its_stack() {
        let line = br#"{"success": false, "error": "expected 2 to be 3", "stack": "AssertionError: expected 2 to be 3\n    at check (node:internal/x:1:2)\n    at Object.<anonymous> (/p/skills/a.test.js:12:7)\n"}"#;
        let e = read(ResultKind::JsonResult, line, None);
        let p = points(&e);
        assert_eq!(p.len(), 1);
        assert_eq!((p[0].0.as_str(), p[0].1), ("t/a.js", false));
        assert!(
            p[0].2.starts_with(
                "message: expected 2 to be 3\nat: /p/skills/a.test.js:12:7\nstack: |-\n"
            ),
            "{}",
            p[0].2
        );
        assert!(!verdict(&e).ok);
        let counted = br#"{"success": false, "result": {"passed": 1, "failed": 2}, "error": "x"}"#;
        let e = read(ResultKind::JsonResult, counted, None);
        let oks: Vec<_> = points(&e).into_iter().map(|p| p.1).collect();
        assert_eq!(oks, [true, false, false]);
        let v = verdict(&e);
        assert_eq!((v.count, v.pass, v.fail), (3, 1, 2));
    }

    #[test]
    fn a_missing_or_malformed_result_line_fails_saying_why() {
        let cases: [(&[u8], &str); 5] = [
            (b"just output\n", "the output does not end with one"),
            (
                b"{\"success\": true}\nmore output\n",
                "the output does not end with one",
            ),
            (
                b"{\"success\": \"yes\"}\n",
                "`success` is not true or false",
            ),
            (
                b"{\"success\": true, \"result\": {\"passed\": -1}}\n",
                "`result.passed` is not a count",
            ),
            (b"{\"success\": true, oops}\n", "it is not JSON"),
        ];
        for (text, why) in cases {
            let e = read(ResultKind::JsonResult, text, None);
            let v = verdict(&e);
            assert!(!v.ok, "{why}");
            assert!(
                v.reasons.iter().any(|r| r.contains(why)),
                "{why}: {:?}",
                v.reasons
            );
            let shown = output(&e).join("\n");
            let said = String::from_utf8_lossy(text);
            assert_eq!(shown, said.trim_end(), "nothing printed is lost");
        }
    }

    #[test]
    fn success_with_failed_tests_disagrees_and_fails() {
        let e = read(
            ResultKind::JsonResult,
            br#"{"success": true, "result": {"passed": 1, "failed": 1}}"#,
            None,
        );
        let v = verdict(&e);
        assert!(!v.ok);
        assert!(v
            .reasons
            .iter()
            .any(|r| r.contains("says success, but 1 test failed")));
        let one = read(ResultKind::JsonResult, br#"{"success": true}"#, None);
        assert_eq!(points(&one), [("t/a.js".into(), true, String::new())]);
    }

    #[test]
    fn any_chunking_gives_the_same_events() {
        let text = b"a\n{\"success\": true, \"result\": {\"passed\": 2}}\n";
        let whole = {
            let mut p = ResultParser::new(Vec::new(), ResultKind::JsonResult);
            p.feed(text);
            p.finish()
        };
        for size in [1, 2, 7] {
            let mut p = ResultParser::new(Vec::new(), ResultKind::JsonResult);
            for c in text.chunks(size) {
                p.feed(c);
            }
            assert_eq!(p.finish(), whole, "chunks of {size}");
        }
    }

    #[test]
    fn locations_from_stacks() {
        let cases = [
            ("Error: x\n    at f (/a/b.js:3:9)", Some("/a/b.js:3:9")),
            ("Error: x\n    at /a/b.js:3:9", Some("/a/b.js:3:9")),
            (
                "    at f (node:internal/mod:1:1)\n    at g (file:///p/t.mjs:4:2)",
                Some("/p/t.mjs:4:2"),
            ),
            (
                "    at f (/p/node_modules/x/i.js:1:1)\n    at g (src/a.ts:9:1)",
                Some("src/a.ts:9:1"),
            ),
            ("spec/a_spec.lua:12: boom", Some("spec/a_spec.lua:12")),
            ("no frames here", None),
            ("", None),
        ];
        for (stack, want) in cases {
            assert_eq!(location(stack).as_deref(), want, "{stack:?}");
        }
    }
}
