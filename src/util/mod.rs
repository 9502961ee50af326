//! Small things several rooms need, written once: paths resolved by name, dates as reports
//! print them.
pub(crate) mod paths;
pub(crate) mod time;
