//! Warm workers kept ready between runs: watch mode starts one per key at each run's end, so
//! the next edit's file finds the interpreter up and its harness loaded (the driver's
//! preload) instead of paying both after the edit.
//!
//! A spare is a new process that loaded nothing but its harness and what the harness
//! requires, so an edited test or project module is loaded afresh by the file that reaches it,
//! as in a worker started after the edit. What it did load lives in the harness's dependency
//! folder and changes with an install: a change under such a folder, or to a file that shapes
//! every run
//! (`package.json`, a lockfile, `tapline.toml`, [`crate::run::trace::select::SHAPES_EVERY_RUN`]),
//! retires the spares, and the next run starts its workers anew.
use super::{Key, Worker};
use std::path::Path;
use std::sync::Mutex;

/// The spare workers, one per key at most.
#[derive(Default)]
pub(crate) struct Spares {
    ready: Mutex<Vec<Worker>>,
}

impl Spares {
    /// The spare of `key`, if one is ready.
    pub(super) fn take(&self, key: &Key) -> Option<Worker> {
        let mut ready = self.ready.lock().ok()?;
        let at = ready.iter().position(|w| w.key == *key)?;
        Some(ready.remove(at))
    }

    /// Whether a spare of `key` is ready.
    pub(super) fn holds(&self, key: &Key) -> bool {
        self.ready
            .lock()
            .is_ok_and(|ready| ready.iter().any(|w| w.key == *key))
    }

    /// Keeps `worker` ready for the next run.
    pub(super) fn keep(&self, worker: Worker) {
        match self.ready.lock() {
            Ok(mut ready) => ready.push(worker),
            Err(_) => {
                tokio::spawn(worker.retire());
            }
        }
    }

    /// A path changed: the spares go when it may be something they loaded.
    pub(crate) fn changed(&self, path: &Path) {
        if stales_spares(path) {
            self.retire_all();
        }
    }

    /// Ends every spare now (their retiring goes on in the background).
    pub(crate) fn retire_all(&self) {
        for worker in self.take_all() {
            tokio::spawn(worker.retire());
        }
    }

    /// Ends every spare and waits for them, at the session's end.
    pub(crate) async fn shutdown(&self) {
        for worker in self.take_all() {
            worker.retire().await;
        }
    }

    /// Every spare, taken out of the set (none when its lock was poisoned).
    fn take_all(&self) -> Vec<Worker> {
        self.ready
            .lock()
            .map(|mut ready| std::mem::take(&mut *ready))
            .unwrap_or_default()
    }
}

/// Whether a change to `path` may reach what a spare loaded (its harness, from a dependency
/// folder of a harness with a worker, [`crate::harness::registry::stales_workers`]).
pub(crate) fn stales_spares(path: &Path) -> bool {
    crate::harness::registry::stales_workers(path)
        || path
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|name| crate::run::trace::select::SHAPES_EVERY_RUN.contains(&name))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn issue26_an_installed_module_or_a_manifest_stales_the_spares() {
        assert!(stales_spares(Path::new("/p/package.json")));
        assert!(stales_spares(Path::new("/p/package-lock.json")));
        assert!(stales_spares(Path::new("/p/tapline.toml")));
    }

    #[test]
    fn issue26_a_test_or_project_module_leaves_the_spares_ready() {
        assert!(!stales_spares(Path::new("/p/test/util.test.js")));
        assert!(!stales_spares(Path::new("/p/lib/schemes.js")));
    }
}
