//! The terminal report of `tapline run`: a line per finished file with its failures explained
//! under it, an optional live region of the running files redrawn in place, and a recap that
//! ends with the one-line summary.
//!
//! Everything written goes through one frame buffer per call, so the terminal gets a single
//! `write_all` (and, in live mode, a single flush) per event or tick: the live region is never
//! seen half-drawn, and permanent lines always land above it.
use crate::event::run::{FileInfo, FileResult, RunEvent, RunSummary};
use crate::event::Event;
use crate::report::human::point_line;
use crate::report::progress::Progress;
use crate::report::style::{self, Style};
use crate::report::Tally;
use std::collections::BTreeMap;
use std::io::{self, Write};
use std::time::Instant;

mod file_state;
mod lines;
mod stability;

#[cfg(test)]
mod tests;

use file_state::*;
use lines::*;

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
    /// Runs in the `--runs N` series under way (0: none).
    series: u64,
    /// Files of this run that never started (interrupted, `--max-fail`, a bail out), by path.
    not_run: Vec<String>,
    /// This run's coverage (`--coverage`), said before the summary line.
    coverage: crate::coverage::RunCoverage,
    /// What `-t` or `--only-failed` narrowed this run to: said first and last.
    filter: Option<String>,
}
impl<W: Write> TerminalReporter<W> {
    pub fn new(out: W, opts: TerminalOptions) -> Self {
        TerminalReporter {
            out,
            opts,
            run: None,
            in_run: false,
            total: 0,
            files: BTreeMap::new(),
            started: None,
            now: None,
            region: 0,
            printed: false,
            ends_blank: false,
            series: 0,
            not_run: Vec::new(),
            coverage: crate::coverage::RunCoverage::default(),
            filter: None,
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
        let run = match ev {
            RunEvent::RunStarted {
                run,
                files,
                test_filter,
                ..
            } => {
                self.start_run(*run, *files);
                let loud = self.opts.verbosity != Verbosity::Quiet;
                if self.series > 1 && loud {
                    let head = format!("── run {run} of {} ──", self.series);
                    writeln!(text, "{}", self.opts.style.paint(style::DIM, head))?;
                }
                self.filter = test_filter
                    .as_ref()
                    .map(|f| format!("Tests: {}", crate::report::test_filter_said(f)));
                if let Some(said) = self.filter.as_ref().filter(|_| loud) {
                    writeln!(text, "{}", self.opts.style.paint(style::DIM, said))?;
                }
                return Ok(());
            }
            RunEvent::SeriesStarted { runs } => {
                self.series = *runs;
                return Ok(());
            }
            // `tapline run` says which shard it runs before it starts.
            RunEvent::Shard(_) => return Ok(()),
            RunEvent::SeriesFinished { stability } => {
                self.series = 0;
                if self.printed && !self.ends_blank {
                    writeln!(text)?;
                }
                let quiet = self.opts.verbosity == Verbosity::Quiet;
                return stability::render(stability, quiet, self.opts.style, text);
            }
            RunEvent::FileStarted { run, .. }
            | RunEvent::Tap { run, .. }
            | RunEvent::Stderr { run, .. }
            | RunEvent::AttemptFailed { run, .. }
            | RunEvent::FileFinished { run, .. }
            | RunEvent::FileNotRun { run, .. }
            | RunEvent::Stopping { run, .. }
            | RunEvent::Explained { run, .. }
            | RunEvent::Coverage { run, .. }
            | RunEvent::RunFinished { run, .. } => *run,
        };
        if self.run != Some(run) {
            return Ok(());
        }
        match ev {
            RunEvent::FileStarted { file, .. } => {
                self.files.insert(file.index, FileState::new(file.clone()));
            }
            RunEvent::Coverage { coverage, .. } => self.coverage.add(coverage),
            RunEvent::Tap { file, event, .. } => self.tap(*file, event, text)?,
            RunEvent::Explained {
                file, explained, ..
            } => {
                if let Some(f) = self.files.get_mut(file) {
                    f.explained(explained);
                }
            }
            RunEvent::Stderr {
                file, text: line, ..
            } => self.stderr(*file, line, text)?,
            RunEvent::AttemptFailed {
                file,
                attempt,
                of,
                result,
                ..
            } => self.attempt_failed(*file, result, (*attempt, *of), text)?,
            RunEvent::FileFinished { file, result, .. } => {
                self.file_finished(*file, result, text)?;
            }
            RunEvent::RunFinished { summary, .. } => {
                self.in_run = false;
                self.run_finished(summary, text)?;
            }
            RunEvent::Stopping {
                immediate, running, ..
            } => writeln!(
                text,
                "{}",
                stopping_line(*immediate, *running, self.opts.style)
            )?,
            // Named just above the summary line, which counts them ("N not run").
            RunEvent::FileNotRun { file, .. } => self.not_run.push(file.rel.clone()),
            RunEvent::RunStarted { .. }
            | RunEvent::Shard(_)
            | RunEvent::SeriesStarted { .. }
            | RunEvent::SeriesFinished { .. } => {}
        }
        Ok(())
    }

    /// A failed attempt that will be retried: one line, but with `--quiet`.
    fn attempt_failed(
        &mut self,
        file: usize,
        result: &FileResult,
        (attempt, of): (u32, u32),
        text: &mut Vec<u8>,
    ) -> io::Result<()> {
        if self.opts.verbosity != Verbosity::Quiet {
            if let Some(f) = self.files.get(&file) {
                let line = retry_line(&f.info, result, attempt, of, self.opts.style);
                writeln!(text, "{line}")?;
            }
        }
        Ok(())
    }

    fn start_run(&mut self, run: u64, files: usize) {
        self.run = Some(run);
        self.not_run.clear();
        self.in_run = true;
        self.total = files;
        self.files.clear();
        self.started = Some(Instant::now());
        self.coverage = crate::coverage::RunCoverage::default();
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
                // At its parent's level, above its own points (`depth` is the subtest's).
                let indent = "  ".repeat(depth.saturating_sub(1) as usize);
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
                attempt: 1,
                leaves: false,
            })
        });
        f.finish(result);
        if self.opts.verbosity != Verbosity::Quiet || !result.ok {
            let verbose = self.opts.verbosity == Verbosity::Verbose;
            file_block(f, result, self.opts.style, verbose, text)?;
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
        if let Some(line) = not_run_line(&self.not_run, s) {
            writeln!(text, "{line}")?;
        }
        if let Some(said) = &self.filter {
            writeln!(text, "{}", s.paint(style::DIM, said))?;
        }
        if self.coverage.collected {
            text.extend_from_slice(crate::coverage::summary::section(&self.coverage).as_bytes());
        }
        writeln!(text, "{}", summary_line(summary, s))
    }

    /// Failures again (one line each), changes since the last run, the slowest files.
    fn recap(&self, summary: &RunSummary, text: &mut Vec<u8>) -> io::Result<()> {
        let s = self.opts.style;
        let mut lines = Vec::new();
        // A stopped file is no failure: it is named apart, unless a point of it had failed.
        let stopped =
            |f: &FileState| f.result.as_ref().is_some_and(|r| r.cancelled) && !f.has_failures();
        let failed: Vec<&FileState> = self
            .files
            .values()
            .filter(|f| f.result.as_ref().is_some_and(|r| !r.ok) && !stopped(f))
            .collect();
        if !failed.is_empty() {
            lines.push(s.paint(style::BOLD, "Failures:"));
            for f in failed {
                lines.extend(recap_lines(f, s));
            }
        }
        let cancelled: Vec<&str> = self
            .files
            .values()
            .filter(|f| stopped(f))
            .map(|f| f.info.rel.as_str())
            .collect();
        if !cancelled.is_empty() {
            lines.push(format!(
                "{} {}",
                s.paint(style::YELLOW, "Cancelled (stopped before the end):"),
                cancelled.join(", ")
            ));
        }
        lines.extend(changes_lines(summary, s));
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
            if let Some(cur) = f.progress.current() {
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
            tally.merge(&if f.running() {
                f.progress.tally()
            } else {
                f.tally
            });
        }
        let mut parts = vec![
            (
                // An open-ended run (the daemon's streams) has no total.
                if self.total == 0 {
                    format!("{running} open")
                } else {
                    format!(
                        "Running {running} of {}",
                        crate::report::counted(self.total as u64, "file")
                    )
                },
                Some(style::BOLD),
            ),
            (format!(" · {done} done"), None),
            (format!(" · {} passed", tally.pass), Some(style::GREEN)),
        ];
        let extra = [
            (tally.fail, "failed", style::RED),
            (tally.skip, "skipped", style::YELLOW),
            (tally.todo, "todo", style::MAGENTA),
            // The file's and the summary's word for what a filter left out (docs/tests.md).
            (tally.not_selected, "not selected", style::DIM),
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

/// Files named in the "Not run" line before the rest are only counted.
const NOT_RUN_NAMED: usize = 10;
/// `Slowest:` names at most this many files, and only in a run of more files than that:
/// with fewer, it would list every file, whose times their own lines show already.
const SLOWEST_SHOWN: usize = 3;
/// A file faster than this is not worth naming as slow (docs/run.md): a run of 1 ms files
/// has no `Slowest:` line.
const SLOWEST_WORTH_MS: u64 = 100;

/// `Not run: t/c.t, t/d.t and 3 more`: which files never started, so a user can run them.
fn not_run_line(files: &[String], s: Style) -> Option<String> {
    if files.is_empty() {
        return None;
    }
    let mut names = files
        .iter()
        .take(NOT_RUN_NAMED)
        .map(String::as_str)
        .collect::<Vec<_>>()
        .join(", ");
    if files.len() > NOT_RUN_NAMED {
        names.push_str(&format!(" and {} more", files.len() - NOT_RUN_NAMED));
    }
    Some(format!("{} {names}", s.paint(style::YELLOW, "Not run:")))
}

/// What a Ctrl-C does, said when it is pressed.
fn stopping_line(immediate: bool, running: usize, s: Style) -> String {
    let files = crate::report::counted(running as u64, "running file");
    if immediate {
        s.paint(style::RED, format!("Killing {files} at once."))
    } else if running == 0 {
        s.paint(style::YELLOW, "Stopping: no new file starts.")
    } else {
        s.paint(
            style::YELLOW,
            format!("Stopping: terminating {files} (Ctrl-C again kills at once)."),
        )
    }
}

/// The recap's lines after the failures: flaky files, changes since the last run, the slowest.
fn changes_lines(summary: &RunSummary, s: Style) -> Vec<String> {
    let mut lines = Vec::new();
    if !summary.flaky.is_empty() {
        lines.push(s.paint(style::YELLOW, "Flaky (failed, then passed on a retry):"));
        for (rel, attempts) in &summary.flaky {
            lines.push(format!(
                "  {} {rel}  {}",
                s.paint(style::YELLOW, "↻"),
                s.paint(style::DIM, format!("passed on attempt {attempts}"))
            ));
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
    let slow: Vec<String> = (summary.slowest.iter())
        .take(SLOWEST_SHOWN)
        .filter(|(_, ms)| summary.files_total > SLOWEST_SHOWN && *ms >= SLOWEST_WORTH_MS)
        .map(|(rel, ms)| {
            format!(
                "{rel} {}",
                s.paint(style::DIM, style::duration_ms(*ms as f64))
            )
        })
        .collect();
    if !slow.is_empty() {
        lines.push(format!(
            "{} {}",
            s.paint(style::DIM, "Slowest:"),
            slow.join(", ")
        ));
    }
    lines
}
