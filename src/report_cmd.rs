//! `tapline report RUN.jsonl`: replays a recorded run's events into `-o` reports (the same
//! sinks as a live run, so a replayed `.json` equals the live one), or into the terminal report
//! on stdout when no `-o` is given. Exit codes: the recorded run's (0 passed, 1 failed, 130
//! interrupted), 2 for input that cannot be read or is not a run's events, 3 for a report that
//! cannot be written.
use crate::cli::ReportArgs;
use crate::{EXIT_INTERNAL, EXIT_USAGE};
use std::io::{self, BufRead, BufReader, IsTerminal, Read};
use tapline::event::run::RunEvent;
use tapline::report::output;
use tapline::report::sink::RunSink;
use tapline::report::terminal::{TerminalOptions, TerminalReporter, Verbosity};

/// Exit code of an interrupted run, as `tapline run` gives it.
const EXIT_INTERRUPTED: u8 = 130;

pub fn run(args: &ReportArgs) -> u8 {
    let targets = match output::targets(&args.output) {
        Ok(t) => t,
        Err(msg) => {
            eprintln!("tapline: {msg}");
            return EXIT_USAGE;
        }
    };
    let input: Box<dyn Read> = if args.file.as_os_str() == "-" {
        Box::new(io::stdin().lock())
    } else {
        match std::fs::File::open(&args.file) {
            Ok(f) => Box::new(f),
            Err(e) => {
                eprintln!("tapline: failed to open {}: {e}", args.file.display());
                return EXIT_USAGE;
            }
        }
    };
    let human = targets.is_empty();
    let mut reports = crate::reports::build(targets, args.annotations, false);
    let mut terminal = human.then(|| {
        let stdout = io::stdout();
        let opts = TerminalOptions {
            style: args.color.style(stdout.is_terminal()),
            live: false,
            verbosity: if args.quiet {
                Verbosity::Quiet
            } else {
                Verbosity::Normal
            },
            width: 100,
        };
        TerminalReporter::new(io::BufWriter::new(stdout), opts)
    });
    let mut code = None;
    for (n, line) in BufReader::new(input).lines().enumerate() {
        let line = match line {
            Ok(l) => l,
            Err(e) => {
                eprintln!("tapline: failed to read {}: {e}", args.file.display());
                return EXIT_USAGE;
            }
        };
        if line.trim().is_empty() {
            continue;
        }
        let ev: RunEvent = match serde_json::from_str(&line) {
            Ok(ev) => ev,
            Err(e) => {
                eprintln!(
                    "tapline: failed to read {} line {}: not an event of a tapline run ({e})",
                    args.file.display(),
                    n + 1
                );
                return EXIT_USAGE;
            }
        };
        if let RunEvent::RunFinished { summary, .. } = &ev {
            code = Some(if summary.interrupted {
                EXIT_INTERRUPTED
            } else {
                u8::from(!summary.ok)
            });
        }
        if let RunEvent::SeriesFinished { stability } = &ev {
            if code == Some(0) && !stability.all_stable() {
                code = Some(1);
            }
        }
        // Both: with no `-o` the terminal report, and annotations when they are on.
        let sent = terminal
            .as_mut()
            .map_or(Ok(()), |t| t.on(&ev))
            .and_then(|()| reports.as_mut().map_or(Ok(()), |r| r.on(&ev)));
        if let Err(e) = sent {
            if e.kind() == io::ErrorKind::BrokenPipe {
                return 0;
            }
            eprintln!("tapline: failed to write the report: {e}");
            return EXIT_INTERNAL;
        }
    }
    if let Some(t) = terminal {
        if let Err(e) = t.finish() {
            if e.kind() != io::ErrorKind::BrokenPipe {
                eprintln!("tapline: failed to write the report: {e}");
                return EXIT_INTERNAL;
            }
        }
    }
    let errors = reports
        .as_mut()
        .map(tapline::report::threaded::ReportsThread::take_errors)
        .unwrap_or_default();
    for e in &errors {
        eprintln!("tapline: {e}");
    }
    if !errors.is_empty() {
        return EXIT_INTERNAL;
    }
    match code {
        Some(c) => c,
        None => {
            eprintln!(
                "tapline: {} holds no finished run (no run_finished event)",
                args.file.display()
            );
            EXIT_USAGE
        }
    }
}
