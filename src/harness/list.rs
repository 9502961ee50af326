//! What a harness says of a file's tests without running them, as `tapline list` asks it: the
//! file or suite asked about ([`Listable`]), its own listing ([`Lister`], [`Listing`]) and the
//! static scan of a suite's sources ([`Scanned`]). The rooms answer with names; inventory makes
//! the entries (its IDs, locations and sources), since the rooms sit below it.
use super::api::Id;
use super::scan::Found;
use crate::protocol::InputFormat;
use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// A test file or a `[[suite]]`, as a harness is asked about its tests.
pub(crate) struct Listable<'a> {
    /// From the project root, with '/' separators: the name its tests are listed under.
    pub(crate) rel: &'a str,
    /// As found (relative to the cwd, or absolute).
    pub(crate) path: &'a Path,
    /// Its command, when it has one.
    pub(crate) command: Option<&'a [OsString]>,
    /// A `[[suite]]`, not a file.
    pub(crate) suite: bool,
    pub(crate) format: InputFormat,
    /// Where a suite runs: its `dir` under the root, or the root.
    pub(crate) dir: PathBuf,
    /// The project root.
    pub(crate) root: &'a Path,
}

impl Listable<'_> {
    /// Its command's words, joined by spaces (empty when it has none).
    pub(crate) fn command_line(&self) -> String {
        (self.command.unwrap_or_default().iter())
            .map(|w| w.to_string_lossy())
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// How a harness lists a file's tests by running its own listing.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Lister {
    pub(crate) harness: Id,
    /// Files of one harness with the same `Some` key are listed by one call, after the files
    /// listed one by one (`None`).
    pub(crate) batch: Option<Vec<OsString>>,
    /// Its listing may name tests the static scan cannot see (so `auto` asks it for a file
    /// that never ran); `false`: it names no more than the scan, and costs more to ask.
    pub(crate) refines: bool,
}

/// What a listing found: each listed file's test names (outermost first), by its `rel`, and a
/// note per listing that failed.
#[derive(Debug, Default)]
pub(crate) struct Listing {
    pub(crate) tests: BTreeMap<String, Vec<Vec<String>>>,
    pub(crate) notes: Vec<String>,
}

impl Listing {
    /// A listing of the file `rel`: its names, or a note saying why it failed.
    pub(crate) fn take(&mut self, rel: &str, listed: Result<Vec<Vec<String>>, String>) {
        match listed {
            Ok(names) => {
                self.tests.insert(rel.to_owned(), names);
            }
            Err(e) => self.notes.push(format!("{rel}: {e}")),
        }
    }
}

impl Scanned {
    /// A test found in `path` (named from the root when under it), its names after `prefix`.
    pub(crate) fn new(root: &Path, path: &Path, prefix: &[String], found: Found) -> Scanned {
        let source = path.strip_prefix(root).unwrap_or(path);
        let mut name = prefix.to_vec();
        name.extend(found.name);
        Scanned {
            source: source.to_string_lossy().into_owned(),
            found: Found { name, ..found },
        }
    }
}

/// A test the static scan of a suite's sources found: the source it is in (from the root) and
/// its names as the suite's reports name it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Scanned {
    pub(crate) source: String,
    pub(crate) found: Found,
}

/// Runs a listing in `dir`; its stdout when it exits with one of `ok` codes, else why not in
/// one line (its last line of output, or how it failed to start).
pub(crate) fn output(argv: &[OsString], dir: &Path, ok: &[i32]) -> Result<String, String> {
    let shown = (argv.iter())
        .map(|w| w.to_string_lossy())
        .collect::<Vec<_>>()
        .join(" ");
    let (program, args) = argv.split_first().ok_or("failed to list: no command")?;
    let out = Command::new(program)
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("failed to list the tests with `{shown}`: {e}"))?;
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    if out.status.code().is_some_and(|c| ok.contains(&c)) {
        return Ok(stdout);
    }
    let stderr = String::from_utf8_lossy(&out.stderr);
    let lines = || {
        (stderr.lines().chain(stdout.lines()))
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('{'))
    };
    // pytest names the error on an `E   ` line (`E   ModuleNotFoundError: …`); its summary's
    // `ERROR t.py - …` line, on its own, names only the file in some versions.
    let last = (lines().find_map(|l| l.strip_prefix("E ").map(str::trim_start)))
        .or_else(|| lines().rfind(|l| l.starts_with("ERROR")))
        .or_else(|| lines().next_back())
        .unwrap_or("no output");
    let status = match out.status.code() {
        Some(c) => format!("exit code {c}"),
        None => "killed by a signal".to_owned(),
    };
    Err(format!(
        "failed to list the tests with `{shown}` ({status}): {last}"
    ))
}

/// The files under `dir`, sorted, hidden folders and dependencies left out.
pub(crate) fn source_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_owned()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let path = e.path();
            let name = e.file_name().to_string_lossy().into_owned();
            if name.starts_with('.')
                || matches!(
                    name.as_str(),
                    "node_modules" | "vendor" | "testdata" | "__pycache__"
                )
            {
                continue;
            }
            match e.file_type() {
                Ok(t) if t.is_dir() => stack.push(path),
                Ok(_) => out.push(path),
                Err(_) => {}
            }
        }
    }
    out.sort();
    out
}
