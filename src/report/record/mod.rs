//! The record of a run that the file reports (HTML, JUnit, Markdown, GitHub annotations)
//! render: files with their verdicts, counts, logs and top-level points, failing points
//! explained (location, message, diff, stack, output), collected from the run's events.
mod collect;
mod pieces;
pub(crate) mod spool;
mod view;

pub use crate::event::meta::{unix_ms, Meta};
pub use collect::{Collector, EXPANDED_FAILURES};
pub(crate) use pieces::Pieces;
pub use view::{
    AttemptView, CaseView, FailureView, FileStatus, FileView, PointStatus, PointView, RunView,
    SpooledRun,
};
