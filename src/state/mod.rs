//! What tapline keeps on disk between runs, under `.nogit/`: each file's log ([`logs`]), the
//! history of verdicts and durations ([`history`]), the result cache ([`cache`]), and the
//! folder they live in ([`nogit`]); what a run leaves for the next is saved by one route
//! ([`keep`]).
mod attempts;
pub mod cache;
pub mod history;
pub mod keep;
pub mod logs;
pub mod nogit;
pub mod tests;

pub(crate) use attempts::Attempts;
