//! JUnit XML (pytest `--junitxml`, Maven Surefire, the JUnit 5 console launcher, jest-junit,
//! mocha, nextest) as TAP events, read once the document is complete.
//!
//! Each `<testsuite>` is a subtest (nested suites nest), each `<testcase>` a point: a
//! `<failure>` or `<error>` fails it with its message, type and text as diagnostics,
//! `<skipped>` skips it (pytest's `xfail` is a TODO), its `<system-out>`/`<system-err>` go out
//! as output before it. The mapping is written in protocol-spec/other-formats.md.
use super::build::{yaml_map, Builder, Point};
use super::frame::Framer;
use crate::event::{ProblemKind, Sink};
use quick_xml::events::{BytesStart, Event as Xml};
use quick_xml::Reader;

/// Largest JUnit document kept for parsing; past it the input is refused with a problem.
const MAX_DOCUMENT: usize = 512 * 1024 * 1024;

/// A JUnit XML reader feeding a [`Sink`]: [`feed`](Self::feed) gathers the document,
/// [`finish`](Self::finish) reads it.
pub struct JunitParser<S: Sink> {
    sink: S,
    builder: Builder,
    /// The document being gathered (stream mode).
    doc: Vec<u8>,
    too_large: bool,
    /// Report mode: the command's own output, framed into lines shown as they come; the
    /// documents come from report files ([`add_document`](Self::add_document)).
    console: Option<Framer>,
    console_lines: u64,
    documents: usize,
}

#[derive(Default)]
struct Case {
    name: String,
    classname: String,
    time: Option<f64>,
    line: u64,
    failure: Option<Failure>,
    skipped: Option<(String, bool)>,
    out: String,
    err: String,
    /// Surefire's `flakyFailure`/`rerunFailure`: failed runs before the one that counts.
    reruns: u32,
}

#[derive(Default)]
struct Failure {
    message: String,
    kind: String,
    text: String,
    error: bool,
}

/// Where text inside an element goes.
#[derive(Clone, Copy, PartialEq)]
enum Into {
    Nothing,
    Failure,
    Skipped,
    Out,
    Err,
    SuiteOut,
}

impl<S: Sink> JunitParser<S> {
    /// Reads one JUnit XML document from the fed bytes.
    pub fn new(sink: S) -> Self {
        JunitParser {
            sink,
            builder: Builder::new(),
            doc: Vec::new(),
            too_large: false,
            console: None,
            console_lines: 0,
            documents: 0,
        }
    }

    /// Fed bytes are a command's console output, shown line by line; the results come from
    /// report files given to [`add_document`](Self::add_document).
    pub fn for_reports(sink: S) -> Self {
        let mut p = Self::new(sink);
        p.console = Some(Framer::new(super::DEFAULT_MAX_LINE));
        p
    }

    pub fn feed(&mut self, bytes: &[u8]) {
        if let Some(framer) = self.console.as_mut() {
            let (builder, sink, n) = (&mut self.builder, &mut self.sink, &mut self.console_lines);
            framer.feed(bytes, |l| {
                *n += 1;
                builder.output(sink, *n, l.text);
            });
            return;
        }
        if self.doc.len() + bytes.len() > MAX_DOCUMENT {
            self.too_large = true;
            return;
        }
        self.doc.extend_from_slice(bytes);
    }

    /// Reads one complete document (a report file) now; `source` names it in problems.
    pub fn add_document(&mut self, source: &str, bytes: &[u8]) {
        self.documents += 1;
        read_document(&mut self.builder, &mut self.sink, source, bytes);
    }

    /// A problem with the reports themselves (none found, one unreadable).
    pub fn report_problem(&mut self, message: String) {
        self.builder
            .problem(&mut self.sink, 0, ProblemKind::InvalidInput, message, true);
    }

    pub fn finish(mut self) -> S {
        if let Some(mut framer) = self.console.take() {
            let (builder, sink, n) = (&mut self.builder, &mut self.sink, &mut self.console_lines);
            framer.finish(|l| {
                *n += 1;
                builder.output(sink, *n, l.text);
            });
        } else if self.too_large {
            self.builder.problem(
                &mut self.sink,
                0,
                ProblemKind::InvalidInput,
                format!(
                    "the JUnit XML is larger than {} MiB",
                    MAX_DOCUMENT / 1024 / 1024
                ),
                true,
            );
        } else {
            let doc = std::mem::take(&mut self.doc);
            self.documents += 1;
            read_document(&mut self.builder, &mut self.sink, "the JUnit XML", &doc);
        }
        self.builder.finish(&mut self.sink, 0);
        self.sink
    }

    pub fn sink(&self) -> &S {
        &self.sink
    }

    pub fn sink_mut(&mut self) -> &mut S {
        &mut self.sink
    }
}

/// 1-based line of a byte offset.
fn line_at(bytes: &[u8], offset: u64) -> u64 {
    let end = (offset as usize).min(bytes.len());
    memchr::memchr_iter(b'\n', &bytes[..end]).count() as u64 + 1
}

fn attr(e: &BytesStart<'_>, key: &[u8]) -> Option<String> {
    e.attributes()
        .flatten()
        .find(|a| a.key.as_ref() == key)
        .map(
            |a| match a.normalized_value(quick_xml::XmlVersion::Implicit1_0) {
                Ok(v) => v.into_owned(),
                Err(_) => String::from_utf8_lossy(&a.value).into_owned(),
            },
        )
}

/// `0.012`, and the locale forms some Surefire versions write (`1,234.5`, `1.234,5`,
/// `0,002`), as milliseconds: the last separator is the decimal one; a lone comma is too.
fn millis(e: &BytesStart<'_>) -> Option<f64> {
    let t = attr(e, b"time")?;
    let t = t.trim();
    let normal = match (t.rfind('.'), t.rfind(',')) {
        (Some(dot), Some(comma)) if comma > dot => t.replace('.', "").replace(',', "."),
        (Some(_), Some(_)) => t.replace(',', ""),
        (None, Some(_)) if t.matches(',').count() == 1 => t.replace(',', "."),
        (None, Some(_)) => t.replace(',', ""),
        _ => t.to_owned(),
    };
    let secs: f64 = normal.parse().ok()?;
    (secs.is_finite() && secs >= 0.0).then_some(secs * 1000.0)
}

/// Reads one document into the builder; every suite it opened is closed before it returns.
fn read_document(builder: &mut Builder, sink: &mut dyn Sink, source: &str, bytes: &[u8]) {
    let text = String::from_utf8_lossy(bytes);
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    let mut reader = Reader::from_str(text);
    let mut doc = Doc {
        base: builder.depth(),
        builder,
        sink,
        source,
        suites: Vec::new(),
        case: None,
        into: Into::Nothing,
        suite_out: String::new(),
        root_seen: false,
        found_suite: false,
        open: 0,
    };
    let error = loop {
        let pos = reader.buffer_position();
        let event = match reader.read_event() {
            Ok(e) => e,
            Err(e) => {
                let line = line_at(text.as_bytes(), reader.error_position());
                break Some(format!(
                    "failed to parse {source} at line {line}: {}",
                    first_line(&e.to_string())
                ));
            }
        };
        let line = line_at(text.as_bytes(), pos);
        match event {
            Xml::Start(ref e) | Xml::Empty(ref e) => {
                if let Err(message) = doc.start(e, matches!(event, Xml::Empty(_)), line) {
                    break Some(message);
                }
            }
            Xml::End(ref e) => doc.end(e.local_name().as_ref(), line),
            Xml::Text(t) => doc.text(&t.decode().map(|s| s.into_owned()).unwrap_or_default()),
            Xml::CData(t) => doc.text(&t.decode().map(|s| s.into_owned()).unwrap_or_default()),
            Xml::GeneralRef(r) => doc.text(&general_ref(&r)),
            Xml::Eof if doc.open > 0 => {
                break Some(format!(
                    "{source} ended inside an element: the document is cut short"
                ))
            }
            Xml::Eof => break None,
            _ => {}
        }
    };
    doc.finish(line_at(text.as_bytes(), text.len() as u64), error);
}

/// An entity or character reference's text (`&amp;` is `&`); an unknown one stays as written.
fn general_ref(r: &quick_xml::events::BytesRef<'_>) -> String {
    match r.resolve_char_ref() {
        Ok(Some(c)) => c.to_string(),
        _ => match r.decode().as_deref() {
            Ok("amp") => "&".into(),
            Ok("lt") => "<".into(),
            Ok("gt") => ">".into(),
            Ok("quot") => "\"".into(),
            Ok("apos") => "'".into(),
            Ok(other) => format!("&{other};"),
            Err(_) => String::new(),
        },
    }
}

/// One document being read: the suites and the case open, and where text goes.
struct Doc<'a, 'b> {
    builder: &'a mut Builder,
    sink: &'b mut dyn Sink,
    source: &'a str,
    /// The builder's depth before the document: what `finish` closes down to.
    base: u32,
    suites: Vec<(String, Option<f64>)>,
    case: Option<Case>,
    into: Into,
    suite_out: String,
    root_seen: bool,
    found_suite: bool,
    /// Open elements, to tell a truncated document (quick-xml accepts one at its end).
    open: usize,
}

impl Doc<'_, '_> {
    /// An element opens (`empty`: and closes at once); the error when the root is not JUnit's.
    fn start(&mut self, e: &BytesStart<'_>, empty: bool, line: u64) -> Result<(), String> {
        if !empty {
            self.open += 1;
        }
        let tag = e.local_name();
        let tag = tag.as_ref();
        if !self.root_seen {
            self.root_seen = true;
            if tag != b"testsuites" && tag != b"testsuite" {
                return Err(format!(
                    "{} is not JUnit XML: its root element is <{}>, not <testsuites> or <testsuite>",
                    self.source,
                    String::from_utf8_lossy(tag)
                ));
            }
        }
        match tag {
            b"testsuite" => self.start_suite(e, empty, line),
            b"testcase" => {
                let c = Case {
                    name: attr(e, b"name").unwrap_or_default(),
                    classname: attr(e, b"classname").unwrap_or_default(),
                    time: millis(e),
                    line,
                    ..Case::default()
                };
                if empty {
                    self.emit(c);
                } else {
                    self.case = Some(c);
                }
            }
            b"failure" | b"error" if self.case.is_some() => self.failure(e, empty, tag),
            b"skipped" => {
                if let Some(c) = self.case.as_mut() {
                    let xfail = attr(e, b"type").is_some_and(|t| t == "pytest.xfail");
                    c.skipped = Some((attr(e, b"message").unwrap_or_default(), xfail));
                    self.into = if empty { Into::Nothing } else { Into::Skipped };
                }
            }
            b"flakyFailure" | b"flakyError" | b"rerunFailure" | b"rerunError" => {
                if let Some(c) = self.case.as_mut() {
                    c.reruns += 1;
                }
                self.into = Into::Nothing;
            }
            b"system-out" if !empty => {
                self.into = if self.case.is_some() {
                    Into::Out
                } else {
                    Into::SuiteOut
                }
            }
            b"system-err" if !empty => {
                self.into = if self.case.is_some() {
                    Into::Err
                } else {
                    Into::SuiteOut
                }
            }
            _ => {}
        }
        Ok(())
    }

    fn start_suite(&mut self, e: &BytesStart<'_>, empty: bool, line: u64) {
        self.found_suite = true;
        flush_suite_out(self.builder, self.sink, line, &mut self.suite_out);
        let name = attr(e, b"name").unwrap_or_default();
        let name = if name.is_empty() {
            "(unnamed suite)".to_owned()
        } else {
            name
        };
        self.builder.start_subtest(self.sink, line, &name);
        self.suites.push((name, millis(e)));
        if empty {
            end_suite(self.builder, self.sink, line, &mut self.suites);
        }
    }

    /// A case's first `<failure>` or `<error>` is its failure; later ones are not read.
    fn failure(&mut self, e: &BytesStart<'_>, empty: bool, tag: &[u8]) {
        let Some(c) = self.case.as_mut() else {
            return;
        };
        if c.failure.is_none() {
            c.failure = Some(Failure {
                message: attr(e, b"message").unwrap_or_default(),
                kind: attr(e, b"type").unwrap_or_default(),
                text: String::new(),
                error: tag == b"error",
            });
            self.into = if empty { Into::Nothing } else { Into::Failure };
        } else {
            self.into = Into::Nothing;
        }
    }

    fn end(&mut self, tag: &[u8], line: u64) {
        self.open = self.open.saturating_sub(1);
        match tag {
            b"testsuite" => {
                flush_suite_out(self.builder, self.sink, line, &mut self.suite_out);
                end_suite(self.builder, self.sink, line, &mut self.suites);
            }
            b"testcase" => {
                if let Some(c) = self.case.take() {
                    self.emit(c);
                }
                self.into = Into::Nothing;
            }
            b"failure" | b"error" | b"skipped" | b"system-out" | b"system-err" => {
                self.into = Into::Nothing
            }
            _ => {}
        }
    }

    fn text(&mut self, s: &str) {
        push_text(&mut self.case, &mut self.suite_out, self.into, s);
    }

    /// A finished case, in the innermost open suite.
    fn emit(&mut self, c: Case) {
        let suite = self.suites.last().map(|s| s.0.as_str()).unwrap_or("");
        emit_case(self.builder, self.sink, c, suite);
    }

    /// The document ended at `line` (`error`: cut short or unreadable): what is open closes,
    /// failed, and its problem goes to the document's level, so the verdict names it.
    fn finish(mut self, line: u64, error: Option<String>) {
        let source = self.source;
        if let Some(mut c) = self.case.take() {
            // A case the document did not finish did not report a pass.
            c.failure.get_or_insert_with(|| Failure {
                message: format!("{source} ended inside this <testcase>"),
                ..Failure::default()
            });
            self.emit(c);
        }
        let unclosed = !self.suites.is_empty();
        while self.builder.depth() > self.base {
            let (name, duration_ms) = self.suites.pop().unwrap_or_default();
            let point = Point {
                name,
                ok: false,
                duration_ms,
                ..Point::default()
            };
            self.builder.end_subtest(self.sink, line, point);
        }
        let problem = if let Some(message) = error {
            Some((ProblemKind::InvalidInput, message))
        } else if !self.found_suite && self.root_seen {
            Some((ProblemKind::NoPlan, format!("{source} has no <testsuite>")))
        } else if !self.found_suite {
            Some((
                ProblemKind::NoPlan,
                format!("{source} is empty: no JUnit XML in it"),
            ))
        } else if unclosed {
            Some((
                ProblemKind::UnterminatedSubtest,
                format!("{source} ended inside a <testsuite>"),
            ))
        } else {
            None
        };
        if let Some((kind, message)) = problem {
            self.builder.problem(self.sink, line, kind, message, true);
        }
    }
}

fn push_text(case: &mut Option<Case>, suite_out: &mut String, into: Into, s: &str) {
    match (into, case.as_mut()) {
        (Into::Failure, Some(c)) => {
            if let Some(f) = c.failure.as_mut() {
                f.text.push_str(s)
            }
        }
        (Into::Skipped, Some(c)) => {
            if let Some(sk) = c.skipped.as_mut() {
                if sk.0.is_empty() {
                    sk.0.push_str(s)
                }
            }
        }
        (Into::Out, Some(c)) => c.out.push_str(s),
        (Into::Err, Some(c)) => c.err.push_str(s),
        (Into::SuiteOut, _) => suite_out.push_str(s),
        _ => {}
    }
}

fn flush_suite_out(builder: &mut Builder, sink: &mut dyn Sink, line: u64, out: &mut String) {
    let metadata = is_launcher_metadata(out);
    for l in out.trim_matches('\n').lines() {
        if metadata && (l.starts_with("unique-id: ") || l.starts_with("display-name: ")) {
            continue;
        }
        builder.output(sink, line, l);
    }
    out.clear();
}

fn end_suite(
    builder: &mut Builder,
    sink: &mut dyn Sink,
    line: u64,
    suites: &mut Vec<(String, Option<f64>)>,
) {
    let (name, duration_ms) = suites.pop().unwrap_or_default();
    builder.end_subtest(
        sink,
        line,
        Point {
            name,
            ok: true,
            duration_ms,
            ..Point::default()
        },
    );
}

/// JUnit's and AssertJ's `expected: <1> but was: <2>`, for the diff.
fn expected_but_was(message: &str) -> Option<(&str, &str)> {
    let (_, rest) = message.split_once("expected: <")?;
    let (expected, rest) = rest.split_once("> but was: <")?;
    let actual = rest.strip_suffix('>')?;
    Some((expected, actual))
}

/// The JUnit 5 launcher's own lines in every case's `<system-out>`: which test it was.
fn is_launcher_metadata(text: &str) -> bool {
    text.contains("unique-id: [engine:")
}

fn emit_case(builder: &mut Builder, sink: &mut dyn Sink, mut c: Case, suite: &str) {
    let out = std::mem::take(&mut c.out);
    let err = std::mem::take(&mut c.err);
    // Surefire's class is its suite; pytest's module, or mocha's, names the case apart.
    let c = Case {
        name: c.name.trim().to_owned(),
        classname: c.classname.trim().to_owned(),
        ..c
    };
    let name = if c.classname.is_empty()
        || c.classname == suite
        || c.name.starts_with(c.classname.as_str())
    {
        c.name.clone()
    } else {
        format!("{}.{}", c.classname, c.name)
    };
    let mut p = Point {
        name,
        ok: true,
        duration_ms: c.time,
        ..Point::default()
    };
    if let Some(f) = &c.failure {
        p.ok = false;
        let text = f.text.trim_matches('\n');
        let message = if f.message.is_empty() {
            text.lines().next().unwrap_or("").trim().to_owned()
        } else {
            f.message.clone()
        };
        let severity = if f.error { "error" } else { "" };
        let (expected, actual) = expected_but_was(&message).unwrap_or_default();
        p.diagnostics = yaml_map(&[
            ("message", &message),
            ("type", &f.kind),
            ("severity", severity),
            ("expected", expected),
            ("actual", actual),
            ("stack", text),
        ]);
    } else if let Some((message, xfail)) = &c.skipped {
        // A reason, not a trace: JUnit 5 puts an aborted assumption's whole stack here.
        let reason = message.trim().lines().next().unwrap_or("").trim();
        let reason = if reason.is_empty() { "skipped" } else { reason };
        if *xfail {
            p.todo = Some(reason.to_owned());
            p.ok = false;
        } else {
            p.skip = Some(reason.to_owned());
        }
    }
    case_output(builder, sink, &p, c.line, [&out, &err]);
    if c.reruns > 0 && c.failure.is_none() {
        let noun = if c.reruns == 1 { "time" } else { "times" };
        builder.comment(
            sink,
            c.line,
            &format!("flaky: failed {} {noun} before it passed", c.reruns),
        );
    }
    builder.point(sink, c.line, p);
}

/// A case's `<system-out>` and `<system-err>`, announced by the case itself: the case is
/// begun before its lines go out, so every report gives them to this case, never to a failing
/// case before it (whose trailing output would otherwise take them: explain/trailing.rs).
fn case_output(builder: &mut Builder, sink: &mut dyn Sink, p: &Point, line: u64, texts: [&str; 2]) {
    if texts.iter().all(|t| t.trim_matches('\n').is_empty()) {
        return;
    }
    builder.begin_point(sink, line, p);
    for text in texts {
        let metadata = is_launcher_metadata(text);
        for l in text.trim_matches('\n').lines() {
            if metadata && (l.starts_with("unique-id: ") || l.starts_with("display-name: ")) {
                continue;
            }
            builder.output(sink, line, l);
        }
    }
}

fn first_line(s: &str) -> &str {
    s.lines().next().unwrap_or(s)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::Event;

    fn parse(bytes: &[u8]) -> Vec<Event<'static>> {
        let mut p = JunitParser::new(Vec::new());
        p.feed(bytes);
        p.finish()
    }

    fn verdict(events: &[Event<'static>]) -> crate::event::Verdict<'static> {
        match events.last() {
            Some(Event::End { verdict }) => verdict.clone(),
            other => panic!("no end: {other:?}"),
        }
    }

    #[test]
    fn cases_failures_skips_and_nesting() {
        let xml = br#"<?xml version="1.0" encoding="utf-8"?>
<testsuites><testsuite name="pytest" tests="4">
<testcase classname="test_m" name="test_ok" time="0.5"><system-out>hi &amp; bye</system-out></testcase>
<testcase classname="test_m" name="test_bad"><failure message="assert 1 == 2">a &lt; b
trace</failure></testcase>
<testcase classname="test_m" name="test_skip"><skipped type="pytest.skip" message="no net">x.py:3: no net</skipped></testcase>
<testcase classname="test_m" name="test_x"><skipped type="pytest.xfail" message="known"/></testcase>
<testsuite name="inner"><testcase name="deep"/></testsuite>
</testsuite></testsuites>"#;
        let events = parse(xml);
        let asserts: Vec<_> = events
            .iter()
            .filter_map(|e| match e {
                Event::Assert(a) => Some(a.clone()),
                _ => None,
            })
            .collect();
        let names: Vec<&str> = asserts.iter().map(|a| a.name.as_ref()).collect();
        assert_eq!(
            names,
            [
                "test_m.test_ok",
                "test_m.test_bad",
                "test_m.test_skip",
                "test_m.test_x",
                "deep",
                "inner",
                "pytest"
            ]
        );
        assert_eq!(asserts[0].duration_ms, Some(500.0));
        let diag = asserts[1].diagnostics.as_deref().unwrap_or_default();
        assert!(
            diag.contains("message: assert 1 == 2") && diag.contains("a < b"),
            "{diag}"
        );
        assert_eq!(asserts[2].skip.as_deref(), Some("no net"));
        assert_eq!(asserts[3].todo.as_deref(), Some("known"));
        assert!(events
            .iter()
            .any(|e| matches!(e, Event::Output { text, .. } if text == "hi & bye")));
        let v = verdict(&events);
        assert!(!v.ok);
        assert_eq!(v.reasons, ["1 test point failed: \"pytest\""]);
    }

    /// Surefire's shape: a suite per class, reruns of a flaky test, an error, properties.
    #[test]
    fn surefire_reruns_and_errors() {
        let xml = br#"<?xml version="1.0" encoding="UTF-8"?>
<testsuite name="com.example.CalcTest" time="0.05" tests="3" errors="1" skipped="0" failures="0">
  <properties><property name="java.version" value="17"/></properties>
  <testcase name="adds" classname="com.example.CalcTest" time="0.01">
    <flakyFailure message="timing" type="java.lang.AssertionError"><stackTrace>at x</stackTrace></flakyFailure>
    <flakyFailure message="timing" type="java.lang.AssertionError"/>
  </testcase>
  <testcase name="divides" classname="com.example.CalcTest" time="0,002">
    <error message="/ by zero" type="java.lang.ArithmeticException">java.lang.ArithmeticException: / by zero
	at com.example.CalcTest.divides(CalcTest.java:12)</error>
  </testcase>
  <testcase name="compares" classname="com.example.CalcTest" time="0.001">
    <failure message="expected: &lt;[a, b]&gt; but was: &lt;[a]&gt;" type="org.opentest4j.AssertionFailedError"/>
  </testcase>
</testsuite>"#;
        let events = parse(xml);
        assert!(events.iter().any(|e| matches!(e,
            Event::Comment { text, .. } if text == "flaky: failed 2 times before it passed")));
        let asserts: Vec<_> = events
            .iter()
            .filter_map(|e| match e {
                Event::Assert(a) => Some(a.clone()),
                _ => None,
            })
            .collect();
        assert_eq!(asserts[0].name, "adds");
        assert!(asserts[0].ok);
        assert!(!asserts[1].ok);
        assert_eq!(asserts[1].duration_ms, Some(2.0));
        let diag = asserts[1].diagnostics.as_deref().unwrap_or_default();
        assert!(
            diag.contains("severity: error") && diag.contains("/ by zero"),
            "{diag}"
        );
        let diag = asserts[2].diagnostics.as_deref().unwrap_or_default();
        let v: serde_json::Value = serde_saphyr::from_str(diag).expect("YAML");
        assert_eq!(
            (v["expected"].as_str(), v["actual"].as_str()),
            (Some("[a, b]"), Some("[a]"))
        );
        assert_eq!(
            verdict(&events).reasons,
            ["1 test point failed: \"com.example.CalcTest\""]
        );
    }

    #[test]
    fn broken_documents_are_problems() {
        for (xml, want) in [
            (&b""[..], "is empty"),
            (b"<html><body/></html>", "not JUnit XML"),
            (b"<testsuites></testsuites>", "has no <testsuite>"),
            (b"<testsuite name=\"a\"><testcase name=\"x\">", "cut short"),
            (b"<testsuite name=\"a\"></testcase>", "failed to parse"),
            (b"\xff\xfe<", "failed to parse"),
        ] {
            let events = parse(xml);
            let v = verdict(&events);
            assert!(!v.ok, "{xml:?}");
            assert!(
                v.reasons.iter().any(|r| r.contains(want)),
                "{xml:?}: {:?}",
                v.reasons
            );
        }
    }
}
