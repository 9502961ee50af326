//! libtest's plain (human) output, as `cargo test` prints it for one test binary on stable
//! Rust (which refuses `--format json`), read line by line into TAP events.
//!
//! Each `test NAME ... ok|FAILED|ignored` is a point at the top level. A test that passed or
//! was ignored goes out at once; a failed one waits for its `---- NAME stdout ----` block in
//! the `failures:` section, whose panic becomes its diagnostics: the message, `left`/`right`
//! of `assert_eq!`/`assert_ne!` (`found` and `wanted`), the location from `panicked at`, the
//! backtrace as its stack. A stream may hold several `running N tests` runs (merged and
//! standalone doc tests). What the compiler and cargo print around them is output; a binary
//! that did not build is a failing problem quoting the compiler's first error, and one that
//! ended before its `test result:` line (an abort, a segfault) fails the test that was
//! running. The mapping is written in protocol-spec/other-formats.md.
use super::build::{yaml_map, Builder, Point};
use super::frame::Framer;
use crate::event::{ProblemKind, Sink};
use serde::Deserialize;
use std::sync::Arc;

/// A test binary's own listing, asked once it crashed while several tests ran (libtest names a
/// test only when it ends): given the binary's command as cargo quoted it, the names its
/// `--list` gives with those arguments, in its order, and how many threads ran them.
pub type TestLister = Arc<dyn Fn(&str) -> Option<Listed> + Send + Sync>;

/// What a [`TestLister`] found.
#[derive(Debug, Clone, PartialEq)]
pub struct Listed {
    /// The binary's tests as its run names them, in libtest's order (by name).
    pub names: Vec<String>,
    /// Its test threads (`--test-threads`, `RUST_TEST_THREADS`, else the machine's).
    pub threads: usize,
}

/// Loose lines kept for a crash's explanation (the output keeps every line).
const LOOSE_KEPT: usize = 500;

/// Where a run is: its tests, the failures' blocks, or the list of failed names.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Phase {
    Tests,
    Blocks,
    List,
}

/// One `running N tests` run, until its `test result:` line.
struct Run {
    expected: u64,
    reported: u64,
    phase: Phase,
    /// Failed tests waiting for their block, in the order they ended.
    failed: Vec<String>,
    /// `(name, lines)` of the failures' blocks read so far (a `successes:` block's too).
    blocks: Vec<(String, Vec<String>)>,
    /// The test libtest said started (`test NAME ... ` with no result yet: one thread).
    pending: Option<String>,
    /// The last test a `thread 'NAME' panicked` (or `has overflowed its stack`) line named
    /// outside a block (uncaptured).
    panicked: Option<String>,
    /// The tests that reported, by name.
    ended: Vec<String>,
    /// What the binary printed uncaptured since the last test reported: a crashing test's
    /// panics and the runtime's last words.
    loose: Vec<String>,
    /// libtest's framing after the tests (`failures:`, the list of names, blank lines, `test
    /// result:`): comments after the failed points, which end a failure's output (a failed
    /// point's diagnostics are YAML: a comment after it is the producer's narration), so that
    /// none of it reads as a failed test's.
    framing: Vec<(u64, String)>,
}

impl Run {
    fn new(expected: u64) -> Self {
        Run {
            expected,
            reported: 0,
            phase: Phase::Tests,
            failed: Vec::new(),
            blocks: Vec::new(),
            pending: None,
            panicked: None,
            ended: Vec::new(),
            loose: Vec::new(),
            framing: Vec::new(),
        }
    }
}

/// Incremental reader of libtest's plain output feeding a [`Sink`].
pub struct LibtestParser<S: Sink> {
    framer: Framer,
    sink: S,
    builder: Builder,
    line_no: u64,
    run: Option<Run>,
    /// How many runs began.
    runs: u64,
    /// The compiler's first error and its location, when the binary did not build.
    build_error: Option<(String, String)>,
    /// Waiting for the `-->` line of the error just read.
    error_open: bool,
    /// cargo's `process didn't exit successfully: … (signal: 6, SIGABRT: …)`.
    cause: Option<String>,
    /// The binary's command in that line (between its backquotes).
    command: Option<String>,
    /// Asks a crashed binary for its tests ([`LibtestParser::listed_by`]).
    lister: Option<TestLister>,
}

impl<S: Sink> LibtestParser<S> {
    pub fn new(sink: S) -> Self {
        LibtestParser {
            framer: Framer::new(super::DEFAULT_MAX_LINE),
            sink,
            builder: Builder::new(),
            line_no: 0,
            run: None,
            runs: 0,
            build_error: None,
            error_open: false,
            cause: None,
            command: None,
            lister: None,
        }
    }

    /// Names the tests that were running when a binary with several test threads crashed,
    /// from its own listing ([`TestLister`]); without one such a crash names none.
    pub fn listed_by(mut self, lister: Option<TestLister>) -> Self {
        self.lister = lister;
        self
    }

    pub fn feed(&mut self, bytes: &[u8]) {
        Framer::frame_through(self, |p| &mut p.framer, Some(bytes), Self::line);
    }

    pub fn finish(mut self) -> S {
        Framer::frame_through(&mut self, |p| &mut p.framer, None, Self::line);
        let line = self.line_no;
        if let Some(run) = self.run.take() {
            self.crashed(line, run);
        }
        if self.runs == 0 {
            let message = match (&self.build_error, &self.cause) {
                (Some((error, at)), _) if at.is_empty() => {
                    format!("the test binary did not build: {error}")
                }
                (Some((error, at)), _) => {
                    format!("the test binary did not build: {error} at {at}")
                }
                (None, Some(cause)) => format!("the test binary ran no test: {cause}"),
                (None, None) => "no libtest output in the stream (no `running N tests`)".to_owned(),
            };
            self.builder
                .problem(&mut self.sink, line, ProblemKind::NoOutput, message, true);
        }
        self.builder.finish(&mut self.sink, line);
        self.sink
    }

    pub fn sink_mut(&mut self) -> &mut S {
        &mut self.sink
    }

    fn output(&mut self, line: u64, text: &str) {
        self.builder.output(&mut self.sink, line, text);
    }

    fn line(&mut self, text: &str) {
        self.line_no += 1;
        let line = self.line_no;
        let text = text.trim_end_matches('\r');
        if text.starts_with("{\"type\":") {
            if let Ok(event) = serde_json::from_str::<JsonEvent>(text) {
                return self.json(line, text, event);
            }
        }
        if let Some(n) = running(text) {
            if let Some(run) = self.run.take() {
                self.crashed(line, run);
            }
            self.runs += 1;
            self.run = Some(Run::new(n));
            self.output(line, text);
            return;
        }
        let Some(phase) = self.run.as_ref().map(|r| r.phase) else {
            self.outside(line, text);
            return;
        };
        if text.starts_with("test result: ") {
            if let Some(mut run) = self.run.take() {
                run.framing.push((line, text.to_owned()));
                self.close(line, run);
            }
            return;
        }
        match phase {
            Phase::Tests => self.in_tests(line, text),
            Phase::Blocks => self.in_blocks(line, text),
            Phase::List => self.framing(line, text),
        }
    }

    /// One event of libtest's JSON form (nextest's `--message-format libtest-json`): the same
    /// runs and points as the plain form, a failure's captured output (its panic) inline.
    fn json(&mut self, line: u64, text: &str, e: JsonEvent) {
        match (e.kind.as_str(), e.event.as_str()) {
            ("suite", "started") => {
                if let Some(run) = self.run.take() {
                    self.close(line, run);
                }
                self.runs += 1;
                self.run = Some(Run::new(e.test_count.unwrap_or(0)));
            }
            ("suite", _) => {
                if let Some(run) = self.run.take() {
                    self.close(line, run);
                }
            }
            ("test", "started") => {}
            ("test", result) => {
                // nextest names a test `binary-id$name`.
                let name = e.name.split_once('$').map_or(e.name.as_str(), |(_, n)| n);
                let name = plain_name(name).to_owned();
                if let Some(run) = self.run.as_mut() {
                    run.reported += 1;
                }
                let duration_ms = e.exec_time.map(|s| s * 1000.0);
                match result {
                    "ok" | "ignored" => {
                        let skip = (result == "ignored").then(|| "ignored".to_owned());
                        let point = Point {
                            name,
                            ok: true,
                            skip,
                            duration_ms,
                            ..Point::default()
                        };
                        self.builder.point(&mut self.sink, line, point);
                    }
                    _ => {
                        let stdout = e.stdout.unwrap_or_default();
                        let lines: Vec<String> = stdout.lines().map(str::to_owned).collect();
                        let note = (result != "failed").then(|| format!("libtest said {result}"));
                        self.failed_point(line, &name, &lines, note.as_deref());
                    }
                }
            }
            _ => self.output(line, text),
        }
    }

    /// A line outside any run: cargo's and the compiler's messages. After a run they are
    /// comments, as its framing is (cargo's `error: test failed, to rerun pass --lib`): none
    /// of it is the last failure's.
    fn outside(&mut self, line: u64, text: &str) {
        if self.runs == 0 {
            self.output(line, text);
        } else {
            self.builder.comment(&mut self.sink, line, text);
        }
        self.exit_cause(text);
        if self.build_error.is_none() && text.starts_with("error") && !is_cargo_error(text) {
            self.build_error = Some((text.to_owned(), String::new()));
            self.error_open = true;
        } else if self.error_open {
            if let Some(at) = text.trim_start().strip_prefix("--> ") {
                if let Some((_, where_)) = self.build_error.as_mut() {
                    *where_ = at.trim().to_owned();
                }
                self.error_open = false;
            }
        }
    }

    fn in_tests(&mut self, line: u64, text: &str) {
        let Some(run) = self.run.as_mut() else {
            return;
        };
        if text == "failures:" || text == "successes:" {
            run.phase = Phase::Blocks;
            return self.framing(line, text);
        }
        if text.is_empty() && run.pending.is_none() {
            // The blank line before `failures:`: framing too.
            return self.framing(line, text);
        }
        // The runtime's `thread '` written between libtest's lines (a stack overflow's).
        let text = match text.strip_prefix("thread '") {
            Some(rest) if started(rest).is_some() => rest,
            _ => text,
        };
        if let Some((name, rest)) = started(text) {
            match result_of(rest) {
                Some(result) => return self.ended(line, name, result, ""),
                None => {
                    // One thread: the name first, the result after what the test printed.
                    run.pending = Some(name.to_owned());
                    if !rest.is_empty() {
                        self.output(line, rest);
                    }
                    return;
                }
            }
        }
        if let Some(name) = run.pending.clone() {
            if let Some((printed, result)) = trailing_result(text) {
                return self.ended(line, &name, result, printed);
            }
        }
        if let Some(name) = panicking(text).or_else(|| overflowing(text)) {
            run.panicked = Some(name.to_owned());
        }
        if run.loose.len() < LOOSE_KEPT {
            run.loose.push(text.to_owned());
        }
        self.exit_cause(text);
        self.output(line, text);
    }

    /// cargo's word on how the binary ended, and its command.
    fn exit_cause(&mut self, text: &str) {
        if let Some((command, cause)) = exit_cause(text) {
            self.cause = Some(cause.to_owned());
            self.command = Some(command.to_owned());
        }
    }

    /// A test's result line; `printed`: what came before the result on its line.
    fn ended(&mut self, line: u64, name: &str, result: Result<'_>, printed: &str) {
        let Some(run) = self.run.as_mut() else {
            return;
        };
        run.pending = None;
        run.reported += 1;
        let name = plain_name(name);
        if run.panicked.as_deref() == Some(name) {
            run.panicked = None;
        }
        run.ended.push(name.to_owned());
        run.loose.clear();
        if !printed.is_empty() {
            self.output(line, printed);
        }
        let point = match result {
            Result::Ok => Point {
                name: name.to_owned(),
                ok: true,
                ..Point::default()
            },
            Result::Ignored(reason) => Point {
                name: name.to_owned(),
                ok: true,
                skip: Some(if reason.is_empty() { "ignored" } else { reason }.to_owned()),
                ..Point::default()
            },
            Result::Failed => {
                if let Some(run) = self.run.as_mut() {
                    run.failed.push(name.to_owned());
                }
                return;
            }
        };
        self.builder.point(&mut self.sink, line, point);
    }

    fn in_blocks(&mut self, line: u64, text: &str) {
        let Some(run) = self.run.as_mut() else {
            return;
        };
        if let Some(name) = block_header(text) {
            run.blocks.push((name.to_owned(), Vec::new()));
            return;
        }
        if text == "failures:" || text == "successes:" {
            // The list of failed names (`successes:` opens its blocks as `failures:` does).
            if text == "failures:" && !run.blocks.is_empty() {
                run.phase = Phase::List;
            }
            return self.framing(line, text);
        }
        match run.blocks.last_mut() {
            Some((_, lines)) => lines.push(text.to_owned()),
            None => self.framing(line, text),
        }
    }

    /// A line of libtest's framing, kept for after the failed points.
    fn framing(&mut self, line: u64, text: &str) {
        if let Some(run) = self.run.as_mut() {
            run.framing.push((line, text.to_owned()));
        }
    }

    /// The run's `test result:` line: its failed tests go out with their blocks.
    fn close(&mut self, line: u64, mut run: Run) {
        let blocks = std::mem::take(&mut run.blocks);
        let mut failed = std::mem::take(&mut run.failed);
        // In libtest's order, by name (its `failures:` blocks and list): the order its threads
        // finished in differs from run to run.
        failed.sort();
        for name in &failed {
            let lines = blocks
                .iter()
                .find(|(n, _)| plain_name(n) == name)
                .map(|(_, l)| l.as_slice())
                .unwrap_or_default();
            self.failed_point(line, name, lines, None);
        }
        // A passing test's block (`--show-output`): what it printed, after the failures as
        // the framing is, so that no failure takes it for its own.
        for (name, lines) in &blocks {
            if !failed.iter().any(|f| f == plain_name(name)) {
                for l in lines {
                    self.builder.comment(&mut self.sink, line, l);
                }
            }
        }
        for (at, text) in std::mem::take(&mut run.framing) {
            self.builder.comment(&mut self.sink, at, &text);
        }
    }

    /// A run that ended before its `test result:` line: the binary crashed (or was stopped).
    fn crashed(&mut self, line: u64, mut run: Run) {
        let cause = self.cause.clone();
        let why = match &cause {
            Some(c) => format!("the test binary ended while this test ran ({c})"),
            None => "the test binary ended while this test ran (no `test result:` line)".to_owned(),
        };
        // The runtime's last words (`fatal runtime error: stack overflow`) say first how.
        let loose = std::mem::take(&mut run.loose);
        let fatal: Vec<&str> = (loose.iter().map(String::as_str))
            .filter(|l| is_fatal(l))
            .collect();
        let why = match fatal.is_empty() {
            true => why,
            false => format!("{}\n{why}", fatal.join("\n")),
        };
        let culprit = run.pending.take().or_else(|| run.panicked.take());
        let reported = run.reported;
        let expected = run.expected;
        let running = match (&culprit, reported < expected) {
            (None, true) => self.running_by_listing(&run.ended),
            _ => Vec::new(),
        };
        self.close(line, run);
        match (culprit, running.as_slice()) {
            // Its panics, printed uncaptured as it died, explain it as a block would.
            (Some(name), _) => self.failed_point_of(line, &name, &loose, Some(&why), false),
            (None, [name]) => self.failed_point(line, name, &[], Some(&why)),
            (None, _) if reported < expected => {
                let unnamed = expected - reported;
                let which = if running.is_empty() {
                    // libtest names a test when it ends: which of those running crashed is
                    // not said.
                    "run the binary with -- --test-threads=1 to see which".to_owned()
                } else {
                    let names: Vec<String> = running.iter().map(|n| format!("{n:?}")).collect();
                    format!(
                        "while running one of {} (libtest names a test only when it ends)",
                        names.join(", ")
                    )
                };
                let message = format!(
                    "{why}: {unnamed} of {expected} tests never reported; {which}",
                    why = why.replace("while this test ran", "before its tests ended"),
                );
                let point = Point {
                    name: "(test binary crashed)".to_owned(),
                    ok: false,
                    diagnostics: yaml_map(&[("message", &message)]),
                    ..Point::default()
                };
                self.builder.point(&mut self.sink, line, point);
            }
            (None, _) => {
                let message = format!(
                    "the test binary ended before its `test result:` line: {}",
                    cause.as_deref().unwrap_or("no cause said")
                );
                self.builder.problem(
                    &mut self.sink,
                    line,
                    ProblemKind::InvalidInput,
                    message,
                    true,
                );
            }
        }
    }

    /// The tests a crashed binary was running, by its own listing (none without a lister, a
    /// command, or an answer).
    fn running_by_listing(&self, ended: &[String]) -> Vec<String> {
        let (Some(lister), Some(command)) = (&self.lister, &self.command) else {
            return Vec::new();
        };
        lister(command).map_or_else(Vec::new, |listed| running_when_crashed(&listed, ended))
    }

    /// A failed test's point, explained by its block's `lines` (`note`: why it has none).
    fn failed_point(&mut self, line: u64, name: &str, lines: &[String], note: Option<&str>) {
        self.failed_point_of(line, name, lines, note, true);
    }

    /// [`Self::failed_point`]; `echo`: whether the test's prints before its panic are output
    /// yet to give (a block's), or were given as they came (a crashed test's loose lines).
    fn failed_point_of(
        &mut self,
        line: u64,
        name: &str,
        lines: &[String],
        note: Option<&str>,
        echo: bool,
    ) {
        let failure = Failure::read(lines, name);
        let mut point = Point {
            name: name.to_owned(),
            ok: false,
            ..Point::default()
        };
        self.builder.begin_point(&mut self.sink, line, &point);
        for l in failure.printed.iter().filter(|_| echo) {
            self.output(line, l);
        }
        let message = match note {
            Some(n) if failure.message.is_empty() => n.to_owned(),
            Some(n) => format!("{n}\n{}", failure.message),
            None => failure.message.clone(),
        };
        point.diagnostics = yaml_map(&[
            ("message", &message),
            ("operator", failure.operator),
            ("wanted", &failure.wanted),
            ("found", &failure.found),
            // The values are `Debug` text, as Rust wrote them.
            (
                "repr",
                if failure.operator.is_empty() {
                    ""
                } else {
                    "rust"
                },
            ),
            ("at", &failure.at),
            ("stack", &failure.stack),
        ]);
        self.builder.point(&mut self.sink, line, point);
    }
}

/// One line of libtest's JSON form: `{"type":"test","event":"failed","name":…,"stdout":…}`.
#[derive(Debug, Deserialize)]
struct JsonEvent {
    #[serde(rename = "type")]
    kind: String,
    event: String,
    #[serde(default)]
    name: String,
    #[serde(default)]
    stdout: Option<String>,
    #[serde(default)]
    exec_time: Option<f64>,
    #[serde(default)]
    test_count: Option<u64>,
}

/// How a test ended.
#[derive(Debug, PartialEq)]
enum Result<'a> {
    Ok,
    Failed,
    /// `ignored`, `ignored, REASON` (the attribute's reason).
    Ignored(&'a str),
}

/// `running 3 tests`, `running 1 test`: the count.
fn running(text: &str) -> Option<u64> {
    let rest = text.strip_prefix("running ")?;
    let (n, word) = rest.split_once(' ')?;
    matches!(word, "test" | "tests")
        .then(|| n.parse().ok())
        .flatten()
}

/// `test NAME ... REST`: the name and what follows ` ... `.
fn started(text: &str) -> Option<(&str, &str)> {
    let rest = text.strip_prefix("test ")?;
    let (name, after) = match rest.find(" ... ") {
        Some(i) => (&rest[..i], &rest[i + 5..]),
        None => (rest.strip_suffix(" ...")?, ""),
    };
    (!name.is_empty()).then_some((name, after))
}

fn result_of(rest: &str) -> Option<Result<'_>> {
    match rest.trim_end() {
        "ok" => Some(Result::Ok),
        "FAILED" => Some(Result::Failed),
        "ignored" => Some(Result::Ignored("")),
        other => other
            .strip_prefix("ignored, ")
            .map(|reason| Result::Ignored(reason.trim())),
    }
}

/// A line that ends a one-thread test's result after what the test printed (`hello ok`).
fn trailing_result(text: &str) -> Option<(&str, Result<'_>)> {
    for word in ["ok", "FAILED", "ignored"] {
        if let Some(printed) = text.strip_suffix(word) {
            if printed.is_empty() || printed.ends_with(char::is_whitespace) {
                return Some((printed.trim_end(), result_of(word)?));
            }
        }
    }
    None
}

/// A test's name without what libtest adds to it (` - should panic`, a doc test's
/// ` - compile fail`), as a filter names it.
fn plain_name(name: &str) -> &str {
    [" - should panic", " - compile fail", " - compile"]
        .iter()
        .find_map(|s| name.strip_suffix(s))
        .unwrap_or(name)
}

/// `---- NAME stdout ----`: a failure's block begins.
fn block_header(text: &str) -> Option<&str> {
    text.strip_prefix("---- ")?.strip_suffix(" stdout ----")
}

/// `thread 'NAME' panicked at …` (`thread 'NAME' (123) panicked`): the thread's name.
fn panicking(text: &str) -> Option<&str> {
    let rest = text.strip_prefix("thread '")?;
    let (name, after) = rest.split_once('\'')?;
    after.contains("panicked at").then_some(name)
}

/// cargo's word on a binary that did not exit cleanly: its command between backquotes and how
/// it ended, `(signal: 6, SIGABRT: …)`, `(exit status: 1)`.
fn exit_cause(text: &str) -> Option<(&str, &str)> {
    let rest = text
        .trim_start()
        .strip_prefix("process didn't exit successfully: ")?;
    let open = rest.rfind(" (")?;
    let cause = rest[open + 2..].strip_suffix(')')?;
    let command = rest[..open]
        .strip_prefix('`')
        .and_then(|c| c.strip_suffix('`'))
        .unwrap_or_default();
    Some((command, cause))
}

/// `thread 'NAME' (123) has overflowed its stack`: the thread's name (the runtime then aborts).
/// The runtime writes the line to stderr in pieces, so libtest's stdout may come between them
/// (`thread 'test a_fine ... ok` / `b_overflows' (24592) has overflowed its stack`): a line
/// that is the rest of one names the thread too (a test's name holds no space or quote).
fn overflowing(text: &str) -> Option<&str> {
    let rest = text.strip_prefix("thread '").unwrap_or(text);
    let (name, after) = rest.split_once('\'')?;
    let whole = text.starts_with("thread '") || !name.contains([' ', '\'']);
    (whole && !name.is_empty() && after.ends_with("has overflowed its stack")).then_some(name)
}

/// A line the Rust runtime prints as it aborts the process.
fn is_fatal(text: &str) -> bool {
    text.starts_with("fatal runtime error: ")
        || text.starts_with("thread caused non-unwinding panic")
        || overflowing(text).is_some()
}

/// The tests a binary was running when it crashed, from its listing: libtest starts its tests
/// in its order, at most `threads` at a time, and starts the next as soon as it has reported
/// one, so those running are among the first `reported + threads`, less those that reported.
fn running_when_crashed(listed: &Listed, ended: &[String]) -> Vec<String> {
    let window = ended.len() + listed.threads.max(1);
    listed
        .names
        .iter()
        .take(window)
        .filter(|n| !ended.iter().any(|e| e == *n))
        .cloned()
        .collect()
}

/// cargo's own closing errors, which are not the compiler's.
fn is_cargo_error(text: &str) -> bool {
    text.starts_with("error: test failed")
        || text.starts_with("error: doctest failed")
        || text.starts_with("error: could not compile")
        || text.starts_with("error: aborting")
}

/// What a failed test's block says.
#[derive(Default, Debug, PartialEq)]
struct Failure {
    /// The test's own prints, before the panic.
    printed: Vec<String>,
    message: String,
    operator: &'static str,
    wanted: String,
    found: String,
    at: String,
    stack: String,
}

impl Failure {
    fn read(lines: &[String], name: &str) -> Failure {
        let mut f = Failure::default();
        let start = lines.iter().position(|l| panicking(l).is_some());
        let Some(start) = start else {
            // No panic: a `Result` test's `Error: …`, or a note (`test did not panic as
            // expected at src/lib.rs:46:8`).
            let text = lines.join("\n");
            f.message = text.trim().trim_start_matches("note: ").to_owned();
            if let Some((msg, at)) = f.message.rsplit_once(" at ") {
                if is_location(at) {
                    f.at = at.to_owned();
                    f.message = msg.to_owned();
                }
            }
            f.at = doc_location(name, &f.at);
            return f;
        };
        f.printed = doc_test_printed(&lines[..start]);
        while f.printed.last().is_some_and(|l| l.trim().is_empty()) {
            f.printed.pop();
        }
        let header = &lines[start];
        let after = header.split_once("panicked at ").map_or("", |(_, a)| a);
        let mut message: Vec<String> = Vec::new();
        if let Some(rest) = after.strip_prefix('\'') {
            // Before Rust 1.73: `panicked at 'MESSAGE', src/lib.rs:5:5`, the message possibly
            // over several lines.
            let mut text = rest.to_owned();
            let mut i = start + 1;
            while !closes_old_message(&text) && i < lines.len() {
                text.push('\n');
                text.push_str(&lines[i]);
                i += 1;
            }
            if let Some((msg, at)) = text.rsplit_once("', ") {
                message.extend(msg.lines().map(str::to_owned));
                f.at = at.to_owned();
            } else {
                message.push(text);
            }
            f.tail(&lines[i..], &mut message);
        } else {
            f.at = after.trim_end().trim_end_matches(':').to_owned();
            f.tail(&lines[start + 1..], &mut message);
        }
        f.values(&mut message);
        f.message = message.join("\n").trim().to_owned();
        f.at = doc_location(name, &f.at);
        f
    }

    /// The panic's lines after its header: the message until the backtrace, the backtrace,
    /// libtest's notes.
    fn tail(&mut self, lines: &[String], message: &mut Vec<String>) {
        let mut stack: Vec<&str> = Vec::new();
        let mut in_stack = false;
        for l in lines {
            if l == "stack backtrace:" {
                in_stack = true;
                continue;
            }
            if l.starts_with("note: run with `RUST_BACKTRACE")
                || l.starts_with("note: Some details are omitted")
            {
                in_stack = false;
                continue;
            }
            if in_stack {
                stack.push(l);
            } else if let Some(note) = l.strip_prefix("note: ") {
                message.push(note.to_owned());
            } else {
                message.push(l.clone());
            }
        }
        while message.last().is_some_and(|l| l.trim().is_empty()) {
            message.pop();
        }
        self.stack = stack.join("\n");
    }

    /// Takes `left`/`right` out of an `assert_eq!`/`assert_ne!` message: `left` is what the
    /// test found, `right` what it wanted (as `assert_eq!(got, want)` is written).
    fn values(&mut self, message: &mut Vec<String>) {
        let Some(first) = message.first() else {
            return;
        };
        self.operator = if first.contains("left == right") {
            "=="
        } else if first.contains("left != right") {
            "!="
        } else {
            return;
        };
        let mut kept = Vec::new();
        for l in message.drain(..) {
            if let Some(v) = l.strip_prefix("  left: ") {
                self.found = old_value(v).to_owned();
            } else if let Some(v) = l.strip_prefix(" right: ") {
                // Before 1.73 a custom message follows the value: `` `2`: why ``.
                let (value, why) = old_value_and_message(v);
                self.wanted = value.to_owned();
                if let Some(why) = why {
                    if let Some(head) = kept.first_mut() {
                        *head = format!("{head}: {why}");
                    }
                }
            } else {
                kept.push(l);
            }
        }
        *message = kept;
    }
}

/// What a test printed before its panic. rustdoc runs a doc test as a program of its own and
/// heads what it printed with its own words (`Test executable failed (exit status: 101).`,
/// `stdout:`, `stderr:`): the panic says how it failed, so those lines go and what the
/// program printed under them stays.
fn doc_test_printed(lines: &[String]) -> Vec<String> {
    let is_doc_test = lines
        .iter()
        .find(|l| !l.trim().is_empty())
        .is_some_and(|l| l.starts_with("Test executable failed ("));
    let kept = lines.iter().filter(|l| {
        !is_doc_test
            || !(l.starts_with("Test executable failed (") || *l == "stdout:" || *l == "stderr:")
    });
    let mut out: Vec<String> = kept.cloned().collect();
    if is_doc_test {
        // The blank lines rustdoc put around its headings.
        let lead = out.iter().take_while(|l| l.trim().is_empty()).count();
        out.drain(..lead);
    }
    out
}

/// Whether an old-style `panicked at 'MESSAGE', FILE:LINE:COL` has its location yet.
fn closes_old_message(text: &str) -> bool {
    text.rsplit_once("', ")
        .is_some_and(|(_, at)| is_location(at))
}

/// `src/lib.rs:10:5`, `src/lib.rs:10`.
fn is_location(at: &str) -> bool {
    let mut parts = at.rsplitn(3, ':');
    let nums: Vec<&str> = parts.by_ref().take(2).collect();
    let file = parts.next().unwrap_or_default();
    let digits = |s: &&str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    match nums.as_slice() {
        [col, line] if digits(col) && digits(line) && !file.is_empty() => true,
        [line, file] if digits(line) && !file.is_empty() => true,
        _ => false,
    }
}

/// A value before Rust 1.73: `` `8`, `` → `8`.
fn old_value(v: &str) -> &str {
    let v = v.trim_end_matches(',');
    v.strip_prefix('`')
        .and_then(|v| v.strip_suffix('`'))
        .unwrap_or(v)
}

/// The right value before Rust 1.73 with the custom message that may follow it.
fn old_value_and_message(v: &str) -> (&str, Option<&str>) {
    if let Some(inner) = v.strip_prefix('`') {
        if let Some((value, why)) = inner.rsplit_once("`: ") {
            return (value, Some(why));
        }
    }
    (old_value(v), None)
}

/// A doc test's location: its file and line (`src/lib.rs - add (line 5)` → `src/lib.rs:5`),
/// when the panic's is in rustdoc's temporary bundle (edition 2024's merged doc tests) or is
/// a line of the wrapper rustdoc compiles it in (before 2024: `src/lib.rs:12:1` for a doc test
/// at line 654), which says the file but not where in it.
fn doc_location(name: &str, at: &str) -> String {
    let Some((file, rest)) = name.split_once(" - ") else {
        return at.to_owned();
    };
    let Some(line) = rest
        .rsplit_once("(line ")
        .and_then(|(_, l)| l.strip_suffix(')'))
    else {
        return at.to_owned();
    };
    let start: u64 = line.parse().unwrap_or(0);
    let in_file = at
        .strip_prefix(file)
        .and_then(|rest| rest.strip_prefix(':'))
        .and_then(|rest| rest.split(':').next())
        .and_then(|l| l.parse::<u64>().ok());
    match in_file {
        Some(n) if n >= start => at.to_owned(),
        _ => format!("{file}:{line}"),
    }
}

#[cfg(test)]
mod tests;
