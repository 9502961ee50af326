//! Which test points of a stream are tests, and their count: what `run` and `parse` put in
//! their summary lines, JUnit in its cases, and history in its tests.
//!
//! - TAP: the top-level points (a subtest is one test, as prove counts it), except in a
//!   node:test stream ([`NodeTest`]), where every test node counts is one: every point at
//!   every depth but a `describe` (node's `type: 'suite'`), so that the counts are node's own
//!   `# tests`/`# pass`/`# fail`/`# skipped`/`# todo` trailer;
//! - a tree of packages or suites (`go test -json`, JUnit XML), whose top level is packages
//!   and suites, not tests: its leaf tests ([`LeafTally`]).

use super::run::Tally;
use crate::event::{Assert, Event};

/// Tallies every leaf test, and a package or suite only when it failed with no failing test
/// inside (a build failure, a crash after the tests). One with no tests that did not fail (a
/// package without test files or without tests, an empty libtest suite) is no test: go and
/// cargo count none there.
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

/// Tells a node:test stream from its first test point: node announces every test with a
/// `# Subtest: name` heading, a leaf too (node-tap and Perl announce only subtests, whose
/// points follow indented), and gives every point a YAML block with its `duration_ms:`; a
/// `describe` says `type: 'suite'` in its block. A stream where node:test's output is only a
/// part (node-tap's runner wraps each file's output in a top-level point of its own, without
/// node's YAML) is not node:test's: it is counted as any stream.
#[derive(Debug, Clone, Default)]
pub struct NodeTest {
    /// A point as only node:test writes them has been read.
    seen: bool,
    /// A top-level point that is not node:test's has been read.
    foreign: bool,
    /// The depth of a `# Subtest:` heading just read, its point not yet come.
    heading: Option<u32>,
}

impl NodeTest {
    pub fn event(&mut self, event: &Event<'_>) {
        if self.foreign {
            // Told for good: nothing more to read (a Perl or node-tap stream's every point
            // would otherwise have its YAML scanned).
            return;
        }
        match event {
            Event::Comment { depth, text, .. } if text.starts_with("Subtest:") => {
                self.heading = Some(*depth);
            }
            // A point's own line comes between its heading and its `Assert`.
            Event::AssertBegin { .. } | Event::Comment { .. } => {}
            Event::Assert(a) => {
                // A point's YAML is read only where it can tell something: until the stream
                // is told, and at the top level.
                let nodes = || a.diagnostics.as_deref().is_some_and(timed);
                if !self.seen {
                    let announced = self.heading == Some(a.depth) && !a.closes_subtest;
                    self.seen = (announced && nodes()) || is_suite(a);
                }
                if a.depth == 0 {
                    self.foreign = !nodes();
                }
                self.heading = None;
            }
            _ => self.heading = None,
        }
    }

    /// Whether the stream is node:test's, as far as it has been read.
    pub fn known(&self) -> bool {
        self.seen && !self.foreign
    }

    /// Whether the point `a` of a node:test stream is a test: a point of node's (its YAML
    /// block has node's `duration_ms:`) but a `describe`; another producer's point (node-tap's
    /// runner wraps each file's output in a point of its own) only at the top level, as in
    /// any stream.
    pub fn is_test(&self, a: &Assert<'_>) -> bool {
        match self.owns(a) {
            true => !is_suite(a),
            false => a.depth == 0,
        }
    }

    /// Whether `a` is a point of node:test's own (its YAML block has node's `duration_ms:`),
    /// in a node:test stream.
    pub fn owns(&self, a: &Assert<'_>) -> bool {
        self.known() && a.diagnostics.as_deref().is_some_and(timed)
    }
}

/// A YAML block with node's `duration_ms:` (node:test writes one in every block).
fn timed(yaml: &str) -> bool {
    yaml.lines().any(|l| l.starts_with("duration_ms:"))
}

/// A node:test `describe`: node counts it as a suite, not a test; the tests inside it are
/// counted on their own.
pub use crate::explain::is_node_suite as is_suite;

/// A node:test test that node cancelled, not failed: its parent ended first, it timed out or
/// it was aborted (node's `failureType`s for a test it cancels; the trailer counts them as
/// `# cancelled`, apart from `# fail`).
fn cancelled(a: &Assert<'_>) -> bool {
    a.diagnostics.as_deref().is_some_and(|yaml| {
        yaml.lines().any(|l| {
            let kind = l
                .strip_prefix("failureType:")
                .map(|k| k.trim().trim_matches('\''));
            matches!(
                kind,
                Some("cancelledByParent" | "testTimeoutFailure" | "testAborted")
            )
        })
    })
}

/// Counts a TAP stream's tests: its top-level points, or node:test's tests in a node:test
/// stream ([`NodeTest`]). Both are counted as the stream goes: a stream first read as node's
/// may turn out to wrap it ([`NodeTest`]), and is then counted as any stream.
#[derive(Debug, Clone, Default)]
pub struct TapTally {
    node: NodeTest,
    /// The top-level points.
    top: Tally,
    /// The tests node:test counts.
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

    /// Whether the stream is node:test's ([`NodeTest`]), as far as it has been read.
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

    /// Whether the stream is node:test's ([`NodeTest`]), as far as it has been read.
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

    fn leaves(path: &str, format: InputFormat) -> Tally {
        let bytes = std::fs::read(format!("{}/{path}", env!("CARGO_MANIFEST_DIR")))
            .expect("test data readable");
        let mut p = AnyParser::new(Count::default(), Some(format));
        p.feed(&bytes);
        *p.finish().0.tally()
    }

    #[test]
    fn counts_leaf_tests_not_packages() {
        let go = leaves("test-data/formats/go-test.jsonl", InputFormat::GoJson);
        let junit = leaves("test-data/formats/pytest.xml", InputFormat::Junit);
        // Counted by hand in the recordings: go's 9 passing leaf tests (passing parents of
        // subtests are not leaves), TestAbs/minus_three and the package that did not build,
        // 2 skipped tests (a package without test files is no test); pytest's 11 test cases.
        let tally = |pass, fail, skip, todo| Tally {
            pass,
            fail,
            skip,
            todo,
            ..Tally::default()
        };
        assert_eq!(go, tally(9, 2, 2, 0));
        assert_eq!(junit, tally(5, 4, 1, 1));
    }

    /// A TAP stream counted as a run counts it.
    fn tap(tap: &[u8]) -> (Tally, bool) {
        let mut t = TapTally::default();
        for e in crate::protocol::parse_all(tap) {
            t.event(&e);
        }
        (*t.tally(), t.node())
    }

    fn recorded(path: &str) -> (Tally, bool) {
        let path = format!("{}/test-data/producers/{path}", env!("CARGO_MANIFEST_DIR"));
        tap(&std::fs::read(path).expect("test data readable"))
    }

    #[test]
    fn node_test_counts_every_test_at_every_depth_but_no_describe() {
        // node's trailer: tests 19, pass 6, fail 4, cancelled 3, skipped 3, todo 3.
        let (t, node) = recorded("node-test-nested.tap");
        assert!(node);
        let want = Tally {
            pass: 6,
            fail: 7,
            skip: 3,
            todo: 3,
            cancelled: 3,
            ..Tally::default()
        };
        assert_eq!(t, want);
    }

    #[test]
    fn other_producers_count_their_top_level_points() {
        // node-tap announces subtests only; its runner wraps node:test's output in a point of
        // its own per file; Perl's subtests are one test each.
        for (path, points) in [
            ("node-tap-mixed.tap", 9),
            ("node-tap-runner-trailer.tap", 2),
            ("perl-failures.tap", 7),
        ] {
            let (t, node) = recorded(path);
            assert!(!node, "{path}");
            assert_eq!(t.total(), points, "{path}");
        }
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

    #[test]
    fn a_node_heading_before_a_leaf_tells_node_test() {
        let leaf = b"# Subtest: a\nok 1 - a\n  ---\n  duration_ms: 1.5\n  ...\n1..1\n";
        assert!(tap(leaf).1);
        // Without node's YAML it is any stream's comment.
        assert!(!tap(b"# Subtest: a\nok 1 - a\n1..1\n").1);
    }

    #[test]
    fn node_failure_types_of_cancelled_tests() {
        let point = |kind: &str| Assert {
            diagnostics: Some(format!("duration_ms: 0\nfailureType: '{kind}'\n").into()),
            ..Assert::plain(false, "t")
        };
        for kind in ["cancelledByParent", "testTimeoutFailure", "testAborted"] {
            assert!(cancelled(&point(kind)), "{kind}");
        }
        for kind in ["testCodeFailure", "subtestsFailed", "hookFailed"] {
            assert!(!cancelled(&point(kind)), "{kind}");
        }
    }
}
