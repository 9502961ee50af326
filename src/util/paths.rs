//! Paths worked on by name alone, never asking the file system: `.` and `..` resolved, and one
//! path named from another.
//!
//! A `..` with nothing left to take back is kept on a relative path (`../../a` still names
//! what it named once joined onto its folder) and clamped at the root of an absolute one
//! (`/..` is `/`, as the kernel resolves it). Dropping it, as three former copies did, turns
//! `../lib.js` into `lib.js`, another file; the two that kept it took back a kept `..` with
//! the next one (`../../a` became `a`) and made `/..` out of `/`.
//!
//! By name means `a/link/..` is `a` even where `link` points elsewhere: callers compare the
//! names tools wrote, and paths that need not exist.
use std::borrow::Cow;
use std::iter;
use std::os::unix::ffi::OsStringExt;
use std::path::{Component, Path, PathBuf};

/// `path` with `.` and `..` resolved by name (see the module for a leading `..`); `.` alone,
/// and `a/..`, become the empty path.
pub(crate) fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => match out.components().next_back() {
                Some(Component::Normal(_)) => {
                    out.pop();
                }
                Some(Component::RootDir | Component::Prefix(_)) => {}
                Some(Component::ParentDir | Component::CurDir) | None => out.push(".."),
            },
            component => out.push(component),
        }
    }
    out
}

/// `abs` relative to `root` (both normalized), with '/' separators: `..` for each folder of
/// `root` that `abs` is not under.
pub(crate) fn relative(abs: &Path, root: &Path) -> String {
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

/// The path of a `file://` URL, percent-decoded.
pub(crate) fn from_file_url(url: &str) -> Option<PathBuf> {
    let rest = url.strip_prefix("file://")?;
    let bytes = rest.as_bytes();
    let mut decoded = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        match (
            bytes[i],
            bytes.get(i + 1).copied(),
            bytes.get(i + 2).copied(),
        ) {
            (b'%', Some(a), Some(b)) if hex(a).is_some() && hex(b).is_some() => {
                decoded.push((hex(a)? * 16 + hex(b)?) as u8);
                i += 3;
            }
            (b, _, _) => {
                decoded.push(b);
                i += 1;
            }
        }
    }
    Some(PathBuf::from(std::ffi::OsString::from_vec(decoded)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_urls_are_paths_percent_decoded() {
        assert_eq!(
            from_file_url("file:///p/a%20b.js"),
            Some(PathBuf::from("/p/a b.js"))
        );
        assert_eq!(
            from_file_url("file:///p/100%"),
            Some(PathBuf::from("/p/100%"))
        );
        assert_eq!(from_file_url("node:fs"), None);
    }

    fn norm(path: &str) -> String {
        normalize(Path::new(path)).to_string_lossy().into_owned()
    }

    #[test]
    fn dots_resolve_by_name() {
        assert_eq!(norm("/a/./b/../c"), "/a/c");
        assert_eq!(norm("/a/b/c/../../d/"), "/a/d");
        assert_eq!(norm("a/./b/.."), "a");
        assert_eq!(norm("./a"), "a");
        assert_eq!(norm("."), "");
        assert_eq!(norm("a/.."), "");
        assert_eq!(norm(""), "");
        assert_eq!(norm("//a//b/"), "/a/b");
    }

    /// The chosen meaning of a `..` with nothing to take back: clamped at the root.
    #[test]
    fn a_parent_of_the_root_is_the_root() {
        assert_eq!(norm("/.."), "/");
        assert_eq!(norm("/../../a"), "/a");
        assert_eq!(norm("/a/../../b"), "/b");
    }

    /// The chosen meaning on a relative path: kept, each one (three former copies dropped them;
    /// two others took a kept one back with the next, so `../../a` came out as `a`).
    #[test]
    fn a_leading_parent_of_a_relative_path_is_kept() {
        assert_eq!(norm(".."), "..");
        assert_eq!(norm("../a"), "../a");
        assert_eq!(norm("../../a"), "../../a");
        assert_eq!(norm("a/../../b"), "../b");
        assert_eq!(norm("./../x/../../y"), "../../y");
        assert_eq!(
            Path::new("/p/q").join(normalize(Path::new("a/../../b"))),
            Path::new("/p/q/../b"),
            "joined onto its folder it names what the unresolved path named"
        );
    }

    #[test]
    fn relative_names_one_path_from_another() {
        let rel = |abs: &str, root: &str| relative(Path::new(abs), Path::new(root));
        assert_eq!(rel("/p/t/a.t", "/p"), "t/a.t");
        assert_eq!(rel("/p", "/p"), "");
        assert_eq!(rel("/p/x", "/p/t/u"), "../../x");
        assert_eq!(rel("/q/x", "/p"), "../q/x");
    }
}
