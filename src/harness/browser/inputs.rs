//! What each test file loaded, as a run learns it: for now a browser file's bundle inputs
//! ([`crate::harness::browser`]). Watch mode reads it after each run to re-run a file when one of
//! its inputs changes (`watch::Inputs`); a run outside watch mode records and drops.
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::sync::{Arc, Mutex};

/// Per test file (its path relative to the project root), the project files it loaded,
/// relative to the root. Cheap to clone: clones share one record.
#[derive(Debug, Clone, Default)]
pub struct LoadedInputs(Arc<Mutex<BTreeMap<String, BTreeSet<String>>>>);

impl LoadedInputs {
    /// Records what `rel` loaded this run (replacing an earlier record of the same run):
    /// the `inputs` under `root`, as paths relative to it; others are not the project's.
    pub(crate) fn record(&self, rel: &str, root: &Path, inputs: &[std::path::PathBuf]) {
        let loaded = inputs
            .iter()
            .filter_map(|p| p.strip_prefix(root).ok())
            .map(|p| p.to_string_lossy().into_owned())
            .collect();
        // A poisoned lock only means a panic elsewhere mid-insert: the map is still whole.
        let mut map = self.0.lock().unwrap_or_else(|e| e.into_inner());
        map.insert(rel.to_owned(), loaded);
    }

    /// What `rel` loaded this run, if it told.
    pub(crate) fn get(&self, rel: &str) -> Option<BTreeSet<String>> {
        let map = self.0.lock().unwrap_or_else(|e| e.into_inner());
        map.get(rel).cloned()
    }

    /// The records so far, leaving none.
    pub fn take(&self) -> BTreeMap<String, BTreeSet<String>> {
        std::mem::take(&mut *self.0.lock().unwrap_or_else(|e| e.into_inner()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_project_files_relative_to_the_root() {
        let loaded = LoadedInputs::default();
        let shared = loaded.clone();
        let root = Path::new("/p");
        shared.record(
            "test/a.browser.ts",
            root,
            &[
                "/p/test/a.browser.ts".into(),
                "/p/lib/b.ts".into(),
                "/elsewhere/c.js".into(),
            ],
        );
        let taken = loaded.take();
        assert_eq!(
            taken["test/a.browser.ts"],
            BTreeSet::from(["lib/b.ts".to_owned(), "test/a.browser.ts".to_owned()])
        );
        assert!(loaded.take().is_empty(), "taken once");
    }
}
