//! Which attempt of which file a run's event ends: what the stores keeping every attempt
//! (the history records, the per-test records) follow, by one rule.
use crate::event::run::{FileResult, RunEvent};
use std::collections::HashMap;

/// Each started file's path, by its index, to name the attempts that end.
#[derive(Default)]
pub(crate) struct Attempts {
    rels: HashMap<usize, String>,
}

impl Attempts {
    /// The attempt `ev` ends, if any: its file's path, its number and its result. Every
    /// attempt told as `AttemptFailed`, and each file's last (`FileFinished`), but not a
    /// stopped file's (it was not let finish) nor a cached one's (it did not run).
    pub(crate) fn ended<'e>(
        &'e mut self,
        ev: &'e RunEvent,
    ) -> Option<(&'e str, u32, &'e FileResult)> {
        let (file, attempt, result) = match ev {
            RunEvent::FileStarted { file, .. } => {
                self.rels.insert(file.index, file.rel.clone());
                return None;
            }
            RunEvent::AttemptFailed {
                file,
                attempt,
                result,
                ..
            } => (file, *attempt, result),
            RunEvent::FileFinished { file, result, .. } if !result.cancelled && !result.cached => {
                (file, result.attempts, result)
            }
            _ => return None,
        };
        let rel = self.rels.get(file)?;
        Some((rel, attempt, result))
    }
}
