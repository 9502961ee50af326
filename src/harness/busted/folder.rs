//! A folder under `.busted`'s `ROOT`, walked as busted walks it: its `*.lua` whose base name
//! matches busted's `pattern` (and no `exclude-pattern`) are the specs, whatever their names
//! (`tests/str.test.lua`); the other files are the specs' helpers.
use super::config::Selection;
use super::pattern;
use crate::harness::folder::Folder;
use crate::util::paths::normalize;
use std::path::{Path, PathBuf};

#[derive(Debug)]
pub(crate) struct BustedFolder {
    patterns: Vec<regex::Regex>,
    excludes: Vec<regex::Regex>,
    /// The `ROOT` folder it lies in, absolute, and whether busted goes into subfolders.
    root: PathBuf,
    recursive: bool,
}

/// The folder `dir` (as walked from the project folder `cwd`) when it lies in a `ROOT` folder.
pub(crate) fn of(cwd: &Path, dir: &Path, selection: &Selection) -> Option<BustedFolder> {
    let abs = normalize(&cwd.join(dir));
    let root = selection
        .roots
        .iter()
        .map(|r| normalize(&cwd.join(r)))
        .find(|r| r.is_dir() && abs.starts_with(r))?;
    Some(BustedFolder {
        patterns: pattern::compile_all(&selection.patterns),
        excludes: pattern::compile_all(&selection.excludes),
        root,
        recursive: selection.recursive,
    })
}

impl Folder for BustedFolder {
    fn is_own(&self, rel: &str) -> bool {
        let name = rel.rsplit('/').next().unwrap_or(rel);
        name.ends_with(".lua")
            && !self.excludes.iter().any(|p| p.is_match(name))
            && (self.patterns.is_empty() || self.patterns.iter().any(|p| p.is_match(name)))
    }

    fn runs(&self, cwd: &Path, path: &Path) -> bool {
        self.recursive || normalize(&cwd.join(path)).parent() == Some(self.root.as_path())
    }

    fn one_at_a_time(&self) -> Option<&'static str> {
        Some("busted runs files one at a time")
    }

    fn helper(&self) -> &'static str {
        "a helper beside busted's specs (not its pattern)"
    }

    fn unrun(&self) -> &'static str {
        "a spec busted does not run (.busted says not recursive); name it to run it"
    }
}
