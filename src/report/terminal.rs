//! The terminal report of `tapline run`: a line per finished file with its failures explained
//! under it, an optional live region of the running files redrawn in place, and a recap that
//! ends with the one-line summary.
//!
//! Everything written goes through one frame buffer per call, so the terminal gets a single
//! `write_all` (and, in live mode, a single flush) per event or tick: the live region is never
//! seen half-drawn, and permanent lines always land above it.
use super::diff::Budget;
use super::failure;
use super::human::point_line;
use super::style::{self, Style};
use super::Tally;
use crate::event::run::{FileInfo, FileResult, RunEvent, RunSummary};
use crate::event::{Assert, Event};
use std::borrow::Cow;
use std::collections::{BTreeMap, VecDeque};
use std::io::{self, Write};
use std::time::Instant;

/// Output lines kept for one test's failure report (the newest win).
const TEST_OUTPUT_LINES: usize = 200;
/// Output lines kept per file: enough to explain a crash, bounded however chatty the file is.
const FILE_OUTPUT_LINES: usize = 500;
/// Lines of a failing file's leftover output shown under it; the log has the rest.
const SHOWN_OUTPUT_LINES: usize = 30;
/// Running files listed in the live region; more would push the permanent output off screen.
const LIVE_FILES: usize = 8;
/// Width assumed when the caller does not know the terminal's.
const DEFAULT_WIDTH: usize = 80;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verbosity {
    /// Failing files, their failures and the summary line only.
    Quiet,
    /// A line per file, failures explained, a recap.
    Normal,
    /// Normal, plus every test point and output line as it arrives.
    Verbose,
}

#[derive(Debug, Clone, Copy)]
pub struct TerminalOptions {
    pub style: Style,
    /// Draw the live region (a terminal that understands cursor movement).
    pub live: bool,
    pub verbosity: Verbosity,
    /// Terminal columns, for truncating live lines.
    pub width: u16,
}

pub struct TerminalReporter<W: Write> {
    out: W,
    opts: TerminalOptions,
    budget: Budget,
    /// The run being reported; events of any other run are stale and ignored.
    run: Option<u64>,
    /// Between `RunStarted` and `RunFinished`: the live region is drawn only then.
    in_run: bool,
    total: usize,
    files: BTreeMap<usize, FileState>,
    started: Option<Instant>,
    /// The last tick's time, so a redraw after an event shows the same clock.
    now: Option<Instant>,
    /// Lines the live region occupies on screen (0: not drawn).
    region: usize,
    /// Something permanent was printed in this run: the recap is set off from it.
    printed: bool,
    /// The last permanent text ended with a blank line (so no second one is needed).
    ends_blank: bool,
}

/// What one file's events have told so far.
struct FileState {
    info: FileInfo,
    result: Option<FileResult>,
    /// Shown in the live region: the last top-level point, or the subtest being run.
    current: Option<String>,
    tally: Tally,
    /// Output since the last test point: the next point's (console output precedes `ok`).
    pending: Tail,
    /// The whole file's output, for a failing file whose failure no test point explains.
    all: Tail,
    /// Names of the open subtests, outermost first.
    subtests: Vec<String>,
    /// Failing points per open nesting level; `[0]` is the file's own list.
    failures: Vec<Vec<Failure>>,
    /// Depth of the failing point just seen: `#` comments right after it are its diagnostics
    /// (`Test::More` prints `#   Failed test …` after the `not ok`).
    diag_depth: Option<u32>,
}

/// A failing point, with the output its test printed.
struct Failure {
    /// `parent > child` for a point inside subtests.
    path: String,
    assert: Assert<'static>,
    output: Vec<String>,
}

/// The newest lines of an output stream, counting the ones that fell off.
struct Tail {
    lines: VecDeque<String>,
    dropped: usize,
    cap: usize,
}

impl Tail {
    fn new(cap: usize) -> Self {
        Tail {
            lines: VecDeque::new(),
            dropped: 0,
            cap,
        }
    }

    fn push(&mut self, line: String) {
        if self.lines.len() >= self.cap {
            self.lines.pop_front();
            self.dropped += 1;
        }
        self.lines.push_back(line);
    }

    fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }

    /// The newest `max` lines, under a note saying how many earlier ones are not shown.
    fn newest(&self, max: usize) -> Vec<String> {
        let skip = self.lines.len().saturating_sub(max);
        let hidden = self.dropped + skip;
        let note = (hidden > 0).then(|| format!("… {hidden} earlier lines"));
        note.into_iter()
            .chain(self.lines.iter().skip(skip).cloned())
            .collect()
    }

    fn take(&mut self, max: usize) -> Vec<String> {
        let lines = self.newest(max);
        self.lines.clear();
        self.dropped = 0;
        lines
    }
}

impl FileState {
    fn new(info: FileInfo) -> Self {
        FileState {
            info,
            result: None,
            current: None,
            tally: Tally::default(),
            pending: Tail::new(FILE_OUTPUT_LINES),
            all: Tail::new(FILE_OUTPUT_LINES),
            subtests: Vec::new(),
            failures: vec![Vec::new()],
            diag_depth: None,
        }
    }

    fn running(&self) -> bool {
        self.result.is_none()
    }

    /// A line of the child's output (stdout non-TAP, or stderr).
    fn output(&mut self, text: &str) {
        self.all.push(text.to_owned());
        self.pending.push(text.to_owned());
    }

    fn comment(&mut self, depth: u32, text: &str) {
        let line = format!("# {text}");
        self.all.push(line.clone());
        if self.diag_depth == Some(depth) {
            let last = self
                .failures
                .get_mut(depth as usize)
                .and_then(|l| l.last_mut());
            if let Some(f) = last {
                f.output.push(line);
                return;
            }
        }
        self.pending.push(line);
    }

    fn subtest_start(&mut self, depth: u32, name: &str) {
        self.diag_depth = None;
        self.subtests.truncate(depth as usize);
        self.subtests.push(name.to_owned());
        self.current = Some(self.subtests.join(" > "));
    }

    fn assert(&mut self, a: &Assert<'static>) {
        let d = a.depth as usize;
        let output = self.pending.take(TEST_OUTPUT_LINES);
        // Failures of the subtest this point closes (and of any left unterminated below it).
        let inner: Vec<Failure> = if self.failures.len() > d + 1 {
            self.failures.drain(d + 1..).flatten().collect()
        } else {
            Vec::new()
        };
        if self.failures.len() <= d {
            self.failures.resize_with(d + 1, Vec::new);
        }
        // A subtest that failed only because its children did is said by their paths; one
        // with its own diagnostics or output still gets a line.
        let said_by_children = a.closes_subtest
            && !inner.is_empty()
            && a.diagnostics.is_none()
            && a.meta.is_none()
            && a.blocks.is_empty()
            && output.is_empty();
        let own = (a.is_failure() && !said_by_children).then(|| Failure {
            path: self.path(d, &a.name),
            assert: a.clone(),
            output,
        });
        // A SKIP or TODO subtest's failures are expected; they are not the run's.
        let inner = if a.skip.is_some() || a.todo.is_some() {
            Vec::new()
        } else {
            inner
        };
        let list = &mut self.failures[d];
        if a.closes_subtest {
            list.extend(own);
            list.extend(inner);
        } else {
            list.extend(inner);
            list.extend(own);
        }
        self.diag_depth = a.is_failure().then_some(a.depth);
        if a.closes_subtest {
            self.subtests.truncate(d);
        }
        if d == 0 {
            self.tally.add(a);
            self.current = Some(a.name.to_string());
        }
    }

    /// `parent > child` for a point at `depth`, from the open subtests' names.
    fn path(&self, depth: usize, name: &str) -> String {
        let mut parts: Vec<&str> = self
            .subtests
            .iter()
            .take(depth)
            .map(String::as_str)
            .collect();
        parts.push(name);
        parts.join(" > ")
    }

    fn tap(&mut self, ev: &Event<'static>) {
        match ev {
            Event::Assert(a) => self.assert(a),
            Event::Output { text, .. } => {
                self.diag_depth = None;
                self.output(text);
            }
            Event::Comment { depth, text, .. } => self.comment(*depth, text),
            Event::SubtestStart { depth, name, .. } => self.subtest_start(*depth, name),
            Event::Plan { .. } => self.diag_depth = None,
            Event::V2Event { depth: 0, json, .. } => {
                if let Some(name) = started_test(json) {
                    self.current = Some(name);
                }
            }
            _ => {}
        }
    }

    fn finish(&mut self, result: &FileResult) {
        // Subtests the stream never closed still hold failures.
        let inner: Vec<Failure> = self.failures.drain(1..).flatten().collect();
        self.failures[0].extend(inner);
        self.tally = result.tally;
        self.result = Some(result.clone());
    }

    /// Once the file's block is printed only the recap needs it: names and locations.
    fn release_output(&mut self) {
        self.pending = Tail::new(0);
        self.all = Tail::new(0);
        for f in self.failures.iter_mut().flatten() {
            f.output = Vec::new();
        }
    }

    fn failures(&self) -> &[Failure] {
        self.failures.first().map_or(&[], Vec::as_slice)
    }
}

/// The test name of a v2 `test:started` event: what the file is doing right now.
fn started_test(json: &str) -> Option<String> {
    let v: serde_json::Value = serde_json::from_str(json).ok()?;
    if v.get("type")?.as_str()? != "test:started" {
        return None;
    }
    Some(v.get("name")?.as_str()?.to_owned())
}

impl<W: Write> TerminalReporter<W> {
    pub fn new(out: W, opts: TerminalOptions) -> Self {
        TerminalReporter {
            out,
            opts,
            budget: Budget::default(),
            run: None,
            in_run: false,
            total: 0,
            files: BTreeMap::new(),
            started: None,
            now: None,
            region: 0,
            printed: false,
            ends_blank: false,
        }
    }

    /// Handles one run event; prints permanent lines (above the live region when live).
    pub fn on_event(&mut self, ev: &RunEvent) -> io::Result<()> {
        let mut text = Vec::new();
        self.handle(ev, &mut text)?;
        if text.is_empty() {
            return Ok(());
        }
        self.printed = true;
        self.ends_blank = text.ends_with(b"\n\n");
        if !self.opts.live {
            self.out.write_all(&text)?;
            // Whole files at a time keep writes into pipes large; readers still see each file.
            if !matches!(ev, RunEvent::Tap { .. } | RunEvent::Stderr { .. }) {
                self.out.flush()?;
            }
            return Ok(());
        }
        let mut frame = Vec::with_capacity(text.len() + 512);
        self.clear_region(&mut frame);
        frame.extend_from_slice(&text);
        // Redrawn at once rather than at the next tick, so the region never blinks out.
        if self.in_run {
            self.draw_region(&mut frame);
        }
        self.out.write_all(&frame)?;
        self.out.flush()
    }

    /// Live mode only: redraws the live region. `now` is for the elapsed-time display only.
    pub fn tick(&mut self, now: Instant) -> io::Result<()> {
        if !self.opts.live {
            return Ok(());
        }
        self.now = Some(now);
        let mut frame = Vec::with_capacity(512);
        self.clear_region(&mut frame);
        if self.in_run {
            self.draw_region(&mut frame);
        }
        self.out.write_all(&frame)?;
        self.out.flush()
    }

    /// The writer back, with no live region left on screen.
    pub fn finish(mut self) -> io::Result<W> {
        let mut frame = Vec::new();
        self.clear_region(&mut frame);
        self.out.write_all(&frame)?;
        self.out.flush()?;
        Ok(self.out)
    }

    fn handle(&mut self, ev: &RunEvent, text: &mut Vec<u8>) -> io::Result<()> {
        if let RunEvent::RunStarted { run, files, .. } = ev {
            self.start_run(*run, *files);
            return Ok(());
        }
        let run = match ev {
            RunEvent::FileStarted { run, .. }
            | RunEvent::Tap { run, .. }
            | RunEvent::Stderr { run, .. }
            | RunEvent::FileFinished { run, .. }
            | RunEvent::RunFinished { run, .. }
            | RunEvent::RunStarted { run, .. } => *run,
        };
        if self.run != Some(run) {
            return Ok(());
        }
        match ev {
            RunEvent::FileStarted { file, .. } => {
                self.files.insert(file.index, FileState::new(file.clone()));
            }
            RunEvent::Tap { file, event, .. } => self.tap(*file, event, text)?,
            RunEvent::Stderr {
                file, text: line, ..
            } => self.stderr(*file, line, text)?,
            RunEvent::FileFinished { file, result, .. } => {
                self.file_finished(*file, result, text)?;
            }
            RunEvent::RunFinished { summary, .. } => {
                self.in_run = false;
                self.run_finished(summary, text)?;
            }
            RunEvent::RunStarted { .. } => {}
        }
        Ok(())
    }

    fn start_run(&mut self, run: u64, files: usize) {
        self.run = Some(run);
        self.in_run = true;
        self.total = files;
        self.files.clear();
        self.started = Some(Instant::now());
        self.printed = false;
        self.ends_blank = false;
    }

    fn verbose(&self) -> bool {
        self.opts.verbosity == Verbosity::Verbose
    }

    fn tap(&mut self, idx: usize, ev: &Event<'static>, text: &mut Vec<u8>) -> io::Result<()> {
        let s = self.opts.style;
        let verbose = self.verbose();
        let Some(f) = self.files.get_mut(&idx) else {
            return Ok(());
        };
        f.tap(ev);
        if !verbose {
            return Ok(());
        }
        let rel = s.paint(style::DIM, &f.info.rel);
        let bar = s.paint(style::DIM, "│");
        match ev {
            Event::Assert(a) => writeln!(text, "{rel} {}", point_line(a, s))?,
            Event::Output { text: line, .. } => writeln!(text, "{rel} {bar} {line}")?,
            Event::Comment { text: line, .. } => writeln!(text, "{rel} {bar} # {line}")?,
            Event::SubtestStart { depth, name, .. } => {
                let indent = "  ".repeat(*depth as usize);
                writeln!(
                    text,
                    "{rel} {indent}{}",
                    s.paint(style::BOLD, format!("› {name}"))
                )?;
            }
            Event::BailOut { reason, .. } => {
                writeln!(
                    text,
                    "{rel} {}",
                    s.paint(style::RED, format!("Bail out! {reason}").trim_end())
                )?;
            }
            _ => {}
        }
        Ok(())
    }

    fn stderr(&mut self, idx: usize, line: &str, text: &mut Vec<u8>) -> io::Result<()> {
        let s = self.opts.style;
        let verbose = self.verbose();
        let Some(f) = self.files.get_mut(&idx) else {
            return Ok(());
        };
        f.output(line);
        if verbose {
            writeln!(
                text,
                "{} {} {line}",
                s.paint(style::DIM, &f.info.rel),
                s.paint(style::DIM, "│")
            )?;
        }
        Ok(())
    }

    fn file_finished(
        &mut self,
        idx: usize,
        result: &FileResult,
        text: &mut Vec<u8>,
    ) -> io::Result<()> {
        let f = self.files.entry(idx).or_insert_with(|| {
            // Never started as far as we saw: name it by its position rather than lose it.
            FileState::new(FileInfo {
                index: idx,
                rel: format!("file #{idx}"),
                command: String::new(),
                log: None,
            })
        });
        f.finish(result);
        if self.opts.verbosity != Verbosity::Quiet || !result.ok {
            file_block(f, result, self.opts.style, &self.budget, text)?;
        }
        f.release_output();
        Ok(())
    }

    fn run_finished(&mut self, summary: &RunSummary, text: &mut Vec<u8>) -> io::Result<()> {
        let s = self.opts.style;
        if self.opts.verbosity != Verbosity::Quiet {
            self.recap(summary, text)?;
        } else if self.printed && !self.ends_blank {
            writeln!(text)?;
        }
        writeln!(text, "{}", summary_line(summary, s))
    }

    /// Failures again (one line each), changes since the last run, the slowest files.
    fn recap(&self, summary: &RunSummary, text: &mut Vec<u8>) -> io::Result<()> {
        let s = self.opts.style;
        let mut lines = Vec::new();
        let failed: Vec<&FileState> = self
            .files
            .values()
            .filter(|f| f.result.as_ref().is_some_and(|r| !r.ok))
            .collect();
        if !failed.is_empty() {
            lines.push(s.paint(style::BOLD, "Failures:"));
            for f in failed {
                lines.extend(recap_lines(f, s));
            }
        }
        if !summary.newly_failing.is_empty() {
            let names = summary.newly_failing.join(", ");
            lines.push(format!(
                "{} {}",
                s.paint(style::RED, "Newly failing:"),
                names
            ));
        }
        if !summary.fixed.is_empty() {
            lines.push(format!(
                "{} {}",
                s.paint(style::GREEN, "Fixed:"),
                summary.fixed.join(", ")
            ));
        }
        if summary.files_total > 1 && !summary.slowest.is_empty() {
            let slow: Vec<String> = summary
                .slowest
                .iter()
                .take(3)
                .map(|(rel, ms)| {
                    format!(
                        "{rel} {}",
                        s.paint(style::DIM, style::duration_ms(*ms as f64))
                    )
                })
                .collect();
            lines.push(format!(
                "{} {}",
                s.paint(style::DIM, "Slowest:"),
                slow.join(", ")
            ));
        }
        if self.printed && !self.ends_blank {
            writeln!(text)?;
        }
        for l in &lines {
            writeln!(text, "{l}")?;
        }
        if !lines.is_empty() {
            writeln!(text)?;
        }
        Ok(())
    }

    /// `\r`, up to the region's first line, clear to the end of the screen: the cursor is then
    /// where the region began, ready for permanent lines.
    fn clear_region(&mut self, frame: &mut Vec<u8>) {
        if self.region == 0 {
            return;
        }
        frame.push(b'\r');
        if self.region > 1 {
            frame.extend_from_slice(format!("\x1b[{}A", self.region - 1).as_bytes());
        }
        frame.extend_from_slice(b"\x1b[J");
        self.region = 0;
    }

    /// Writes the region with no trailing newline, so clearing it needs no knowledge of what
    /// scrolled: the cursor stays on its last line.
    fn draw_region(&mut self, frame: &mut Vec<u8>) {
        let lines = self.region_lines();
        frame.extend_from_slice(lines.join("\n").as_bytes());
        self.region = lines.len();
    }

    fn region_lines(&self) -> Vec<String> {
        let s = self.opts.style;
        let width = match self.opts.width {
            0 => DEFAULT_WIDTH,
            w => usize::from(w),
        };
        // One column short: a line filling the width would wrap on some terminals and throw
        // the cursor-up count off.
        let width = width.saturating_sub(1).max(1);
        let running: Vec<&FileState> = self.files.values().filter(|f| f.running()).collect();
        let mut lines = vec![fit(&self.status_parts(running.len()), width, s)];
        for f in running.iter().take(LIVE_FILES) {
            let mut parts = vec![(format!("  {}", f.info.rel), None)];
            if let Some(cur) = &f.current {
                parts.push((format!("  › {cur}"), Some(style::DIM)));
            }
            lines.push(fit(&parts, width, s));
        }
        if running.len() > LIVE_FILES {
            let more = format!("  … and {} more", running.len() - LIVE_FILES);
            lines.push(fit(&[(more, Some(style::DIM))], width, s));
        }
        lines
    }

    /// `Running 3 of 12 files · 4 done · 52 passed · 1 failed · 2 skipped · 3.4s`, in pieces.
    fn status_parts(&self, running: usize) -> Vec<(String, Option<&'static str>)> {
        let done = self.files.values().filter(|f| !f.running()).count();
        let mut tally = Tally::default();
        for f in self.files.values() {
            tally.merge(&f.tally);
        }
        let mut parts = vec![
            (
                format!("Running {running} of {} files", self.total),
                Some(style::BOLD),
            ),
            (format!(" · {done} done"), None),
            (format!(" · {} passed", tally.pass), Some(style::GREEN)),
        ];
        let extra = [
            (tally.fail, "failed", style::RED),
            (tally.skip, "skipped", style::YELLOW),
            (tally.todo, "todo", style::MAGENTA),
        ];
        for (n, word, color) in extra.into_iter().filter(|(n, ..)| *n > 0) {
            parts.push((format!(" · {n} {word}"), Some(color)));
        }
        if let (Some(start), Some(now)) = (self.started, self.now) {
            let ms = now.saturating_duration_since(start).as_secs_f64() * 1000.0;
            parts.push((format!(" · {}", style::duration_ms(ms)), Some(style::DIM)));
        }
        parts
    }
}

/// The file's line, and for a failing file its failures, leftover output and log under it.
fn file_block(
    f: &FileState,
    r: &FileResult,
    s: Style,
    budget: &Budget,
    text: &mut Vec<u8>,
) -> io::Result<()> {
    writeln!(text, "{}", file_line(&f.info, r, s))?;
    if r.ok {
        return Ok(());
    }
    let under = text.len();
    for failure in f.failures() {
        // The point's own line, named by its path so a nested failure says where it is.
        let shown = Assert {
            name: Cow::Borrowed(failure.path.as_str()),
            depth: 0,
            ..failure.assert.clone()
        };
        writeln!(text, "  {}", point_line(&shown, s))?;
        failure::render(text, &failure.assert, &failure.output, "    ", s, budget)?;
    }
    // Output after the last point is often the crash; with no failing point to explain the
    // failure, all of the file's output is the best clue.
    let leftover = if f.pending.is_empty() && f.failures().is_empty() {
        &f.all
    } else {
        &f.pending
    };
    if !leftover.is_empty() {
        writeln!(text, "  {}", s.paint(style::DIM, "output:"))?;
        for l in leftover.newest(SHOWN_OUTPUT_LINES) {
            writeln!(text, "  {} {l}", s.paint(style::DIM, "│"))?;
        }
    }
    if let Some(log) = &f.info.log {
        writeln!(
            text,
            "  {}",
            s.paint(style::DIM, format!("log: {}", log.display()))
        )?;
    }
    // An explained failure is a paragraph: the next file's line starts a new one.
    if text.len() > under {
        writeln!(text)?;
    }
    Ok(())
}

/// `✓ test/foo.t  12 passed, 1 skipped  (35ms)`, `✗ test/bar.t  1 failed  (1.2s)  — exited with code 3`.
fn file_line(info: &FileInfo, r: &FileResult, s: Style) -> String {
    let skipped_all = r
        .verdict
        .plan
        .as_ref()
        .filter(|p| p.skip_all && r.tally.total() == 0);
    let (mark, counts) = match skipped_all {
        Some(p) if r.ok => {
            let why = p
                .reason
                .as_deref()
                .map_or_else(|| "skipped".to_owned(), |w| format!("skipped: {w}"));
            (s.paint(style::YELLOW, "-"), s.paint(style::YELLOW, why))
        }
        _ if r.ok => (
            s.paint(style::GREEN, "✓"),
            crate::report::render_tally(&r.tally, s),
        ),
        _ if r.cancelled => (
            s.paint(style::YELLOW, "⊘"),
            crate::report::render_tally(&r.tally, s),
        ),
        _ => (
            s.paint(style::RED, "✗"),
            crate::report::render_tally(&r.tally, s),
        ),
    };
    let rel = if r.ok {
        info.rel.clone()
    } else {
        s.paint(style::BOLD, &info.rel)
    };
    let time = s.paint(
        style::DIM,
        format!(
            "({})",
            style::duration_ms(r.duration.as_secs_f64() * 1000.0)
        ),
    );
    let mut line = format!("{mark} {rel}  {counts}  {time}");
    if !r.reasons.is_empty() {
        let color = if r.cancelled {
            style::YELLOW
        } else {
            style::RED
        };
        line.push_str("  ");
        line.push_str(&s.paint(color, format!("— {}", r.reasons.join("; "))));
    }
    line
}

/// One line per failing point of a failed file (or one for the file when no point failed).
fn recap_lines(f: &FileState, s: Style) -> Vec<String> {
    let rel = &f.info.rel;
    let mut lines: Vec<String> = f
        .failures()
        .iter()
        .map(|fl| {
            let at = failure::details(&fl.assert).location;
            let at = at
                .map(|l| format!("  {}", s.paint(style::CYAN, format!("at {l}"))))
                .unwrap_or_default();
            format!(
                "  {} {rel} › {}{at}",
                s.paint(style::RED, "✗"),
                s.paint(style::RED, &fl.path)
            )
        })
        .collect();
    let reasons = f
        .result
        .as_ref()
        .map(|r| r.reasons.join("; "))
        .unwrap_or_default();
    if lines.is_empty() {
        let mark = if f.result.as_ref().is_some_and(|r| r.cancelled) {
            s.paint(style::YELLOW, "⊘")
        } else {
            s.paint(style::RED, "✗")
        };
        lines.push(format!(
            "  {mark} {rel}  {}",
            s.paint(style::DIM, format!("— {reasons}"))
        ));
    }
    lines
}

/// The last line: `✗ FAIL  2 of 12 files failed · 3 failed, 120 passed · 3.4s`.
fn summary_line(sum: &RunSummary, s: Style) -> String {
    let files = |n: usize| {
        if n == 1 {
            "1 file".to_owned()
        } else {
            format!("{n} files")
        }
    };
    let total = sum.files_total;
    let mut parts = Vec::new();
    let head = if sum.interrupted {
        parts.push(if sum.files_failed > 0 {
            format!("{} of {} failed", sum.files_failed, files(total))
        } else {
            format!("{} of {} passed", sum.files_passed, files(total))
        });
        if sum.files_not_run > 0 {
            parts.push(format!("{} not run", sum.files_not_run));
        }
        s.paint(style::RED, "✗ INTERRUPTED")
    } else if sum.ok {
        parts.push(files(total));
        s.paint(style::GREEN, "✓ PASS")
    } else {
        parts.push(format!("{} of {} failed", sum.files_failed, files(total)));
        s.paint(style::RED, "✗ FAIL")
    };
    parts.push(crate::report::render_tally(&sum.tests, s));
    parts.push(s.paint(
        style::DIM,
        style::duration_ms(sum.duration.as_secs_f64() * 1000.0),
    ));
    format!("{}  {}", s.paint(style::BOLD, head), parts.join(" · "))
}

/// Paints `parts` in order within `width` columns, cutting the last one that does not fit
/// with `…`: a live line must never wrap, or the cursor-up count would be wrong.
fn fit(parts: &[(String, Option<&str>)], width: usize, s: Style) -> String {
    let mut out = String::new();
    let mut used = 0;
    for (text, color) in parts {
        let clean: String = text
            .chars()
            .map(|c| if c.is_control() { ' ' } else { c })
            .collect();
        let w: usize = clean.chars().map(columns).sum();
        if used + w <= width {
            out.push_str(&paint(s, *color, &clean));
            used += w;
            continue;
        }
        let mut cut = String::new();
        for c in clean.chars() {
            if used + columns(c) + 1 > width {
                break;
            }
            used += columns(c);
            cut.push(c);
        }
        cut.push('…');
        out.push_str(&paint(s, *color, &cut));
        break;
    }
    out
}

fn paint(s: Style, color: Option<&str>, text: &str) -> String {
    color.map_or_else(|| text.to_owned(), |c| s.paint(c, text))
}

/// Columns a character takes: 2 for the East Asian wide ranges and emoji, else 1. Erring wide
/// is safe (a line ends early); erring narrow would wrap.
fn columns(c: char) -> usize {
    let wide = matches!(u32::from(c),
        0x1100..=0x115F | 0x2E80..=0xA4CF | 0xAC00..=0xD7A3 | 0xF900..=0xFAFF | 0xFE30..=0xFE4F
        | 0xFF00..=0xFF60 | 0xFFE0..=0xFFE6 | 0x1F300..=0x1F64F | 0x1F900..=0x1F9FF | 0x20000..=0x3FFFD);
    if wide {
        2
    } else {
        1
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::run::ExitInfo;
    use crate::event::{Plan, Verdict};
    use std::path::PathBuf;
    use std::time::Duration;

    const RUN: u64 = 7;

    fn opts(verbosity: Verbosity) -> TerminalOptions {
        TerminalOptions {
            style: Style::default(),
            live: false,
            verbosity,
            width: 80,
        }
    }

    fn point(ok: bool, name: &str) -> Assert<'static> {
        Assert {
            depth: 0,
            line: 0,
            ok,
            id: None,
            name: Cow::Owned(name.to_owned()),
            skip: None,
            todo: None,
            duration_ms: None,
            diagnostics: None,
            meta: None,
            blocks: Vec::new(),
            closes_subtest: false,
        }
    }

    fn timed(ok: bool, name: &str, ms: f64) -> Assert<'static> {
        Assert {
            duration_ms: Some(ms),
            ..point(ok, name)
        }
    }

    fn skip(name: &str, why: &str) -> Assert<'static> {
        Assert {
            skip: Some(Cow::Owned(why.to_owned())),
            ..point(true, name)
        }
    }

    fn todo(name: &str, why: &str) -> Assert<'static> {
        Assert {
            todo: Some(Cow::Owned(why.to_owned())),
            ..point(false, name)
        }
    }

    fn verdict(ok: bool, t: &Tally, plan: Option<Plan<'static>>) -> Verdict<'static> {
        Verdict {
            ok,
            count: t.total(),
            pass: t.pass,
            fail: t.fail,
            todo: t.todo,
            skip: t.skip,
            plan,
            bailout: None,
            reasons: Vec::new(),
        }
    }

    /// Builds a run's events by hand, keeping the tallies the scheduler would compute.
    struct Script {
        events: Vec<RunEvent>,
        files: usize,
        rels: BTreeMap<usize, String>,
        tallies: BTreeMap<usize, Tally>,
        results: BTreeMap<usize, (bool, u64)>,
    }

    impl Script {
        fn new(files: usize) -> Self {
            Script {
                events: vec![RunEvent::RunStarted {
                    run: RUN,
                    files,
                    jobs: 4,
                }],
                files,
                rels: BTreeMap::new(),
                tallies: BTreeMap::new(),
                results: BTreeMap::new(),
            }
        }

        fn start(&mut self, index: usize, rel: &str) -> &mut Self {
            self.start_logged(index, rel, None)
        }

        fn start_logged(&mut self, index: usize, rel: &str, log: Option<&str>) -> &mut Self {
            self.rels.insert(index, rel.to_owned());
            let file = FileInfo {
                index,
                rel: rel.to_owned(),
                command: format!("perl {rel}"),
                log: log.map(PathBuf::from),
            };
            self.events.push(RunEvent::FileStarted { run: RUN, file });
            self
        }

        fn tap(&mut self, file: usize, event: Event<'static>) -> &mut Self {
            self.events.push(RunEvent::Tap {
                run: RUN,
                file,
                event,
            });
            self
        }

        fn assert(&mut self, file: usize, a: Assert<'static>) -> &mut Self {
            if a.depth == 0 {
                self.tallies.entry(file).or_default().add(&a);
            }
            self.tap(file, Event::Assert(a))
        }

        fn out(&mut self, file: usize, text: &str) -> &mut Self {
            self.tap(
                file,
                Event::Output {
                    depth: 0,
                    line: 0,
                    text: Cow::Owned(text.to_owned()),
                },
            )
        }

        fn comment(&mut self, file: usize, text: &str) -> &mut Self {
            self.tap(
                file,
                Event::Comment {
                    depth: 0,
                    line: 0,
                    text: Cow::Owned(text.to_owned()),
                },
            )
        }

        fn err(&mut self, file: usize, text: &str) -> &mut Self {
            self.events.push(RunEvent::Stderr {
                run: RUN,
                file,
                text: text.to_owned(),
            });
            self
        }

        fn subtest(&mut self, file: usize, depth: u32, name: &str) -> &mut Self {
            self.tap(
                file,
                Event::SubtestStart {
                    depth,
                    line: 0,
                    name: Cow::Owned(name.to_owned()),
                    buffered: false,
                },
            )
        }

        fn finish(&mut self, file: usize, reasons: &[&str], ms: u64) -> &mut Self {
            self.finish_with(file, reasons, ms, None, false)
        }

        fn finish_with(
            &mut self,
            file: usize,
            reasons: &[&str],
            ms: u64,
            plan: Option<Plan<'static>>,
            cancelled: bool,
        ) -> &mut Self {
            let tally = self.tallies.get(&file).copied().unwrap_or_default();
            let ok = reasons.is_empty() && tally.fail == 0 && !cancelled;
            self.results.insert(file, (ok, ms));
            let result = FileResult {
                ok,
                reasons: reasons.iter().map(|r| (*r).to_owned()).collect(),
                exit: Some(ExitInfo {
                    code: Some(i32::from(!ok)),
                    signal: None,
                }),
                timed_out: false,
                cancelled,
                leaked: false,
                duration: Duration::from_millis(ms),
                tally,
                verdict: verdict(ok, &tally, plan),
            };
            self.tap(
                file,
                Event::End {
                    verdict: result.verdict.clone(),
                },
            );
            self.events.push(RunEvent::FileFinished {
                run: RUN,
                file,
                result,
            });
            self
        }

        /// `RunFinished` as the scheduler would summarise the files seen.
        fn end(
            &mut self,
            ms: u64,
            interrupted: bool,
            newly_failing: &[&str],
            fixed: &[&str],
        ) -> Vec<RunEvent> {
            let mut tests = Tally::default();
            self.tallies.values().for_each(|t| tests.merge(t));
            let passed = self.results.values().filter(|(ok, _)| *ok).count();
            let failed = self.results.len() - passed;
            let not_run = self.files - self.results.len();
            let mut slowest: Vec<(String, u64)> = self
                .results
                .iter()
                .map(|(i, (_, ms))| (self.rels[i].clone(), *ms))
                .collect();
            slowest.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
            slowest.truncate(3);
            let summary = RunSummary {
                ok: failed == 0 && not_run == 0 && !interrupted,
                files_total: self.files,
                files_passed: passed,
                files_failed: failed,
                files_not_run: not_run,
                tests,
                duration: Duration::from_millis(ms),
                interrupted,
                slowest,
                newly_failing: newly_failing.iter().map(|s| (*s).to_owned()).collect(),
                fixed: fixed.iter().map(|s| (*s).to_owned()).collect(),
            };
            self.events
                .push(RunEvent::RunFinished { run: RUN, summary });
            std::mem::take(&mut self.events)
        }
    }

    fn render(events: &[RunEvent], opts: TerminalOptions) -> String {
        let mut r = TerminalReporter::new(Vec::new(), opts);
        for ev in events {
            r.on_event(ev).expect("writing to a Vec");
        }
        let out = String::from_utf8(r.finish().expect("writing to a Vec")).expect("utf-8");
        assert!(
            !out.contains('\x1b'),
            "escape codes with styles and live off:\n{out}"
        );
        out
    }

    fn all_passing() -> Vec<RunEvent> {
        let mut s = Script::new(3);
        s.start(0, "test/math.t").start(1, "test/strings.t");
        s.assert(0, timed(true, "adds", 1.0))
            .assert(1, point(true, "concatenates"));
        s.assert(0, timed(true, "subtracts", 0.4))
            .assert(0, timed(true, "divides by zero safely", 12.0));
        s.assert(1, skip("unicode folding", "needs ICU"))
            .assert(1, point(true, "trims"));
        s.finish(0, &[], 35);
        s.start(2, "test/util.t")
            .assert(2, point(true, "formats dates"));
        s.finish(1, &[], 1240).finish(2, &[], 8);
        s.end(1300, false, &[], &[])
    }

    #[test]
    fn all_passing_run() {
        insta::assert_snapshot!(render(&all_passing(), opts(Verbosity::Normal)));
    }

    const API_DIAG: &str = "message: should be equivalent
operator: deepEqual
at:
  file: test/api.t
  line: 42
  column: 7
wanted:
  status: 200
  users: [ann, bob]
found:
  status: 500
  users: [ann]
";

    fn failing() -> Vec<RunEvent> {
        let mut s = Script::new(3);
        s.start_logged(0, "test/api.t", Some(".nogit/testlogs/test__api.t.log"));
        s.start(1, "test/crash.t");
        s.out(0, "connecting to db at localhost:5432")
            .assert(0, timed(true, "connects", 15.0));
        s.out(0, "GET /users -> 500 Internal Server Error")
            .err(0, "warning: pool exhausted");
        s.assert(
            0,
            Assert {
                diagnostics: Some(Cow::Borrowed(API_DIAG)),
                ..timed(false, "fetches users", 31.0)
            },
        );
        s.comment(0, "  Failed test 'fetches users'");
        s.subtest(0, 0, "auth");
        s.assert(
            0,
            Assert {
                depth: 1,
                ..point(true, "accepts a good token")
            },
        );
        s.out(0, "token: abc.def");
        s.assert(
            0,
            Assert {
                depth: 1,
                diagnostics: Some(Cow::Borrowed("wanted: 401\nfound: 200\n")),
                ..point(false, "rejects a bad token")
            },
        );
        s.assert(
            0,
            Assert {
                closes_subtest: true,
                ..point(false, "auth")
            },
        );
        s.assert(1, point(true, "parses header"))
            .assert(1, point(true, "parses body"));
        s.out(1, "about to free the buffer");
        s.err(1, "Segmentation fault (core dumped)");
        s.finish(1, &["killed by SIGSEGV", "planned 4, ran 2"], 212);
        s.finish(0, &["exited with code 2"], 1840);
        s.start(2, "test/ok.t")
            .assert(2, point(true, "works"))
            .finish(2, &[], 5);
        s.end(2100, false, &["test/crash.t"], &["test/legacy.t"])
    }

    #[test]
    fn failing_run() {
        insta::assert_snapshot!(render(&failing(), opts(Verbosity::Normal)));
    }

    fn mixed() -> Vec<RunEvent> {
        let mut s = Script::new(4);
        s.start(0, "test/cache.t")
            .start(1, "test/db.t")
            .start(2, "test/legacy.t")
            .start(3, "test/parser.t");
        s.assert(0, point(true, "stores"))
            .assert(0, skip("evicts on memory pressure", "slow"));
        s.assert(0, todo("shares across processes", "not implemented"))
            .assert(0, point(true, "expires"));
        let plan = Plan {
            start: 1,
            end: 0,
            skip_all: true,
            reason: Some(Cow::Borrowed("no DATABASE_URL")),
        };
        s.tap(
            1,
            Event::Plan {
                depth: 0,
                line: 1,
                plan: plan.clone(),
            },
        );
        s.finish_with(1, &[], 3, Some(plan), false);
        s.assert(2, point(true, "old api")).assert(
            2,
            Assert {
                todo: Some(Cow::Borrowed("flaky")),
                ..point(true, "retries")
            },
        );
        s.subtest(3, 0, "numbers").assert(
            3,
            Assert {
                depth: 1,
                ..point(true, "integers")
            },
        );
        s.subtest(3, 1, "floats");
        s.assert(
            3,
            Assert {
                depth: 2,
                ..point(true, "1.5")
            },
        );
        s.assert(
            3,
            Assert {
                depth: 2,
                diagnostics: Some(Cow::Borrowed("wanted: 1e3\nfound: \"1e3\"\n")),
                ..point(false, "exponent")
            },
        );
        s.assert(
            3,
            Assert {
                depth: 1,
                closes_subtest: true,
                ..point(false, "floats")
            },
        );
        s.assert(
            3,
            Assert {
                closes_subtest: true,
                ..point(false, "numbers")
            },
        );
        s.subtest(3, 0, "strings (TODO)").assert(
            3,
            Assert {
                depth: 1,
                ..point(false, "escapes")
            },
        );
        s.assert(
            3,
            Assert {
                closes_subtest: true,
                ..todo("strings (TODO)", "escapes are next")
            },
        );
        s.finish(0, &[], 60).finish(2, &[], 20).finish(3, &[], 90);
        s.end(180, false, &[], &[])
    }

    #[test]
    fn mixed_run() {
        insta::assert_snapshot!(render(&mixed(), opts(Verbosity::Normal)));
    }

    #[test]
    fn mixed_run_quiet() {
        insta::assert_snapshot!(render(&mixed(), opts(Verbosity::Quiet)));
    }

    #[test]
    fn quiet_passing_run_is_one_line() {
        let out = render(&all_passing(), opts(Verbosity::Quiet));
        assert_eq!(out, "✓ PASS  3 files · 6 passed, 1 skipped · 1.3s\n");
    }

    #[test]
    fn verbose_run() {
        let mut s = Script::new(2);
        s.start(0, "test/math.t").start(1, "test/io.t");
        s.comment(0, "math suite")
            .assert(0, timed(true, "adds", 1.0));
        s.out(1, "opening /tmp/x").assert(1, point(true, "opens"));
        s.subtest(0, 0, "division").assert(
            0,
            Assert {
                depth: 1,
                ..point(true, "by one")
            },
        );
        s.err(1, "EACCES: permission denied, open '/root/x'");
        s.assert(
            1,
            Assert {
                diagnostics: Some(Cow::Borrowed("message: cannot open\ncode: EACCES\n")),
                ..point(false, "opens a protected file")
            },
        );
        s.assert(
            0,
            Assert {
                depth: 1,
                ..skip("by zero", "undefined")
            },
        );
        s.assert(
            0,
            Assert {
                closes_subtest: true,
                ..point(true, "division")
            },
        );
        s.finish(0, &[], 12).finish(1, &["exited with code 1"], 30);
        insta::assert_snapshot!(render(
            &s.end(50, false, &[], &[]),
            opts(Verbosity::Verbose)
        ));
    }

    #[test]
    fn interrupted_run() {
        let mut s = Script::new(5);
        s.start(0, "test/a.t").start(1, "test/b.t");
        s.assert(0, point(true, "one"))
            .assert(1, point(true, "first"))
            .finish(0, &[], 100);
        s.start(2, "test/c.t")
            .assert(2, point(false, "breaks"))
            .finish(2, &["exited with code 1"], 40);
        s.out(1, "waiting for the server…");
        s.finish_with(1, &["interrupted"], 2500, None, true);
        insta::assert_snapshot!(render(
            &s.end(2600, true, &[], &[]),
            opts(Verbosity::Normal)
        ));
    }

    #[test]
    fn live_region_is_drawn_and_cleared_before_permanent_lines() {
        let mut r = TerminalReporter::new(
            Vec::new(),
            TerminalOptions {
                live: true,
                ..opts(Verbosity::Normal)
            },
        );
        let mut s = Script::new(12);
        s.start(0, "test/fast.t").start(1, "test/slow.t");
        s.subtest(1, 0, "uploads").assert(
            1,
            Assert {
                depth: 1,
                ..point(true, "small file")
            },
        );
        s.assert(0, point(true, "quick"))
            .assert(0, skip("later", ""));
        for ev in &s.events {
            r.on_event(ev).expect("writing to a Vec");
        }
        assert!(
            r.out.is_empty(),
            "nothing permanent yet, and no region before a tick"
        );
        let start = Instant::now();
        r.started = Some(start);
        r.tick(start + Duration::from_millis(3400))
            .expect("writing to a Vec");
        let frame = String::from_utf8(std::mem::take(&mut r.out)).expect("utf-8");
        assert_eq!(
            frame,
            "Running 2 of 12 files · 0 done · 1 passed · 1 skipped · 3.4s\n  test/fast.t  › later\n  test/slow.t  › uploads"
        );

        s.events.clear();
        s.finish(0, &[], 20);
        for ev in &s.events {
            r.on_event(ev).expect("writing to a Vec");
        }
        let frame = String::from_utf8(std::mem::take(&mut r.out)).expect("utf-8");
        let (clear, rest) = frame.split_at("\r\x1b[2A\x1b[J".len());
        assert_eq!(
            clear, "\r\x1b[2A\x1b[J",
            "the 3-line region is cleared first: {frame:?}"
        );
        assert!(
            rest.starts_with("✓ test/fast.t  1 passed, 1 skipped  (20ms)\n"),
            "{frame:?}"
        );
        assert!(rest.ends_with("Running 1 of 12 files · 1 done · 1 passed · 1 skipped · 3.4s\n  test/slow.t  › uploads"), "{frame:?}");

        let out = r.finish().expect("writing to a Vec");
        assert_eq!(out, b"\r\x1b[1A\x1b[J", "finish leaves no region behind");
    }

    #[test]
    fn live_lines_fit_the_width() {
        let mut r = TerminalReporter::new(
            Vec::new(),
            TerminalOptions {
                live: true,
                width: 30,
                ..opts(Verbosity::Normal)
            },
        );
        let mut s = Script::new(20);
        for i in 0..10 {
            s.start(i, &format!("test/file-{i:02}.t"));
        }
        s.assert(3, point(true, "a test with a rather long name indeed"));
        s.assert(4, point(true, "名前の長いテストです"));
        for ev in &s.events {
            r.on_event(ev).expect("writing to a Vec");
        }
        let lines = r.region_lines();
        assert_eq!(lines.len(), 1 + LIVE_FILES + 1);
        assert_eq!(lines[0], "Running 10 of 20 files · 0 d…");
        assert_eq!(lines[4], "  test/file-03.t  › a test w…");
        assert_eq!(lines[5], "  test/file-04.t  › 名前の長…");
        assert_eq!(lines[9], "  … and 2 more");
        assert!(
            lines
                .iter()
                .all(|l| l.chars().map(columns).sum::<usize>() <= 29),
            "{lines:#?}"
        );
    }

    #[test]
    fn not_live_never_moves_the_cursor() {
        let mut r = TerminalReporter::new(Vec::new(), opts(Verbosity::Verbose));
        for ev in &failing() {
            r.on_event(ev).expect("writing to a Vec");
            r.tick(Instant::now()).expect("writing to a Vec");
        }
        let out = r.finish().expect("writing to a Vec");
        assert!(!out.contains(&0x1b), "no escape codes at all");
    }

    #[test]
    fn output_is_bounded_with_a_note() {
        let mut t = Tail::new(3);
        for i in 0..5 {
            t.push(format!("line {i}"));
        }
        assert_eq!(t.newest(2), ["… 3 earlier lines", "line 3", "line 4"]);
        assert_eq!(
            t.take(10),
            ["… 2 earlier lines", "line 2", "line 3", "line 4"]
        );
        assert!(t.is_empty());
    }

    #[test]
    fn stale_runs_are_ignored() {
        let mut events = all_passing();
        events.insert(
            1,
            RunEvent::FileStarted {
                run: RUN - 1,
                file: FileInfo {
                    index: 9,
                    rel: "old.t".into(),
                    command: String::new(),
                    log: None,
                },
            },
        );
        assert!(!render(&events, opts(Verbosity::Normal)).contains("old.t"));
    }
}
