//! How a file's stdout and stderr are read ([`Streams`]).
use super::discover::Input;
use crate::protocol::InputFormat;
use std::ffi::OsString;

/// How a file's stdout and stderr are read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Streams {
    /// A pipe each; stderr is the tests' output, placed among the TAP by when it arrives.
    Apart,
    /// A pipe each, both parsed as TAP (`--merge` for a producer that may leave a line
    /// half-written): a line is parsed once whole, but two lines from the two pipes in the
    /// order they arrive, which need not be the order they were written.
    Parsed,
    /// One pipe for both, as `2>&1` makes it, parsed as TAP: the lines come in the order the
    /// child wrote them.
    OnePipe,
}

impl Streams {
    /// What the result cache adds to the file's command line: a stderr line parsed or not can
    /// change a verdict.
    pub(crate) fn key(self) -> &'static str {
        match self {
            Streams::Apart => "",
            Streams::Parsed => " (stderr parsed)",
            Streams::OnePipe => " 2>&1",
        }
    }
}

/// How a file's stdout and stderr are read. One pipe when its `[[runner]]` rule says
/// `merge = true`, or by default when it prints TAP and its producer writes each line whole
/// as it goes ([`flushes_each_line`], as its harness says). That pipe hands over the lines in
/// the order the child wrote them, so the diagnostics a TAP library writes to stderr after a
/// `not ok` on stdout are read after it, under any load; the readers of two pipes race. `--merge` (`flag`) parses
/// the other files' stderr too, on its own pipe; `--no-merge` keeps every file's apart.
pub(crate) fn streams(
    flag: Option<bool>,
    input: &Input,
    command: &Result<Vec<OsString>, String>,
) -> Streams {
    streams_of(flag, input, command.as_deref().is_ok_and(flushes_each_line))
}

/// [`streams`] of a file whose command's producer writes each line as it goes (`flushes`) or
/// not.
fn streams_of(flag: Option<bool>, input: &Input, flushes: bool) -> Streams {
    let one_pipe = input.merge.unwrap_or_else(|| {
        // JUnit XML or a JSON stream would not survive a warning among it (nor a JSON result
        // line a warning after it); a file judged by its exit status keeps its lines in order;
        // a format read with its stderr takes one pipe whatever runs it.
        (matches!(input.format, InputFormat::Tap | InputFormat::ExitStatus)
            && input.report.is_none()
            && flushes)
            || input.format.reads_stderr()
    });
    match (flag, one_pipe) {
        (Some(false), _) => Streams::Apart,
        (_, true) => Streams::OnePipe,
        (Some(true), false) => Streams::Parsed,
        (None, false) => Streams::Apart,
    }
}

/// Whether a command's producer writes each line whole, to stdout and stderr alike, as it
/// goes, so that one pipe for both keeps its lines whole and in their order, as its harness
/// says ([`crate::harness::Harness::flushes_each_line`]). Others may not: a producer that
/// buffers what it prints to a pipe would have half a stdout line joined to a stderr line.
pub(crate) fn flushes_each_line(command: &[OsString]) -> bool {
    command.first().is_some_and(|program| {
        let program = program.to_string_lossy();
        crate::harness::registry::flushes_each_line(program.rsplit('/').next().unwrap_or(&program))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 23: the two streams of a file whose producer writes each line as it goes are one
    /// pipe, unless its rule or `--no-merge` says otherwise; `--merge` parses another file's
    /// stderr on its own pipe.
    #[test]
    fn how_each_file_is_read() {
        use Streams::*;
        let (flushing, buffering) = (true, false);
        let tap = Input::default();
        assert_eq!(streams_of(None, &tap, flushing), OnePipe);
        assert_eq!(streams_of(None, &tap, buffering), Apart);
        assert_eq!(
            streams(None, &tap, &Err("no interpreter".into())),
            Apart,
            "no command"
        );
        let json = Input {
            format: InputFormat::GoJson,
            ..Input::default()
        };
        assert_eq!(
            streams_of(None, &json, flushing),
            Apart,
            "only TAP takes a stray line"
        );
        let rule = |merge| Input {
            merge: Some(merge),
            ..Input::default()
        };
        assert_eq!(streams_of(None, &rule(false), flushing), Apart);
        assert_eq!(streams_of(None, &rule(true), buffering), OnePipe);
        assert_eq!(streams_of(Some(true), &tap, buffering), Parsed, "--merge");
        assert_eq!(streams_of(Some(true), &rule(false), flushing), Parsed);
        assert_eq!(streams_of(Some(true), &tap, flushing), OnePipe);
        assert_eq!(
            streams_of(Some(false), &rule(true), flushing),
            Apart,
            "--no-merge"
        );
    }

    #[test]
    fn an_empty_command_or_an_unknown_program_flushes_nothing() {
        let flushes = |words: &[&str]| {
            flushes_each_line(&words.iter().map(OsString::from).collect::<Vec<_>>())
        };
        assert!(!flushes(&[]));
        assert!(!flushes(&["/usr/bin/unknown-program", "t/a.t"]));
    }
}
