//! A folder whose Makefile runs its shell `*.t` (`T = $(sort $(wildcard *.t))`, as sharness's
//! and git's `t/Makefile` do): its own `*.t` are the tests, one after another as make runs them;
//! everything beside them (the library, `aggregate-results.sh`, a Python helper named like a
//! test) is the suite's machinery. Likewise a folder whose scripts the Makefile above it names
//! by a wildcard (`TESTS = $(sort $(wildcard tests/t[0-9][0-9][0-9][0-9]-*.sh))`, as
//! password-store's does): those scripts are the tests, the library and setup beside them not.
use crate::harness::folder::Folder;
use crate::util::paths::normalize;
use std::path::{Path, PathBuf};

#[derive(Debug)]
pub(crate) struct MakeFolder {
    /// Absolute, normalized.
    pub(crate) dir: PathBuf,
    /// A run with no PATH: the Makefile's own `*.t`; a folder named is walked down.
    pub(crate) bare: bool,
}

impl Folder for MakeFolder {
    fn is_own(&self, rel: &str) -> bool {
        rel.ends_with(".t")
    }

    fn runs(&self, cwd: &Path, path: &Path) -> bool {
        !self.bare || normalize(&cwd.join(path)).parent() == Some(self.dir.as_path())
    }

    fn one_at_a_time(&self) -> Option<&'static str> {
        Some("the folder's Makefile runs its *.t one at a time")
    }

    fn helper(&self) -> &'static str {
        "a helper beside *.t tests (the folder's Makefile runs *.t only)"
    }

    fn unrun(&self) -> &'static str {
        "a *.t the folder's Makefile does not run (its own *.t only); name it or its folder to run it"
    }
}

/// A folder whose scripts a Makefile in the folder above names by `$(wildcard DIR/GLOB)`.
#[derive(Debug)]
pub(crate) struct NamedByMake {
    /// Absolute, normalized.
    pub(crate) dir: PathBuf,
    /// The wildcard's file part (`t[0-9][0-9][0-9][0-9]-*.sh`).
    pub(crate) names: globset::GlobMatcher,
    /// What the tests' names end with (`.sh`): a file so named that the wildcard leaves out is
    /// a helper of the suite.
    pub(crate) ext: String,
}

impl Folder for NamedByMake {
    fn is_own(&self, rel: &str) -> bool {
        rel.ends_with(&self.ext)
    }

    fn runs(&self, cwd: &Path, path: &Path) -> bool {
        let abs = normalize(&cwd.join(path));
        abs.parent() == Some(self.dir.as_path())
            && abs.file_name().is_some_and(|n| self.names.is_match(n))
    }

    fn one_at_a_time(&self) -> Option<&'static str> {
        Some("the Makefile runs its tests one at a time")
    }

    fn helper(&self) -> &'static str {
        "a helper beside the tests the Makefile names"
    }

    fn unrun(&self) -> &'static str {
        "a script the Makefile's wildcard of tests does not name (the suite's library or setup); name it to run it"
    }
}

/// The wildcard by which the Makefile in `dir`'s parent names `dir`'s test scripts (`$(wildcard
/// tests/t[0-9]*-*.sh)`), when one of the files it names is a script whose `#!` names a shell.
pub(crate) fn named_by_parent_make(dir: &Path) -> Option<NamedByMake> {
    let name = dir.file_name()?.to_str()?;
    let make = std::fs::read_to_string(dir.parent()?.join("Makefile")).ok()?;
    let prefix = format!("$(wildcard {name}/");
    make.match_indices(&prefix).find_map(|(at, _)| {
        let rest = &make[at + prefix.len()..];
        let glob = &rest[..rest.find([')', ' ', '\t', '\n'])?];
        let ext = glob.rfind('.').map(|k| &glob[k..])?;
        if ext.contains(['*', '?', '[', '/']) {
            return None;
        }
        let names = globset::Glob::new(glob).ok()?.compile_matcher();
        let scripts = std::fs::read_dir(dir).ok()?.flatten().any(|e| {
            let path = e.path();
            names.is_match(e.file_name()) && super::shell_of(&path).is_some()
        });
        scripts.then(|| NamedByMake {
            dir: dir.to_path_buf(),
            names,
            ext: ext.to_owned(),
        })
    })
}

/// Whether `dir` holds a Makefile that runs `*.t` (itself, or through prove) and a `*.t`
/// whose `#!` names a shell.
pub(crate) fn runs_its_dot_t(dir: &Path) -> bool {
    let Ok(make) = std::fs::read_to_string(dir.join("Makefile")) else {
        return false;
    };
    if !(make.contains("*.t") || make.contains("%.t")) {
        return false;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return false;
    };
    entries.flatten().any(|e| {
        let path = e.path();
        path.extension().is_some_and(|x| x == "t") && super::shell_of(&path).is_some()
    })
}
