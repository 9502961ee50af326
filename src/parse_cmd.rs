//! `tapline parse`: one stream from a file or stdin to a report on stdout.
use crate::cli::{Format, ParseArgs};
use std::fs::File;
use std::io::{self, IsTerminal, Read, Write};
use std::os::fd::AsFd;
use tapline::event::{Event, Sink};
use tapline::protocol::Parser;
use tapline::report::{human::HumanReport, jsonl::JsonlWriter, summary::SummaryWriter};

/// Remembers the verdict while passing events on.
struct KeepVerdict<S> {
    inner: S,
    ok: Option<bool>,
}

impl<S: Sink> Sink for KeepVerdict<S> {
    fn event(&mut self, event: &Event<'_>) {
        if let Event::End { verdict } = event {
            self.ok = Some(verdict.ok);
        }
        self.inner.event(event);
    }
}

pub fn run(args: &ParseArgs) -> std::process::ExitCode {
    let input: Box<dyn Read> = match args.file.as_deref() {
        None => Box::new(io::stdin().lock()),
        Some(p) if p.as_os_str() == "-" => Box::new(io::stdin().lock()),
        Some(p) => match File::open(p) {
            Ok(f) => Box::new(f),
            Err(e) => {
                eprintln!(
                    "tapline: failed to open {}: {}",
                    p.display(),
                    plain_io_error(&e)
                );
                return crate::EXIT_USAGE.into();
            }
        },
    };
    let stdout = io::stdout();
    let out: Box<dyn Write> = if stdout.is_terminal() {
        Box::new(io::LineWriter::new(stdout.lock()))
    } else {
        // Std's stdout is line-buffered inside, which scans every block for a newline;
        // a duplicate of its descriptor takes large blocks as they are.
        match stdout.as_fd().try_clone_to_owned() {
            Ok(fd) => Box::new(io::BufWriter::with_capacity(1 << 16, File::from(fd))),
            Err(_) => Box::new(io::BufWriter::with_capacity(1 << 16, stdout.lock())),
        }
    };
    let style = args.color.style(io::stdout().is_terminal());
    let result = match args.format {
        Format::Summary => drive(input, SummaryWriter::new(out), |s| s.finish().map(drop)),
        Format::Jsonl => drive(input, JsonlWriter::new(out), |s| s.finish().map(drop)),
        Format::Human => drive(input, HumanReport::new(out, style), |s| {
            s.finish().map(drop)
        }),
    };
    match result {
        Ok(true) => 0.into(),
        Ok(false) => 1.into(),
        // A reader that went away (`| head`) is not an error of ours.
        Err(Failure::Write(e)) if e.kind() == io::ErrorKind::BrokenPipe => 0.into(),
        Err(Failure::Write(e)) => {
            eprintln!("tapline: failed to write the report: {e}");
            crate::EXIT_INTERNAL.into()
        }
        Err(Failure::Read(e)) => {
            eprintln!("tapline: failed to read the input: {}", plain_io_error(&e));
            crate::EXIT_USAGE.into()
        }
    }
}

enum Failure {
    Read(io::Error),
    Write(io::Error),
}

/// Feeds the whole input through the parser into `sink`; returns the stream's verdict.
fn drive<S: Sink>(
    mut input: Box<dyn Read>,
    sink: S,
    finish: impl FnOnce(S) -> io::Result<()>,
) -> Result<bool, Failure> {
    let mut parser = Parser::new(KeepVerdict {
        inner: sink,
        ok: None,
    });
    let mut buf = vec![0u8; 256 * 1024];
    loop {
        match input.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => parser.feed(&buf[..n]),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(Failure::Read(e)),
        }
    }
    let v = parser.finish();
    let ok = v.ok.unwrap_or(false);
    finish(v.inner).map_err(Failure::Write)?;
    Ok(ok)
}

/// `No such file or directory` without the `(os error 2)` tail.
fn plain_io_error(e: &io::Error) -> String {
    let s = e.to_string();
    match s.find(" (os error") {
        Some(i) => s[..i].to_owned(),
        None => s,
    }
}
