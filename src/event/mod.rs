//! The event model: a stream's events ([`tapline_protocol::event`], re-exported here) and the
//! run's, built on them: the run's events ([`run`]), why a file failed ([`reason`]), and how
//! stable a test was over `--runs N` ([`stability`]).
pub use tapline_protocol::event::*;

pub mod collect;
pub mod leaves;
pub mod meta;
pub mod reason;
pub mod run;
pub mod running;
pub mod sink;
pub mod stability;
