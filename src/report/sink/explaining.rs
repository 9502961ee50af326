//! The stage in front of a run's sinks that explains each failing point once: it follows
//! every file's events with a [`FileExplainer`] and puts an [`RunEvent::Explained`] event into
//! the stream as each explanation is complete (right after the event that completed it), and
//! the file's unowned output just before its `FileFinished` or `AttemptFailed`. The sinks
//! behind it render those events and never work a failure out themselves.
use std::io;
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use super::RunSink;
use crate::event::run::RunEvent;
use crate::explain::{Explained, FileExplainer};

/// Explains the run for `inner`.
pub struct Explaining<S> {
    inner: S,
    run: u64,
    /// The run's working directory: the project root locations are made relative to.
    root: Option<Arc<Path>>,
    /// By file index, the explainer of each file that is running.
    files: Vec<Option<FileExplainer>>,
}

impl<S: RunSink> Explaining<S> {
    pub fn new(inner: S) -> Self {
        Explaining {
            inner,
            run: 0,
            root: None,
            files: Vec::new(),
        }
    }

    /// The sinks behind it.
    pub fn inner(&self) -> &S {
        &self.inner
    }

    /// The sinks behind it.
    pub fn inner_mut(&mut self) -> &mut S {
        &mut self.inner
    }

    pub fn into_inner(self) -> S {
        self.inner
    }

    fn file(&mut self, run: u64, index: usize) -> Option<&mut FileExplainer> {
        if run != self.run {
            return None;
        }
        self.files.get_mut(index)?.as_mut()
    }

    /// Follows `ev` and returns what it completed, to go out before it. `None` when the
    /// event itself is not to go on (an explanation from upstream: it is made again here).
    fn before(&mut self, ev: &RunEvent) -> Option<Vec<Explained>> {
        let mut out = Vec::new();
        match ev {
            RunEvent::RunStarted { run, cwd, .. } => {
                self.run = *run;
                self.root = cwd.as_deref().map(|c| Arc::from(Path::new(c)));
                self.files.clear();
            }
            RunEvent::FileStarted { run, file } if *run == self.run => {
                if self.files.len() <= file.index {
                    self.files.resize_with(file.index + 1, || None);
                }
                // A retry is explained afresh.
                self.files[file.index] = Some(FileExplainer::new(self.root.clone()));
            }
            RunEvent::Tap { run, file, event } => {
                if let Some(f) = self.file(*run, *file) {
                    f.event(event);
                    if f.has_ready() {
                        out.extend(f.take());
                    }
                }
            }
            RunEvent::Stderr { run, file, text } => {
                if let Some(f) = self.file(*run, *file) {
                    f.stderr(text);
                }
            }
            RunEvent::AttemptFailed { run, file, .. }
            | RunEvent::FileFinished { run, file, .. } => {
                let ended = (*run == self.run)
                    .then(|| self.files.get_mut(*file).and_then(Option::take))
                    .flatten();
                if let Some(mut f) = ended {
                    out.extend(f.end());
                }
            }
            RunEvent::Explained { .. } => return None,
            _ => {}
        }
        Some(out)
    }

    fn explained(&mut self, run: u64, file: usize, all: Vec<Explained>) -> io::Result<()> {
        let mut result = Ok(());
        for explained in all {
            let ev = RunEvent::Explained {
                run,
                file,
                explained: Arc::new(explained),
            };
            result = result.and(self.inner.on_owned(ev));
        }
        result
    }
}

/// The run and file an event is about, for the explanations it completed.
fn run_file(ev: &RunEvent) -> (u64, usize) {
    match ev {
        RunEvent::Tap { run, file, .. }
        | RunEvent::AttemptFailed { run, file, .. }
        | RunEvent::FileFinished { run, file, .. } => (*run, *file),
        _ => (0, 0),
    }
}

impl<S: RunSink> RunSink for Explaining<S> {
    fn on(&mut self, ev: &RunEvent) -> io::Result<()> {
        let Some(done) = self.before(ev) else {
            return Ok(());
        };
        let (run, file) = run_file(ev);
        let first = self.explained(run, file, done);
        first.and(self.inner.on(ev))
    }
    fn on_owned(&mut self, ev: RunEvent) -> io::Result<()> {
        let Some(done) = self.before(&ev) else {
            return Ok(());
        };
        if done.is_empty() {
            return self.inner.on_owned(ev);
        }
        let (run, file) = run_file(&ev);
        let first = self.explained(run, file, done);
        first.and(self.inner.on_owned(ev))
    }
    /// The batch passed on whole when it explains nothing (nearly every batch), else rebuilt
    /// with each explanation right after the event that completed it.
    fn give(&mut self, batch: Vec<RunEvent>) -> io::Result<()> {
        let mut inserted: Vec<(usize, RunEvent)> = Vec::new();
        let mut dropped = false;
        for (i, ev) in batch.iter().enumerate() {
            let Some(done) = self.before(ev) else {
                dropped = true;
                continue;
            };
            let (run, file) = run_file(ev);
            inserted.extend(done.into_iter().map(|explained| {
                let explained = Arc::new(explained);
                (
                    i,
                    RunEvent::Explained {
                        run,
                        file,
                        explained,
                    },
                )
            }));
        }
        if inserted.is_empty() && !dropped {
            return self.inner.give(batch);
        }
        let mut out = Vec::with_capacity(batch.len() + inserted.len());
        let mut inserted = inserted.into_iter().peekable();
        for (i, ev) in batch.into_iter().enumerate() {
            while let Some((_, explained)) = inserted.next_if(|(at, _)| *at == i) {
                out.push(explained);
            }
            // What `before` leaves out (an `Explained` from upstream) stays out.
            if !matches!(ev, RunEvent::Explained { .. }) {
                out.push(ev);
            }
        }
        self.inner.give(out)
    }
    fn keeps(&self) -> bool {
        self.inner.keeps()
    }
    fn tick(&mut self, now: Instant) -> io::Result<()> {
        self.inner.tick(now)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}
