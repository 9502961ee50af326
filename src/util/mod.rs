//! Small things several rooms need, written once: finding a program on PATH, paths resolved
//! by name, dates as reports print them.
pub(crate) mod paths;
pub(crate) mod time;
pub(crate) mod which;
