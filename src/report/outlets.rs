//! The sinks of a command that runs or receives tests (`run`, its watch mode, `serve`), set up
//! in one place, and the one mapping of how such a command ended onto its exit code.
//!
//! Every one of them has the same outlets: the terminal report on stderr, the machine output
//! on stdout (`--format jsonl|summary`), the `-o` reports on their own thread, and whatever
//! further sink the command adds in front (the forward to a daemon, watch's end stamp). A
//! watch session opens them once per run ([`Outlets::open`]); JSON lines stay one stream over
//! every run, a summary document and the terminal report are one per run.
use crate::event::sink::{Fanout, RunSink};
use crate::report::reader_gone::{self, UntilGone};
use crate::report::sink::{Explaining, JsonlRun, SummaryRun};
use crate::report::style::Style;
use crate::report::terminal::{TerminalOptions, TerminalReporter, Verbosity};
use crate::report::threaded::ReportsThread;
use std::io::{self, BufWriter, IsTerminal, Stdout, Write};

/// Exit codes: 0 passed, 1 failed, 2 usage or input error, 3 internal error, 130 interrupted.
pub const EXIT_USAGE: u8 = 2;
pub const EXIT_INTERNAL: u8 = 3;
pub use crate::run::EXIT_INTERRUPTED;

/// The machine output on stdout.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Machine {
    None,
    Jsonl,
    Summary,
}

/// The terminal report's verbosity from `-q` and `-v` (`-q` wins).
pub fn verbosity(quiet: bool, verbose: bool) -> Verbosity {
    if quiet {
        Verbosity::Quiet
    } else if verbose {
        Verbosity::Verbose
    } else {
        Verbosity::Normal
    }
}

/// A command's outlets, for as many runs as it makes.
pub struct Outlets {
    terminal: TerminalOptions,
    machine: Machine,
    /// One stream over every run, so stdout reads as one.
    jsonl: Option<JsonlRun<BufWriter<UntilGone<Stdout>>>>,
    reports: Option<ReportsThread>,
    stderr_tty: bool,
}

impl Outlets {
    /// `terminal.live` and `terminal.width` are decided per run ([`Outlets::open`]).
    pub fn new(
        terminal: TerminalOptions,
        machine: Machine,
        reports: Option<ReportsThread>,
    ) -> Self {
        Outlets {
            terminal,
            machine,
            jsonl: (machine == Machine::Jsonl)
                .then(|| JsonlRun::new(BufWriter::new(reader_gone::stdout()))),
            reports,
            stderr_tty: io::stderr().is_terminal(),
        }
    }

    /// Nothing but a plain terminal report: what a watch session holds while a run has its
    /// outlets.
    pub fn none() -> Self {
        Outlets {
            terminal: TerminalOptions {
                style: Style::default(),
                live: false,
                verbosity: Verbosity::Normal,
                width: 100,
            },
            machine: Machine::None,
            jsonl: None,
            reports: None,
            stderr_tty: false,
        }
    }

    /// The terminal report's style (watch's own lines are painted alike).
    pub fn style(&self) -> Style {
        self.terminal.style
    }

    /// The terminal report's width when it is not live.
    pub fn width(&self) -> u16 {
        self.terminal.width
    }

    /// One run's sinks; `live` draws a live region on stderr.
    pub fn open(&mut self, live: bool) -> Opened<'_> {
        let mut options = self.terminal;
        options.live = live;
        // Only a live region needs the width; asking without a terminal makes crossterm run
        // `tput`.
        if live {
            options.width = crossterm::terminal::size().map_or(options.width, |(w, _)| w);
        }
        Opened {
            terminal: TerminalReporter::new(stderr_out(live, self.stderr_tty), options),
            summary: (self.machine == Machine::Summary)
                .then(|| SummaryRun::new(BufWriter::new(reader_gone::stdout()))),
            outlets: self,
        }
    }
}

/// The run's stderr: line-buffered on a terminal so progress shows; block-buffered into pipes
/// and files, and under a live region (which draws whole frames). A reader that goes away
/// (`2>&1 | head`) stops the report, not the run.
fn stderr_out(live: bool, tty: bool) -> Box<dyn Write> {
    let stderr = reader_gone::stderr();
    if live {
        Box::new(BufWriter::with_capacity(1 << 16, stderr))
    } else if tty {
        Box::new(io::LineWriter::new(stderr))
    } else {
        Box::new(BufWriter::new(stderr))
    }
}

/// The outlets of one run, open.
pub struct Opened<'o> {
    terminal: TerminalReporter<Box<dyn Write>>,
    summary: Option<SummaryRun<BufWriter<UntilGone<Stdout>>>>,
    outlets: &'o mut Outlets,
}

impl<'o> Opened<'o> {
    /// The sink to feed: `front` first (in order), then the terminal, the machine output and
    /// the reports, every failure explained once in front of them all ([`Explaining`]).
    pub fn sink<'s>(&'s mut self, front: Vec<&'s mut dyn RunSink>) -> Explaining<Fanout<'s>> {
        let mut sinks = front;
        sinks.push(&mut self.terminal);
        if let Some(j) = self.outlets.jsonl.as_mut() {
            sinks.push(j);
        }
        if let Some(s) = self.summary.as_mut() {
            sinks.push(s);
        }
        // Last: it is given each event without a copy, for its own thread.
        if let Some(r) = self.outlets.reports.as_mut() {
            sinks.push(r);
        }
        Explaining::new(Fanout(sinks))
    }

    /// The run's reporting ended: the terminal's last words written, the summary document out,
    /// and what the reports could not write.
    pub fn close(mut self) -> Closed {
        let finish = self.terminal.finish().map(drop);
        let summary = self
            .summary
            .as_mut()
            .map_or(Ok(()), |s| s.out_mut().flush());
        let jsonl = self.outlets.jsonl.as_mut().map_or(Ok(()), RunSink::flush);
        let report_errors = self
            .outlets
            .reports
            .as_mut()
            .map(ReportsThread::take_errors)
            .unwrap_or_default();
        Closed {
            written: finish.and(summary).and(jsonl),
            report_errors,
        }
    }
}

/// How a run's reporting ended.
#[must_use]
pub struct Closed {
    /// The terminal report and the machine output, written (or why not).
    pub written: io::Result<()>,
    /// The `-o` reports that could not be written, each a line.
    pub report_errors: Vec<String>,
}

/// What a command's run and its reporting come to.
#[derive(Debug, PartialEq, Eq)]
pub enum Reported<T> {
    /// The run's answer, its reports written.
    Done(T),
    /// Writing the run out failed: an error of ours, whatever the tests did.
    Failed(String),
}

/// The one judgement of a run and its reporting: a sink's error during the run, or one in
/// writing its end, outweighs the tests' answer. A reader that went away (`| head`) is no
/// error and never reaches here: the stdout and stderr writers drop the rest and the run goes
/// on to its verdict ([`reader_gone`]). The `-o` reports are the caller's: a watch session
/// tells their errors and goes on.
pub fn reported<T>(ran: io::Result<T>, closed: &Closed) -> Reported<T> {
    let failed = |e: &io::Error| Reported::Failed(format!("failed to report the run: {e}"));
    match (ran, &closed.written) {
        (Err(e), _) => failed(&e),
        // The answer is in: a reader that left while its end was written keeps it.
        (Ok(_), Err(e)) if e.kind() != io::ErrorKind::BrokenPipe => failed(e),
        (Ok(answer), _) => Reported::Done(answer),
    }
}

/// The exit code of a command whose run answered `code` (`run`, `serve`), or the message of
/// an internal error ([`EXIT_INTERNAL`]). A report that could not be written is one: its
/// errors are told on stderr first, one a line.
pub fn exit_code(ran: io::Result<u8>, closed: &Closed) -> Result<u8, String> {
    for e in &closed.report_errors {
        crate::say!("tapline: {e}");
    }
    match reported(ran, closed) {
        Reported::Done(_) if !closed.report_errors.is_empty() => Err(format!(
            "{} not written",
            crate::report::counted(closed.report_errors.len() as u64, "report")
        )),
        Reported::Done(code) => Ok(code),
        Reported::Failed(msg) => Err(msg),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn closed(written: io::Result<()>, errors: &[&str]) -> Closed {
        Closed {
            written,
            report_errors: errors.iter().map(|e| (*e).to_owned()).collect(),
        }
    }

    fn err(kind: io::ErrorKind) -> io::Error {
        io::Error::new(kind, "boom")
    }

    #[test]
    fn the_tests_answer_when_everything_was_written() {
        assert_eq!(exit_code(Ok(1), &closed(Ok(()), &[])), Ok(1));
        assert_eq!(exit_code(Ok(130), &closed(Ok(()), &[])), Ok(130));
    }

    #[test]
    fn a_broken_pipe_that_reaches_here_is_no_answer() {
        // The stdout and stderr writers absorb a reader gone ([`reader_gone`]), so the run
        // has its answer; one that reaches here anyway is a failure of ours, never a pass.
        let gone = io::ErrorKind::BrokenPipe;
        assert!(exit_code(Err(err(gone)), &closed(Ok(()), &[])).is_err());
        // The run ended before the reader went: the tests' answer stands.
        assert_eq!(exit_code(Ok(1), &closed(Err(err(gone)), &[])), Ok(1));
    }

    #[test]
    fn a_failed_write_or_report_is_ours_whatever_the_tests_did() {
        let other = io::ErrorKind::Other;
        assert!(exit_code(Ok(0), &closed(Err(err(other)), &[])).is_err());
        assert!(exit_code(Err(err(other)), &closed(Ok(()), &[])).is_err());
        assert_eq!(
            exit_code(
                Ok(1),
                &closed(Ok(()), &["failed to write a.xml", "failed to write b.html"])
            ),
            Err("2 reports not written".to_owned())
        );
    }
}
