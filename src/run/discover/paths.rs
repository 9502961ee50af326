//! Paths and programs: whether a program can run, and paths normalized and made relative
//! without touching the file system.
use std::borrow::Cow;
use std::ffi::OsStr;
use std::path::{Component, Path, PathBuf};
use std::{env, fs, iter};

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

/// `path` with `.` and `..` resolved without touching the file system.
pub(super) fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            component => out.push(component),
        }
    }
    out
}

/// `abs` relative to `root` (both normalized), with '/' separators.
pub(super) fn relative(abs: &Path, root: &Path) -> String {
    let common = abs
        .components()
        .zip(root.components())
        .take_while(|(a, b)| a == b)
        .count();
    let ups = root.components().count() - common;
    let rest = abs
        .components()
        .skip(common)
        .map(|part| part.as_os_str().to_string_lossy());
    iter::repeat_n(Cow::Borrowed(".."), ups)
        .chain(rest)
        .collect::<Vec<_>>()
        .join("/")
}
