//! tapline: run test files of any language and report their TAP.
pub mod daemon;
pub mod event;
pub mod protocol;
pub mod report;
pub mod run;
pub mod util;
pub mod watch;
