//! Which changes matter: the event kinds that change something, and the paths watch mode
//! ignores. The same rules decide which folders get an inotify watch at all, so an ignored
//! tree (`target/`, a dependency folder, a `.gitignore`d build folder) costs no watches.
//!
//! A path is ignored when, relative to the project root, it
//! - has a component named like a VCS folder, `target`, or a folder a harness fills with
//!   dependencies or caches ([`crate::harness::registry::dependency_folders`]);
//! - is the log folder or inside it (tapline writes nothing anywhere else);
//! - is an editor's scratch file (`*.swp`, `*~`, `.#*`, vim's `4913`, …);
//! - matches a `--watch-ignore` glob: a glob with a `/` is matched against the path and each
//!   of its parent folders (`docs/**`, `build/cache`), one without against every name in it
//!   (`*.tmp`, `build`);
//! - is ignored by a `.gitignore` (the root's, nested ones, `.git/info/exclude`, the global
//!   excludes file), with git's precedence: the nearest file decides.
use crate::util::paths::normalize;
use globset::{GlobBuilder, GlobSet, GlobSetBuilder};
use ignore::gitignore::{Gitignore, GitignoreBuilder};
use notify::event::{CreateKind, EventKind, ModifyKind, RemoveKind};
use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};

/// Folder names never watched, at any depth: version control, build output, dependencies,
/// caches the test runs themselves write.
pub const IGNORED_NAMES: &[&str] = &[".git", ".hg", ".svn", ".jj", "target"];

/// Whether `name` is a folder a harness fills with dependencies or caches.
fn dependencies(name: &std::ffi::OsStr) -> bool {
    crate::harness::registry::dependency_folders().any(|folder| name == folder)
}

/// Editors' swap, backup and probe files: saving a file makes them, and they are never a
/// change worth a run.
pub const EDITOR_FILES: &[&str] = &[
    "*.swp",
    "*.swx",
    "*.swo",
    "*~",
    ".#*",
    "#*#",
    "4913",
    ".DS_Store",
    "*___jb_tmp___",
    "*___jb_old___",
    "*.pyc",
];

/// Whether an event of this kind can have changed a file's contents or existence. Reads,
/// closes and metadata-only changes (`touch`, `chmod`) cannot.
pub fn kind_matters(kind: &EventKind) -> bool {
    !matches!(
        kind,
        EventKind::Access(_) | EventKind::Other | EventKind::Modify(ModifyKind::Metadata(_))
    )
}

/// Whether the event says its path is a folder (inotify tells, for creations and removals).
pub fn kind_is_dir(kind: &EventKind) -> bool {
    matches!(
        kind,
        EventKind::Create(CreateKind::Folder) | EventKind::Remove(RemoveKind::Folder)
    )
}

#[derive(Debug, thiserror::Error)]
#[error("invalid --watch-ignore glob `{glob}`: {reason}")]
pub struct GlobError {
    pub glob: String,
    pub reason: String,
}

pub struct Filter {
    root: PathBuf,
    log_dir: Option<PathBuf>,
    editor: GlobSet,
    /// `--watch-ignore` globs with a `/`: matched against the path and its parents.
    anchored: GlobSet,
    /// `--watch-ignore` globs without: matched against each name.
    names: GlobSet,
    /// `.gitignore` matchers by the folder they sit in.
    gitignores: BTreeMap<PathBuf, Gitignore>,
    /// `core.excludesFile`: the lowest precedence.
    global: Gitignore,
}

impl Filter {
    /// `root` and `log_dir` must be absolute.
    pub fn new(
        root: &Path,
        log_dir: Option<&Path>,
        ignore_globs: &[String],
    ) -> Result<Filter, GlobError> {
        let mut anchored = GlobSetBuilder::new();
        let mut names = GlobSetBuilder::new();
        for raw in ignore_globs {
            let glob = raw.trim();
            let glob = glob.strip_prefix("./").unwrap_or(glob);
            let glob = glob.trim_end_matches('/');
            if glob.is_empty() {
                continue;
            }
            let (set, glob) = match glob.strip_prefix('/') {
                Some(rooted) => (&mut anchored, rooted),
                None if glob.contains('/') => (&mut anchored, glob),
                None => (&mut names, glob),
            };
            let built = GlobBuilder::new(glob)
                .literal_separator(true)
                .build()
                .map_err(|e| GlobError {
                    glob: raw.clone(),
                    reason: e.kind().to_string(),
                })?;
            set.add(built);
        }
        let mut editor = GlobSetBuilder::new();
        for glob in EDITOR_FILES {
            editor.add(
                GlobBuilder::new(glob)
                    .literal_separator(true)
                    .build()
                    .expect("built-in globs are valid"),
            );
        }
        let build =
            |set: GlobSetBuilder| set.build().expect("globs that built alone build as a set");
        let (global, _) = GitignoreBuilder::new(root).build_global();
        let mut filter = Filter {
            root: normalize(root),
            log_dir: log_dir.map(normalize),
            editor: build(editor),
            anchored: build(anchored),
            names: build(names),
            gitignores: BTreeMap::new(),
            global,
        };
        filter.load_gitignore(root);
        Ok(filter)
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Forgets every `.gitignore` (before a fresh walk loads them again).
    pub fn clear_gitignores(&mut self) {
        self.gitignores.clear();
        let root = self.root.clone();
        self.load_gitignore(&root);
    }

    /// Reads `dir/.gitignore` (and, at the root, `.git/info/exclude`) if present.
    pub fn load_gitignore(&mut self, dir: &Path) {
        let dir = normalize(dir);
        let mut builder = GitignoreBuilder::new(&dir);
        let mut any = false;
        let mut files = Vec::new();
        if dir == self.root {
            files.push(dir.join(".git/info/exclude"));
        }
        files.push(dir.join(".gitignore"));
        for file in files {
            // Later files win over earlier ones, as git's precedence wants.
            if file.is_file() {
                any = true;
                // A bad line is skipped; the rest of the file still counts.
                let _ = builder.add(&file);
            }
        }
        match builder.build() {
            Ok(gitignore) if any => {
                self.gitignores.insert(dir, gitignore);
            }
            _ => {
                self.gitignores.remove(&dir);
            }
        }
    }

    /// Whether `path` is a folder the log folder is in (below the root): tapline creates it.
    pub fn holds_log_dir(&self, path: &Path) -> bool {
        let path = normalize(path);
        path != self.root
            && path.starts_with(&self.root)
            && self
                .log_dir
                .as_ref()
                .is_some_and(|log| log.starts_with(&path))
    }

    /// Whether a change at `path` (absolute) is ignored. `is_dir` says whether it is a folder,
    /// which `.gitignore` lines ending in `/` need.
    pub fn ignored(&self, path: &Path, is_dir: bool) -> bool {
        let path = normalize(path);
        let Ok(rel) = path.strip_prefix(&self.root) else {
            return true;
        };
        if rel.as_os_str().is_empty() {
            return false;
        }
        if let Some(log_dir) = &self.log_dir {
            if path.starts_with(log_dir) {
                return true;
            }
        }
        let names: Vec<&std::ffi::OsStr> = rel
            .components()
            .filter_map(|c| match c {
                Component::Normal(name) => Some(name),
                _ => None,
            })
            .collect();
        if names
            .iter()
            .any(|name| IGNORED_NAMES.iter().any(|ignored| name == ignored) || dependencies(name))
        {
            return true;
        }
        if names.last().is_some_and(|name| self.editor.is_match(name)) {
            return true;
        }
        if names.iter().any(|name| self.names.is_match(name))
            || rel
                .ancestors()
                .any(|p| !p.as_os_str().is_empty() && self.anchored.is_match(p))
        {
            return true;
        }
        self.gitignored(&path, rel, is_dir)
    }

    fn gitignored(&self, path: &Path, rel: &Path, is_dir: bool) -> bool {
        // The nearest .gitignore that says anything decides.
        for dir in path.ancestors().skip(1) {
            if let Some(gitignore) = self.gitignores.get(dir) {
                let Ok(inside) = path.strip_prefix(dir) else {
                    continue;
                };
                let m = gitignore.matched_path_or_any_parents(inside, is_dir);
                if m.is_ignore() {
                    return true;
                }
                if m.is_whitelist() {
                    return false;
                }
            }
            if dir == self.root {
                break;
            }
        }
        self.global
            .matched_path_or_any_parents(rel, is_dir)
            .is_ignore()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;
    use tempfile::TempDir;

    fn project(gitignore: &str) -> TempDir {
        let tmp = TempDir::new().expect("temp dir");
        fs::write(tmp.path().join(".gitignore"), gitignore).expect("write");
        tmp
    }

    #[test]
    fn kinds_that_change_nothing() {
        use notify::event::{AccessKind, AccessMode, DataChange, MetadataKind, RenameMode};
        assert!(!kind_matters(&EventKind::Access(AccessKind::Close(
            AccessMode::Write
        ))));
        assert!(!kind_matters(&EventKind::Modify(ModifyKind::Metadata(
            MetadataKind::Any
        ))));
        assert!(!kind_matters(&EventKind::Other));
        assert!(kind_matters(&EventKind::Modify(ModifyKind::Data(
            DataChange::Any
        ))));
        assert!(kind_matters(&EventKind::Modify(ModifyKind::Name(
            RenameMode::Both
        ))));
        assert!(kind_matters(&EventKind::Create(CreateKind::File)));
        assert!(kind_matters(&EventKind::Remove(RemoveKind::Any)));
        assert!(kind_matters(&EventKind::Any));
    }

    #[test]
    fn fixed_rules() {
        let tmp = project("");
        let root = tmp.path();
        let f = Filter::new(root, Some(&root.join(".nogit/testlogs")), &[]).expect("filter");
        for path in [
            ".git/index",
            ".git",
            "target/debug/x",
            "t/__pycache__/x.pyc",
            ".nogit/testlogs",
            ".nogit/testlogs/previous/a.log",
            ".nogit/testlogs/verdicts.json",
            "test/.a.t.swp",
            "test/a.t~",
            "test/4913",
            "test/.#a.t",
        ] {
            assert!(f.ignored(&root.join(path), false), "{path}");
        }
        let folders: Vec<&str> = crate::harness::registry::dependency_folders().collect();
        assert!(folders.len() >= 2, "{folders:?}");
        for folder in folders {
            let path = format!("sub/{folder}/a/b.js");
            assert!(f.ignored(&root.join(&path), false), "{path}");
        }
        for path in [
            "test/a.t",
            ".nogit/other",
            "src/lib.rs",
            ".gitignore",
            "targets/x",
        ] {
            assert!(!f.ignored(&root.join(path), false), "{path}");
        }
        assert!(!f.ignored(root, true), "the root itself");
        assert!(f.holds_log_dir(&root.join(".nogit")));
        assert!(!f.holds_log_dir(&root.join(".nogit/testlogs/x")));
        assert!(!f.holds_log_dir(root));
        assert!(!f.holds_log_dir(&root.join("test")));
        assert!(
            f.ignored(Path::new("/elsewhere/x"), false),
            "outside the root"
        );
        assert!(
            f.ignored(&root.join("a/../.nogit/./testlogs/x.log"), false),
            "compared lexically normalized"
        );
        // Regression: `/..` was kept as a folder of its own, so this path was outside the root.
        let above_the_root = Path::new("/..").join(root.strip_prefix("/").expect("absolute"));
        assert!(!f.ignored(&above_the_root.join("test/a.t"), false));
    }

    #[test]
    fn watch_ignore_globs() {
        let tmp = project("");
        let root = tmp.path();
        let globs: Vec<String> = ["*.tmp", "docs/**", "build/", "/out", "  ", "a/*.gen"]
            .map(String::from)
            .to_vec();
        let f = Filter::new(root, None, &globs).expect("filter");
        for path in [
            "x.tmp",
            "deep/er/x.tmp",
            "docs/readme.md",
            "docs/a/b.md",
            "build",
            "build/x.o",
            "sub/build/x.o",
            "out/x",
            "a/x.gen",
        ] {
            assert!(f.ignored(&root.join(path), false), "{path}");
        }
        for path in [
            "x.tmpl",
            "sub/docs/x.md",
            "sub/out/x",
            "a/b/x.gen",
            "test/a.t",
        ] {
            assert!(!f.ignored(&root.join(path), false), "{path}");
        }
        let err = Filter::new(root, None, &["a[".into()])
            .err()
            .expect("bad glob");
        assert!(
            err.to_string()
                .starts_with("invalid --watch-ignore glob `a[`"),
            "{err}"
        );
    }

    #[test]
    fn gitignores_nearest_decides() {
        let tmp = project("*.out\nbuild/\n/rooted\n");
        let root = tmp.path();
        fs::create_dir_all(root.join("sub")).expect("mkdir");
        fs::write(root.join("sub/.gitignore"), "!keep.out\nlocal.txt\n").expect("write");
        fs::create_dir_all(root.join(".git/info")).expect("mkdir");
        fs::write(root.join(".git/info/exclude"), "excluded\n").expect("write");
        let mut f = Filter::new(root, None, &[]).expect("filter");
        f.load_gitignore(&root.join("sub"));
        for (path, dir) in [
            ("a.out", false),
            ("deep/a.out", false),
            ("build", true),
            ("build/x", false),
            ("x/build/y", false),
            ("rooted", false),
            ("sub/local.txt", false),
            ("sub/other.out", false),
            ("excluded", false),
        ] {
            assert!(f.ignored(&root.join(path), dir), "{path}");
        }
        for (path, dir) in [
            ("sub/keep.out", false),
            ("local.txt", false),
            ("x/rooted", false),
            ("build", false),
            ("src/a.rs", false),
        ] {
            assert!(!f.ignored(&root.join(path), dir), "{path}");
        }
        fs::write(root.join("sub/.gitignore"), "").expect("write");
        f.clear_gitignores();
        assert!(!f.ignored(&root.join("sub/local.txt"), false), "reloaded");
        assert!(f.ignored(&root.join("sub/keep.out"), false), "reloaded");
    }
}
