//! Producers' dialects that change what a stream's points mean, told from the stream itself.
//! One so far: node:test's ([`NodeTest`]), where every test at every depth is a point of its
//! own and a `describe` is a point too, but a suite, not a test. The app counts and names
//! tests through this module, so that its generic layers need not know the producer. And the
//! words a harness has for a file that printed no TAP ([`NO_TAP_NO_SUBTESTS`]).

use crate::event::{Assert, Event};

/// What prove (TAP's reference harness) says of a `*.t` that printed no TAP, `No subtests
/// run`, after the parser's own [`crate::NO_TAP_OUTPUT`]: the reason a run gives such a file
/// where the harness that runs it would say so too.
pub const NO_TAP_NO_SUBTESTS: &str = "no TAP output (No subtests run)";

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

/// A node:test `describe` (or `suite`): its YAML block says `type: 'suite'`. node counts it
/// as a suite, not a test; the tests inside it are counted on their own.
pub fn is_suite(a: &Assert<'_>) -> bool {
    yaml_says(a, &["type: 'suite'", "type: suite", "type: \"suite\""])
}

/// A node:test `describe` that failed only because its tests did (`failureType:
/// 'subtestsFailed'`), as its YAML says: it says `1 subtest failed` and nothing of its own.
pub fn suite_failed_by_subtests(a: &Assert<'_>) -> bool {
    is_suite(a) && yaml_says(a, &["failureType: 'subtestsFailed'"])
}

/// A node:test test that node cancelled, not failed: its parent ended first, it timed out or
/// it was aborted (node's `failureType`s for a test it cancels; the trailer counts them as
/// `# cancelled`, apart from `# fail`).
pub fn cancelled(a: &Assert<'_>) -> bool {
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

/// Whether a line of the point's YAML block is one of `lines` (trailing space aside).
fn yaml_says(a: &Assert<'_>, lines: &[&str]) -> bool {
    a.diagnostics
        .as_deref()
        .is_some_and(|yaml| yaml.lines().any(|l| lines.contains(&l.trim_end())))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether the stream `tap` reads as node:test's.
    fn told(tap: &[u8]) -> bool {
        let mut node = NodeTest::default();
        for e in &crate::parse_all(tap) {
            node.event(e);
        }
        node.known()
    }

    #[test]
    fn a_node_heading_before_a_leaf_tells_node_test() {
        let leaf = b"# Subtest: a\nok 1 - a\n  ---\n  duration_ms: 1.5\n  ...\n1..1\n";
        assert!(told(leaf));
        // Without node's YAML it is any stream's comment.
        assert!(!told(b"# Subtest: a\nok 1 - a\n1..1\n"));
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
