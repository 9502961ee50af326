//! Parts of a file report rendered as each file ends (a JUnit `<testsuite>`, an HTML section),
//! so that the end of a big run only joins them: which files have a finished part, and which
//! parts a later event made stale.
use crate::event::run::RunEvent;

/// By file index, the part rendered when the file ended. A `--runs N` series keeps none: its
/// reports show its last run, and rendering every run's files would be work thrown away.
pub(crate) struct Pieces<T> {
    run: u64,
    series: bool,
    done: Vec<Option<T>>,
}

impl<T> Default for Pieces<T> {
    fn default() -> Self {
        Pieces {
            run: 0,
            series: false,
            done: Vec::new(),
        }
    }
}

impl<T> Pieces<T> {
    /// Follows the run; returns the index of the file that has just ended, whose part is to
    /// be rendered now (from the record, which has seen `ev`) and given to [`Self::keep`].
    pub(crate) fn on(&mut self, ev: &RunEvent) -> Option<usize> {
        match ev {
            RunEvent::SeriesStarted { .. } => {
                self.series = true;
                self.done.clear();
            }
            RunEvent::SeriesFinished { .. } => self.series = false,
            _ if self.series => {}
            RunEvent::RunStarted { run, .. } => {
                self.run = *run;
                self.done.clear();
            }
            RunEvent::FileFinished { run, file, .. } if *run == self.run => {
                self.forget(*file);
                return Some(*file);
            }
            // Anything else about a file makes its part stale.
            RunEvent::FileStarted { run, file } | RunEvent::FileNotRun { run, file }
                if *run == self.run =>
            {
                self.forget(file.index);
            }
            RunEvent::Tap { run, file, .. }
            | RunEvent::Stderr { run, file, .. }
            | RunEvent::AttemptFailed { run, file, .. }
                if *run == self.run =>
            {
                self.forget(*file);
            }
            _ => {}
        }
        None
    }

    /// File `index`'s part, as rendered when it ended.
    pub(crate) fn keep(&mut self, index: usize, piece: T) {
        if self.done.len() <= index {
            self.done.resize_with(index + 1, || None);
        }
        self.done[index] = Some(piece);
    }

    /// File `index`'s part, if it was rendered and nothing about the file came after.
    pub(crate) fn take(&mut self, index: usize) -> Option<T> {
        self.done.get_mut(index).and_then(Option::take)
    }

    /// The files whose part is ready, in index order.
    #[cfg(test)]
    pub(crate) fn ready(&self) -> Vec<usize> {
        (0..self.done.len())
            .filter(|&i| self.done[i].is_some())
            .collect()
    }

    fn forget(&mut self, index: usize) {
        if let Some(slot) = self.done.get_mut(index) {
            *slot = None;
        }
    }
}
