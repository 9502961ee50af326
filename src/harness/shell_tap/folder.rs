//! A folder whose Makefile runs its shell `*.t` (`T = $(sort $(wildcard *.t))`, as sharness's
//! and git's `t/Makefile` do): its own `*.t` are the tests, one after another as make runs them;
//! everything beside them (the library, `aggregate-results.sh`, a Python helper named like a
//! test) is the suite's machinery.
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
