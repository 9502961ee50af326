//! `tapline parse`: one stream (TAP, `go-json` or JUnit XML) from a file or stdin to a
//! report on stdout.
//!
//! `--format jsonl` is live: whenever the input has nothing more ready to read (a producer
//! piping into us paused), the events so far are flushed to stdout, so a reader sees each
//! as its line arrives; while input keeps coming, the writes stay large.
use crate::cli::{Format, ParseArgs};
use crate::Outcome;
use std::fs::File;
use std::io::{self, IsTerminal, Read, Write};
use std::os::fd::{AsFd, BorrowedFd};
use tapline::event::leaves::StreamTally;
use tapline::event::{Event, Sink};
use tapline::protocol::{AnyParser, InputFormat};
use tapline::report::outlets;
use tapline::report::output::{self, AtomicFile, ReportFormat, Target};
use tapline::report::reader_gone::{Stream, UntilGone};
use tapline::report::stream_as_run::StreamAsRun;
use tapline::report::threaded::ReportsThread;
use tapline::report::visible::Visible;
use tapline::report::{human::HumanReport, jsonl::JsonlWriter, summary::SummaryWriter};

/// Remembers the verdict while passing events on, to the report on stdout and to the `-o`
/// reports.
struct KeepVerdict<S> {
    inner: S,
    ok: Option<bool>,
    files: FileReports,
    /// The stream's tests, for the machine formats' `"tests"` member where they are not its
    /// top-level points (the dialect that announces every test, [`StreamTally`]).
    tally: StreamTally,
    /// Gives the report on stdout its `"tests"` member.
    tests: fn(&mut S, Vec<u8>),
}

impl<S: Sink> Sink for KeepVerdict<S> {
    fn leaf_tests(&mut self) {
        self.tally.count_leaves();
        self.inner.leaf_tests();
        self.files.leaf_tests();
    }

    fn event(&mut self, event: &Event<'_>) {
        self.tally.event(event);
        if let Event::End { verdict } = event {
            self.ok = Some(verdict.ok);
            if self.tally.node() {
                // A tally is plain numbers: it serializes.
                let json = serde_json::to_vec(self.tally.tally()).unwrap_or_default();
                self.files.tests(&json);
                (self.tests)(&mut self.inner, json);
            }
        }
        self.inner.event(event);
        self.files.event(event);
    }
}

/// `-o` reports of one stream: `.jsonl` and `.json` are exactly what `--format jsonl` and
/// `--format summary` print; the others see the stream as a run of one file.
#[derive(Default)]
struct FileReports {
    jsonl: Vec<JsonlWriter<AtomicFile>>,
    summary: Vec<SummaryWriter<AtomicFile>>,
    run: Option<StreamAsRun>,
}

impl FileReports {
    fn open(
        targets: Vec<Target>,
        reports: Option<ReportsThread>,
        name: String,
    ) -> Result<Self, String> {
        let mut files = FileReports::default();
        for t in targets {
            let file = AtomicFile::create(&t.path)
                .map_err(|e| format!("failed to write {}: {e}", t.path.display()))?;
            match t.format {
                ReportFormat::Jsonl => files.jsonl.push(JsonlWriter::new(file)),
                ReportFormat::Json => files.summary.push(SummaryWriter::new(file)),
                _ => {}
            }
        }
        files.run = reports.map(|r| StreamAsRun::new(r, name));
        Ok(files)
    }

    /// The `"tests"` member of the `.jsonl` and `.json` reports ([`KeepVerdict::tests`]).
    fn tests(&mut self, json: &[u8]) {
        for j in &mut self.jsonl {
            j.tests(json.to_vec());
        }
        for s in &mut self.summary {
            s.tests(json.to_vec());
        }
    }

    fn finish(self) -> io::Result<Vec<String>> {
        for j in self.jsonl {
            j.finish()?.commit()?;
        }
        for s in self.summary {
            s.finish()?.commit()?;
        }
        match self.run {
            Some(run) => Ok(run.finish()?.take_errors()),
            None => Ok(Vec::new()),
        }
    }
}

impl Sink for FileReports {
    fn leaf_tests(&mut self) {
        if let Some(r) = &mut self.run {
            r.leaf_tests();
        }
    }

    fn event(&mut self, event: &Event<'_>) {
        for j in &mut self.jsonl {
            j.event(event);
        }
        for s in &mut self.summary {
            s.event(event);
        }
        if let Some(r) = &mut self.run {
            r.event(event);
        }
    }
}

pub fn run(args: &ParseArgs) -> Outcome {
    let targets = output::targets(&args.output).map_err(crate::Failure::Usage)?;
    let record_targets: Vec<Target> = targets
        .iter()
        .filter(|t| !matches!(t.format, ReportFormat::Jsonl | ReportFormat::Json))
        .cloned()
        .collect();
    let machine_on_stdout = args.format != Format::Human;
    let reports = crate::reports::build(record_targets, args.annotations, machine_on_stdout)?;
    let name = match args.file.as_deref() {
        Some(p) if p.as_os_str() != "-" => p.display().to_string(),
        _ => "stdin".to_owned(),
    };
    let input = open_input(args.file.as_deref()).map_err(crate::Failure::Usage)?;
    let from_stdin = args.file.as_deref().is_none_or(|p| p.as_os_str() == "-");
    if from_stdin && io::stdin().is_terminal() {
        // Waiting on a terminal in silence reads as a hang.
        tapline::say!(
            "tapline: reading a stream from the terminal: pipe one in (`node --test | tapline parse`) or name a file; Ctrl-D ends it"
        );
    }
    let out = stdout_out();
    let files = FileReports::open(targets, reports, name).map_err(crate::Failure::Internal)?;
    let style = args.color.style(io::stdout().is_terminal());
    let read = Reading {
        format: args.input_format.map(InputFormat::from),
        allow_empty: args.allow_empty,
    };
    let result = match args.format {
        Format::Summary => drive(
            input,
            read,
            SummaryWriter::new(out),
            files,
            Handlers {
                idle: None,
                tests: SummaryWriter::tests,
                finish: |s: SummaryWriter<_>| s.finish().map(drop),
            },
        ),
        Format::Jsonl => drive(
            input,
            read,
            JsonlWriter::new(out),
            files,
            Handlers {
                idle: Some(JsonlWriter::flush),
                tests: JsonlWriter::tests,
                finish: |s: JsonlWriter<_>| s.finish().map(drop),
            },
        ),
        Format::Human => drive(
            input,
            read,
            // The stream's own control characters are shown, not obeyed; jsonl keeps them
            // as JSON escapes, the `-o` reports as they came.
            HumanReport::new(Visible::new(out, style.enabled), style),
            files,
            Handlers {
                idle: None,
                tests: |_, _| {},
                finish: |s: HumanReport<_>| s.finish().map(drop),
            },
        ),
    };
    exit_code(result)
}

/// The stream to read: the file, or stdin for none or `-`.
fn open_input(file: Option<&std::path::Path>) -> Result<Box<dyn Source>, String> {
    match file {
        None => Ok(Box::new(io::stdin().lock())),
        Some(p) if p.as_os_str() == "-" => Ok(Box::new(io::stdin().lock())),
        Some(p) => match File::open(p) {
            Ok(f) => Ok(Box::new(f)),
            Err(e) => Err(format!(
                "failed to open {}: {}",
                p.display(),
                plain_io_error(&e)
            )),
        },
    }
}

/// stdout: line-buffered on a terminal, large blocks into a pipe or file. A reader that goes
/// away stops the report, not the reading: the exit code is still the stream's verdict.
fn stdout_out() -> Box<dyn Write> {
    let stdout = io::stdout();
    let gone = |w: Box<dyn Write>| UntilGone::new(w, Stream::Stdout);
    if stdout.is_terminal() {
        Box::new(io::LineWriter::new(gone(Box::new(stdout.lock()))))
    } else {
        // Std's stdout is line-buffered inside, which scans every block for a newline;
        // a duplicate of its descriptor takes large blocks as they are.
        let raw: Box<dyn Write> = match stdout.as_fd().try_clone_to_owned() {
            Ok(fd) => Box::new(File::from(fd)),
            Err(_) => Box::new(stdout.lock()),
        };
        Box::new(io::BufWriter::with_capacity(1 << 16, gone(raw)))
    }
}

/// The exit code of a parse: its verdict, unless reading or reporting failed (as a run's,
/// [`outlets::exit_code`]).
fn exit_code(result: Result<(bool, Vec<String>), Failure>) -> Outcome {
    let (ran, report_errors) = match result {
        Ok((ok, errors)) => (Ok(u8::from(!ok)), errors),
        Err(Failure::Read(e)) => {
            let e = plain_io_error(&e);
            return Err(crate::Failure::usage(format!(
                "failed to read the input: {e}"
            )));
        }
        Err(Failure::Write(e)) => (Err(e), Vec::new()),
    };
    let closed = outlets::Closed {
        written: Ok(()),
        report_errors,
    };
    outlets::exit_code(ran, &closed).map_err(crate::Failure::Internal)
}

enum Failure {
    Read(io::Error),
    Write(io::Error),
}

/// How the input is read.
#[derive(Clone, Copy)]
struct Reading {
    /// `None` tells the input's format from its first bytes.
    format: Option<InputFormat>,
    /// `--allow-empty`: a stream with no TAP at all passes.
    allow_empty: bool,
}

/// The input: a file or stdin, whose descriptor tells whether more is ready to read.
trait Source: Read + AsFd {}
impl<T: Read + AsFd> Source for T {}

/// What `drive` does with the report besides feeding it: `idle` when the input has nothing
/// ready (a live report flushes), `tests` before the end of a stream in the dialect that
/// announces every test, `finish` at the
/// end. (Packages and suites are not tests: each report counts the tests inside them once the
/// parser says the stream is such a tree, [`Sink::leaf_tests`].)
struct Handlers<S, F> {
    idle: Option<fn(&mut S) -> io::Result<()>>,
    /// Gives the report its `"tests"` member (the dialect's tests, counted as its producer
    /// counts them).
    tests: fn(&mut S, Vec<u8>),
    finish: F,
}

/// Whether `fd` has bytes (or its end) ready to read now, without waiting.
fn ready(fd: BorrowedFd<'_>) -> bool {
    use rustix::event::{poll, PollFd, PollFlags, Timespec};
    let mut fds = [PollFd::new(&fd, PollFlags::IN)];
    let now = Timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // An error (an fd poll cannot watch) reads as ready: the next read will tell.
    poll(&mut fds, Some(&now)).map_or(true, |n| n > 0)
}

/// Feeds the whole input through the parser into `sink`; returns the stream's verdict.
fn drive<S: Sink, F: FnOnce(S) -> io::Result<()>>(
    mut input: Box<dyn Source>,
    read: Reading,
    sink: S,
    files: FileReports,
    handlers: Handlers<S, F>,
) -> Result<(bool, Vec<String>), Failure> {
    let mut parser = AnyParser::new(
        KeepVerdict {
            inner: sink,
            ok: None,
            files,
            tally: StreamTally::default(),
            tests: handlers.tests,
        },
        read.format,
    )
    .allow_empty(read.allow_empty);
    let mut buf = vec![0u8; 256 * 1024];
    loop {
        match input.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => parser.feed(&buf[..n]),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(Failure::Read(e)),
        }
        if let Some(idle) = handlers.idle {
            if !ready(input.as_fd()) {
                idle(&mut parser.sink_mut().inner).map_err(Failure::Write)?;
            }
        }
    }
    parser.settle();
    let v = parser.finish();
    let ok = v.ok.unwrap_or(false);
    (handlers.finish)(v.inner).map_err(Failure::Write)?;
    let errors = v
        .files
        .finish()
        .map_err(|e| Failure::Write(io::Error::new(e.kind(), format!("a report: {e}"))))?;
    Ok((ok, errors))
}

/// `No such file or directory` without the `(os error 2)` tail.
fn plain_io_error(e: &io::Error) -> String {
    let s = e.to_string();
    match s.find(" (os error") {
        Some(i) => s[..i].to_owned(),
        None => s,
    }
}
