//! Python's engine: coverage.py, started by tapline's `sitecustomize.py` (first on
//! `PYTHONPATH`, before the trace hook's, each handing over to the next) in every python the
//! test starts, when that python has coverage.py, with the project's own coverage.py config.
//! Each process only saves what ran (a data file beside the test's output file) and appends a
//! JSON line naming its python and that file; or `#missing` when it has no coverage.py. Once
//! the test has ended (so never against its timeout), that python runs `analyse.py` in the
//! project root: the data combined and counted as `coverage report` counts it.
use crate::coverage::Lang;
use crate::harness::api::Id;
use crate::harness::trace::{CoverageEngine, EnvEdit, Reading as Read};
use serde::Deserialize;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

pub(crate) struct CoveragePy;
pub(crate) static COVERAGE_PY: CoveragePy = CoveragePy;

/// The hook's file name and text.
const HOOKS: &[(&str, &str)] = &[(
    "sitecustomize.py",
    include_str!("hooks/coverage/sitecustomize.py"),
)];

/// The analysis, run with `python -c` once the test has ended.
const ANALYSE: &str = include_str!("hooks/coverage/analyse.py");

/// The file a test's pythons append to.
const OUT_VAR: &str = "TAPLINE_COVERAGE_OUT";
/// The project root: only files under it are measured.
const ROOT_VAR: &str = "TAPLINE_COVERAGE_ROOT";

impl CoverageEngine for CoveragePy {
    fn id(&self) -> Id {
        "python"
    }

    fn lang(&self) -> Lang {
        Lang::new("python")
    }

    fn ext(&self) -> &'static str {
        ".py"
    }

    fn extensions(&self) -> &'static [&'static str] {
        &["py"]
    }

    fn dependency_dirs(&self) -> &'static [&'static str] {
        &["site-packages", "dist-packages"]
    }

    /// A virtualenv.
    fn dependency_mark(&self) -> Option<&'static str> {
        Some("pyvenv.cfg")
    }

    fn hooks(&self) -> &'static [(&'static str, &'static str)] {
        HOOKS
    }

    fn run_env(&self, hooks: &Path, root: &Path) -> Vec<(&'static str, EnvEdit)> {
        let path = super::trace::path_entry(hooks)
            .map(|entry| ("PYTHONPATH", EnvEdit::PrependPath(entry.to_path_buf())));
        let root = (ROOT_VAR, EnvEdit::Set(root.as_os_str().to_owned()));
        path.into_iter().chain([root]).collect()
    }

    fn file_env(&self, out: &Path) -> Vec<(OsString, OsString)> {
        vec![(OUT_VAR.into(), out.as_os_str().to_owned())]
    }

    fn outputs(&self, out: &Path) -> Vec<PathBuf> {
        data_files(out)
    }

    fn read(&self, _hooks: &Path, out: &Path, _cwd: &Path, root: &Path) -> Result<Read, String> {
        read(out, root)
    }
}

/// What the summary says once when a python had no coverage.py.
const MISSING: &str = "python: coverage.py is not installed for the python that ran the tests, so no Python line was measured: `apt-get install python3-coverage`, or `pip install coverage` in the project's virtualenv";

/// A process's line in the output file.
#[derive(Deserialize)]
struct Saved {
    python: PathBuf,
}

/// A line of the analysis.
#[derive(Deserialize)]
#[serde(untagged)]
enum Analysed {
    File {
        file: PathBuf,
        lines: Vec<(u32, u64)>,
    },
    Note {
        note: String,
        why: String,
    },
    Config {
        config: Option<String>,
    },
}

/// What the test's pythons measured, analysed in `root` by the first of them; `Err` (the
/// note) when one of them had no coverage.py and none measured anything.
fn read(out: &Path, root: &Path) -> Result<Read, String> {
    let Ok(text) = std::fs::read_to_string(out) else {
        return Ok(Read::default());
    };
    let missing = text.lines().any(|l| l.starts_with("#missing"));
    let python = text
        .lines()
        .find_map(|l| serde_json::from_str::<Saved>(l).ok())
        .map(|s| s.python);
    let data = data_files(out);
    let mut read = match python {
        Some(python) if !data.is_empty() => analyse(&python, &data, root),
        _ => Read::default(),
    };
    let errors = text.lines().filter_map(|l| l.strip_prefix("#error "));
    read.notes.extend(errors.map(|why| {
        format!("python: coverage.py failed, so a python of this file was not measured: {why}")
    }));
    if missing && read.measured.is_empty() {
        return Err(MISSING.to_owned());
    }
    Ok(read)
}

/// The data files the test's pythons saved: `<out>.data.<host>.<pid>.<random>` (a process
/// coverage.py started itself, such as a `multiprocessing` child, saves there too).
fn data_files(out: &Path) -> Vec<PathBuf> {
    let (Some(dir), Some(name)) = (out.parent(), out.file_name()) else {
        return Vec::new();
    };
    let mut prefix = name.to_os_string();
    prefix.push(".data");
    let prefix = prefix.to_string_lossy().into_owned();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_string_lossy().starts_with(&prefix))
        .map(|e| e.path())
        .collect();
    files.sort();
    files
}

/// `python` counting `data` as `coverage report` in `root` would.
fn analyse(python: &Path, data: &[PathBuf], root: &Path) -> Read {
    let output = Command::new(python)
        .arg("-c")
        .arg(ANALYSE)
        .args(data)
        .current_dir(root)
        .env_remove(OUT_VAR)
        .env_remove(ROOT_VAR)
        .stdin(Stdio::null())
        .output();
    match output {
        Ok(o) if o.status.success() => parse(&String::from_utf8_lossy(&o.stdout)),
        Ok(o) => {
            let stderr = String::from_utf8_lossy(&o.stderr);
            let why = stderr.lines().rev().find(|l| !l.trim().is_empty());
            Read {
                notes: vec![format!(
                    "python: failed to analyse the coverage data, so no Python line was measured: {}",
                    why.unwrap_or("coverage.py ended without a word").trim()
                )],
                ..Read::default()
            }
        }
        Err(e) => Read {
            notes: vec![format!(
                "python: failed to start {} to analyse the coverage data: {e}",
                python.display()
            )],
            ..Read::default()
        },
    }
}

/// The analysis's lines.
fn parse(text: &str) -> Read {
    let mut read = Read::default();
    for line in text.lines() {
        match serde_json::from_str::<Analysed>(line) {
            Ok(Analysed::File { file, lines }) => {
                read.measured
                    .push((file, Lang::new("python"), lines.into_iter().collect()));
            }
            Ok(Analysed::Note { note, why }) => read.notes.push(format!(
                "python: {note} is left out: coverage.py cannot analyse it ({why})"
            )),
            Ok(Analysed::Config { config }) => read.own_config = config.is_some(),
            Err(_) => {}
        }
    }
    read
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_analysis_gives_files_notes_and_whose_config() {
        let read = parse(
            "{\"config\": \"/p/pyproject.toml\"}\nnoise\n\
             {\"file\": \"/p/src/a.py\", \"lines\": [[1, 1], [3, 0]]}\n\
             {\"note\": \"src/gen.py\", \"why\": \"No source for code: '/p/src/gen.py'.\"}\n",
        );
        assert!(read.own_config);
        assert_eq!(read.measured.len(), 1);
        assert_eq!(read.measured[0].2.get(&3), Some(&0));
        assert_eq!(
            read.notes,
            ["python: src/gen.py is left out: coverage.py cannot analyse it (No source for code: '/p/src/gen.py'.)"]
        );
        assert!(!parse("{\"config\": null}\n").own_config);
    }

    #[test]
    fn a_python_whose_coverage_failed_is_said_not_silent() {
        let dir = tempfile::tempdir().expect("temp dir");
        let out = dir.path().join("0.py");
        std::fs::write(&out, "#error Couldn't import a plugin\n").expect("write");
        let read = read(&out, dir.path()).expect("no engine is missing");
        assert!(read.measured.is_empty());
        assert_eq!(
            read.notes,
            ["python: coverage.py failed, so a python of this file was not measured: Couldn't import a plugin"]
        );
    }
}
