//! What a followed harness runs once around a run's files (its `before`/`after` programs,
//! [`tapline::harness::api::Around`]): each started from the project's folder, its output
//! kept in the log folder (`around-before.log`, `around-after.log`), a failure the run's.
use std::path::Path;
use std::process::{Command, Stdio};
use tapline::harness::api::{Around, Script};

/// Runs every `before`, in order; the first that fails is the run's reason, and no file runs.
pub(crate) fn before(around: &[Around], cwd: &Path, logs: Option<&Path>) -> Result<(), String> {
    (around.iter().filter_map(|a| a.before.as_ref())).try_for_each(|s| run(s, "before", cwd, logs))
}

/// Runs every `after`, in order (each, even when one fails); what failed, if any.
pub(crate) fn after(around: &[Around], cwd: &Path, logs: Option<&Path>) -> Vec<String> {
    (around.iter().filter_map(|a| a.after.as_ref()))
        .filter_map(|s| run(s, "after", cwd, logs).err())
        .collect()
}

/// Runs `script` to its end, its output in `logs/around-{when}.log`; why it failed.
fn run(script: &Script, when: &str, cwd: &Path, logs: Option<&Path>) -> Result<(), String> {
    let (program, args) = script
        .argv
        .split_first()
        .ok_or_else(|| format!("failed to run {}: no command", script.what))?;
    let out = Command::new(program)
        .args(args)
        .current_dir(cwd)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("failed to run {}: {e}", script.what))?;
    let mut said = out.stdout;
    said.extend_from_slice(&out.stderr);
    let log = logs.map(|dir| dir.join(format!("around-{when}.log")));
    if let Some(log) = &log {
        // The log is a courtesy: a run does not fail for want of it.
        let _ = std::fs::write(log, &said);
    }
    if out.status.success() {
        return Ok(());
    }
    let text = String::from_utf8_lossy(&said);
    // The line that says `error:` (a hint may follow it, as a database client's does), else the last.
    let last = text
        .lines()
        .find(|l| l.contains("error:"))
        .or_else(|| text.lines().rev().find(|l| !l.trim().is_empty()))
        .unwrap_or("");
    let ended = match out.status.code() {
        Some(code) => format!("exit {code}"),
        None => "killed by a signal".to_owned(),
    };
    let seen = match &log {
        Some(log) => format!(" (output in {})", log.display()),
        None => String::new(),
    };
    Err(format!(
        "{} failed: {ended}: {}{seen}",
        script.what,
        last.trim()
    ))
}
