//! Packages from npm's registry that a test runs against (tape, tapbundle), installed once
//! into `target/npm-fixtures/<name>` and reused by later runs.
use std::fs;
use std::path::PathBuf;
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
