//! The project's Python, chosen in one place for pytest's files and unittest's: the project's
//! own environment, else the `python3` on PATH (docs/discovery.md#the-projects-interpreter).
//!
//! The project's environment, first found, in the cwd then the project root:
//! - `$UV_PROJECT_ENVIRONMENT` when set (uv's own override), else `.venv` (uv's, poetry's
//!   in-project and hatch's `dirs.env` virtual, and the `python -m venv .venv` convention), then
//!   `venv`: its `bin/python`;
//! - a poetry project (`poetry.lock`, or `[tool.poetry]` in `pyproject.toml`) with `poetry` on
//!   PATH: `poetry env info -p`'s environment;
//! - a hatch project (`hatch.toml`, or `[tool.hatch` in `pyproject.toml`) with `hatch` on
//!   PATH: `hatch env find default`'s environment, when it exists.
//!
//! With none, pytest's files run with the `python3` on PATH when it has pytest, else with the
//! interpreter of the `pytest` program on PATH (its `#!` line: what typing `pytest` runs), else
//! `python3`, whose missing pytest is then the run's one error. unittest's files take the
//! `python3` on PATH.
use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The interpreter of the project's own environment, if it has one.
pub(crate) fn project_env(cwd: &Path, root: &Path) -> Option<OsString> {
    let dirs = if cwd == root {
        vec![cwd]
    } else {
        vec![cwd, root]
    };
    let python = |env: PathBuf| {
        let program = env.join("bin/python");
        program.is_file().then(|| program.into_os_string())
    };
    for dir in &dirs {
        if let Some(env) = std::env::var_os("UV_PROJECT_ENVIRONMENT").filter(|v| !v.is_empty()) {
            if let Some(found) = python(dir.join(env)) {
                return Some(found);
            }
        }
        for venv in [".venv", "venv"] {
            if let Some(found) = python(dir.join(venv)) {
                return Some(found);
            }
        }
    }
    for dir in &dirs {
        let pyproject = std::fs::read_to_string(dir.join("pyproject.toml")).unwrap_or_default();
        let poetry = dir.join("poetry.lock").is_file() || pyproject.contains("[tool.poetry]");
        if poetry {
            if let Some(found) = asked_env(dir, "poetry", &["env", "info", "-p"]).and_then(python) {
                return Some(found);
            }
        }
        let hatch = dir.join("hatch.toml").is_file() || pyproject.contains("[tool.hatch");
        if hatch {
            let asked = asked_env(dir, "hatch", &["env", "find", "default"]);
            if let Some(found) = asked.and_then(python) {
                return Some(found);
            }
        }
    }
    None
}

/// The folder a tool prints for the project in `dir` (its first line), when the tool is on
/// PATH and says one.
fn asked_env(dir: &Path, tool: &str, args: &[&str]) -> Option<PathBuf> {
    let program = crate::util::which::find(OsStr::new(tool), dir)?;
    let line =
        crate::util::quiet::first_line_of(Command::new(program).args(args).current_dir(dir))?;
    Path::new(&line).is_absolute().then(|| PathBuf::from(line))
}

/// unittest's interpreter: the project's environment, else `python3`.
pub(crate) fn python(cwd: &Path, root: &Path) -> OsString {
    project_env(cwd, root).unwrap_or_else(|| "python3".into())
}

/// pytest's interpreter: the project's environment, else the `python3` on PATH when it has
/// pytest, else the interpreter the `pytest` on PATH names on its `#!` line, else `python3`.
/// Without a project environment the choice costs a python's start (through pyenv's shims,
/// about 0.3 s here), so it is kept per folder ([`kept_file`]) while what decides it holds
/// ([`choice_key`]); a listing that then finds no pytest forgets it ([`forget`]).
pub(crate) fn for_pytest(cwd: &Path, root: &Path) -> OsString {
    if let Some(found) = project_env(cwd, root) {
        return found;
    }
    let key = choice_key(cwd);
    let kept = kept_file(cwd);
    if let Some(file) = &kept {
        if let Some(python) = read_kept(file, &key) {
            return python;
        }
    }
    let python3 = OsString::from("python3");
    let chosen = match has_pytest(&python3, cwd) {
        true => python3,
        false => pytest_on_path(cwd).unwrap_or(python3),
    };
    if let Some(file) = &kept {
        let doc = serde_json::json!({ "key": key, "python": chosen.to_string_lossy() });
        let tmp = file.with_extension(format!("{}.tmp", std::process::id()));
        if std::fs::write(&tmp, doc.to_string()).is_ok() && std::fs::rename(&tmp, file).is_err() {
            let _ = std::fs::remove_file(&tmp);
        }
    }
    chosen
}

/// Drops the kept choice of the folder `cwd` (its python had no pytest after all).
pub(crate) fn forget(cwd: &Path) {
    if let Some(file) = kept_file(cwd) {
        let _ = std::fs::remove_file(file);
    }
}

/// Where the choice for the folder `cwd` is kept: in the plugin's folder.
fn kept_file(cwd: &Path) -> Option<PathBuf> {
    use std::os::unix::ffi::OsStrExt;
    let dir = super::plugin_dir().ok()?;
    let hash = crate::util::fnv1a(cwd.as_os_str().as_bytes());
    Some(dir.join(format!("python-{hash:016x}.json")))
}

fn read_kept(file: &Path, key: &str) -> Option<OsString> {
    let doc: serde_json::Value = serde_json::from_slice(&std::fs::read(file).ok()?).ok()?;
    (doc["key"] == key).then(|| doc["python"].as_str().map(OsString::from))?
}

/// What decides the choice: the variables that pick a python (`PATH`, pyenv's, a virtual
/// environment's, conda's), the `python3` and `pytest` PATH finds (path, size, modification
/// time), and pyenv's version files (`.python-version` from `cwd` up, its global `version`).
fn choice_key(cwd: &Path) -> String {
    use std::fmt::Write;
    use std::os::unix::fs::MetadataExt;
    let mut text = String::new();
    let mut stamp = |path: &Path| {
        let meta = std::fs::metadata(path).ok();
        let (len, mtime) = meta.map_or((0, 0), |m| {
            (m.len(), m.mtime_nsec() + m.mtime() * 1_000_000_000)
        });
        let _ = write!(text, "{}\0{len}\0{mtime}\0", path.display());
    };
    for program in ["python3", "pytest"] {
        if let Some(found) = crate::util::which::find(OsStr::new(program), cwd) {
            stamp(&found);
        }
    }
    for dir in cwd.ancestors() {
        stamp(&dir.join(".python-version"));
    }
    let pyenv_root = std::env::var_os("PYENV_ROOT")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".pyenv")));
    if let Some(root) = pyenv_root {
        stamp(&root.join("version"));
    }
    for var in [
        "PATH",
        "PYENV_VERSION",
        "VIRTUAL_ENV",
        "CONDA_PREFIX",
        "UV_PROJECT_ENVIRONMENT",
    ] {
        let value = std::env::var_os(var).unwrap_or_default();
        let _ = write!(text, "{var}={}\0", value.to_string_lossy());
    }
    format!(
        "{:016x}:{}",
        crate::util::fnv1a(text.as_bytes()),
        text.len()
    )
}

/// The interpreter the `pytest` program on PATH runs under, by its `#!` line, when that
/// interpreter is there.
fn pytest_on_path(cwd: &Path) -> Option<OsString> {
    use std::io::Read;
    let program = crate::util::which::find(OsStr::new("pytest"), cwd)?;
    let mut head = [0u8; 256];
    let n = std::fs::File::open(program).ok()?.read(&mut head).ok()?;
    let text = String::from_utf8_lossy(&head[..n]);
    let line = text.lines().next()?.strip_prefix("#!")?;
    let mut words = line.split_whitespace();
    let mut interpreter = words.next()?;
    if interpreter.ends_with("/env") {
        interpreter = words.find(|w| !w.starts_with('-'))?;
    }
    let base = Path::new(interpreter).file_name()?.to_string_lossy();
    let found = base.starts_with("python")
        && crate::util::which::find(OsStr::new(interpreter), cwd).is_some();
    found.then(|| interpreter.into())
}

/// Whether `python` can import pytest (asked without importing it); `false` when it cannot
/// be run at all.
pub(crate) fn has_pytest(python: &OsStr, cwd: &Path) -> bool {
    if crate::util::which::find(python, cwd).is_none() {
        return false;
    }
    crate::util::quiet::succeeds(
        Command::new(python)
            .args([
                "-c",
                "import importlib.util, sys; sys.exit(importlib.util.find_spec('pytest') is None)",
            ])
            .current_dir(cwd),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_projects_venv_is_its_interpreter_and_the_cwds_comes_first() {
        let dir = tempfile::TempDir::new().expect("temp dir");
        let (root, sub) = (dir.path(), dir.path().join("sub"));
        std::fs::create_dir_all(root.join("venv/bin")).expect("mkdir");
        std::fs::write(root.join("venv/bin/python"), "").expect("write");
        assert_eq!(
            project_env(&sub, root),
            Some(root.join("venv/bin/python").into())
        );
        std::fs::create_dir_all(sub.join(".venv/bin")).expect("mkdir");
        std::fs::write(sub.join(".venv/bin/python"), "").expect("write");
        assert_eq!(
            project_env(&sub, root),
            Some(sub.join(".venv/bin/python").into())
        );
        let none = tempfile::TempDir::new().expect("temp dir");
        assert_eq!(python(none.path(), none.path()), OsString::from("python3"));
    }
}
