//! Which format a stream is in (TAP, `go test -json`, JUnit XML, told from its first bytes;
//! libtest's plain output and the verdict formats only when named), and one parser that reads
//! any of them into the same events.
use super::gojson::{GoJsonParser, PackageDirs};
use super::junit::JunitParser;
use super::libtest::LibtestParser;
use super::result::{Ended, ResultKind, ResultParser};
use super::Parser;
use crate::event::Sink;
use std::fmt;
use std::str::FromStr;

/// An input format tapline reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum InputFormat {
    #[default]
    Tap,
    GoJson,
    Junit,
    /// libtest's plain (human) output, with cargo's and the compiler's messages around it.
    Libtest,
    /// No TAP: the exit status is the verdict ([`ResultKind::ExitStatus`]).
    ExitStatus,
    /// One JSON result line at the end ([`ResultKind::JsonResult`]).
    JsonResult,
}

impl InputFormat {
    pub fn name(self) -> &'static str {
        match self {
            InputFormat::Tap => "tap",
            InputFormat::GoJson => "go-json",
            InputFormat::Junit => "junit",
            InputFormat::Libtest => "libtest",
            InputFormat::ExitStatus => "exit-status",
            InputFormat::JsonResult => "json-result",
        }
    }

    /// Whether a stream of this format is read from stdout and stderr as one pipe: what
    /// explains its failures comes on stderr between its lines (a build's compiler errors, a
    /// crash's cause), and its producers write each line whole.
    pub fn reads_stderr(self) -> bool {
        self == InputFormat::Libtest
    }
}

impl fmt::Display for InputFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[derive(Debug, thiserror::Error)]
#[error(
    "failed to read format `{0}`: expected tap, go-json, junit, libtest, exit-status or json-result"
)]
pub struct UnknownFormat(String);

impl FromStr for InputFormat {
    type Err = UnknownFormat;

    fn from_str(s: &str) -> Result<Self, UnknownFormat> {
        match s {
            "tap" => Ok(InputFormat::Tap),
            "go-json" => Ok(InputFormat::GoJson),
            "junit" => Ok(InputFormat::Junit),
            "libtest" => Ok(InputFormat::Libtest),
            "exit-status" => Ok(InputFormat::ExitStatus),
            "json-result" => Ok(InputFormat::JsonResult),
            other => Err(UnknownFormat(other.to_owned())),
        }
    }
}

/// How many leading lines detection looks at before it settles on TAP.
const DETECT_LINES: usize = 16;
/// How many leading bytes, likewise.
const DETECT_BYTES: usize = 64 * 1024;

/// The format of a stream from its leading bytes, or `None` while they do not tell yet.
/// `complete`: no more bytes will come. XML (`<?xml`, `<testsuites`) is JUnit; a line that is a
/// test2json record (`{"Time":…,"Action":…}`) is go's; a TAP line, or anything else after
/// 16 lines or 64 KiB, is TAP. So is go's `FAIL\tpkg [build failed]`. Comments and other lines decide nothing: before a go record
/// may come the go tool's messages (`# example.com/x` and a build error, on a merged stderr).
pub fn detect(head: &[u8], complete: bool) -> Option<InputFormat> {
    let head = head.strip_prefix(b"\xef\xbb\xbf").unwrap_or(head);
    let mut rest = head;
    let mut lines = 0;
    loop {
        let newline = memchr::memchr(b'\n', rest);
        let line = newline.map_or(rest, |i| &rest[..i]);
        let whole = newline.is_some() || complete;
        let text = line.trim_ascii();
        if !text.is_empty() || !whole {
            if text.starts_with(b"<") {
                return Some(InputFormat::Junit);
            }
            if text.starts_with(b"{") {
                if !whole {
                    return None;
                }
                if is_go_record(text) {
                    return Some(InputFormat::GoJson);
                }
            } else if !whole {
                // A partial line: TAP's first words tell already.
                return looks_like_tap(text).then_some(InputFormat::Tap);
            } else if looks_like_tap(text) {
                return Some(InputFormat::Tap);
            } else if std::str::from_utf8(text)
                .ok()
                .and_then(super::gojson::failed_build)
                .is_some()
            {
                // go before 1.24 writes no record for a package that did not build.
                return Some(InputFormat::GoJson);
            }
            lines += 1;
        }
        let Some(i) = newline else {
            return complete.then_some(InputFormat::Tap);
        };
        rest = &rest[i + 1..];
        if lines >= DETECT_LINES || head.len() - rest.len() >= DETECT_BYTES {
            return Some(InputFormat::Tap);
        }
        if rest.is_empty() {
            return complete.then_some(InputFormat::Tap);
        }
    }
}

fn is_go_record(line: &[u8]) -> bool {
    serde_json::from_slice::<serde_json::Value>(line)
        .ok()
        .is_some_and(|v| v.get("Action").is_some_and(|a| a.is_string()))
}

fn looks_like_tap(line: &[u8]) -> bool {
    let t = line.trim_ascii_start();
    t.starts_with(b"TAP version")
        || t.starts_with(b"ok")
        || t.starts_with(b"not ok")
        || t.starts_with(b"Bail out!")
        || t.starts_with("⟦TSTEST".as_bytes())
        || t.first().is_some_and(u8::is_ascii_digit) && t.windows(2).any(|w| w == b"..")
}

enum Inner<S: Sink> {
    /// Format not known yet: the leading bytes and the sink wait.
    Detecting(Vec<u8>, S),
    Tap(Parser<S>),
    GoJson(GoJsonParser<S>),
    Junit(JunitParser<S>),
    Libtest(LibtestParser<S>),
    Result(ResultParser<S>),
    /// Only while switching.
    Gone,
}

/// A parser for any input format: fixed, or detected from the first bytes.
pub struct AnyParser<S: Sink> {
    inner: Inner<S>,
    /// Passed on to the TAP parser once the format is known ([`Parser::allow_empty`]).
    allow_empty: bool,
    /// Passed on to a `go test -json` reader ([`GoJsonParser::with_package_dirs`]).
    go_dirs: Option<PackageDirs>,
    /// The format given, when it was (never detected: a verdict format says nothing first).
    fixed: Option<InputFormat>,
}

impl<S: Sink> AnyParser<S> {
    /// `None` detects the format from the stream.
    pub fn new(sink: S, format: Option<InputFormat>) -> Self {
        let inner = match format {
            None => Inner::Detecting(Vec::new(), sink),
            Some(f) => start(f, sink, false, None),
        };
        AnyParser {
            inner,
            allow_empty: false,
            go_dirs: None,
            fixed: format,
        }
    }

    /// Where a `go test -json` stream's packages are, for locations relative to the project
    /// root; other formats take no notice.
    pub fn go_package_dirs(mut self, dirs: Option<PackageDirs>) -> Self {
        self.inner = match (self.inner, &dirs) {
            (Inner::GoJson(p), Some(d)) => Inner::GoJson(p.with_package_dirs(d.clone())),
            (other, _) => other,
        };
        self.go_dirs = dirs;
        self
    }

    /// Lets a TAP stream without any plan, test point or bail out pass
    /// ([`Parser::allow_empty`]); go and JUnit input keep their own rules for empty input.
    pub fn allow_empty(mut self, allow: bool) -> Self {
        self.allow_empty = allow;
        self.inner = match self.inner {
            Inner::Tap(p) => Inner::Tap(p.allow_empty(allow)),
            other => other,
        };
        self
    }

    /// How a crashed test binary's running tests are named (libtest's output: the binary's own
    /// listing, [`crate::libtest::TestLister`]); other formats take no notice.
    pub fn tests_listed_by(mut self, lister: Option<crate::libtest::TestLister>) -> Self {
        self.inner = match self.inner {
            Inner::Libtest(p) => Inner::Libtest(p.listed_by(lister)),
            other => other,
        };
        self
    }

    /// The name an `exit-status` or `json-result` file's tests take (its path as the run
    /// shows it); other formats take no notice.
    pub fn named(mut self, name: &str) -> Self {
        self.inner = match self.inner {
            Inner::Result(p) => Inner::Result(p.named(name)),
            other => other,
        };
        self
    }

    /// How the process ended, for a format whose verdict that is (`exit-status`); the
    /// others take no notice (their exit status is judged beside their stream).
    pub fn ended(&mut self, ended: Ended) {
        if let Inner::Result(p) = &mut self.inner {
            p.ended(ended);
        }
    }

    /// JUnit from report files: fed bytes are the command's console output.
    pub fn for_junit_reports(mut sink: S) -> Self {
        sink.leaf_tests();
        AnyParser {
            inner: Inner::Junit(JunitParser::for_reports(sink)),
            allow_empty: false,
            go_dirs: None,
            fixed: Some(InputFormat::Junit),
        }
    }

    /// The format in use, once known.
    pub fn format(&self) -> Option<InputFormat> {
        match self.inner {
            Inner::Tap(_) => Some(InputFormat::Tap),
            Inner::GoJson(_) => Some(InputFormat::GoJson),
            Inner::Junit(_) => Some(InputFormat::Junit),
            Inner::Libtest(_) => Some(InputFormat::Libtest),
            Inner::Result(_) => self.fixed,
            _ => None,
        }
    }

    pub fn feed(&mut self, bytes: &[u8]) {
        match &mut self.inner {
            Inner::Detecting(head, _) => {
                head.extend_from_slice(bytes);
                if let Some(f) = detect(head, false) {
                    self.switch(f);
                }
            }
            Inner::Tap(p) => p.feed(bytes),
            Inner::GoJson(p) => p.feed(bytes),
            Inner::Junit(p) => p.feed(bytes),
            Inner::Libtest(p) => p.feed(bytes),
            Inner::Result(p) => p.feed(bytes),
            Inner::Gone => {}
        }
    }

    fn switch(&mut self, format: InputFormat) {
        if let Inner::Detecting(head, sink) = std::mem::replace(&mut self.inner, Inner::Gone) {
            self.inner = start(format, sink, self.allow_empty, self.go_dirs.clone());
            self.feed(&head);
        }
    }

    /// Decides the format of an input that has ended while it was still being told from its
    /// first bytes ([`AnyParser::format`] is then known); nothing else changes.
    pub fn settle(&mut self) {
        if let Inner::Detecting(head, _) = &self.inner {
            let f = detect(head, true).unwrap_or_default();
            self.switch(f);
        }
    }

    /// Ends the stream and returns the sink.
    pub fn finish(mut self) -> S {
        self.settle();
        match self.inner {
            Inner::Tap(p) => p.finish(),
            Inner::GoJson(p) => p.finish(),
            Inner::Junit(p) => p.finish(),
            Inner::Libtest(p) => p.finish(),
            Inner::Result(p) => p.finish(),
            Inner::Detecting(_, s) => s,
            Inner::Gone => unreachable!("a switch always leaves a parser"),
        }
    }

    /// Adds a complete JUnit document (a report file) to a JUnit parser.
    pub fn add_junit_document(&mut self, source: &str, bytes: &[u8]) {
        if let Inner::Junit(p) = &mut self.inner {
            p.add_document(source, bytes);
        }
    }

    /// A failing problem about the report files (JUnit report mode).
    pub fn report_problem(&mut self, message: String) {
        if let Inner::Junit(p) = &mut self.inner {
            p.report_problem(message);
        }
    }

    pub fn sink_mut(&mut self) -> &mut S {
        match &mut self.inner {
            Inner::Detecting(_, s) => s,
            Inner::Tap(p) => p.sink_mut(),
            Inner::GoJson(p) => p.sink_mut(),
            Inner::Junit(p) => p.sink_mut(),
            Inner::Libtest(p) => p.sink_mut(),
            Inner::Result(p) => p.sink_mut(),
            Inner::Gone => unreachable!("a switch always leaves a parser"),
        }
    }
}

fn start<S: Sink>(
    format: InputFormat,
    mut sink: S,
    allow_empty: bool,
    go_dirs: Option<PackageDirs>,
) -> Inner<S> {
    if format != InputFormat::Tap {
        sink.leaf_tests();
    }
    match format {
        InputFormat::Tap => Inner::Tap(Parser::new(sink).allow_empty(allow_empty)),
        InputFormat::GoJson => Inner::GoJson(match go_dirs {
            Some(dirs) => GoJsonParser::new(sink).with_package_dirs(dirs),
            None => GoJsonParser::new(sink),
        }),
        InputFormat::Junit => Inner::Junit(JunitParser::new(sink)),
        InputFormat::Libtest => Inner::Libtest(LibtestParser::new(sink)),
        InputFormat::ExitStatus => Inner::Result(ResultParser::new(sink, ResultKind::ExitStatus)),
        InputFormat::JsonResult => Inner::Result(ResultParser::new(sink, ResultKind::JsonResult)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detects_from_leading_bytes() {
        let cases: [(&[u8], bool, Option<InputFormat>); 12] = [
            (b"TAP version 14\n", false, Some(InputFormat::Tap)),
            (b"ok 1", false, Some(InputFormat::Tap)),
            (b"1..3\n", false, Some(InputFormat::Tap)),
            (b"<?xml version=\"1.0\"?>", false, Some(InputFormat::Junit)),
            (
                b"\xef\xbb\xbf  \n<testsuites>",
                false,
                Some(InputFormat::Junit),
            ),
            (b"{\"Time\":\"x\",\"Action\":\"start\"", false, None),
            (
                b"{\"Time\":\"x\",\"Action\":\"start\",\"Package\":\"p\"}\n",
                false,
                Some(InputFormat::GoJson),
            ),
            (
                b"# example.com/x\n./x.go:3: undefined\n{\"Action\":\"fail\"}\n",
                false,
                Some(InputFormat::GoJson),
            ),
            (
                b"go: downloading x\n{\"Action\":\"fail\"}\n",
                false,
                Some(InputFormat::GoJson),
            ),
            (b"{\"a\":1}\n", true, Some(InputFormat::Tap)),
            (b"hello\n", false, None),
            (b"", true, Some(InputFormat::Tap)),
        ];
        for (head, complete, want) in cases {
            assert_eq!(
                detect(head, complete),
                want,
                "{:?}",
                String::from_utf8_lossy(head)
            );
        }
    }

    #[test]
    fn any_chunking_gives_the_same_events() {
        let go = b"{\"Action\":\"run\",\"Package\":\"p\",\"Test\":\"T\"}\n{\"Action\":\"pass\",\"Package\":\"p\",\"Test\":\"T\"}\n{\"Action\":\"pass\",\"Package\":\"p\"}\n";
        let whole = {
            let mut p = AnyParser::new(Vec::new(), None);
            p.feed(go);
            p.finish()
        };
        for size in [1, 3, 17] {
            let mut p = AnyParser::new(Vec::new(), None);
            for c in go.chunks(size) {
                p.feed(c);
            }
            assert_eq!(p.finish(), whole, "chunks of {size}");
        }
        assert!(
            matches!(whole.last(), Some(crate::event::Event::End { verdict }) if verdict.ok && verdict.count == 1)
        );
    }
}
