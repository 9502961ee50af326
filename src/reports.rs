//! The sinks as the command line and environment ask for them, for `run`, `serve`, `parse`
//! and `report` alike: the `-o` reports and CI annotations, the terminal report's options, the
//! machine output on stdout.
use crate::cli::{Annotations, ColorChoice, RunFormat};
use crate::Failure;
use std::io::{self, IsTerminal, Write};
use std::path::{Path, PathBuf};
use tapline::report::outlets::{self, Machine, Outlets};
use tapline::report::output::{self, Reports, Target};
use tapline::report::reader_gone;
use tapline::report::record::Meta;
use tapline::report::terminal::TerminalOptions;
use tapline::report::threaded::ReportsThread;

/// The reports sink, or `None` when nothing is asked for. Annotations are on with
/// `--annotations github`, or by default when `GITHUB_ACTIONS=true`; they go to stdout beside
/// the human report, or to stderr when stdout carries machine output.
pub fn build(
    targets: Vec<Target>,
    annotations: Option<Annotations>,
    machine_on_stdout: bool,
) -> Result<Option<ReportsThread>, Failure> {
    let on_github = std::env::var_os("GITHUB_ACTIONS").is_some_and(|v| v == "true");
    let annotate = match annotations {
        Some(Annotations::Github) => true,
        Some(Annotations::None) => false,
        None => on_github,
    };
    let annotations = annotate.then(|| output::Annotations {
        out: if machine_on_stdout {
            Box::new(reader_gone::stderr()) as Box<dyn Write + Send>
        } else {
            Box::new(reader_gone::stdout())
        },
        step_summary: std::env::var_os("GITHUB_STEP_SUMMARY")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from),
    });
    let reports = Reports::new(targets, annotations, Meta::current());
    if reports.is_empty() {
        return Ok(None);
    }
    // Before anything ran: nothing to clean up.
    ReportsThread::spawn(reports)
        .map(Some)
        .map_err(|e| Failure::internal(format!("failed to start the reports thread: {e}")))
}

/// Globs for `--watch-ignore` that cover the report files under `root` and their temporary
/// files, so rewriting a report after a run never starts the next one.
pub fn watch_ignores(paths: &[PathBuf], root: &Path) -> Vec<String> {
    let cwd = std::env::current_dir().unwrap_or_default();
    let mut globs = Vec::new();
    for p in paths {
        let abs = if p.is_absolute() {
            p.clone()
        } else {
            cwd.join(p)
        };
        let Ok(rel) = abs.strip_prefix(root) else {
            continue;
        };
        let Some(name) = rel.file_name().map(|n| n.to_string_lossy().into_owned()) else {
            continue;
        };
        let dir = rel
            .parent()
            .map(|d| d.to_string_lossy().into_owned())
            .unwrap_or_default();
        let prefix = if dir.is_empty() {
            String::new()
        } else {
            format!("{}/", globset::escape(&dir))
        };
        globs.push(format!("{prefix}{}", globset::escape(&name)));
        globs.push(format!("{prefix}.{}.*.tmp", globset::escape(&name)));
    }
    globs
}

/// The options of a terminal report on stderr (`run` and `serve`); whether it is live, and
/// its width then, are decided per run ([`Outlets::open`]).
pub(crate) fn stderr_terminal_options(
    color: ColorChoice,
    quiet: bool,
    verbose: bool,
    live: bool,
) -> TerminalOptions {
    TerminalOptions {
        style: color.style(io::stderr().is_terminal()),
        live,
        verbosity: outlets::verbosity(quiet, verbose),
        width: 100,
    }
}

/// The outlets of `run`, its watch mode and `serve`: the terminal report, `--format`'s machine
/// output on stdout, and the reports.
pub(crate) fn outlets(
    terminal: TerminalOptions,
    format: RunFormat,
    reports: Option<ReportsThread>,
) -> Outlets {
    let machine = match format {
        RunFormat::Human => Machine::None,
        RunFormat::Jsonl => Machine::Jsonl,
        RunFormat::Summary => Machine::Summary,
    };
    Outlets::new(terminal, machine, reports)
}
