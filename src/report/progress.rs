//! What a running stream is doing now, for the live displays (`tapline run`'s live region, the
//! daemon's `status`): the test it is on, and its counts with the point being read.
//!
//! A test point is announced by `AssertBegin` as soon as its line is read, and completed by
//! its `Assert` once its YAML block (or the next line) has come. Until then it is the current
//! test and counts as its line says, so a file that stalls right after `not ok 2 - b` shows `b`
//! and the failure, not the point before. A v2 `test:started` event names the test whose body
//! is running, before it reports anything.
use crate::event::run::{OpenSubtests, Tally};
use crate::event::Event;

#[derive(Debug, Default)]
pub(crate) struct Progress {
    /// Complete tests: top-level points, or the tests of the dialect that announces every
    /// test ([`crate::event::leaves::TapTally`]).
    done: crate::event::leaves::TapTally,
    /// The top-level point begun and not complete yet, counted as its line says.
    begun: Option<Tally>,
    current: Option<String>,
    subtests: OpenSubtests,
    /// The stream announces its points (the TAP parser does; `go-json` and JUnit
    /// XML sources do not): then a complete point no longer names the current test, which the
    /// next point's line or a `test:started` may already have done.
    announced: bool,
}

impl Progress {
    pub(crate) fn event(&mut self, ev: &Event<'_>) {
        self.done.event(ev);
        match ev {
            Event::AssertBegin {
                depth,
                ok,
                name,
                skip,
                todo,
                ..
            } => {
                self.announced = true;
                // In the dialect that announces every test, points are counted once complete:
                // a suite's says it is one only then.
                if *depth == 0 && !self.done.node() {
                    self.begun = Some(count(*ok, skip.is_some(), todo.is_some()));
                }
                self.current = Some(self.subtests.path(*depth, name));
            }
            Event::Assert(a) => {
                let d = a.depth as usize;
                if d == 0 {
                    self.begun = None;
                    if !self.announced {
                        self.current = Some(a.name.to_string());
                    }
                }
                self.subtests.after(a);
            }
            Event::SubtestStart { depth, name, .. } => {
                self.subtests.start(*depth, name);
                self.current = Some(self.subtests.innermost());
            }
            Event::V2Event { depth: 0, json, .. } => {
                if let Some(name) = started_test(json) {
                    self.current = Some(name);
                }
            }
            // A bail out can drop a begun point; the stream's end leaves none open.
            Event::BailOut { .. } | Event::End { .. } => self.begun = None,
            _ => {}
        }
    }

    /// The test the stream is on: the last point whose line was read (`parent > child` inside
    /// subtests), the subtest being run, or the test a `test:started` named.
    pub(crate) fn current(&self) -> Option<&str> {
        self.current.as_deref()
    }

    /// Tests so far (top-level points, or the dialect's tests), the one being read included.
    pub(crate) fn tally(&self) -> Tally {
        let mut t = *self.done.tally();
        if let Some(b) = &self.begun {
            t.merge(b);
        }
        t
    }

    /// Tests whose `Assert` has come.
    pub(crate) fn completed(&self) -> Tally {
        *self.done.tally()
    }
}

/// One point as [`Tally::add`] counts it: a SKIP or TODO only as that.
fn count(ok: bool, skip: bool, todo: bool) -> Tally {
    let mut t = Tally::default();
    if skip {
        t.skip = 1;
    } else if todo {
        t.todo = 1;
    } else if ok {
        t.pass = 1;
    } else {
        t.fail = 1;
    }
    t
}

/// The test name of a v2 `test:started` event: what the file is doing right now.
pub(crate) fn started_test(json: &str) -> Option<String> {
    let v: serde_json::Value = serde_json::from_str(json).ok()?;
    if v.get("type")?.as_str()? != "test:started" {
        return None;
    }
    Some(v.get("name")?.as_str()?.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::parse_all;

    /// The progress after each line of `tap`, fed as a live stream would be: line by line.
    fn after_each_line(tap: &str) -> Vec<(Option<String>, Tally)> {
        let mut parser = crate::protocol::Parser::new(Vec::<Event<'static>>::new());
        let mut progress = Progress::default();
        let mut seen = 0;
        let mut out = Vec::new();
        for line in tap.split_inclusive('\n') {
            parser.feed(line.as_bytes());
            let events = parser.sink_mut();
            for ev in &events[seen..] {
                progress.event(ev);
            }
            seen = events.len();
            out.push((progress.current().map(str::to_owned), progress.tally()));
        }
        out
    }

    fn tally(pass: u64, fail: u64, skip: u64, todo: u64) -> Tally {
        Tally {
            pass,
            fail,
            skip,
            todo,
            ..Tally::default()
        }
    }

    #[test]
    fn a_point_is_current_and_counted_once_its_line_is_read() {
        let got = after_each_line("1..3\nok 1 - a\nnot ok 2 - b\n  ---\n  x: 1\n  ...\n");
        let names: Vec<_> = got.iter().map(|(c, _)| c.as_deref()).collect();
        assert_eq!(
            names,
            [None, Some("a"), Some("b"), Some("b"), Some("b"), Some("b")]
        );
        assert_eq!(got[1].1, tally(1, 0, 0, 0));
        // `b` counts as failed as soon as its line is read, once.
        for (_, t) in &got[2..] {
            assert_eq!(*t, tally(1, 1, 0, 0));
        }
    }

    #[test]
    fn the_complete_point_settles_the_count() {
        // A SKIP line after the point makes it a skip: the begun `not ok` no longer counts.
        // `1..2`, `not ok 1 - a`, a v2 SKIP marker, `ok 2 - b # TODO x`.
        let tap = include_str!("../../test-data/v2/skip-after-point.tap");
        let got = after_each_line(tap);
        assert_eq!(got[1].1, tally(0, 1, 0, 0));
        assert_eq!(got[3].1, tally(0, 0, 1, 1));
        let mut p = Progress::default();
        for ev in parse_all(tap.as_bytes()) {
            p.event(&ev);
        }
        assert_eq!(p.tally(), tally(0, 0, 1, 1));
        assert_eq!(p.completed(), tally(0, 0, 1, 1));
    }

    #[test]
    fn points_inside_subtests_are_named_by_their_path() {
        let tap =
            "1..1\n# Subtest: group\n    1..2\n    ok 1 - inner\n    ok 2 - last\nok 1 - group\n";
        let got = after_each_line(tap);
        let names: Vec<_> = got
            .iter()
            .map(|(c, _)| c.as_deref().unwrap_or(""))
            .collect();
        assert_eq!(
            names,
            ["", "", "group", "group > inner", "group > last", "group"]
        );
        // Only top-level points count, the closing one included.
        assert_eq!(got[4].1, tally(0, 0, 0, 0));
        assert_eq!(got[5].1, tally(1, 0, 0, 0));
    }

    #[test]
    fn a_v2_test_started_names_the_running_test_before_it_reports() {
        // The v2 header, `1..2`, `test:started` first, `ok 1 - first`, `test:started` second,
        // `test:queued` third, `ok 2 - second`.
        let tap = include_str!("../../test-data/v2/test-started.tap");
        let got = after_each_line(tap);
        let names: Vec<_> = got
            .iter()
            .map(|(c, _)| c.as_deref().unwrap_or(""))
            .collect();
        assert_eq!(
            names,
            ["", "", "first", "first", "second", "second", "second"]
        );
    }

    #[test]
    fn sources_that_do_not_announce_points_name_the_last_complete_one() {
        let mut p = Progress::default();
        p.event(&Event::Assert(crate::event::Assert::plain(false, "x")));
        assert_eq!(p.current(), Some("x"));
        assert_eq!(p.tally(), tally(0, 1, 0, 0));
    }

    #[test]
    fn test_started_is_read_only_from_its_own_type() {
        assert_eq!(
            started_test(r#"{"type":"test:started","name":"a","id":3}"#).as_deref(),
            Some("a")
        );
        for json in [
            r#"{"type":"test:completed","name":"a"}"#,
            r#"{"type":"test:started"}"#,
            r#"{"type":"test:started","name":3}"#,
            "not json",
        ] {
            assert_eq!(started_test(json), None, "{json}");
        }
    }
}
