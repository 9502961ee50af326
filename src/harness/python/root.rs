//! A pytest project with no test folder: its tests are where pytest finds them with no
//! argument, every `test_*.py` and `*_test.py` under the current folder, past the folders
//! pytest does not go into (`norecursedirs`' default: hidden ones, `*.egg`, `build`, `dist`,
//! `node_modules`, `venv`, `_darcs`, `CVS`, `{arch}`, and any folder holding a virtual
//! environment's `pyvenv.cfg`), and past what `.gitignore` ignores.
use ignore::WalkBuilder;
use std::path::{Path, PathBuf};

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

/// Why a pytest project's run found nothing (after "failed to find test files: ").
pub(crate) const NONE_FOUND: &str = "this pytest project has no test folder (`test/`, `tests/`, `t/`) and no test_*.py or *_test.py file pytest would collect";

/// Whether a file name is one pytest collects by default (`python_files`).
pub(crate) fn is_pytest_name(name: &str) -> bool {
    name.ends_with(".py")
        && (name.starts_with("test_") || name.ends_with("_test.py") && name != "_test.py")
}

/// The project's pytest files from `cwd` down, relative to it, in the walk's order.
pub(crate) fn files(cwd: &Path) -> Result<Vec<PathBuf>, ignore::Error> {
    let walker = WalkBuilder::new(cwd)
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
        let entry = entry?;
        let name = entry.file_name().to_string_lossy();
        if entry.file_type().is_some_and(|t| t.is_file()) && is_pytest_name(&name) {
            if let Ok(inside) = entry.path().strip_prefix(cwd) {
                files.push(inside.to_path_buf());
            }
        }
    }
    Ok(files)
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
