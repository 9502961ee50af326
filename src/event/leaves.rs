//! Counts the tests of a tree of packages or suites (`go test -json`, JUnit XML), where the top
//! level is packages and suites, not tests: what `run` and `parse` put in their summary lines.

use super::run::Tally;
use crate::event::Assert;

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
}
