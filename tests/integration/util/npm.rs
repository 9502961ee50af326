//! Packages from npm's registry that a test runs against, installed once and reused by later
//! runs: a pinned package into `target/npm-fixtures/<name>` ([`fixture`], [`installed`]), or a
//! suite of `test-data/suites/` into its own git-ignored `node_modules` ([`suite`]), copied
//! into a project of a test's own ([`copy_of`]).
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Mutex, PoisonError};

/// `node_modules` under `target/npm-fixtures/<name>` holding `spec` (`tape@5.10.2`), whose
/// `marker` file (relative to `node_modules`) tells the install is there; `package_json` is
/// the folder's manifest. `Err` says why it could not be installed.
pub(crate) fn fixture(
    name: &str,
    package_json: &str,
    spec: &str,
    marker: &str,
) -> Result<PathBuf, String> {
    // Tests run at once: one installs while the others wait (two npm installs into one folder
    // trip over each other, and a half-installed package looks whole).
    static INSTALL: Mutex<()> = Mutex::new(());
    let _one = INSTALL.lock().unwrap_or_else(PoisonError::into_inner);
    let dir = super::repo().join("target/npm-fixtures").join(name);
    let modules = dir.join("node_modules");
    if modules.join(marker).is_file() {
        return Ok(modules);
    }
    fs::create_dir_all(&dir).map_err(|e| format!("failed to create {}: {e}", dir.display()))?;
    fs::write(dir.join("package.json"), package_json).map_err(|e| e.to_string())?;
    let out = Command::new("npm")
        .args(["install", "--no-audit", "--no-fund", "--ignore-scripts"])
        .args(["--prefix".as_ref(), dir.as_os_str()])
        .arg(spec)
        .output()
        .map_err(|e| format!("npm did not start: {e}"))?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        return Err(format!("npm install failed: {}", err.trim()));
    }
    Ok(modules)
}

/// [`fixture`] for a test: `None` when node or npm is missing or the install failed (the test
/// then skips with a note, or fails under CI, saying so).
pub(crate) fn installed(
    test: &str,
    name: &str,
    package_json: &str,
    spec: &str,
    marker: &str,
) -> Option<PathBuf> {
    if !super::require(test, &["node", "npm"]) {
        return None;
    }
    match fixture(name, package_json, spec, marker) {
        Ok(modules) => Some(modules),
        Err(why) => {
            let what = format!(
                "{spec} could not be installed ({why}); CI installs it from npm's registry"
            );
            super::unmet(test, &what);
            None
        }
    }
}

/// `test-data/suites/<suite>` with its own `node_modules` installed there once (`npm install`
/// by the suite's package.json, which pins its harness; `markers`, relative to
/// `node_modules`, tell the install is there). `None` as for [`installed`].
pub(crate) fn suite(test: &str, suite: &str, markers: &[&str]) -> Option<PathBuf> {
    if !super::require(test, &["node", "npm"]) {
        return None;
    }
    static INSTALL: Mutex<()> = Mutex::new(());
    let _one = INSTALL.lock().unwrap_or_else(PoisonError::into_inner);
    let dir = super::repo().join("test-data/suites").join(suite);
    let modules = dir.join("node_modules");
    if markers.iter().all(|m| modules.join(m).is_file()) {
        return Some(dir);
    }
    let out = Command::new("npm")
        .args(["install", "--no-audit", "--no-fund"])
        .current_dir(&dir)
        .output();
    let why = match out {
        Ok(out) if out.status.success() => return Some(dir),
        Ok(out) => format!(
            "npm install failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ),
        Err(e) => format!("npm did not start: {e}"),
    };
    let what = format!(
        "{suite}'s packages could not be installed ({why}); CI installs them from npm's registry"
    );
    super::unmet(test, &what);
    None
}

/// A project of its own holding the files of the suite at `dir` (not its `node_modules`,
/// lock file or `.nogit`), with `modules` linked as its `node_modules`.
pub(crate) fn copy_of(dir: &Path, modules: Option<&Path>) -> super::Project {
    let p = super::Project::new();
    copy_sources(dir, p.path());
    if let Some(modules) = modules {
        std::os::unix::fs::symlink(modules, p.join("node_modules")).expect("link node_modules");
    }
    p
}

fn copy_sources(from: &Path, to: &Path) {
    fs::create_dir_all(to).expect("mkdir");
    for entry in fs::read_dir(from).expect("read the suite").flatten() {
        let name = entry.file_name();
        if ["node_modules", "package-lock.json", ".nogit"]
            .iter()
            .any(|n| name == *n)
        {
            continue;
        }
        let target = to.join(&name);
        if entry.file_type().expect("file type").is_dir() {
            copy_sources(&entry.path(), &target);
        } else {
            fs::copy(entry.path(), &target).expect("copy");
        }
    }
}
