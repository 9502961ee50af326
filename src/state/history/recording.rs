//! A run's history records, gathered as a sink on its events: every attempt told as
//! `AttemptFailed`, and every file's last attempt (`FileFinished`) but a stopped or a cached
//! one. The dispatcher knows nothing of history; the records are appended after the run.
use super::{Record, Recorder, RunStamp};
use crate::event::run::RunEvent;
use crate::event::sink::RunSink;
use std::io;

/// The records of one run, appended to its store by [`Recording::save`].
pub struct Recording {
    recorder: Recorder,
    stamp: RunStamp,
    attempts: crate::state::Attempts,
    records: Vec<Record>,
}

impl Recording {
    /// Records run `run` into `recorder`'s store.
    pub fn new(recorder: Recorder, run: u64) -> Self {
        let stamp = RunStamp::new(&recorder.root, run);
        Recording {
            recorder,
            stamp,
            attempts: Default::default(),
            records: Vec::new(),
        }
    }

    /// The run's id, as its records give it.
    pub fn run_id(&self) -> &str {
        &self.stamp.id
    }

    /// The records so far (in the order their attempts ended).
    pub fn records(&self) -> &[Record] {
        &self.records
    }

    /// Appends the records to the store; the warning to show when it could not.
    pub fn save(self) -> Option<String> {
        let store = &self.recorder.store;
        store.append(&self.records).err().map(|e| {
            format!(
                "failed to record the run in {}: {e}",
                store.path().display()
            )
        })
    }
}

impl RunSink for Recording {
    fn on(&mut self, ev: &RunEvent) -> io::Result<()> {
        if let Some((rel, attempt, result)) = self.attempts.ended(ev) {
            self.records.push(self.stamp.record(rel, attempt, result));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::run::test_events::{finished, started};
    use crate::event::run::FileResult;
    use std::time::Duration;

    #[test]
    fn every_attempt_but_stopped_and_cached_ones_is_recorded() {
        let dir = tempfile::tempdir().expect("tempdir");
        let recorder = Recorder {
            store: super::super::Store::in_dir(dir.path()),
            root: dir.path().to_owned(),
        };
        let mut rec = Recording::new(recorder, 1);
        let failed = FileResult::failed(vec!["exited with code 1".into()], Duration::ZERO);
        let mut passed = failed.clone();
        (passed.ok, passed.attempts) = (true, 2);
        let mut stopped = failed.clone();
        stopped.cancelled = true;
        let mut cached = passed.clone();
        cached.cached = true;
        for ev in [
            started(0, "a.t"),
            RunEvent::AttemptFailed {
                run: 1,
                file: 0,
                attempt: 1,
                of: 2,
                result: Box::new(failed),
            },
            started(1, "b.t"),
            started(2, "c.t"),
            finished(1, stopped),
            finished(2, cached),
            started(0, "a.t"),
            finished(0, passed),
        ] {
            rec.on(&ev).expect("recorded");
        }
        let got: Vec<(&str, u32)> = rec
            .records()
            .iter()
            .map(|r| (r.path.as_str(), r.attempt))
            .collect();
        assert_eq!(got, [("a.t", 1), ("a.t", 2)]);
        assert_eq!(rec.save(), None);
    }
}
