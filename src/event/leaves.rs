//! Which test points of a stream are tests, and their count: what `run` and `parse` put in
//! their summary lines, JUnit in its cases, and history in its tests.
//!
//! - TAP: the top-level points (a subtest is one test, as TAP's own harness counts it),
//!   except in a stream that announces every test, a leaf too, with a `# Subtest:` heading and
//!   times every point in its YAML ([`NodeTest`], the protocol crate's dialect), where every
//!   test its producer counts is one: every point at every depth but a suite (`type:
//!   'suite'`), so that the counts are the producer's own `# tests`/`# pass`/`# fail`/
//!   `# skipped`/`# todo` trailer;
//! - a tree of packages or suites (`go-json` input, JUnit XML), whose top
//!   level is packages and suites, not tests: its leaf tests ([`LeafTally`]).

use super::run::Tally;
use crate::event::{Assert, Event};

/// Tallies every leaf test, and a package or suite only when it failed with no failing test
/// inside (a build failure, a crash after the tests). One with no tests that did not fail (a
/// package without test files or without tests, an empty suite) is no test: the tools that
/// write such trees count none there.
#[derive(Debug, Clone)]
pub struct LeafTally {
    tally: Tally,
    /// Per open level (the top first): points counted inside it, and failures among them.
    counted: Vec<(u64, u64)>,
}

impl Default for LeafTally {
    fn default() -> Self {
        LeafTally {
            tally: Tally::default(),
            counted: vec![(0, 0)],
        }
    }
}

impl LeafTally {
    /// A subtest opens at `depth` (its parent's level is `depth - 1`).
    pub fn subtest_start(&mut self, depth: u32) {
        self.counted.resize(depth as usize, (0, 0));
        self.counted.push((0, 0));
    }

    /// A test point; one that closes a subtest counts only as described above.
    pub fn point(&mut self, a: &Assert<'_>) {
        let depth = a.depth as usize;
        let count = if a.closes_subtest {
            let failed = self.counted.get(depth + 1).map_or(0, |level| level.1);
            self.counted.truncate(depth + 1);
            a.is_failure() && failed == 0
        } else {
            true
        };
        if count {
            self.tally.add(a);
            if self.counted.len() <= depth {
                self.counted.resize(depth + 1, (0, 0));
            }
            for level in &mut self.counted[..=depth] {
                level.0 += 1;
                level.1 += u64::from(a.is_failure());
            }
        }
    }

    pub fn tally(&self) -> &Tally {
        &self.tally
    }

    /// Feeds the stream's next event (its subtests and points; the rest says nothing here).
    pub fn event(&mut self, event: &Event<'_>) {
        match event {
            Event::Assert(a) => self.point(a),
            Event::SubtestStart { depth, .. } => self.subtest_start(*depth),
            _ => {}
        }
    }
}

/// Tells the dialect where every test is announced and timed from its first test point, and
/// which of its points are tests (its producer and how it is told: the protocol crate's
/// [`tapline_protocol::dialect`]).
pub use tapline_protocol::dialect::NodeTest;

/// A suite of that dialect: a name tests are found by, counted as no test; the tests inside
/// it are counted on their own.
pub use tapline_protocol::dialect::is_suite;

use tapline_protocol::dialect::cancelled;

/// Counts a TAP stream's tests: its top-level points, or in the dialect that announces every
/// test its producer's tests ([`NodeTest`]). Both are counted as the stream goes: a stream
/// first read as that dialect may turn out to wrap it ([`NodeTest`]), and is then counted as
/// any stream.
#[derive(Debug, Clone, Default)]
pub struct TapTally {
    node: NodeTest,
    /// The top-level points.
    top: Tally,
    /// The tests the dialect's producer counts.
    tests: Tally,
}

impl TapTally {
    /// Feeds the stream's next event.
    pub fn event(&mut self, event: &Event<'_>) {
        self.node.event(event);
        let Event::Assert(a) = event else {
            return;
        };
        if a.depth == 0 {
            self.top.add(a);
        }
        if self.node.is_test(a) {
            self.tests.add(a);
            if self.node.owns(a) && a.is_failure() && cancelled(a) {
                self.tests.cancelled += 1;
            }
        }
    }

    /// Whether the stream is in the dialect that announces every test ([`NodeTest`]), as far
    /// as it has been read.
    pub fn node(&self) -> bool {
        self.node.known()
    }

    pub fn tally(&self) -> &Tally {
        match self.node.known() {
            true => &self.tests,
            false => &self.top,
        }
    }
}

/// Counts a stream's assertions: every point at every depth, except a subtest's own point
/// where it only sums its subtest up (the subtest printed points, its point is neither SKIP
/// nor TODO, and its `ok` is the subtest's: no failing point at the subtest's own level). So a
/// passing subtest is its assertions; an empty one, a skipped one or one whose point disagrees
/// with its inside is one more. The rule of a harness that counts assertions (its room says
/// so, `Counting::Asserts`).
#[derive(Debug, Clone)]
pub struct AssertTally {
    tally: Tally,
    /// Per open level (the top first): its points, and its failing ones.
    levels: Vec<(u64, u64)>,
}

impl Default for AssertTally {
    fn default() -> Self {
        AssertTally {
            tally: Tally::default(),
            levels: vec![(0, 0)],
        }
    }
}

impl AssertTally {
    /// Feeds the stream's next event (its subtests and points; the rest says nothing here).
    pub fn event(&mut self, event: &Event<'_>) {
        match event {
            Event::SubtestStart { depth, .. } => {
                self.levels.resize(*depth as usize, (0, 0));
                self.levels.push((0, 0));
            }
            Event::Assert(a) => self.point(a),
            _ => {}
        }
    }

    fn point(&mut self, a: &Assert<'_>) {
        let depth = a.depth as usize;
        let sums_up = a.closes_subtest && {
            let (points, failed) = self.levels.get(depth + 1).copied().unwrap_or((0, 0));
            points > 0 && a.ok == (failed == 0) && a.skip.is_none() && a.todo.is_none()
        };
        if a.closes_subtest {
            self.levels.truncate(depth + 1);
        }
        if self.levels.len() <= depth {
            self.levels.resize(depth + 1, (0, 0));
        }
        let level = &mut self.levels[depth];
        level.0 += 1;
        level.1 += u64::from(a.failed_as_printed());
        if !sums_up {
            self.tally.add(a);
        }
    }

    pub fn tally(&self) -> &Tally {
        &self.tally
    }
}

/// A stream's tests, counted as its kind counts them: a TAP stream's ([`TapTally`]), or the
/// leaf tests of a tree of packages or suites ([`LeafTally`]) once its reader says it is one
/// ([`crate::event::Sink::leaf_tests`]).
#[derive(Debug, Clone, Default)]
pub struct StreamTally {
    tap: TapTally,
    leaves: Option<LeafTally>,
    /// Its tests are its assertions ([`AssertTally`]).
    asserts: Option<AssertTally>,
}

impl StreamTally {
    /// From now on (before any event), the stream's tests are leaf tests.
    pub fn count_leaves(&mut self) {
        self.leaves = Some(LeafTally::default());
    }

    /// From now on (before any event), the stream's tests are its assertions
    /// ([`AssertTally`]).
    pub fn count_asserts(&mut self) {
        self.asserts = Some(AssertTally::default());
    }

    /// Whether it counts leaf tests.
    pub fn leaves(&self) -> bool {
        self.leaves.is_some()
    }

    /// Feeds the stream's next event.
    pub fn event(&mut self, event: &Event<'_>) {
        if let Some(asserts) = &mut self.asserts {
            asserts.event(event);
            return;
        }
        match &mut self.leaves {
            Some(leaves) => leaves.event(event),
            None => self.tap.event(event),
        }
    }

    /// Whether the stream is in the dialect that announces every test ([`NodeTest`]), as far
    /// as it has been read.
    pub fn node(&self) -> bool {
        self.leaves.is_none() && self.asserts.is_none() && self.tap.node()
    }

    pub fn tally(&self) -> &Tally {
        if let Some(asserts) = &self.asserts {
            return asserts.tally();
        }
        match &self.leaves {
            Some(leaves) => leaves.tally(),
            None => self.tap.tally(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::{Event, Sink};
    use crate::protocol::{AnyParser, InputFormat};

    #[derive(Default)]
    struct Count(LeafTally);

    impl Sink for Count {
        fn event(&mut self, event: &Event<'_>) {
            match event {
                Event::SubtestStart { depth, .. } => self.0.subtest_start(*depth),
                Event::Assert(a) => self.0.point(a),
                _ => {}
            }
        }
    }

    /// A tree of packages or suites counted as a run counts it.
    fn leaves(bytes: &[u8], format: InputFormat) -> Tally {
        let mut p = AnyParser::new(Count::default(), Some(format));
        p.feed(bytes);
        *p.finish().0.tally()
    }

    /// A TAP stream counted as a run counts it, and whether it read as the dialect that
    /// announces every test.
    fn tap(tap: &[u8]) -> (Tally, bool) {
        let mut t = TapTally::default();
        for e in crate::protocol::parse_all(tap) {
            t.event(&e);
        }
        (*t.tally(), t.node())
    }

    /// The known answers: test-data/tallies.txt, each recorded stream with the tests its
    /// producer counts (the file says how each was counted).
    fn known_answers() -> Vec<(String, String, Tally, bool)> {
        let root = env!("CARGO_MANIFEST_DIR");
        let table = std::fs::read_to_string(format!("{root}/test-data/tallies.txt"))
            .expect("test-data/tallies.txt readable");
        let rows = table
            .lines()
            .filter(|l| !l.trim().is_empty() && !l.starts_with('#'));
        rows.map(|row| {
            let cols: Vec<&str> = row.split_whitespace().collect();
            let [path, format, pass, fail, skip, todo, cancelled, dialect] = cols[..] else {
                panic!("a row of 8 columns: {row}");
            };
            let n = |c: &str| c.parse().expect("a count");
            let want = Tally {
                pass: n(pass),
                fail: n(fail),
                skip: n(skip),
                todo: n(todo),
                cancelled: n(cancelled),
                ..Tally::default()
            };
            (path.to_owned(), format.to_owned(), want, dialect == "every")
        })
        .collect()
    }

    #[test]
    fn recorded_streams_count_the_tests_their_producers_count() {
        let answers = known_answers();
        assert!(answers.len() >= 6, "the table is read");
        let root = env!("CARGO_MANIFEST_DIR");
        for (path, format, want, every) in answers {
            let bytes = std::fs::read(format!("{root}/test-data/{path}")).expect("readable");
            let got = match format.as_str() {
                "tap" => tap(&bytes),
                "gojson" => (leaves(&bytes, InputFormat::GoJson), false),
                "junit" => (leaves(&bytes, InputFormat::Junit), false),
                other => panic!("no format {other}"),
            };
            assert_eq!(got, (want, every), "{path}");
        }
    }

    #[test]
    fn a_subtest_is_one_test_of_any_stream() {
        let nested = b"# Subtest: a\n    ok 1 - b\n    1..1\nok 1 - a\n1..1\n";
        assert_eq!(
            tap(nested),
            (
                Tally {
                    pass: 1,
                    ..Tally::default()
                },
                false
            )
        );
    }

    #[test]
    fn assertions_count_every_depth_but_the_points_that_sum_subtests_up() {
        // Its producer's own summary of this stream: `{ total: 7, pass: 5, todo: 1, skip: 1 }`.
        let stream = b"TAP version 14\n# Subtest: parent\n    ok 1 - one\n    # Subtest: child\n        ok 1 - two\n        ok 2 - three\n        1..2\n    ok 2 - child\n    1..2\nok 1 - parent\nok 2 - skipped # SKIP not today\nok 3 - later # TODO\n# Subtest: empty\n    1..0\nok 4 - empty\nok 5 - top level\n1..5\n";
        let mut t = AssertTally::default();
        for e in crate::protocol::parse_all(stream) {
            t.event(&e);
        }
        let want = Tally {
            pass: 5,
            skip: 1,
            todo: 1,
            ..Tally::default()
        };
        assert_eq!(*t.tally(), want);
        // A failing assertion is one failure; a subtest whose point disagrees with its
        // inside counts too.
        let failing = b"# Subtest: g\n    not ok 1 - a\n    1..1\nnot ok 1 - g\n# Subtest: h\n    not ok 1 - b\n    1..1\nok 2 - h\n1..2\n";
        let mut t = AssertTally::default();
        for e in crate::protocol::parse_all(failing) {
            t.event(&e);
        }
        let want = Tally {
            pass: 1,
            fail: 2,
            ..Tally::default()
        };
        assert_eq!(*t.tally(), want);
    }
}
