//! `--retries` that re-run only a file's failed tests: while an attempt of a file whose
//! framework can filter runs (its [`Refilter`], kept by the planner), its failing test points
//! are named as everywhere else ([`PointNames`]); when it is retried, the next attempt's
//! command runs only those, through the filter `--only-failed` uses. An attempt that failed
//! with no failing test (a crash, a wrong plan) is retried whole, as is a file whose
//! framework has no filter.
use super::test_filter::{failed_leaves, Refilter};
use crate::event::Event;
use crate::explain::names::PointNames;
use std::ffi::OsString;

/// One running attempt's failing tests so far.
#[derive(Default)]
pub(super) struct Failing {
    names: PointNames,
    failed: Vec<Vec<String>>,
}

impl Failing {
    /// One event of the attempt's stream, in order.
    pub(super) fn event(&mut self, event: &Event<'_>) {
        let Some(name) = self.names.event(event) else {
            return;
        };
        if let Event::Assert(a) = event {
            if a.is_failure() {
                self.failed.push(name.parts());
            }
        }
    }

    /// The next attempt's command: only the failed tests, or `None` to run the file whole (no
    /// failing test, or one without a name to filter by).
    pub(super) fn retry_command(&self, refilter: &Refilter) -> Option<Vec<OsString>> {
        let leaves = failed_leaves(self.failed.iter().map(Vec::as_slice));
        let unnamed = leaves.iter().any(|n| n.iter().any(String::is_empty));
        (!leaves.is_empty() && !unnamed).then(|| refilter.command(&leaves))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::Event;

    fn failing(tap: &str) -> Failing {
        let mut f = Failing::default();
        let mut parser = crate::protocol::Parser::new(Vec::<Event<'static>>::new());
        parser.feed(tap.as_bytes());
        for e in parser.finish() {
            f.event(&e);
        }
        f
    }

    #[test]
    fn names_the_failing_leaves_and_runs_whole_without_one() {
        let f = failing("TAP version 14\n# Subtest: math\n    ok 1 - adds\n    not ok 2 - subtracts\n    1..2\nnot ok 1 - math\nok 2 - top\n1..2\n");
        assert_eq!(
            f.failed,
            [
                vec!["math".to_owned(), "subtracts".to_owned()],
                vec!["math".to_owned()]
            ]
        );
        let crash = failing("TAP version 14\nok 1 - fine\n1..3\n");
        assert!(crash.failed.is_empty());
        // A failing point without a name cannot be filtered for: its name is empty, so the
        // retry runs the file whole.
        let unnamed = failing("TAP version 14\nnot ok 1\n1..1\n");
        assert_eq!(unnamed.failed, [vec![String::new()]]);
    }
}
