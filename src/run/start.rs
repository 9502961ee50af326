//! Where a bare `tapline run` started in a subfolder runs from: the project around it, found
//! as its harness finds its root from anywhere below (docs/discovery.md, "From a subfolder").
use super::config;
use crate::harness::registry;
use crate::util::paths::relative;
use std::path::{Path, PathBuf};

/// A bare run in `cwd` moved to its project's folder: run there, on `subfolder` (`cwd` from
/// it), as `tapline run <subfolder>` at that folder would.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Moved {
    pub dir: PathBuf,
    pub subfolder: String,
}

/// Where a bare run in `cwd` runs from, when not `cwd` itself: the nearest ancestor that marks
/// a project (a harness's project file or `tapline.toml`, whichever is nearest), never past a
/// repository's top. `None` when `cwd` marks a project or a repository's top itself, or none
/// does up to the top: a folder of tests in a repository with no project file then runs from
/// where it is, as a shell test library's `cd t && make` runs its tests (its names and logs
/// are still the repository's, [`config::find_project_root`]).
pub fn moved(cwd: &Path) -> Option<Moved> {
    if marks_project(cwd) || repository_top(cwd) {
        return None;
    }
    for dir in cwd.ancestors().skip(1) {
        if marks_project(dir) {
            return Some(Moved {
                dir: dir.to_path_buf(),
                subfolder: relative(cwd, dir),
            });
        }
        if repository_top(dir) {
            return None;
        }
    }
    None
}

/// Whether `dir` is a project's root: the harnesses' project files
/// ([`registry::project_markers`]) or tapline's own.
fn marks_project(dir: &Path) -> bool {
    dir.join(config::FILE_NAME).exists()
        || registry::project_markers().any(|name| dir.join(name).is_file())
}

/// Whether `dir` is a repository's top, past which no project is looked for.
fn repository_top(dir: &Path) -> bool {
    dir.join(".git").exists()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    #[test]
    fn a_subfolder_runs_from_the_nearest_project_file() {
        let dir = tempfile::tempdir().expect("tempdir");
        let sub = dir.path().join("dist/t/deep");
        fs::create_dir_all(&sub).expect("mkdir");
        fs::write(dir.path().join("dist/Makefile.PL"), "").expect("write");
        let found = moved(&sub).expect("moves");
        assert_eq!(found.dir, dir.path().join("dist"));
        assert_eq!(found.subfolder, "t/deep");
    }

    #[test]
    fn a_project_folder_stays() {
        let dir = tempfile::tempdir().expect("tempdir");
        fs::write(dir.path().join("pyproject.toml"), "").expect("write");
        assert_eq!(moved(dir.path()), None);
    }

    #[test]
    fn the_nearest_mark_wins_and_the_search_stops_at_a_repository_top() {
        let dir = tempfile::tempdir().expect("tempdir");
        let sub = dir.path().join("a/b/c");
        fs::create_dir_all(&sub).expect("mkdir");
        fs::write(dir.path().join("package.json"), "{}").expect("write");
        fs::create_dir(dir.path().join("a/.git")).expect("mkdir");
        assert_eq!(moved(&sub), None);
        fs::write(dir.path().join("a/b/tapline.toml"), "").expect("write");
        assert_eq!(moved(&sub).map(|m| m.dir), Some(dir.path().join("a/b")));
        fs::write(dir.path().join("a/b/c/tapline.toml"), "").expect("write");
        assert_eq!(moved(&sub), None);
    }
}
