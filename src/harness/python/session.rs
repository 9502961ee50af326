//! pytest's own session: the files a run with no PATH takes are the ones pytest collects
//! (rootdir, `testpaths`, `addopts`, conftests' `collect_ignore`, `--ignore`, plugins), and
//! each `-j` worker is one pytest that collected the session once and runs the files tapline
//! hands it (the plugin's serving mode, `tapline_pytest.py`).
//!
//! - the listing: `PYTHON -m pytest -p tapline_pytest --collect-only -q` with
//!   `TAPLINE_PYTEST_FILES=1`, from the cwd; the plugin prints each collected (or failing) file.
//!   It is kept in the plugin's folder per project, with a key over the interpreter,
//!   `PYTEST_ADDOPTS`, `PYTHONPATH` and every `.py`/`.ini`/`.toml`/`.cfg` file and folder under
//!   the project root as a walk sees them (path, size, modification time): a later run with the
//!   same key lists from the kept copy instead of starting pytest a second time.
//! - the worker ([`PytestWorker`]): `PYTHON -m pytest -p tapline_pytest` with no file, the
//!   plugin first on `PYTHONPATH`; the pool feeds it and cuts its streams as any worker's.
use crate::harness::worker::Worker;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// What the plugin prints before each file the session collected.
const FILE_MARK: &str = "\u{27e6}tapline-file\u{27e7} ";
/// What the plugin prints once the session's files are all said.
const END_MARK: &str = "\u{27e6}tapline-files-end\u{27e7}";

/// The files pytest (run by `python`, from `cwd` in the project at `root`) collects, relative
/// to `cwd` where they lie under it; `Err`: why it could not say, after "failed to list the
/// test files of `pytest`: ".
pub(crate) fn collected(
    python: &OsString,
    cwd: &Path,
    root: &Path,
) -> Result<Vec<PathBuf>, String> {
    let key = cache_key(python, root);
    let kept = cache_file(cwd);
    if let (Some(key), Some(file)) = (&key, &kept) {
        if let Some(files) = read_cache(file, key) {
            return Ok(files);
        }
    }
    let files = ask(python, cwd)?;
    if let (Some(key), Some(file)) = (&key, &kept) {
        write_cache(file, key, &files);
    }
    Ok(files)
}

/// Runs pytest's collection with the plugin's listing mode.
fn ask(python: &OsString, cwd: &Path) -> Result<Vec<PathBuf>, String> {
    let shown = python.to_string_lossy();
    if !super::interpreter::has_pytest(python, cwd) {
        return Err(super::missing(python, cwd));
    }
    let vars = super::env(&[])?;
    let out = std::process::Command::new(python)
        .args(["-m", "pytest", "-p", super::MODULE, "--collect-only", "-q"])
        .current_dir(cwd)
        .envs(vars)
        .env("TAPLINE", "1")
        .env("TAPLINE_PYTEST_FILES", "1")
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| format!("failed to start `{shown}`: {e}"))?;
    let text = String::from_utf8_lossy(&out.stdout);
    if !text.lines().any(|l| l == END_MARK) {
        let said = String::from_utf8_lossy(&out.stderr);
        let line = (said.lines().rev())
            .chain(text.lines().rev())
            .map(str::trim)
            .find(|l| !l.is_empty())
            .unwrap_or("no word from it");
        return Err(format!(
            "`{shown} -m pytest --collect-only` ended with {}: {line}",
            out.status
        ));
    }
    let files = text.lines().filter_map(|l| l.strip_prefix(FILE_MARK));
    let files = files.map(|f| {
        let abs = Path::new(f);
        abs.strip_prefix(cwd).unwrap_or(abs).to_path_buf()
    });
    Ok(files.collect())
}

/// Where the listing of the project in `cwd` is kept: in the plugin's folder (a new plugin, a
/// new folder).
fn cache_file(cwd: &Path) -> Option<PathBuf> {
    use std::os::unix::ffi::OsStrExt;
    let dir = super::plugin_dir().ok()?;
    let name = format!(
        "collected-{:016x}.json",
        crate::util::fnv1a(cwd.as_os_str().as_bytes())
    );
    Some(dir.join(name))
}

/// The key the kept listing must match: the interpreter, the variables pytest reads, and the
/// files that may change what it collects (`None`: the walk failed; nothing is kept).
fn cache_key(python: &OsString, root: &Path) -> Option<String> {
    use std::fmt::Write;
    use std::os::unix::fs::MetadataExt;
    let mut text = String::new();
    let _ = write!(text, "{}\0", python.to_string_lossy());
    for var in [
        "PYTEST_ADDOPTS",
        "PYTHONPATH",
        "PYTEST_PLUGINS",
        "VIRTUAL_ENV",
    ] {
        let value = std::env::var_os(var).unwrap_or_default();
        let _ = write!(text, "{var}={}\0", value.to_string_lossy());
    }
    let walker = ignore::WalkBuilder::new(root)
        .standard_filters(false)
        .hidden(true)
        .filter_entry(|e| {
            let name = e.file_name().to_string_lossy();
            e.depth() == 0
                || !e.file_type().is_some_and(|t| t.is_dir())
                || !(matches!(
                    name.as_ref(),
                    "node_modules" | "__pycache__" | "venv" | "target"
                ) || e.path().join("pyvenv.cfg").is_file())
        })
        .sort_by_file_path(|a, b| a.cmp(b))
        .build();
    for entry in walker {
        let entry = entry.ok()?;
        let is_dir = entry.file_type().is_some_and(|t| t.is_dir());
        let name = entry.file_name().to_string_lossy();
        let kept = is_dir
            || [".py", ".ini", ".toml", ".cfg"]
                .iter()
                .any(|ext| name.ends_with(ext));
        if !kept {
            continue;
        }
        let meta = entry.metadata().ok()?;
        let _ = write!(
            text,
            "{}\0{}\0{}.{}\0",
            entry.path().display(),
            meta.len(),
            meta.mtime(),
            meta.mtime_nsec()
        );
    }
    Some(format!(
        "{:016x}:{}",
        crate::util::fnv1a(text.as_bytes()),
        text.len()
    ))
}

fn read_cache(file: &Path, key: &str) -> Option<Vec<PathBuf>> {
    let doc: serde_json::Value = serde_json::from_slice(&std::fs::read(file).ok()?).ok()?;
    if doc["key"] != key {
        return None;
    }
    let files = doc["files"].as_array()?;
    files
        .iter()
        .map(|f| f.as_str().map(PathBuf::from))
        .collect()
}

/// Keeps the listing (written aside and renamed: a reader sees the old one or the new one).
/// Not kept when it cannot be written: the next run asks pytest again.
fn write_cache(file: &Path, key: &str, files: &[PathBuf]) {
    let files: Vec<String> = files
        .iter()
        .map(|f| f.to_string_lossy().into_owned())
        .collect();
    let doc = serde_json::json!({ "key": key, "files": files });
    let tmp = file.with_extension(format!("{}.tmp", std::process::id()));
    if std::fs::write(&tmp, doc.to_string()).is_ok() && std::fs::rename(&tmp, file).is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
}

/// pytest's worker: one pytest per `-j` worker, serving the pool's files.
pub(crate) struct PytestWorker;
pub(crate) static PYTEST_WORKER: PytestWorker = PytestWorker;

/// The plugin, as the worker's "driver": written to the workers' folder, which then goes first
/// on `PYTHONPATH` ([`Worker::start_env`]); `-p tapline_pytest` loads it.
const FILES: &[(&str, &str)] = &[("tapline_pytest.py", super::PLUGIN), super::COMMON];

impl Worker for PytestWorker {
    fn runs(&self, program: &str) -> bool {
        program.starts_with("python")
    }

    fn files(&self) -> &'static [(&'static str, &'static str)] {
        FILES
    }

    fn key_extra(&self, _path: &Path, _asked: bool) -> Option<bool> {
        Some(false)
    }

    fn serves_others(&self) -> bool {
        false
    }

    fn spares(&self) -> bool {
        // It imports every test module as it collects: a spare would run the next cycle's
        // files as they were before the edit.
        false
    }

    fn start_args(&self, argv: &[OsString], _driver: &Path) -> Vec<OsString> {
        // `PYTHON -m pytest -p tapline_pytest` and no file: pytest collects the session as a
        // bare `pytest` would, and the plugin serves the files from stdin.
        argv.get(1..).unwrap_or_default().to_vec()
    }

    fn start_env(
        &self,
        hooks: &Path,
        _argv: &[OsString],
        _cwd: &Path,
        get: &dyn Fn(&str) -> Option<OsString>,
    ) -> Vec<(OsString, OsString)> {
        match super::python_path(hooks, get("PYTHONPATH")) {
            Some(value) => vec![("PYTHONPATH".into(), value)],
            None => Vec::new(),
        }
    }
}
