//! Which folders a walk passes over and which files it skips under CI, whatever their
//! harness: the parts of a test's naming no harness owns.
use std::ffi::OsStr;

/// Folders whose files are never tests in a walk: test fixtures (a shell test suite's
/// `test/fixtures/*` fail on purpose), build output, a JavaScript harness's saved snapshots
/// (`tap-snapshots/test/a.js.test.cjs`, named as tests but never run); installed packages are every
/// harness's dependency folders, which no walk enters. A folder named explicitly, a glob or a
/// file inside one named explicitly still runs.
pub(super) const NOT_TEST_FOLDERS: &[&str] = &[
    "fixture",
    "fixtures",
    "__fixtures__",
    "dist",
    "tap-snapshots",
];

/// Whether a walk passes over the folder `name` (hidden folders are passed over elsewhere).
pub(super) fn is_not_test_folder(name: &OsStr) -> bool {
    NOT_TEST_FOLDERS.iter().any(|n| name == *n)
}

/// Whether `name` is a `.nonci.` file, which the node room's TypeScript runner skips under CI.
pub(super) fn is_nonci(name: &str) -> bool {
    name.contains(".nonci.")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixture_folders() {
        for name in ["fixture", "fixtures", "__fixtures__", "dist"] {
            assert!(is_not_test_folder(OsStr::new(name)));
        }
        assert!(!is_not_test_folder(OsStr::new("test")));
        assert!(!is_not_test_folder(OsStr::new("fixtures-data")));
    }

    #[test]
    fn nonci_files() {
        assert!(is_nonci("test.nonci.ts") && !is_nonci("test.noncity.ts"));
    }
}
