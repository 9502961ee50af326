//! `tapline history`: what the history store knows, per file and per test.
use crate::cli::{HistoryAction, HistoryArgs, HistoryFormat};
use crate::{Failure, Outcome};
use std::io::{self, IsTerminal, Write};
use tapline::report::style::{self, Style};
use tapline::run::options::Project;
use tapline::state::history::{self, report::HistoryReport};
use tapline::state::tests;

pub fn run(args: &HistoryArgs) -> Outcome {
    if let Some(HistoryAction::Import { runs, log_dir }) = &args.action {
        return import(runs, log_dir.as_ref());
    }
    let project = Project::current().map_err(Failure::usage)?;
    let log_dir = project.log_dir(args.log_dir.as_deref());
    let store = history::Store::in_dir(&log_dir);
    let loaded = store
        .load()
        .map_err(|e| Failure::usage(format!("failed to read {}: {e}", store.path().display())))?;
    for w in &loaded.warnings {
        tapline::say!("tapline: warning: {w}");
    }
    let (attempts, test_warnings) = tests::load_all(&log_dir).map_err(Failure::usage)?;
    for w in &test_warnings {
        tapline::say!("tapline: warning: skipped a damaged line of {w}");
    }
    let mut report = HistoryReport::of(&loaded.records, &attempts);
    if !args.tests {
        report.only_failed_tests();
    }
    report.filter(args.flaky, args.failing, args.slow, args.tests);
    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
    let written = match args.format {
        HistoryFormat::Json => serde_json::to_writer_pretty(&mut out, &report)
            .map_err(io::Error::from)
            .and_then(|()| out.write_all(b"\n")),
        HistoryFormat::Human => {
            let style = args.color.style(io::stdout().is_terminal());
            if loaded.records.is_empty() {
                writeln!(
                    out,
                    "No history yet in {} (every `tapline run` adds to it).",
                    store.path().display()
                )
            } else {
                human(&mut out, &report, style, args.tests)
            }
        }
    };
    match written.and_then(|()| out.flush()) {
        Ok(()) => Ok(0),
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(0),
        Err(e) => Err(Failure::internal(format!(
            "failed to write the history: {e}"
        ))),
    }
}

fn human(
    out: &mut impl Write,
    report: &HistoryReport,
    s: Style,
    all_tests: bool,
) -> io::Result<()> {
    let header = [
        "runs", "passed", "failed", "flaky", "flips", "mean", "p50", "p95", "last",
    ];
    let last = |v: history::RunOutcome| match v {
        history::RunOutcome::Passed => s.paint(style::GREEN, "passed"),
        history::RunOutcome::Failed => s.paint(style::RED, "failed"),
        history::RunOutcome::Flaky => s.paint(style::YELLOW, "flaky"),
    };
    let row = |r: &history::report::Row| -> Vec<String> {
        vec![
            r.runs.to_string(),
            r.passed.to_string(),
            r.failed.to_string(),
            r.flaky.to_string(),
            format!("{}%", r.flip_rate),
            r.duration_ms
                .map_or("-".into(), |d| style::duration_ms(d.mean)),
            r.duration_ms
                .map_or("-".into(), |d| style::duration_ms(d.p50)),
            r.duration_ms
                .map_or("-".into(), |d| style::duration_ms(d.p95)),
        ]
    };
    let table = |out: &mut dyn Write, title: &str, rows: &[(String, Vec<String>, String)]| {
        writeln!(out, "{}", s.paint(style::BOLD, title))?;
        if rows.is_empty() {
            return writeln!(out, "  (none)\n");
        }
        let name_w = rows
            .iter()
            .map(|r| r.0.chars().count())
            .max()
            .unwrap_or(0)
            .max(4);
        let mut widths: Vec<usize> = header.iter().map(|h| h.len()).collect();
        for (_, cells, _) in rows {
            for (w, c) in widths.iter_mut().zip(cells) {
                *w = (*w).max(c.chars().count());
            }
        }
        let mut line = format!("  {:name_w$}", "");
        for (h, w) in header.iter().zip(&widths) {
            line.push_str(&format!("  {h:>w$}"));
        }
        writeln!(out, "{}", s.paint(style::DIM, line.trim_end()))?;
        for (name, cells, last) in rows {
            let pad = name_w - name.chars().count();
            let mut line = format!("  {name}{}", " ".repeat(pad));
            for (c, w) in cells.iter().zip(&widths) {
                line.push_str(&format!("  {c:>w$}"));
            }
            writeln!(out, "{line}  {last}")?;
        }
        writeln!(out)
    };
    let files: Vec<_> = report
        .files
        .iter()
        .map(|f| (f.path.clone(), row(&f.row), last(f.row.last)))
        .collect();
    table(out, "Files", &files)?;
    let tests: Vec<_> = report
        .tests
        .iter()
        .map(|t| {
            let errors = match t.errors {
                0 | 1 => String::new(),
                n => format!("  ({n} different errors)"),
            };
            (
                t.id.clone(),
                row(&t.row),
                format!("{}{errors}", last(t.row.last)),
            )
        })
        .collect();
    let title = match all_tests {
        true => "Tests",
        false => "Tests that failed at least once",
    };
    table(out, title, &tests)
}

/// `tapline history import RUN.jsonl…`: each recorded run appended as if it had run here.
fn import(runs: &[std::path::PathBuf], log_dir: Option<&std::path::PathBuf>) -> Outcome {
    let mut appended = 0;
    for path in runs {
        let events = read_events(path).map_err(Failure::usage)?;
        appended += append(events, log_dir).map_err(Failure::internal)?;
    }
    tapline::say!("tapline: {appended} records added to the history");
    Ok(0)
}

fn read_events(path: &std::path::Path) -> Result<Vec<tapline::event::run::RunEvent>, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("failed to read {}: {e}", path.display()))?;
    let mut events = Vec::new();
    for (n, line) in text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
    {
        let event = tapline::event::run::RunEvent::from_recorded(line).map_err(|e| {
            format!(
                "failed to read {} line {}: not an event of a tapline run ({e})",
                path.display(),
                n + 1
            )
        })?;
        events.extend(event);
    }
    if !events
        .iter()
        .any(|e| matches!(e, tapline::event::run::RunEvent::RunFinished { .. }))
    {
        return Err(format!(
            "{} holds no finished run (no run_finished event)",
            path.display()
        ));
    }
    Ok(events)
}

/// Appends the run these events make to the project's history store; the records written.
pub(crate) fn append(
    events: Vec<tapline::event::run::RunEvent>,
    log_dir: Option<&std::path::PathBuf>,
) -> Result<usize, String> {
    let project = Project::current().map_err(|e| e.to_string())?;
    let root = &project.root;
    let dir = project.log_dir(log_dir.map(|d| d.as_path()));
    std::fs::create_dir_all(&dir)
        .map_err(|e| format!("failed to create {}: {e}", dir.display()))?;
    let store = history::Store::in_dir(&dir);
    let records = history::import::records(events, history::git_head(root));
    store
        .append(&records)
        .map_err(|e| format!("failed to write {}: {e}", store.path().display()))?;
    Ok(records.len())
}
