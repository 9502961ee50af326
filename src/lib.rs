//! tapline: run test files of any language and report their TAP.
pub mod coverage;
pub mod daemon;
pub mod event;
pub mod explain;
pub mod harness;
pub mod inventory;
/// The protocol crate's readers, where the library always had them.
pub use tapline_protocol as protocol;
pub mod report;
pub mod run;
pub mod state;
pub mod supervise;
pub mod util;
pub mod watch;
