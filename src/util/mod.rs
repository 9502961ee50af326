//! Small things several rooms need, written once: dates as reports print them.
pub(crate) mod time;
