//! tapline's own hook files (trace hooks, coverage hooks, harness plugins and loaders), written
//! once per version into a folder of this user's that nobody else may write.
use std::path::{Path, PathBuf};

/// The hooks' folder: `<temp>/tapline-trace-<uid>/` (each version's in a folder of its own
/// there), the same for every run, so that a
/// command that names it (a taint-mode perl's `-I`) reads the same from run to run (the result
/// cache keys on it). Only a folder of this user's, which nobody else may write, is used: the
/// hooks run inside every test.
pub(crate) fn hooks_dir() -> std::io::Result<PathBuf> {
    use std::os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt};
    let uid = rustix::process::getuid().as_raw();
    let dir = std::env::temp_dir().join(format!("tapline-trace-{uid}"));
    match std::fs::DirBuilder::new().mode(0o700).create(&dir) {
        Err(e) if e.kind() != std::io::ErrorKind::AlreadyExists => return Err(e),
        _ => {}
    }
    let meta = std::fs::symlink_metadata(&dir)?;
    if !meta.is_dir() || meta.uid() != uid || meta.permissions().mode() & 0o022 != 0 {
        return Err(std::io::Error::other(format!(
            "{} is not a folder of this user's that only it may write",
            dir.display()
        )));
    }
    Ok(dir)
}

/// FNV-1a over each hook's name and text, each ended by a zero byte.
pub(crate) fn version_of<'h>(hooks: impl Iterator<Item = (&'h str, &'h str)>) -> u64 {
    let mut bytes = Vec::new();
    for (name, text) in hooks {
        bytes.extend_from_slice(name.as_bytes());
        bytes.push(0);
        bytes.extend_from_slice(text.as_bytes());
        bytes.push(0);
    }
    crate::util::fnv1a(&bytes)
}

/// `hooks` written into a folder of their own in the hooks' folder, `<kind>-<hash of their
/// texts>`: as the trace hooks' own, so that a tapline of another version running at the same
/// time (another checkout, a watch left open across an upgrade) never swaps a hook under a
/// test of this one. Returns that folder.
pub(crate) fn versioned_hooks(kind: &str, hooks: &[(&str, &str)]) -> std::io::Result<PathBuf> {
    use std::os::unix::fs::DirBuilderExt;
    let version = version_of(hooks.iter().copied());
    let dir = hooks_dir()?.join(format!("{kind}-{version:016x}"));
    match std::fs::DirBuilder::new().mode(0o700).create(&dir) {
        Err(e) if e.kind() != std::io::ErrorKind::AlreadyExists => return Err(e),
        _ => {}
    }
    for (name, text) in hooks {
        write_hook(&dir, name, text)?;
    }
    Ok(dir)
}

/// Writes `text` to `dir/name` unless it holds it already, by a rename: a test of another
/// run reading it meanwhile sees the old or the new file, never half of one.
pub(crate) fn write_hook(dir: &Path, name: &str, text: &str) -> std::io::Result<()> {
    let path = dir.join(name);
    if std::fs::read(&path).is_ok_and(|held| held == text.as_bytes()) {
        return Ok(());
    }
    let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    std::fs::write(&tmp, text)?;
    std::fs::rename(&tmp, &path)
}
