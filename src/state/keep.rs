//! What a run leaves for the next one, saved by one route after each run: `verdicts.json` in
//! the log folder (the next run's "newly failing" and "fixed", watch's failed files), the
//! history records ([`history::recording`]), each test's records ([`super::tests`]) and the
//! result cache's passes ([`cache`]).
//!
//! The dispatcher saves nothing: the runner's `execute` hands the run's events to a
//! [`Keeping`] beside the reports, and saves once the run is over, whether it was `tapline run`,
//! a run of a `--runs N` series or a watch session's run. What could not be saved is a warning,
//! never the run's failure.
use super::cache::Cache;
use super::history::{self, recording::Recording};
use super::logs::LogDir;
use super::tests::TestsSeen;
use crate::event::run::{FileResult, RunEvent};
use crate::event::sink::RunSink;
use std::collections::BTreeMap;
use std::io;
use std::sync::Mutex;

/// A run's result cache (`--cache`) and each planned file's key, by index.
pub struct CacheKeys {
    pub cache: Cache,
    pub keys: Vec<Option<String>>,
}

/// The saving of one run: its history records gathered as its events pass.
pub struct Keeping<'s> {
    recording: Option<Recording>,
    log_dir: Option<&'s LogDir>,
    cache: Option<&'s Mutex<CacheKeys>>,
    /// Each finished file's tests by ID, saved in the log folder (`tests/`).
    tests: Option<TestsSeen>,
}

impl<'s> Keeping<'s> {
    /// Saves run `run` into the log folder, history (`None` with `--no-history` and for a
    /// shard) and the cache, those that are on.
    pub fn new(
        run: u64,
        log_dir: Option<&'s LogDir>,
        history: Option<history::Recorder>,
        cache: Option<&'s Mutex<CacheKeys>>,
    ) -> Self {
        // Each test's record is history too: `--no-history` (and a shard) keeps none.
        let recording = history.map(|r| Recording::new(r, run));
        let tests = recording
            .as_ref()
            .filter(|_| log_dir.is_some())
            .map(|r| TestsSeen::new(r.run_id().to_owned()));
        Keeping {
            recording,
            log_dir,
            cache,
            tests,
        }
    }

    /// Whether it needs the run's events (history is on): a run without them is not slowed
    /// by one more sink per event.
    pub fn gathers(&self) -> bool {
        self.recording.is_some() || self.tests.is_some()
    }

    /// Saves the finished run: `verdicts` are this run's (path → passed), `rels` and `results`
    /// each planned file's path and result, by index. The warnings to show for what could not
    /// be saved.
    pub fn save(
        self,
        verdicts: &BTreeMap<String, bool>,
        rels: &[String],
        results: &[Option<FileResult>],
    ) -> Vec<String> {
        let mut warnings = Vec::new();
        if let Some(dir) = self.log_dir {
            // Later runs compare against this one; an interrupted or partial run still records
            // what it saw, over the verdicts of the files it did not finish.
            if let Err(e) = dir.write_verdicts(&dir.merged(verdicts)) {
                warnings.push(e.to_string());
            }
        }
        if let (Some(dir), Some(tests)) = (self.log_dir, self.tests) {
            warnings.extend(tests.save(dir.path()));
        }
        if let Some(e) = self.recording.and_then(Recording::save) {
            warnings.push(e);
        }
        if let Some(cache) = self.cache {
            // A poisoned lock is a panic elsewhere: the cache then stays as it was on disk.
            if let Ok(mut c) = cache.lock() {
                let CacheKeys { cache, keys } = &mut *c;
                cache.update_all(rels, keys, results);
                if let Err(e) = cache.save() {
                    warnings.push(format!("failed to save the result cache: {e}"));
                }
            }
        }
        warnings
    }
}

impl RunSink for Keeping<'_> {
    fn on(&mut self, ev: &RunEvent) -> io::Result<()> {
        if let Some(tests) = &mut self.tests {
            tests.on(ev)?;
        }
        match &mut self.recording {
            Some(r) => r.on(ev),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::run::FileInfo;

    fn result(ok: bool) -> FileResult {
        let reasons = if ok { vec![] } else { vec!["1 failed".into()] };
        let mut r = FileResult::failed(reasons, std::time::Duration::ZERO);
        (r.ok, r.no_tests, r.tally.pass) = (ok, false, 1);
        r
    }

    #[test]
    fn a_run_leaves_its_verdicts_history_and_cache_by_one_route() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let root = tmp.path().to_path_buf();
        let dir = LogDir::prepare(&root.join("logs")).expect("log dir");
        let store = history::Store::in_dir(&root.join("logs"));
        let recorder = history::Recorder {
            store: store.clone(),
            root: root.clone(),
        };
        let cache = Cache::open(&root.join("logs"), &root, &[]).expect("cache");
        let cache = Mutex::new(CacheKeys {
            cache,
            keys: vec![Some("k1".into()), Some("k2".into())],
        });
        let mut keeping = Keeping::new(1, Some(&dir), Some(recorder), Some(&cache));
        let rels = ["a.t".to_owned(), "b.t".to_owned()];
        let results = [Some(result(true)), Some(result(false))];
        for (index, (rel, r)) in rels.iter().zip(&results).enumerate() {
            let file = FileInfo {
                index,
                rel: rel.clone(),
                command: String::new(),
                log: None,
                attempt: 1,
                leaves: false,
            };
            keeping
                .on(&RunEvent::FileStarted { run: 1, file })
                .expect("on");
            let result = r.clone().expect("result");
            keeping
                .on(&RunEvent::FileFinished {
                    run: 1,
                    file: index,
                    result: Box::new(result),
                })
                .expect("on");
        }
        let verdicts = BTreeMap::from([("a.t".to_owned(), true), ("b.t".to_owned(), false)]);
        let warnings = keeping.save(&verdicts, &rels, &results);
        assert!(warnings.is_empty(), "{warnings:?}");
        let saved = std::fs::read_to_string(root.join("logs/verdicts.json")).expect("verdicts");
        assert!(saved.contains("\"a.t\": true") && saved.contains("\"b.t\": false"));
        assert_eq!(store.load().expect("history").records.len(), 2);
        let reopened = Cache::open(&root.join("logs"), &root, &[]).expect("cache");
        assert!(reopened.lookup("a.t", "k1").is_some());
        assert!(reopened.lookup("b.t", "k2").is_none());
    }
}
