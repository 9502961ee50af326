//! Comment headings: tape names each test with a `# name` comment before its points (`# alias`,
//! `ok 40 should be strictly equal`), so a failure is named `alias > should be strictly equal`
//! rather than by an assertion's stock message that a dozen points share.
//!
//! The rule, for the reports that name failures (terminal, JUnit, Markdown, HTML):
//! - it applies to a stream whose first line after `TAP version` is a top-level comment (tape
//!   starts so; Test::More, node:test, node-tap, pytest-tap and bats start with a plan, a
//!   point or `# Subtest:`), so a Perl `note` between points never renames them;
//! - in such a stream a top-level comment is the heading of the top-level points after it
//!   until the next heading, once a point follows it; a comment that no point follows (tape's
//!   closing `# tests 48`) stays output;
//! - `# Subtest: name` is a subtest's announcement, never a heading;
//! - a point named as its heading (tape's `t.ok(x, 'name')` in a test of that name) is not
//!   named twice;
//! - a heading is not shown again as the first point's output, since it names it.
//!
//! History and the point names of JUnit's test cases do not use it: they name points as the
//! stream does, so a heading renamed later keeps a test's record.
use crate::event::Event;

/// What an event did to the headings.
#[derive(Debug, PartialEq, Default)]
pub(crate) struct Held {
    /// An earlier comment that turned out to head nothing: the caller keeps it as output now,
    /// before the event.
    pub(crate) released: Option<String>,
    /// The event is a comment held as the next points' heading: not output of theirs.
    pub(crate) heading: bool,
}

/// The heading state of one stream.
#[derive(Debug, Default)]
pub(crate) struct Headings {
    /// Decided by the stream's first line after `TAP version`.
    on: Option<bool>,
    /// A comment waiting for a point to head.
    candidate: Option<String>,
    /// The heading of the points being read.
    current: Option<String>,
}

impl Headings {
    /// Sees every event of the stream that is not a failure's trailing output; returns what a
    /// comment line became.
    pub(crate) fn event(&mut self, ev: &Event<'_>) -> Held {
        match ev {
            // What may come before a stream's first line without saying what the stream is.
            Event::Version { .. }
            | Event::Pragma { .. }
            | Event::Protocol { .. }
            | Event::Problem(_)
            | Event::Marker { .. }
            | Event::V2Event { .. }
            | Event::V2Block { .. }
            | Event::AssertBegin { .. }
            | Event::Output { .. } => Held::default(),
            Event::Comment { depth: 0, text, .. } if is_subtest_announcement(text) => {
                // node:test and node-tap: their comments before it were console output.
                self.on = Some(false);
                self.current = None;
                Held {
                    released: self.candidate.take(),
                    heading: false,
                }
            }
            Event::Comment { depth: 0, text, .. } => {
                if !*self.on.get_or_insert(true) {
                    return Held::default();
                }
                Held {
                    released: self.candidate.replace(text.trim().to_owned()),
                    heading: true,
                }
            }
            Event::Assert(a) => {
                self.on.get_or_insert(false);
                if a.depth == 0 {
                    if let Some(heading) = self.candidate.take() {
                        self.current = Some(heading);
                    }
                }
                Held::default()
            }
            Event::Comment { .. } => Held::default(),
            _ => {
                self.on.get_or_insert(false);
                Held::default()
            }
        }
    }

    /// The point's path under its heading: `alias > should be strictly equal`.
    #[cfg(test)]
    pub(crate) fn name(&self, path: String) -> String {
        match self.heading_of(&path) {
            Some(heading) => format!("{heading} > {path}"),
            None => path,
        }
    }

    /// The heading a top-level point named `name` is under, unless it names itself so.
    pub(crate) fn heading_of(&self, name: &str) -> Option<&str> {
        match &self.current {
            Some(heading) if !heading.is_empty() && !names_itself(name, heading) => Some(heading),
            _ => None,
        }
    }

    /// A comment still waiting at the end of the stream headed nothing: it is output.
    pub(crate) fn take_unused(&mut self) -> Option<String> {
        self.candidate.take()
    }
}

/// `inner fails` in the test `inner`: the point already says where it is.
fn names_itself(path: &str, heading: &str) -> bool {
    path.strip_prefix(heading)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with(' '))
}

fn is_subtest_announcement(text: &str) -> bool {
    text.trim_start().starts_with("Subtest:")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::Assert;
    use std::borrow::Cow;

    fn comment(text: &str) -> Event<'static> {
        Event::Comment {
            depth: 0,
            line: 0,
            text: Cow::Owned(text.to_owned()),
        }
    }

    fn point(name: &str) -> Event<'static> {
        Event::Assert(Assert::plain(false, name))
    }

    /// Feeds a stream; returns each point's name and the comments kept as output.
    fn names(events: &[Event<'static>]) -> (Vec<String>, Vec<String>) {
        let mut h = Headings::default();
        let (mut named, mut output) = (Vec::new(), Vec::new());
        for ev in events {
            let held = h.event(ev);
            output.extend(held.released);
            if let (false, Event::Comment { text, .. }) = (held.heading, ev) {
                output.push(text.to_string());
            }
            if let Event::Assert(a) = ev {
                named.push(h.name(a.name.to_string()));
            }
        }
        output.extend(h.take_unused());
        (named, output)
    }

    #[test]
    fn tape_tests_head_their_points_and_its_totals_stay_output() {
        let (named, output) = names(&[
            comment("parse args"),
            point("no"),
            comment("alias"),
            point("should be strictly equal"),
            point("should be strictly equal"),
            comment("tests 3"),
            comment("fail 3"),
        ]);
        assert_eq!(
            named,
            [
                "parse args > no",
                "alias > should be strictly equal",
                "alias > should be strictly equal"
            ]
        );
        assert_eq!(output, ["tests 3", "fail 3"]);
    }

    #[test]
    fn a_stream_that_starts_with_a_point_or_a_subtest_has_no_headings() {
        let (named, output) = names(&[point("a"), comment("setting up"), point("b")]);
        assert_eq!(named, ["a", "b"]);
        assert_eq!(output, ["setting up"]);
        let (named, _) = names(&[comment("Subtest: s"), point("a"), comment("x"), point("b")]);
        assert_eq!(named, ["a", "b"]);
        // node:test prints a test's console.log as comments before announcing it.
        let (named, output) = names(&[
            comment("console.log line"),
            comment("Subtest: s"),
            point("s"),
            comment("x"),
            point("b"),
        ]);
        assert_eq!(named, ["s", "b"]);
        assert_eq!(output, ["console.log line", "Subtest: s", "x"]);
    }

    #[test]
    fn a_test_with_no_points_heads_nothing() {
        let (named, output) = names(&[comment("empty"), comment("full"), point("a")]);
        assert_eq!(named, ["full > a"]);
        assert_eq!(output, ["empty"]);
    }

    #[test]
    fn a_point_named_as_its_heading_is_named_once() {
        let (named, _) = names(&[
            comment("arrays differ"),
            point("arrays differ"),
            comment("inner"),
            point("inner fails"),
            comment("a"),
            point("adds"),
        ]);
        assert_eq!(named, ["arrays differ", "inner fails", "a > adds"]);
    }
}
