//! One TAP stream (`tapline parse`) told as a run of one file, so the reports of a run (JUnit,
//! Markdown, HTML, annotations) render it, on the reports thread as a run's would be.
use super::sink::{Explaining, RunSink as _};
use super::threaded::ReportsThread;
use crate::event::run::{FailureReason, RunEvent};
use std::io;

/// One TAP stream (`tapline parse`) told as a run of one file named `name`, so the reports of
/// a run (JUnit, Markdown, HTML, annotations) render it too.
pub struct StreamAsRun {
    /// The reports, behind the stage that explains the stream's failures for them.
    reports: Explaining<ReportsThread>,
    name: String,
    started: Option<std::time::Instant>,
    /// Its tests: top-level points, the tests of the dialect that announces every test
    /// ([`crate::event::leaves`]), or the leaf tests of packages or
    /// suites once the parser says so ([`crate::event::Sink::leaf_tests`]).
    tally: crate::event::leaves::StreamTally,
    failed: Option<io::Error>,
}

impl StreamAsRun {
    pub fn new(reports: ReportsThread, name: String) -> Self {
        StreamAsRun {
            reports: Explaining::new(reports),
            name,
            started: None,
            tally: Default::default(),
            failed: None,
        }
    }

    /// The reports back (their write errors), or the first error a report sink returned.
    ///
    /// # Errors
    ///
    /// A sink's own error.
    pub fn finish(self) -> io::Result<ReportsThread> {
        match self.failed {
            Some(e) => Err(e),
            None => Ok(self.reports.into_inner()),
        }
    }

    fn send(&mut self, ev: RunEvent) {
        if self.failed.is_none() {
            if let Err(e) = self.reports.on_owned(ev) {
                self.failed = Some(e);
            }
        }
    }

    fn start(&mut self) {
        self.started = Some(std::time::Instant::now());
        let here = super::record::Meta::current();
        self.send(RunEvent::RunStarted {
            run: 1,
            files: 1,
            jobs: 1,
            started_ms: super::record::unix_ms(std::time::SystemTime::now()),
            host: here.host,
            // No project root: a stream from anywhere keeps its locations as the producer
            // wrote them, as `parse`'s own report does (the page still says where it ran).
            cwd: None,
            command: here.command,
            test_filter: None,
        });
        let file = crate::event::run::FileInfo {
            index: 0,
            rel: self.name.clone(),
            command: String::new(),
            log: None,
            attempt: 1,
            leaves: self.tally.leaves(),
        };
        self.send(RunEvent::FileStarted { run: 1, file });
    }

    fn end(&mut self, verdict: &crate::event::Verdict<'_>) {
        use crate::event::run::{FileResult, RunSummary};
        let duration = self.started.map(|s| s.elapsed()).unwrap_or_default();
        let result = FileResult {
            ok: verdict.ok,
            reasons: verdict
                .reasons
                .iter()
                .map(|r| FailureReason::of_stream(r))
                .collect(),
            exit: None,
            timed_out: false,
            cancelled: false,
            leaked: false,
            duration,
            tally: *self.tally.tally(),
            verdict: verdict.clone().into_owned(),
            attempts: 1,
            flaky: false,
            cached: false,
            no_tests: false,
            tests: Default::default(),
        };
        self.send(RunEvent::FileFinished {
            run: 1,
            file: 0,
            result: Box::new(result),
        });
        let summary = RunSummary {
            ok: verdict.ok,
            files_total: 1,
            files_passed: usize::from(verdict.ok),
            files_failed: usize::from(!verdict.ok),
            tests: *self.tally.tally(),
            duration,
            ..RunSummary::default()
        };
        self.send(RunEvent::RunFinished {
            run: 1,
            summary: Box::new(summary),
        });
    }
}

impl crate::event::Sink for StreamAsRun {
    fn leaf_tests(&mut self) {
        self.tally.count_leaves();
    }

    fn event(&mut self, event: &crate::event::Event<'_>) {
        use crate::event::Event;
        if self.started.is_none() {
            self.start();
        }
        self.tally.event(event);
        if let Event::End { verdict } = event {
            let owned = event.clone().into_owned();
            self.send(RunEvent::Tap {
                run: 1,
                file: 0,
                event: owned,
            });
            self.end(verdict);
            return;
        }
        self.send(RunEvent::Tap {
            run: 1,
            file: 0,
            event: event.clone().into_owned(),
        });
    }
}
