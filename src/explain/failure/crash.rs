//! A process death in a file's output (issue 41 item 3): the fatal lines a runtime prints when
//! it dies (`Fatal Python error: Segmentation fault`, go's `panic: …` and `fatal error: …`,
//! `[signal SIGSEGV …]`, a shell's `Segmentation fault` or `Killed`) and the stack it prints
//! with them. The output no failure owns (the file's rest) then reads fatal lines first, then
//! the dump's header and the frames of the project, the runtime's and the test framework's
//! frames counted (Python's faulthandler prints thirty of pytest's and pluggy's below the
//! test's own line), then the rest of the output in order.
//!
//! The dump may be longer than the lines a report keeps of the output, so it is read as the
//! lines arrive ([`Crash::line`]), not from what is held at the end.

/// Frames of the project a dump keeps; deeper ones are counted with the rest.
const FRAMES_KEPT: usize = 8;
/// Fatal lines kept (a dump's first ones: a crash inside a crash adds more).
const FATAL_KEPT: usize = 4;

/// What a file's output said of its death, read line by line.
#[derive(Debug, Default, Clone)]
pub(crate) struct Crash {
    fatal: Vec<String>,
    /// The dump's own header (`Current thread 0x… (most recent call first):`).
    header: Option<String>,
    /// The project's frames, innermost first as the dump prints them.
    frames: Vec<String>,
    /// Frames left out: the runtime's, the test framework's, past [`FRAMES_KEPT`].
    hidden: usize,
}

impl Crash {
    /// Reads one output line; `root` (the project's folder, `/`-ended) is cut off frame paths.
    pub(crate) fn line(&mut self, text: &str, root: Option<&str>) {
        match kind(text) {
            Kind::Fatal if self.fatal.len() < FATAL_KEPT => self.fatal.push(text.to_owned()),
            Kind::Header if self.header.is_none() && !self.fatal.is_empty() => {
                self.header = Some(text.to_owned())
            }
            Kind::Frame(path) if !self.fatal.is_empty() => {
                if is_runtime(path) || self.frames.len() >= FRAMES_KEPT {
                    self.hidden += 1;
                } else {
                    self.frames.push(relative(text, path, root));
                }
            }
            _ => {}
        }
    }

    /// `lines` (output the reports keep) as a death reads: the fatal lines first, the dump's
    /// header and the project's frames, a count of the frames left out, then every other line
    /// in order. Unchanged when no fatal line came.
    pub(crate) fn reshape(&self, lines: Vec<String>) -> Vec<String> {
        if self.fatal.is_empty() {
            return lines;
        }
        let mut out = self.fatal.clone();
        out.extend(self.header.iter().cloned());
        out.extend(self.frames.iter().cloned());
        if self.hidden > 0 {
            out.push(format!(
                "  … {} runtime frames hidden (the log has every line)",
                self.hidden
            ));
        }
        let rest = lines.into_iter().filter(|l| matches!(kind(l), Kind::Other));
        // A blank line the dump left between its parts is no line of the rest's.
        let mut rest: Vec<String> = rest.collect();
        while rest.first().is_some_and(|l| l.trim().is_empty()) {
            rest.remove(0);
        }
        out.extend(rest);
        out
    }
}

enum Kind<'a> {
    Fatal,
    Header,
    /// A frame of the dump, with its file's path.
    Frame(&'a str),
    /// A line of the dump that says nothing of the test (its list of extension modules).
    Noise,
    Other,
}

/// What a line of output is to a death.
fn kind(text: &str) -> Kind<'_> {
    let t = text.trim_start();
    let fatal = [
        "Fatal Python error: ",
        "panic: ",
        "fatal error: ",
        "[signal ",
    ];
    if fatal.iter().any(|f| t.starts_with(f)) {
        return Kind::Fatal;
    }
    // What a shell says of a child it lost: `Segmentation fault (core dumped)`, `Killed`.
    let words = t.trim_end();
    let shell = ["Segmentation fault", "Killed", "Aborted", "Bus error"];
    if shell
        .iter()
        .any(|w| words == *w || words.strip_prefix(w) == Some(" (core dumped)"))
    {
        return Kind::Fatal;
    }
    // Python's faulthandler: `Current thread 0x00007f… (most recent call first):`.
    if (t.starts_with("Current thread 0x") || t.starts_with("Thread 0x"))
        && t.ends_with("(most recent call first):")
    {
        return Kind::Header;
    }
    if t == "<no Python frame>" {
        return Kind::Frame("");
    }
    if t.starts_with("Extension modules: ") {
        return Kind::Noise;
    }
    // `  File "/w/test_seg.py", line 10 in test_crash` (faulthandler writes no comma).
    if let Some(rest) = t.strip_prefix("File \"") {
        if let Some((path, after)) = rest.split_once('"') {
            if after.starts_with(", line ") && after.contains(" in ") && !after.contains(", in ") {
                return Kind::Frame(path);
            }
        }
    }
    Kind::Other
}

/// A frame of the runtime or of an installed package (the test framework's among them), not
/// the project's: Python's standard library, `site-packages`/`dist-packages`, frozen modules,
/// tapline's own helpers (`tapline_*.py`).
fn is_runtime(path: &str) -> bool {
    if path.is_empty() || path.starts_with('<') {
        return true;
    }
    if path.contains("/site-packages/") || path.contains("/dist-packages/") {
        return true;
    }
    let file = path.rsplit('/').next().unwrap_or(path);
    if file.starts_with("tapline_") {
        return true;
    }
    // `/usr/lib/python3.11/…`: the standard library.
    path.split('/').any(|part| {
        part.strip_prefix("python")
            .is_some_and(|v| v.starts_with('3') && v.contains('.') && !v.ends_with(".py"))
    })
}

/// The frame line with its path made relative to `root`.
fn relative(text: &str, path: &str, root: Option<&str>) -> String {
    match root.and_then(|r| path.strip_prefix(r)) {
        Some(rel) => text.replacen(path, rel, 1),
        None => text.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(lines: &[&str]) -> Crash {
        let mut c = Crash::default();
        for l in lines {
            c.line(l, Some("/w/"));
        }
        c
    }

    #[test]
    fn a_faulthandler_dump_reads_fatal_line_first_and_the_project_frames() {
        let dump = [
            "Fatal Python error: Segmentation fault",
            "",
            "Current thread 0x00007fa89a8292c0 (most recent call first):",
            "  File \"/usr/lib/python3.11/ctypes/__init__.py\", line 519 in string_at",
            "  File \"/w/test_seg.py\", line 10 in test_crash",
            "  File \"/usr/lib/python3/dist-packages/_pytest/python.py\", line 195 in call",
            "  File \"/tmp/x/tapline_pytest.py\", line 528 in _serve_file",
            "  File \"<frozen runpy>\", line 88 in _run_code",
            "",
            "Extension modules: _cffi_backend (total: 1)",
        ];
        let crash = read(&dump);
        // What the reports kept: the newest lines only.
        let kept: Vec<String> = dump[5..].iter().map(|s| s.to_string()).collect();
        assert_eq!(
            crash.reshape(kept),
            [
                "Fatal Python error: Segmentation fault",
                "Current thread 0x00007fa89a8292c0 (most recent call first):",
                "  File \"test_seg.py\", line 10 in test_crash",
                "  … 4 runtime frames hidden (the log has every line)",
            ]
        );
    }

    #[test]
    fn output_without_a_death_is_unchanged() {
        let crash = read(&["hello", "  File \"/w/a.py\", line 3, in f"]);
        let lines = vec!["hello".to_owned(), "world".to_owned()];
        assert_eq!(crash.reshape(lines.clone()), lines);
    }

    #[test]
    fn a_shells_word_for_a_lost_child_is_a_fatal_line() {
        let crash = read(&["working", "Segmentation fault (core dumped)"]);
        let lines = vec![
            "working".to_owned(),
            "Segmentation fault (core dumped)".to_owned(),
        ];
        assert_eq!(
            crash.reshape(lines),
            ["Segmentation fault (core dumped)", "working"]
        );
    }
}
