//! A stream's events collected between feeds, with what a verdict needs to know of them: its
//! tally ([`super::leaves`]: top-level points, the tests of the dialect that announces every
//! test, or leaf tests for `go-json` and JUnit), the verdict, every
//! test's name. The runner's file tasks and the daemon's streams collect the same way.
use super::leaves::StreamTally;
use super::run::{Tally, TestNames};
use super::{Event, Sink, Verdict};

/// Bytes of a child's (or a daemon stream's) output parsed at a time, each slice's events sent
/// on as one batch: small, so the events in flight stay a few MiB.
pub(crate) const EVENT_SLICE: usize = 8 * 1024;

/// Collects the parser's events between feeds, and what the verdict needs to know about them.
/// (The daemon's streams collect the same way.)
#[derive(Default)]
pub(crate) struct Collect {
    pub(crate) events: Vec<Event<'static>>,
    pub(crate) tally: Tally,
    /// Its tests: a TAP stream's, or for `go-json` and JUnit, whose top level is
    /// packages and suites, their leaf tests.
    tests: StreamTally,
    pub(crate) verdict: Option<Verdict<'static>>,
    /// Every test point, named by its full path (unless `skip_tests`).
    pub(crate) names: TestNames,
    /// Keep no `tests` ([`Collect::without_tests`]).
    skip_tests: bool,
    /// `-t` in a file run whole: its points the patterns do not select are marked as such.
    marking: Option<Box<dyn Mark>>,
    /// The test running when the stream stopped, for a file that died ([`super::running`]).
    running: super::running::Running,
}

/// Rewrites a stream's events before they are counted, named and sent on: `-t`'s marking of
/// the tests it did not select, in a file run whole (the run's `not_selected` room).
pub(crate) trait Mark: Send {
    /// The event as the run reports it; `None`: unchanged.
    fn mark(&mut self, event: &Event<'_>) -> Option<Event<'static>>;
    /// Whether a non-zero exit `code` is only the framework's word for failures it marked.
    fn forgives(&self, code: i32) -> bool;
}

impl Collect {
    /// A collector whose events `marking` rewrites first (`-t` in a file run whole).
    pub(crate) fn marked(marking: Box<dyn Mark>) -> Self {
        Collect {
            marking: Some(marking),
            ..Collect::default()
        }
    }

    /// Whether the marking forgives a non-zero exit `code` ([`Mark::forgives`]).
    pub(crate) fn forgives(&self, code: i32) -> bool {
        self.marking.as_ref().is_some_and(|m| m.forgives(code))
    }

    pub(crate) fn counting_tests() -> Self {
        let mut collect = Collect::default();
        collect.tests.count_leaves();
        collect
    }

    /// From now on, its tests are its assertions ([`StreamTally::count_asserts`]).
    pub(crate) fn count_asserts(&mut self) {
        self.tests.count_asserts();
    }

    /// The test that was running when the stream stopped ([`super::running`]).
    pub(crate) fn running(&self) -> Option<String> {
        self.running.test()
    }

    /// A collector that keeps no `tests` (the daemon: no history to feed, and a stream may be
    /// endless).
    pub(crate) fn without_tests() -> Self {
        Collect {
            skip_tests: true,
            ..Collect::default()
        }
    }
}

impl Sink for Collect {
    fn event(&mut self, event: &Event<'_>) {
        let marked = self.marking.as_mut().and_then(|m| m.mark(event));
        let event = marked.as_ref().unwrap_or(event);
        self.tests.event(event);
        self.running.event(event);
        if matches!(event, Event::Assert(_)) {
            self.tally = *self.tests.tally();
        }
        if let Event::End { verdict } = event {
            self.verdict = Some(verdict.clone().into_owned());
        }
        if !self.skip_tests {
            self.names.event(event);
        }
        self.events.push(event.to_static());
    }
}
