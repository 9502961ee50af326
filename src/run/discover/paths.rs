//! Programs: whether a program can run.
use std::ffi::OsStr;
use std::path::Path;
use std::{env, fs};

/// Whether `program` can be run: a path with '/' is checked (relative to `cwd`), a bare name
/// searched on PATH.
pub(crate) fn installed(program: &OsStr, cwd: &Path) -> bool {
    let runnable = |path: &Path| fs::metadata(path).is_ok_and(|meta| is_executable(&meta));
    if program.as_encoded_bytes().contains(&b'/') {
        return runnable(&cwd.join(program));
    }
    !program.is_empty()
        && env::var_os("PATH").is_some_and(|paths| {
            env::split_paths(&paths)
                .any(|dir| !dir.as_os_str().is_empty() && runnable(&dir.join(program)))
        })
}

#[cfg(unix)]
pub(super) fn is_executable(meta: &fs::Metadata) -> bool {
    use std::os::unix::fs::PermissionsExt;
    meta.is_file() && meta.permissions().mode() & 0o111 != 0
}

#[cfg(not(unix))]
pub(super) fn is_executable(_meta: &fs::Metadata) -> bool {
    false
}
