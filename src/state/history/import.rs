//! History from a recorded run (`tapline history import RUN.jsonl`, `report merge --history`):
//! the records a live run would have appended, rebuilt from its events, so a CI job that merges
//! the shards of a sharded run can keep one `history.jsonl` that balances the next one.
use super::{Record, RunStamp};
use crate::event::run::{RunEvent, TestNames};
use crate::util::time::rfc3339;
use std::collections::BTreeMap;

/// Rebuilds the history records of the run whose events these are: one per attempt of each
/// file (a retried file's failed attempts too), stamped with the run's own start time and
/// `commit`. Files never run leave no record, as in a live run.
pub fn records(events: impl IntoIterator<Item = RunEvent>, commit: Option<String>) -> Vec<Record> {
    let mut stamp = None;
    let mut paths: BTreeMap<usize, String> = BTreeMap::new();
    let mut names: BTreeMap<usize, TestNames> = BTreeMap::new();
    let mut out = Vec::new();
    for ev in events {
        match ev {
            RunEvent::RunStarted {
                run, started_ms, ..
            } => {
                let ms = started_ms.unwrap_or(0);
                stamp = Some(RunStamp {
                    id: format!("{ms}-import-{run}"),
                    start: rfc3339(ms as i64),
                    commit: commit.clone(),
                });
            }
            RunEvent::FileStarted { file, .. } => {
                paths.insert(file.index, file.rel);
                names.insert(file.index, TestNames::default());
            }
            RunEvent::Tap { file, event, .. } => {
                if let Some(n) = names.get_mut(&file) {
                    n.event(&event);
                }
            }
            RunEvent::AttemptFailed {
                file,
                attempt,
                mut result,
                ..
            } => {
                // The next attempt starts with a fresh `FileStarted`, which resets the names.
                result.tests = names
                    .remove(&file)
                    .map(|mut n| n.take())
                    .unwrap_or_default();
                if let (Some(stamp), Some(path)) = (&stamp, paths.get(&file)) {
                    out.push(stamp.record(path, attempt, &result));
                }
            }
            RunEvent::FileFinished {
                file, mut result, ..
            } if !result.cached => {
                result.tests = names
                    .remove(&file)
                    .map(|mut n| n.take())
                    .unwrap_or_default();
                if let (Some(stamp), Some(path)) = (&stamp, paths.get(&file)) {
                    out.push(stamp.record(path, result.attempts.max(1), &result));
                }
            }
            _ => {}
        }
    }
    out
}
