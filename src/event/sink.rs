//! The sink trait of the run model: what consumes a run's events (the reports, the history
//! recording, the daemon's subscribers), below both the runner that feeds it and the reports
//! that implement it.
//!
//! Machine output is live: a dispatcher (`tapline run`'s, `serve`'s) calls [`RunSink::flush`]
//! whenever no further event is ready for it, so a burst of events goes out in one write and
//! a quiet moment hands what is buffered to the reader at once ([`Unflushed`] tells the
//! dispatcher whether there is anything to hand over).
use super::run::RunEvent;
use std::io;
use std::time::Instant;

/// A consumer of run events. `tick` is the live region's redraw clock.
pub trait RunSink {
    fn on(&mut self, ev: &RunEvent) -> io::Result<()>;
    /// The same, with the event given away: a sink that keeps events (one that hands them to
    /// another thread) takes it without a copy. The dispatcher gives every event it has no
    /// further use for this way.
    fn on_owned(&mut self, ev: RunEvent) -> io::Result<()> {
        self.on(&ev)
    }
    /// A batch of events, in order, given away: as [`RunSink::on_owned`] for each (every one
    /// delivered, the first error the answer). The layers in front of the sinks pass the
    /// batch on whole, so that a point's event is not copied once per layer.
    fn give(&mut self, batch: Vec<RunEvent>) -> io::Result<()> {
        let mut result = Ok(());
        if !self.keeps() {
            // Lent: moving each event out of the batch only to read it is a copy per event.
            for ev in &batch {
                result = result.and(self.on(ev));
            }
            return result;
        }
        for ev in batch {
            result = result.and(self.on_owned(ev));
        }
        result
    }
    /// Whether the sink keeps the events it is given by value (hands them to another thread):
    /// the layers in front give it events by value only then, and lend them otherwise, so that
    /// a point's event is not moved once per layer on its way to a sink that only reads it.
    fn keeps(&self) -> bool {
        false
    }
    fn tick(&mut self, _now: Instant) -> io::Result<()> {
        Ok(())
    }
    /// No further event is ready for now: a sink that buffers for a reader (`--format jsonl`
    /// into a pipe) hands over what it holds, so the reader sees the run as it happens.
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// A sink that remembers whether an event reached it since its last flush, so that a
/// dispatcher flushes once when it goes idle, and never again until something happened.
pub struct Unflushed<S> {
    inner: S,
    pending: bool,
    /// When the oldest event not flushed yet arrived.
    since: Option<Instant>,
}

impl<S: RunSink> Unflushed<S> {
    pub fn new(inner: S) -> Self {
        Unflushed {
            inner,
            pending: false,
            since: None,
        }
    }

    /// An event reached the sink since the last flush.
    pub fn pending(&self) -> bool {
        self.pending
    }

    /// When the oldest event not flushed yet arrived (now, if none is waiting).
    pub fn since(&self) -> Instant {
        self.since.unwrap_or_else(Instant::now)
    }

    fn arrived(&mut self) {
        self.pending = true;
        self.since.get_or_insert_with(Instant::now);
    }
}

impl<S: RunSink> RunSink for Unflushed<S> {
    fn on(&mut self, ev: &RunEvent) -> io::Result<()> {
        self.arrived();
        self.inner.on(ev)
    }
    fn on_owned(&mut self, ev: RunEvent) -> io::Result<()> {
        self.arrived();
        self.inner.on_owned(ev)
    }
    fn give(&mut self, batch: Vec<RunEvent>) -> io::Result<()> {
        if !batch.is_empty() {
            self.arrived();
        }
        self.inner.give(batch)
    }
    fn keeps(&self) -> bool {
        self.inner.keeps()
    }
    fn tick(&mut self, now: Instant) -> io::Result<()> {
        self.inner.tick(now)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.pending = false;
        self.since = None;
        self.inner.flush()
    }
}

impl<S: RunSink + ?Sized> RunSink for &mut S {
    fn on(&mut self, ev: &RunEvent) -> io::Result<()> {
        (**self).on(ev)
    }
    fn on_owned(&mut self, ev: RunEvent) -> io::Result<()> {
        (**self).on_owned(ev)
    }
    fn give(&mut self, batch: Vec<RunEvent>) -> io::Result<()> {
        (**self).give(batch)
    }
    fn keeps(&self) -> bool {
        (**self).keeps()
    }
    fn tick(&mut self, now: Instant) -> io::Result<()> {
        (**self).tick(now)
    }
    fn flush(&mut self) -> io::Result<()> {
        (**self).flush()
    }
}

/// Several sinks fed in order. One that fails does not keep the event from the others (the
/// reports still get the run's end when the terminal is gone); the first error is the answer.
pub struct Fanout<'a>(pub Vec<&'a mut dyn RunSink>);

/// The first error of `results`, every one of them having run.
fn first_error(results: impl Iterator<Item = io::Result<()>>) -> io::Result<()> {
    results.fold(Ok(()), |first, r| first.and(r))
}

impl RunSink for Fanout<'_> {
    fn on(&mut self, ev: &RunEvent) -> io::Result<()> {
        first_error(self.0.iter_mut().map(|s| s.on(ev)))
    }
    /// Every sink but the last sees the event by reference; the last one is given it.
    fn on_owned(&mut self, ev: RunEvent) -> io::Result<()> {
        let Some((last, first)) = self.0.split_last_mut() else {
            return Ok(());
        };
        let before = first_error(first.iter_mut().map(|s| s.on(&ev)));
        let after = last.on_owned(ev);
        before.and(after)
    }
    /// Event by event, as [`Fanout::on_owned`]: each sink sees the events in the order the
    /// others do. Lent to the last sink too when it does not keep them ([`RunSink::keeps`]).
    fn give(&mut self, batch: Vec<RunEvent>) -> io::Result<()> {
        let Some((last, first)) = self.0.split_last_mut() else {
            return Ok(());
        };
        let mut result = Ok(());
        if !last.keeps() {
            for ev in &batch {
                result = result.and(first_error(self.0.iter_mut().map(|s| s.on(ev))));
            }
            return result;
        }
        for ev in batch {
            result = result.and(first_error(first.iter_mut().map(|s| s.on(&ev))));
            result = result.and(last.on_owned(ev));
        }
        result
    }
    fn keeps(&self) -> bool {
        self.0.last().is_some_and(|s| s.keeps())
    }
    fn tick(&mut self, now: Instant) -> io::Result<()> {
        first_error(self.0.iter_mut().map(|s| s.tick(now)))
    }
    fn flush(&mut self) -> io::Result<()> {
        first_error(self.0.iter_mut().map(|s| s.flush()))
    }
}
