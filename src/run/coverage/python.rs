//! Python's engine: coverage.py, started by tapline's `sitecustomize.py` (first on
//! `PYTHONPATH`, before the trace hook's, each handing over to the next) in every python the
//! test starts, when that python has coverage.py. Each process appends a JSON line per
//! measured file: its path and each statement line with 1 (ran) or 0, coverage.py's own
//! analysis; or `#missing` when the python has no coverage.py.
use crate::coverage::Lang;
use serde::Deserialize;
use std::path::{Path, PathBuf};

/// The hook's file name and text.
pub(crate) const HOOKS: &[(&str, &str)] =
    &[("sitecustomize.py", include_str!("hooks/sitecustomize.py"))];

/// The file a test's pythons append to.
pub(crate) const OUT_VAR: &str = "TAPLINE_COVERAGE_OUT";
/// The project root: only files under it are measured.
pub(crate) const ROOT_VAR: &str = "TAPLINE_COVERAGE_ROOT";

/// What the summary says once when a python had no coverage.py.
pub(crate) const MISSING: &str = "python: coverage.py is not installed for the python that ran the tests, so no Python line was measured: `apt-get install python3-coverage`, or `pip install coverage` in the project's virtualenv";

#[derive(Deserialize)]
struct Measured {
    file: PathBuf,
    lines: Vec<(u32, u64)>,
}

/// What the test's pythons measured; `Err` (the note) when one of them had no coverage.py
/// and none measured anything.
pub(crate) fn read(out: &Path) -> Result<Vec<super::Measured>, String> {
    let Ok(text) = std::fs::read_to_string(out) else {
        return Ok(Vec::new());
    };
    let mut missing = false;
    let mut found = Vec::new();
    for line in text.lines() {
        if line.starts_with("#missing") {
            missing = true;
            continue;
        }
        if let Ok(m) = serde_json::from_str::<Measured>(line) {
            found.push((m.file, Lang::Python, m.lines.into_iter().collect()));
        }
    }
    if missing && found.is_empty() {
        return Err(MISSING.to_owned());
    }
    Ok(found)
}
