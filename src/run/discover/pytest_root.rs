//! A pytest project with no test folder: its tests are where pytest finds them with no
//! argument, every `test_*.py` and `*_test.py` under the current folder, past the folders
//! pytest does not go into (`norecursedirs`' default: hidden ones, `*.egg`, `build`, `dist`,
//! `node_modules`, `venv`, `_darcs`, `CVS`, `{arch}`, and any folder holding a virtual
//! environment's `pyvenv.cfg`), and past what `.gitignore` ignores.
use super::{DiscoverError, Finder, Origin};
use ignore::WalkBuilder;
use std::path::PathBuf;

/// The folders pytest's default `norecursedirs` names.
const NORECURSE: &[&str] = &[
    "build",
    "dist",
    "node_modules",
    "venv",
    "_darcs",
    "CVS",
    "{arch}",
];

/// Whether a file name is one pytest collects by default (`python_files`).
pub(super) fn is_pytest_name(name: &str) -> bool {
    name.ends_with(".py")
        && (name.starts_with("test_") || name.ends_with("_test.py") && name != "_test.py")
}

impl Finder<'_> {
    /// Adds the project's pytest files from the cwd down; none is an error naming the rule.
    pub(super) fn add_pytest_root(&mut self) -> Result<(), DiscoverError> {
        let walker = WalkBuilder::new(self.cwd)
            .require_git(false)
            .filter_entry(|entry| {
                let is_dir = entry.file_type().is_some_and(|t| t.is_dir());
                let name = entry.file_name().to_string_lossy();
                entry.depth() == 0
                    || !is_dir
                    || !(NORECURSE.contains(&name.as_ref())
                        || name.ends_with(".egg")
                        || entry.path().join("pyvenv.cfg").is_file())
            })
            .build();
        let mut files = Vec::new();
        for entry in walker {
            let entry = entry.map_err(|source| DiscoverError::Walk {
                path: PathBuf::from("."),
                source,
            })?;
            let name = entry.file_name().to_string_lossy();
            if entry.file_type().is_some_and(|t| t.is_file()) && is_pytest_name(&name) {
                if let Ok(inside) = entry.path().strip_prefix(self.cwd) {
                    files.push(inside.to_path_buf());
                }
            }
        }
        for path in files {
            self.add(path, Origin::Named);
        }
        if self.found.is_empty() {
            return Err(DiscoverError::NoPytestFiles);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::is_pytest_name;

    #[test]
    fn pytests_default_file_names() {
        assert!(is_pytest_name("test_a.py"));
        assert!(is_pytest_name("a_test.py"));
        assert!(!is_pytest_name("testing.py"));
        assert!(!is_pytest_name("_test.py"));
        assert!(!is_pytest_name("test_a.pyc"));
        assert!(!is_pytest_name("conftest.py"));
    }
}
