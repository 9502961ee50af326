//! What the terminal knows of one file: its progress, and its failures as explained.
use super::*;
use crate::explain::{Explained, Explanation};
use std::sync::Arc;

/// What one file's events have told so far.
pub(super) struct FileState {
    pub(super) info: FileInfo,
    pub(super) result: Option<FileResult>,
    /// The test it is on and its counts so far, for the live region.
    pub(super) progress: Progress,
    /// Its counts once finished.
    pub(super) tally: Tally,
    /// Its failing points explained in full, in order.
    pub(super) failures: Vec<Arc<Explained>>,
    /// Its output that no failure owns, told at its end.
    pub(super) rest: Option<Arc<Explained>>,
    /// Failing points past the ones explained in full: counted, not kept.
    pub(super) more_failures: usize,
}

impl FileState {
    pub(super) fn new(info: FileInfo) -> Self {
        FileState {
            info,
            result: None,
            progress: Progress::default(),
            tally: Tally::default(),
            failures: Vec::new(),
            rest: None,
            more_failures: 0,
        }
    }

    pub(super) fn running(&self) -> bool {
        self.result.is_none()
    }

    pub(super) fn tap(&mut self, ev: &Event<'static>) {
        self.progress.event(ev);
    }

    /// What the explaining stage says of this file.
    pub(super) fn explained(&mut self, explained: &Arc<Explained>) {
        match &**explained {
            // Its children say it.
            Explained::Failure(e) if e.by_children => {}
            Explained::Failure(e) if !e.full => self.more_failures += 1,
            Explained::Failure(_) => self.failures.push(Arc::clone(explained)),
            Explained::Rest { .. } => self.rest = Some(Arc::clone(explained)),
            Explained::Heading { .. } => {}
        }
    }

    pub(super) fn finish(&mut self, result: &FileResult) {
        self.tally = result.tally;
        self.result = Some(result.clone());
    }

    /// Once the file's block is printed only the recap needs it: names and locations, which
    /// the explanations keep; the leftover output goes.
    pub(super) fn release_output(&mut self) {
        self.rest = None;
    }

    pub(super) fn failures(&self) -> impl Iterator<Item = &Explanation> + '_ {
        self.failures.iter().filter_map(|e| match &**e {
            Explained::Failure(e) => Some(e),
            Explained::Rest { .. } | Explained::Heading { .. } => None,
        })
    }

    pub(super) fn has_failures(&self) -> bool {
        !self.failures.is_empty() || self.more_failures > 0
    }

    /// The output to show under the failing file: what it printed after its last point, or,
    /// with no failing point to explain it, all of its output (the crash is the best clue).
    pub(super) fn leftover(&self) -> &[String] {
        let Some(Explained::Rest {
            after_last_point,
            tail,
        }) = self.rest.as_deref()
        else {
            return &[];
        };
        match after_last_point.is_empty() && !self.has_failures() {
            true => tail,
            false => after_last_point,
        }
    }
}
