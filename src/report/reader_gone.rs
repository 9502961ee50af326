//! stdout and stderr writers that outlive their reader: a reader that goes away (`| head -1`)
//! stops the output, never the run or its verdict.
//!
//! Under `set -o pipefail` a pipeline's status is its last failing command's, so
//! `tapline run --format jsonl | head -1` must exit with the tests' verdict: a red run that
//! turned green because `head` stopped reading would be a wrong verdict. Once a write to
//! one of these streams fails with a broken pipe, every later write to it is dropped as if
//! written, and the stream is marked gone for whoever wants to know (watch mode quits: its
//! reader is the person or program that went away).
use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, Ordering};

/// One of the process's two output streams.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stream {
    Stdout,
    Stderr,
}

static STDOUT_GONE: AtomicBool = AtomicBool::new(false);
static STDERR_GONE: AtomicBool = AtomicBool::new(false);

impl Stream {
    fn flag(self) -> &'static AtomicBool {
        match self {
            Stream::Stdout => &STDOUT_GONE,
            Stream::Stderr => &STDERR_GONE,
        }
    }

    /// Whether a write to this stream found its reader gone.
    pub fn gone(self) -> bool {
        self.flag().load(Ordering::Relaxed)
    }
}

/// Whether either output stream's reader went away during this process.
pub fn any_gone() -> bool {
    Stream::Stdout.gone() || Stream::Stderr.gone()
}

/// Writes to `inner` until a write finds the reader gone; from then on, drops every write.
pub struct UntilGone<W> {
    inner: W,
    gone: &'static AtomicBool,
}

impl<W: Write> UntilGone<W> {
    pub fn new(inner: W, stream: Stream) -> Self {
        UntilGone {
            inner,
            gone: stream.flag(),
        }
    }

    /// A write's result, a broken pipe turned into `ok` (the stream marked gone).
    fn absorb<T>(&self, result: io::Result<T>, dropped: T) -> io::Result<T> {
        match result {
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => {
                self.gone.store(true, Ordering::Relaxed);
                Ok(dropped)
            }
            other => other,
        }
    }
}

/// The process's stdout, never failing for a reader gone.
pub fn stdout() -> UntilGone<io::Stdout> {
    UntilGone::new(io::stdout(), Stream::Stdout)
}

/// The process's stderr, never failing for a reader gone.
pub fn stderr() -> UntilGone<io::Stderr> {
    UntilGone::new(io::stderr(), Stream::Stderr)
}

/// Writes one line of tapline's own to stderr, like `eprintln!` but without its panic when
/// stderr's reader has gone: a note nobody can read is no reason to stop a run.
pub fn stderr_line(args: std::fmt::Arguments<'_>) {
    let mut err = stderr();
    // A failure other than a reader gone has nowhere left to be told.
    let _ = writeln!(err, "{args}");
}

/// Writes text of tapline's own to stderr, like `eprint!` (see [`stderr_line`]).
pub fn stderr_text(args: std::fmt::Arguments<'_>) {
    let mut err = stderr();
    let _ = write!(err, "{args}");
}

/// `eprintln!` that never panics: a line to stderr, dropped once its reader has gone.
#[macro_export]
macro_rules! say {
    ($($arg:tt)*) => {
        $crate::report::reader_gone::stderr_line(format_args!($($arg)*))
    };
}

/// `eprint!` that never panics (see [`say!`](crate::say)).
#[macro_export]
macro_rules! say_text {
    ($($arg:tt)*) => {
        $crate::report::reader_gone::stderr_text(format_args!($($arg)*))
    };
}

impl<W: Write> Write for UntilGone<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.gone.load(Ordering::Relaxed) {
            return Ok(buf.len());
        }
        let written = self.inner.write(buf);
        self.absorb(written, buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        if self.gone.load(Ordering::Relaxed) {
            return Ok(());
        }
        let flushed = self.inner.flush();
        self.absorb(flushed, ())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A writer whose reader went away after `room` bytes.
    struct Pipe {
        taken: Vec<u8>,
        room: usize,
    }

    impl Write for Pipe {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            if self.taken.len() >= self.room {
                return Err(io::Error::from(io::ErrorKind::BrokenPipe));
            }
            let n = buf.len().min(self.room - self.taken.len());
            self.taken.extend_from_slice(&buf[..n]);
            Ok(n)
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    struct Failing;

    impl Write for Failing {
        fn write(&mut self, _: &[u8]) -> io::Result<usize> {
            Err(io::Error::other("disk full"))
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    // Flags of their own: the process's two would tell the other unit tests (watch's) that
    // their reader had gone.
    static GONE: AtomicBool = AtomicBool::new(false);
    static NOT_GONE: AtomicBool = AtomicBool::new(false);

    #[test]
    fn a_reader_gone_drops_the_rest_and_is_remembered() {
        let pipe = Pipe {
            taken: Vec::new(),
            room: 4,
        };
        let mut w = UntilGone {
            inner: pipe,
            gone: &GONE,
        };
        w.write_all(b"abcdef")
            .expect("the first bytes are written, the rest dropped");
        w.write_all(b"more").expect("dropped");
        w.flush().expect("nothing to flush");
        assert_eq!(w.inner.taken, b"abcd");
        assert!(GONE.load(Ordering::Relaxed));
    }

    #[test]
    fn other_errors_are_still_errors() {
        let mut w = UntilGone {
            inner: Failing,
            gone: &NOT_GONE,
        };
        let e = w.write_all(b"x").expect_err("a full disk is an error");
        assert_eq!(e.kind(), io::ErrorKind::Other);
        assert!(!NOT_GONE.load(Ordering::Relaxed));
    }
}
