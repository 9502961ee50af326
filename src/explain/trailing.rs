//! Which failing test point the output after it belongs to: the one rule every report
//! (terminal, human, JUnit, Markdown, HTML, annotations) follows to give a failure its output.
//!
//! A test prints, then reports: output before a point is that point's (the parser emits it
//! after the point before, so a consumer keeps it for the next point). But many producers print
//! a failure's error *after* its `not ok` (a message and stack, `#` diagnostics, a traceback;
//! which producers print each shape here: protocol-spec/producers.md, A failure's lines after
//! its `not ok`). So, after a failing point (`not ok`, not
//! SKIP or TODO), the `output` and `comment` lines at its depth are that failure's, until the
//! first event that says something else has begun:
//!
//! - any other event of the stream but a `problem`, a `marker` or a v2 event: a test point or
//!   a point's announcement (at any depth), a subtest's start or end, a plan, a bail out, a
//!   version or pragma line, the end. A reader that knows which test printed what (`go-json`)
//!   announces the next test before its output, so none of it is the failure's;
//! - a v2 `test:started` or `suite:started` event read after the failing point (it is emitted
//!   at once, before the point and its lines, so it is placed by its line number);
//! - an `output` or `comment` line at another depth;
//! - after a Node error dump printed at the margin among its lines (a header, its message,
//!   its `at …` frames, node's `{ … }`), the next line: a producer that prints a failure's
//!   error as that dump prints a test's own output before its point, so what follows the
//!   dump is the next test's ([`crate::explain::failure::DumpEnd`]);
//! - an output line that announces the next test's commands (a shell test library's verbose
//!   `expecting success: …`, printed before that test's output and its point);
//! - a comment that announces the next test: `# Subtest: name`, `# TAP results for Class`
//!   (it names the tests of the next class), or `# FILE @ LINE: name` (where the next test is
//!   defined);
//! - after a point whose diagnostics came as a YAML block (its producer says everything
//!   there), a `#` comment: the producer's narration, such as a `# test name` heading of the
//!   next test or a `# tests 4` trailer. Output lines after such a point are
//!   still its own;
//! - a harness's closing line where nothing in the stream's shape tells it from the failure's
//!   diagnostics: `# Looks like you failed 1 test of 2.` (and `… planned 3 tests but ran
//!   2.`, `… your test exited with 255 …`) under a plan given first, where no plan follows the
//!   last point, `# … warning: Executed 2 instead of expected 3 tests`, and a totals comment
//!   (`# tests 5`, `# pass 1`, `# fail 4`: a producer may print them under its last
//!   failure's stack, before its plan). The harness sums up the file there, not the failure.
//!
//! A failing point's lines are its own whether or not the consumer keeps an entry for it: those
//! of one it does not (a subtest said by its failing children, a failure past the ones it
//! explains) are kept as the file's output, not the next point's.
//!
//! Lines no failure keeps are placed by [`crate::explain::headings`]: a heading, the next
//! point's output, or the file's (a subtest's closing lines, a notice that heads nothing).
//!
//! Blank lines count only between lines of the failure's: blank lines that end it (a producer
//! may print one after every subtest) are the gap before the next test, in no test's output.
//! A failure's trailing output keeps its first lines (those nearest the failure) and says how
//! many later ones it left out.
//!
//! The events themselves stay in stream order; this is only who owns which line. Lines of a
//! run's stderr are not placed by this rule when they arrive: a point's event is complete only
//! once the next TAP line is read, so a stderr line that arrives after a failing point's
//! event was written after the line that ended the failure; it is the next point's, as output
//! before a point always is (and stderr written after a `not ok` line but before the next one
//! arrives before the failing point's event, so it is that failure's already). A stderr
//! line that arrives while the parser holds a point read before it is sent after that point
//! (`run::file_task`), and one after a failing point is read as its output line here
//! ([`Trailing::open_at`]).
use crate::explain::failure::DumpEnd;
use tapline_protocol::event::{Assert, Event};

/// Where one event of the stream goes, as far as the failure whose output is open is concerned.
#[derive(Debug, PartialEq)]
pub(crate) enum Step<T> {
    /// An output or comment line of the open failure (kept here until it closes), or a blank
    /// line held until the failure's next line says it is inside its output.
    Kept,
    /// The event ended the open failure: here it is, with its trailing output. The event is
    /// then handled as if no failure had been open.
    Closed(T, Vec<String>),
    /// No failure is open, or the event does not concern it.
    Passed,
}

/// What one event is to the open failure.
enum Keep<'e> {
    /// A line of its output (`true`: a comment).
    Line(&'e str, bool),
    /// It ends the failure's output.
    Ends,
    /// It does not concern it.
    Passed,
}

/// The failing point whose trailing output is being read.
struct Open<T> {
    /// The consumer's entry for it; `None` while it keeps none.
    item: Option<T>,
    depth: u32,
    /// The point's line: a v2 start event on a later line ends its output.
    line: u64,
    /// Its diagnostics came as a YAML block: comments after it are not its.
    yaml: bool,
    lines: Vec<String>,
    /// Lines past the kept ones.
    dropped: usize,
    /// Blank lines read since its last line.
    blanks: Vec<String>,
    /// Where a Node error dump among its lines ends.
    dump: DumpEnd,
}

/// Follows the stream and collects the trailing output of the failing point just read.
/// `T` is what the consumer needs to finish that failure (its entry, or the point itself).
pub(crate) struct Trailing<T> {
    open: Option<Open<T>>,
    /// Line of the latest v2 `test:started` / `suite:started` event.
    started: Option<u64>,
    /// Trailing lines kept per failure.
    cap: usize,
}

impl<T> Trailing<T> {
    /// Keeps up to `cap` trailing lines of a failure.
    pub(crate) fn new(cap: usize) -> Self {
        Trailing {
            open: None,
            started: None,
            cap,
        }
    }

    /// Starts reading the trailing output of failing point `a` (call it after [`Self::event`]
    /// passed the point on, for a failure the consumer keeps an entry for).
    pub(crate) fn open(&mut self, a: &Assert<'_>, item: T) {
        self.start(a, Some(item));
    }

    fn start(&mut self, a: &Assert<'_>, item: Option<T>) {
        self.open = Some(Open {
            item,
            depth: a.depth,
            line: a.line,
            yaml: a.diagnostics.is_some(),
            lines: Vec::new(),
            dropped: 0,
            blanks: Vec::new(),
            dump: DumpEnd::default(),
        });
    }

    /// The consumer's entry for the point whose trailing output is open, if it keeps one.
    pub(crate) fn item(&self) -> Option<&T> {
        self.open.as_ref().and_then(|o| o.item.as_ref())
    }

    /// The open failure's depth and line: where a line it printed to stderr is read as its own.
    pub(crate) fn open_at(&self) -> Option<(u32, u64)> {
        self.open.as_ref().map(|o| (o.depth, o.line))
    }

    /// The open failure, if any, with its trailing output: at the end of a stream that ended
    /// without an `end` event (a consumer's own end), or when the consumer drops it.
    pub(crate) fn close(&mut self) -> Option<(T, Vec<String>)> {
        let open = self.open.take()?;
        let item = open.item?;
        let mut lines = open.lines;
        if open.dropped > 0 {
            lines.push(format!("… {} later lines not shown", open.dropped));
        }
        Some((item, lines))
    }

    /// Follows one event of the stream.
    pub(crate) fn event(&mut self, ev: &Event<'_>) -> Step<T> {
        if let Event::V2Event { line, json, .. } = ev {
            if starts_a_test(json) {
                self.started = Some(*line);
            }
            return Step::Passed;
        }
        let step = match self.open.as_ref().map(|open| self.keeps(open, ev)) {
            None => Step::Passed,
            Some(Keep::Passed) => return Step::Passed,
            Some(Keep::Line(text, comment)) if !self.after_dump(text) => {
                self.keep(text, comment);
                return Step::Kept;
            }
            Some(Keep::Line(..) | Keep::Ends) => match self.close() {
                Some((item, lines)) => Step::Closed(item, lines),
                None => Step::Passed,
            },
        };
        // Its lines are its own even if the consumer keeps no entry for it (a subtest said by
        // its children, a failure past those it explains): no other point's.
        if let Event::Assert(a) = ev {
            // A not-selected failure's lines are its own too: marking changes no name.
            if a.failed_as_printed() {
                self.start(a, None);
            }
        }
        step
    }

    /// What `ev` is to the open failure.
    fn keeps<'e>(&self, open: &Open<T>, ev: &'e Event<'_>) -> Keep<'e> {
        match ev {
            Event::Output { depth, line, text }
                if self.belongs(open, *depth, *line) && !starts_next_test(text) =>
            {
                Keep::Line(text, false)
            }
            Event::Comment { depth, line, text }
                if self.belongs(open, *depth, *line)
                    && !open.yaml
                    && !announces_tests(text)
                    && !crate::explain::failure::comments::is_closing_line(text) =>
            {
                Keep::Line(text, true)
            }
            Event::Problem(_) | Event::Marker { .. } => Keep::Passed,
            _ => Keep::Ends,
        }
    }

    /// The open failure's line `text` comes after a Node error dump printed under it: the
    /// next test's, whose output comes before its point.
    fn after_dump(&mut self, text: &str) -> bool {
        self.open.as_mut().is_some_and(|o| o.dump.after_dump(text))
    }

    /// A line at `depth`, `line` of the stream continues the open failure's output.
    fn belongs(&self, open: &Open<T>, depth: u32, line: u64) -> bool {
        let started_since = self.started.is_some_and(|s| s > open.line && line > s);
        depth == open.depth && !started_since
    }

    fn keep(&mut self, text: &str, comment: bool) {
        let Some(open) = &mut self.open else {
            return;
        };
        if !comment && text.trim().is_empty() {
            // Bounded like the lines: a flood of blank lines holds no more than `cap`.
            if open.blanks.len() < self.cap {
                open.blanks.push(text.to_owned());
            }
            return;
        }
        for blank in std::mem::take(&mut open.blanks) {
            push_capped(open, blank, self.cap);
        }
        let line = if comment {
            format!("# {text}")
        } else {
            text.to_owned()
        };
        push_capped(open, line, self.cap);
    }
}

fn push_capped<T>(open: &mut Open<T>, line: String, cap: usize) {
    if open.lines.len() < cap {
        let line = match line.len() > crate::explain::held::LINE_BYTES {
            true => crate::explain::held::cut_line(&line),
            false => line,
        };
        open.lines.push(line);
    } else {
        open.dropped += 1;
    }
}

/// A comment that says the tests after it begin: `# Subtest: name`, `# TAP results for Class`
/// (protocol-spec/producers.md).
fn announces_tests(text: &str) -> bool {
    text.starts_with("Subtest:")
        || text.starts_with("TAP results for ")
        || super::headings::is_definition_announcement(text)
}

/// An output line that says the next test has begun: a shell test library's verbose
/// `expecting success: …` / `expecting failure: …` (protocol-spec/producers.md): what follows
/// it, up to that test's point, is the next test's.
fn starts_next_test(text: &str) -> bool {
    let t = text.trim_start();
    t.starts_with("expecting success") || t.starts_with("expecting failure")
}

/// A v2 lifecycle event that says a test (or a suite) has begun.
fn starts_a_test(json: &str) -> bool {
    // Most events are not starts: look for the word before parsing.
    if !json.contains("started") {
        return false;
    }
    let Ok(v) = serde_json::from_str::<serde_json::Value>(json) else {
        return false;
    };
    matches!(
        v.get("type").and_then(|t| t.as_str()),
        Some("test:started" | "suite:started")
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::borrow::Cow;

    fn output(depth: u32, line: u64, text: &str) -> Event<'static> {
        Event::Output {
            depth,
            line,
            text: Cow::Owned(text.to_owned()),
        }
    }

    fn comment(depth: u32, line: u64, text: &str) -> Event<'static> {
        Event::Comment {
            depth,
            line,
            text: Cow::Owned(text.to_owned()),
        }
    }

    fn failing(depth: u32, line: u64) -> Assert<'static> {
        Assert {
            depth,
            line,
            ..Assert::plain(false, "fails")
        }
    }

    /// Feeds `events` after opening failing point `a`; returns the lines kept and the
    /// index of the event that closed it.
    fn run(a: &Assert<'static>, events: &[Event<'static>]) -> (Vec<String>, Option<usize>) {
        let mut t = Trailing::new(100);
        t.open(a, ());
        for (i, ev) in events.iter().enumerate() {
            match t.event(ev) {
                Step::Kept => {}
                Step::Closed((), lines) => return (lines, Some(i)),
                Step::Passed => panic!("event {i} passed while a failure is open"),
            }
        }
        (t.close().map(|(_, l)| l).unwrap_or_default(), None)
    }

    #[test]
    fn an_error_printed_after_not_ok_is_the_failures_up_to_the_next_point() {
        let (lines, closed) = run(
            &failing(0, 2),
            &[
                output(0, 3, "Expected value to equal \"hello there\""),
                output(0, 4, "log printed after it"),
                Event::Assert(Assert::plain(true, "passes")),
            ],
        );
        assert_eq!(
            lines,
            [
                "Expected value to equal \"hello there\"",
                "log printed after it"
            ]
        );
        assert_eq!(closed, Some(2));
    }

    /// A Node error dump printed under the failure ends its output: the line after it is
    /// the next test's, which prints before its point.
    #[test]
    fn the_line_after_a_node_error_dump_is_the_next_tests() {
        let (lines, closed) = run(
            &failing(0, 2),
            &[
                output(0, 3, "Error: Expected value to equal \"hello there\""),
                output(0, 4, "    at TapTest.testFunction (t.ts:12:25)"),
                output(0, 5, "log from the next passing test"),
                Event::Assert(Assert::plain(true, "passes")),
            ],
        );
        assert_eq!(
            lines,
            [
                "Error: Expected value to equal \"hello there\"",
                "    at TapTest.testFunction (t.ts:12:25)",
            ]
        );
        assert_eq!(closed, Some(2));
    }

    #[test]
    fn test_more_diagnostics_are_kept_as_comments() {
        let (lines, closed) = run(
            &failing(0, 2),
            &[
                comment(0, 3, "  Failed test 'fails'"),
                comment(0, 4, "  at t/a.t line 13."),
                Event::Plan {
                    depth: 0,
                    line: 5,
                    plan: tapline_protocol::event::Plan {
                        start: 1,
                        end: 3,
                        skip_all: false,
                        reason: None,
                    },
                },
            ],
        );
        assert_eq!(lines, ["#   Failed test 'fails'", "#   at t/a.t line 13."]);
        assert_eq!(closed, Some(2));
    }

    #[test]
    fn test_mores_closing_line_after_the_last_planned_point_ends_it() {
        // A plan given first (`tests => 2`), diagnostics on stdout: no plan comes after the last
        // point, and the failure's own diagnostics are comments too.
        let (lines, closed) = run(
            &failing(0, 2),
            &[
                comment(0, 3, "  Failed test 'last fails'"),
                comment(0, 4, "  at t/a.t line 18."),
                comment(0, 5, "Looks like you failed 2 tests of 2."),
            ],
        );
        assert_eq!(
            lines,
            ["#   Failed test 'last fails'", "#   at t/a.t line 18."]
        );
        assert_eq!(closed, Some(2));
        for closing in [
            "Looks like you planned 3 tests but ran 2.",
            "Looks like your test exited with 255 just after 2.",
        ] {
            assert_eq!(run(&failing(0, 2), &[comment(0, 3, closing)]).1, Some(0));
        }
    }

    #[test]
    fn the_lines_after_a_failure_without_an_entry_are_no_other_points() {
        // `Failed test` lines for a subtest that failed through its child: the
        // consumer lists no entry for it (the child's path says it), and they are not the
        // next point's either.
        let mut t: Trailing<()> = Trailing::new(100);
        let middle = Event::Assert(Assert {
            depth: 1,
            line: 7,
            closes_subtest: true,
            ..Assert::plain(false, "middle")
        });
        assert_eq!(t.event(&middle), Step::Passed);
        assert_eq!(
            t.event(&comment(1, 8, "  Failed test 'middle'")),
            Step::Kept
        );
        assert_eq!(
            t.event(&Event::Plan {
                depth: 1,
                line: 9,
                plan: tapline_protocol::event::Plan {
                    start: 1,
                    end: 1,
                    skip_all: false,
                    reason: None,
                },
            }),
            Step::Passed
        );
        assert_eq!(t.event(&comment(1, 10, "a later line")), Step::Passed);
        assert_eq!(t.close(), None);
    }

    #[test]
    fn a_verbose_shell_librarys_next_test_ends_it() {
        let (lines, closed) = run(
            &failing(0, 2),
            &[
                comment(0, 3, "\t    test_cmp expected actual"),
                output(0, 4, ""),
                output(0, 5, "expecting success: "),
                output(0, 6, "--- expected"),
            ],
        );
        assert_eq!(lines.len(), 1, "{lines:?}");
        assert_eq!(closed, Some(2));
    }

    #[test]
    fn the_next_tests_definition_announcement_ends_it() {
        let (lines, closed) = run(
            &failing(0, 2),
            &[
                comment(0, 3, " spec/a_spec.lua @ 2"),
                comment(0, 4, " Failure message: spec/a_spec.lua:3: boom"),
                comment(0, 5, " spec/a_spec.lua @ 5: math tables"),
            ],
        );
        assert_eq!(lines.len(), 2, "{lines:?}");
        assert_eq!(closed, Some(2));
    }

    #[test]
    fn a_subtest_heading_another_depth_or_a_subtest_start_ends_it() {
        let (lines, closed) = run(&failing(0, 2), &[comment(0, 3, "Subtest: next")]);
        assert_eq!((lines.len(), closed), (0, Some(0)));
        let (lines, closed) = run(
            &failing(1, 2),
            &[output(1, 3, "mine"), output(0, 4, "the parent's")],
        );
        assert_eq!((lines, closed), (vec!["mine".to_owned()], Some(1)));
        let start = Event::SubtestStart {
            depth: 0,
            line: 3,
            name: Cow::Borrowed("next"),
            buffered: false,
        };
        assert_eq!(run(&failing(0, 2), &[start]).1, Some(0));
    }

    #[test]
    fn after_yaml_diagnostics_a_comment_is_the_next_tests_heading_but_output_is_still_its() {
        let mut a = failing(0, 2);
        a.diagnostics = Some(Cow::Borrowed("operator: equal\n"));
        let (lines, closed) = run(
            &a,
            &[output(0, 8, "printed after"), comment(0, 9, "next test")],
        );
        assert_eq!((lines, closed), (vec!["printed after".to_owned()], Some(1)));
    }

    #[test]
    fn a_v2_start_event_ends_it_by_line_number_though_it_comes_first() {
        let mut t = Trailing::new(100);
        // The parser emits the event at once, before the pending point and its lines.
        let started = Event::V2Event {
            depth: 0,
            line: 4,
            json: Cow::Borrowed(r#"{"type":"test:started","name":"b"}"#),
        };
        assert_eq!(t.event(&started), Step::Passed);
        t.open(&failing(0, 2), ());
        assert_eq!(t.event(&output(0, 3, "error of a")), Step::Kept);
        assert_eq!(
            t.event(&output(0, 5, "log of b")),
            Step::Closed((), vec!["error of a".to_owned()])
        );
        // A start event before the failing point does not end it.
        let mut t = Trailing::new(100);
        assert_eq!(t.event(&started), Step::Passed);
        t.open(&failing(0, 6), ());
        assert_eq!(t.event(&output(0, 7, "error")), Step::Kept);
        let done = Event::V2Event {
            depth: 0,
            line: 8,
            json: Cow::Borrowed(r#"{"type":"test:completed","started":1}"#),
        };
        assert_eq!(t.event(&done), Step::Passed);
        assert_eq!(t.close(), Some(((), vec!["error".to_owned()])));
    }

    #[test]
    fn blank_lines_count_only_inside_its_output() {
        let (lines, _) = run(
            &failing(0, 2),
            &[
                output(0, 3, "AssertionError: values differ"),
                output(0, 4, "  "),
                output(0, 5, "+ 'a'"),
                output(0, 6, "   "),
                output(0, 7, ""),
                Event::Assert(Assert::plain(true, "next")),
            ],
        );
        assert_eq!(lines, ["AssertionError: values differ", "  ", "+ 'a'"]);
    }

    #[test]
    fn problems_and_markers_leave_it_open_and_a_long_output_keeps_its_first_lines() {
        let mut t = Trailing::new(2);
        t.open(&failing(0, 1), ());
        let problem = Event::Problem(tapline_protocol::event::Problem {
            depth: 0,
            line: 2,
            kind: tapline_protocol::event::ProblemKind::LineTooLong,
            message: "long".to_owned(),
            fails: false,
        });
        assert_eq!(t.event(&problem), Step::Passed);
        for (i, text) in ["one", "two", "three", "four"].iter().enumerate() {
            assert_eq!(t.event(&output(0, 3 + i as u64, text)), Step::Kept);
        }
        let end = Event::End {
            verdict: tapline_protocol::event::Verdict {
                ok: false,
                count: 1,
                pass: 0,
                fail: 1,
                todo: 0,
                skip: 0,
                plan: None,
                bailout: None,
                reasons: Vec::new(),
            },
        };
        assert_eq!(
            t.event(&end),
            Step::Closed(
                (),
                vec![
                    "one".to_owned(),
                    "two".to_owned(),
                    "… 2 later lines not shown".to_owned()
                ]
            )
        );
        assert_eq!(t.event(&output(0, 9, "after")), Step::Passed);
    }

    /// test-data/formats/go-nested.jsonl read (recorded from test-data/formats/src/go-nested;
    /// the tool and version: test-data/formats/VERSIONS.txt).
    fn go_nested() -> Vec<Event<'static>> {
        let mut p = tapline_protocol::gojson::GoJsonParser::new(Vec::new());
        p.feed(include_bytes!("../../test-data/formats/go-nested.jsonl"));
        p.finish()
    }

    /// Each point's name, and the output a report gives it by the rules every report follows:
    /// the lines before it ([`crate::explain::headings`] aside) and a failure's lines after it
    /// ([`crate::explain::trailing`]).
    fn owners(events: &[Event<'static>]) -> Vec<(String, Vec<String>)> {
        let mut trailing: Trailing<usize> = Trailing::new(100);
        let mut owned: Vec<(String, Vec<String>)> = Vec::new();
        let mut pending = Vec::new();
        for ev in events {
            match trailing.event(ev) {
                Step::Kept => continue,
                Step::Closed(i, lines) => owned[i].1.extend(lines),
                Step::Passed => {}
            }
            match ev {
                Event::Output { text, .. } => pending.push(text.to_string()),
                Event::Assert(a) => {
                    owned.push((a.name.to_string(), std::mem::take(&mut pending)));
                    if a.is_failure() {
                        trailing.open(a, owned.len() - 1);
                    }
                }
                _ => {}
            }
        }
        owned
    }

    #[test]
    fn a_tests_output_is_its_own_not_the_failure_before_it() {
        let owned = owners(&go_nested());
        let of = |name: &str| -> String {
            let (_, lines) = owned
                .iter()
                .find(|(n, _)| n == name)
                .unwrap_or_else(|| panic!("no point {name:?} in {owned:#?}"));
            lines.join("\n")
        };
        // A failure, the point after it (a passing test, or the package), and what that printed.
        for (failure, next, line) in [
            ("ints", "strings", "comparing strings"),
            ("TestEqual", "TestHash", "hash is stable"),
            ("ascending", "descending", "sorted 3 items"),
            ("TestSort", "TestLen", "len is 3"),
            ("TestEmpty", "example.com/gonested/cmp/cmpopts", "teardown"),
        ] {
            assert!(!of(failure).contains(line), "{failure}: {owned:#?}");
            assert!(of(next).contains(line), "{next}: {owned:#?}");
        }
    }
}
