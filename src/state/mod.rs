//! What tapline keeps on disk between runs, under `.nogit/`: each file's log ([`logs`]), the
//! history of verdicts and durations ([`history`]), and the folder they live in ([`nogit`]).
pub mod history;
pub mod logs;
pub mod nogit;
