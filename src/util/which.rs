//! Finding a program as `execvp` finds it: a name with a `/` is a path, a bare name is looked
//! up on PATH, entry by entry, the first executable file winning.
//!
//! A relative PATH entry (`bin`, a package manager's folder of installed tools, and the empty
//! entry, which POSIX reads as the current folder) counts, relative to the folder the program
//! will run in: that is where `execvp` looks, in the child after its `chdir`. So a program
//! tapline calls missing is one the spawn could not start either, and an earlier relative
//! entry wins over a later absolute one as it does there. Skipping relative entries (two
//! former lookups did) called a program missing that would have run, or chose a later
//! absolute entry's; taking them from tapline's own folder (four did, one skipping the empty
//! entry) checked one file and, in a child started elsewhere, ran another.
//!
//! What is found is joined onto that folder: absolute when the folder is named absolutely, so
//! a child started in another folder still runs the file that was checked. The empty path
//! names this process's folder; what is found from it stays relative to it.
use std::ffi::OsStr;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

/// `program` as a spawn in `cwd` would find it with this process's PATH (see the module).
pub(crate) fn find(program: &OsStr, cwd: &Path) -> Option<PathBuf> {
    find_in(program, std::env::var_os("PATH").as_deref(), cwd)
}

/// `program` as a spawn in `cwd` would find it with `path` as PATH: with a `/`, that file
/// (relative to `cwd`); else the first executable `program` in `path`'s folders. `None` when
/// nothing executable is there, for an empty name, and for a bare name without PATH.
pub(crate) fn find_in(program: &OsStr, path: Option<&OsStr>, cwd: &Path) -> Option<PathBuf> {
    if program.is_empty() {
        return None;
    }
    if program.as_encoded_bytes().contains(&b'/') {
        let file = cwd.join(program);
        return is_executable(&file).then_some(file);
    }
    std::env::split_paths(path?)
        .map(|dir| in_folder(cwd, &dir).join(program))
        .find(|file| is_executable(file))
}

/// The folder a PATH entry names for a program run in `cwd`.
fn in_folder(cwd: &Path, entry: &Path) -> PathBuf {
    match (entry.as_os_str().is_empty(), cwd.as_os_str().is_empty()) {
        // An empty `cwd` is this process's folder: `./name`, never a bare name to search again.
        (true, true) => PathBuf::from("."),
        (true, false) => cwd.to_owned(),
        (false, _) => cwd.join(entry),
    }
}

/// Whether `path` is a file someone may execute (following links, as `exec` does).
pub(crate) fn is_executable(path: &Path) -> bool {
    fs::metadata(path).is_ok_and(|meta| is_executable_file(&meta))
}

/// Whether `meta` is a file's with an execute bit: a folder is never a program.
pub(crate) fn is_executable_file(meta: &fs::Metadata) -> bool {
    meta.is_file() && meta.permissions().mode() & 0o111 != 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::OsString;
    use tempfile::TempDir;

    /// A folder holding `files` (path, mode); the folders along the way are made too.
    fn folder(files: &[(&str, u32)]) -> TempDir {
        let dir = TempDir::new().expect("temp dir");
        for (path, mode) in files {
            let path = dir.path().join(path);
            fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
            fs::write(&path, "#!/bin/sh\n").expect("write");
            fs::set_permissions(&path, fs::Permissions::from_mode(*mode)).expect("chmod");
        }
        dir
    }

    fn path_of(dirs: &[&Path]) -> OsString {
        std::env::join_paths(dirs).expect("no ':' in a temporary folder")
    }

    #[test]
    fn the_first_executable_in_path_order_wins() {
        let dir = folder(&[("a/tool", 0o644), ("b/tool", 0o755), ("c/tool", 0o755)]);
        let d = dir.path();
        let path = path_of(&[&d.join("a"), &d.join("b"), &d.join("c")]);
        assert_eq!(
            find_in(OsStr::new("tool"), Some(&path), Path::new("/")),
            Some(d.join("b/tool")),
            "a/tool is not executable, c/tool comes later"
        );
        assert_eq!(
            find_in(OsStr::new("other"), Some(&path), Path::new("/")),
            None
        );
    }

    #[test]
    fn folders_and_missing_names_are_no_programs() {
        let dir = folder(&[("bin/tool/inner", 0o755)]);
        let path = path_of(&[&dir.path().join("bin")]);
        assert_eq!(find_in(OsStr::new("tool"), Some(&path), dir.path()), None);
        assert_eq!(find_in(OsStr::new(""), Some(&path), dir.path()), None);
        assert_eq!(find_in(OsStr::new("tool"), None, dir.path()), None);
        assert!(!is_executable(dir.path()));
    }

    #[test]
    fn a_name_with_a_slash_is_a_path_from_cwd_never_searched() {
        let dir = folder(&[("bin/tool", 0o755), ("bin/plain", 0o644)]);
        let d = dir.path();
        let path = path_of(&[&d.join("bin")]);
        assert_eq!(
            find_in(OsStr::new("bin/tool"), None, d),
            Some(d.join("bin/tool"))
        );
        assert_eq!(
            find_in(OsStr::new("./bin/tool"), None, d),
            Some(d.join("./bin/tool"))
        );
        assert_eq!(find_in(OsStr::new("bin/plain"), None, d), None);
        assert_eq!(find_in(OsStr::new("bin"), None, d), None);
        let elsewhere = TempDir::new().expect("temp dir");
        assert_eq!(
            find_in(OsStr::new("./tool"), Some(&path), elsewhere.path()),
            None,
            "`./tool` names the file in cwd alone, as exec reads it"
        );
        let absolute = d.join("bin/tool");
        assert_eq!(
            find_in(absolute.as_os_str(), None, elsewhere.path()),
            Some(absolute.clone())
        );
    }

    /// The chosen meaning: relative entries count, from the folder the program runs in, and
    /// keep their place in the order (three former lookups skipped them, so a later absolute
    /// entry won where `execvp` runs the earlier relative one).
    #[test]
    fn relative_entries_are_from_the_folder_the_program_runs_in() {
        let dir = folder(&[
            ("project/deps/.bin/tool", 0o755),
            ("project/tool", 0o755),
            ("usr/bin/tool", 0o755),
        ]);
        let (project, usr) = (dir.path().join("project"), dir.path().join("usr/bin"));
        let path = path_of(&[Path::new("deps/.bin"), &usr]);
        assert_eq!(
            find_in(OsStr::new("tool"), Some(&path), &project),
            Some(project.join("deps/.bin/tool")),
            "the earlier relative entry wins, joined onto the folder: absolute"
        );
        assert_eq!(
            find_in(OsStr::new("tool"), Some(&path), dir.path()),
            Some(usr.join("tool")),
            "from another folder the relative entry holds no tool"
        );
        for empty in [":", ":/nonexistent", "/nonexistent:", "/nonexistent::/x"] {
            assert_eq!(
                find_in(OsStr::new("tool"), Some(OsStr::new(empty)), &project),
                Some(project.join("tool")),
                "an empty entry in {empty:?} is the folder itself, as POSIX has it"
            );
        }
        assert_eq!(
            find_in(OsStr::new("tool"), Some(OsStr::new(":")), Path::new("")),
            None,
            "this process's folder holds no tool"
        );
    }

    #[test]
    fn an_empty_entry_with_an_unnamed_cwd_is_dot_never_a_bare_name() {
        assert_eq!(in_folder(Path::new(""), Path::new("")), Path::new("."));
        assert_eq!(in_folder(Path::new(""), Path::new("bin")), Path::new("bin"));
        assert_eq!(in_folder(Path::new("/p"), Path::new("")), Path::new("/p"));
        assert_eq!(in_folder(Path::new("/p"), Path::new("/b")), Path::new("/b"));
    }

    #[test]
    fn the_process_path_finds_a_shell() {
        assert!(
            find(OsStr::new("sh"), Path::new("/")).is_some_and(|sh| sh.is_absolute()),
            "every PATH a test runs with holds sh"
        );
        assert_eq!(
            find(OsStr::new("tapline-no-such-program"), Path::new("/")),
            None
        );
    }
}
