//! `tapline list`: every test of the project by its stable ID, from the last run's report of
//! each file or its static scan (`tapline::inventory`), as JSON lines or one line per test.
use crate::cli::{HistoryFormat, ListArgs, ListSource};
use crate::{Failure, Outcome};
use std::io::{self, Write};
use tapline::inventory::{self, Entry, Pick, Source};
use tapline::run::options::Project;
use tapline::run::plan;
use tapline::state::tests;

pub fn run(args: &ListArgs) -> Outcome {
    // From a subfolder, a bare list names that subfolder's tests as a bare run there runs them:
    // from the project's folder.
    let bare = args.paths.is_empty() && args.from.is_none();
    let moved = if bare {
        crate::run_cmd::enter_project()?
    } else {
        None
    };
    let moved = moved.map(|(started, subfolder)| ListArgs {
        paths: vec![subfolder],
        write: args.write.as_ref().map(|w| started.join(w)),
        ..args.clone()
    });
    let args = moved.as_ref().unwrap_or(args);
    let entries = match &args.from {
        Some(file) => read(file, &args.paths)?,
        None => discover(args)?,
    };
    if let Some(file) = &args.write {
        let mut text = Vec::new();
        write_json(&mut text, &entries)
            .and_then(|()| std::fs::write(file, &text))
            .map_err(|e| Failure::usage(format!("failed to write {}: {e}", file.display())))?;
    }
    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
    let written = match args.format {
        HistoryFormat::Json => write_json(&mut out, &entries),
        HistoryFormat::Human => human(&mut out, &entries),
    };
    match written.and_then(|()| out.flush()) {
        Ok(()) => Ok(0),
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(0),
        Err(e) => Err(Failure::internal(format!("failed to write the list: {e}"))),
    }
}

/// The tests of the files and suites `tapline run` would run with these paths.
fn discover(args: &ListArgs) -> Result<Vec<Entry>, Failure> {
    let project = Project::current().map_err(Failure::usage)?;
    let found = plan::discover(&project, &args.paths, None).map_err(Failure::usage)?;
    // What the walks passed over, and why: a helper or script a user may have expected to run.
    for note in tapline::run::discover::passed_over_notes(&found.passed_over) {
        tapline::say!("tapline: {note}");
    }
    let log_dir = project.log_dir(args.log_dir.as_deref());
    let mut saved = tests::load(&log_dir).map_err(Failure::usage)?;
    // A record that kept only a file's failing and slowest tests names too few: its log
    // names them all.
    saved.retain(|_, f| f.capped.is_none());
    // A run that kept no records (`--no-history`, a shard) still left its logs.
    tests::fill_from_logs(
        &mut saved,
        &log_dir,
        found.files.iter().map(|f| f.rel.as_str()),
    );
    let pick = match args.source {
        ListSource::Auto => Pick::Auto,
        ListSource::Static => Pick::Only(Source::Static),
        ListSource::History => Pick::Only(Source::History),
        ListSource::Runtime => Pick::Only(Source::Runtime),
    };
    let (entries, notes) = inventory::list(&project.root, &project.cwd, &found.files, &saved, pick);
    for note in notes {
        tapline::say!("tapline: {note} (listed by its static scan instead)");
    }
    Ok(entries)
}

/// A list written by `--write`, only the files under `paths` when some are given.
fn read(file: &std::path::Path, paths: &[String]) -> Result<Vec<Entry>, Failure> {
    let text = std::fs::read_to_string(file)
        .map_err(|e| Failure::usage(format!("failed to read {}: {e}", file.display())))?;
    let mut out = Vec::new();
    for (n, line) in text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
    {
        let e: Entry = serde_json::from_str(line).map_err(|e| {
            Failure::usage(format!(
                "failed to read {} line {}: {e}",
                file.display(),
                n + 1
            ))
        })?;
        let under = |p: &String| {
            let p = p.trim_end_matches('/');
            e.file == p || e.file.starts_with(&format!("{p}/"))
        };
        if paths.is_empty() || paths.iter().any(under) {
            out.push(e);
        }
    }
    Ok(out)
}

fn write_json(out: &mut impl Write, entries: &[Entry]) -> io::Result<()> {
    for e in entries {
        serde_json::to_writer(&mut *out, e)?;
        out.write_all(b"\n")?;
    }
    Ok(())
}

/// One line per test: its ID, where it is, and what is known of it.
fn human(out: &mut impl Write, entries: &[Entry]) -> io::Result<()> {
    for e in entries {
        let mut notes = Vec::new();
        if let Some(l) = &e.location {
            notes.push(l.clone());
        }
        if e.dynamic {
            notes.push("name known at run time".to_owned());
        }
        if let (Some(status), Some(when)) = (e.status, &e.when) {
            notes.push(format!("{} {when}", format!("{status:?}").to_lowercase()));
        }
        match notes.is_empty() {
            true => writeln!(out, "{}", e.id)?,
            false => writeln!(out, "{}  ({})", e.id, notes.join(", "))?,
        }
    }
    let files: std::collections::BTreeSet<&str> = entries.iter().map(|e| e.file.as_str()).collect();
    writeln!(
        out,
        "{} in {}",
        tapline::report::counted(entries.len() as u64, "test"),
        tapline::report::counted(files.len() as u64, "file")
    )
}
