//! tapline's protocol: the bytes of a test stream read into one event model. TAP 12/13/14
//! with its producers' quirks and tstest's protocol v2 `⟦TSTEST:…⟧` markers, `go test -json`
//! and JUnit XML, each read incrementally: framing (lines, with a length cap), per-line
//! parsers, the state machine (YAML blocks, subtests, v2 blocks, plans), and the verdict.
//!
//! Pure and synchronous: no runtime, no terminal, no files, no network. Feed bytes to a
//! [`Parser`] (TAP) or an [`AnyParser`] (any of the three, detected: [`input::detect`]), and
//! an [`event::Sink`] receives each [`event::Event`] as soon as it is complete:
//!
//! ```
//! use tapline_protocol::event::Event;
//! use tapline_protocol::Parser;
//!
//! let mut parser = Parser::new(Vec::<Event<'static>>::new());
//! parser.feed(b"TAP version 14\n1..2\nok 1 - adds\nnot ok 2 - subtracts\n");
//! let events = parser.finish();
//! let Some(Event::End { verdict }) = events.last() else { unreachable!() };
//! assert!(!verdict.ok);
//! assert_eq!((verdict.pass, verdict.fail), (1, 1));
//! ```
//!
//! Rooms, each on its own (imports point down this list): [`event`] (the model), [`frame`]
//! (lines, with a cap), [`line`] (each line's nom parser), [`machine`] (the TAP state machine:
//! YAML, subtests, v2 blocks, plans), [`build`] (events from other formats), [`gojson`] and
//! [`junit`] and [`libtest`] (those formats), [`result`] (output judged by its exit status or
//! one JSON result line), [`parser`] and [`input`] (the readers), [`json`] and
//! [`summary`] (the `--format summary` document the conformance check compares); [`dialect`]
//! (what a producer's points mean where it is not what TAP says: which are tests).
mod build;
pub mod dialect;
pub mod event;
mod frame;
pub mod gojson;
pub mod input;
pub mod json;
pub mod junit;
pub mod libtest;
mod line;
mod machine;
mod parser;
pub mod result;
pub mod summary;

pub use frame::{Framer, Line, DEFAULT_MAX_LINE};
pub use input::{AnyParser, InputFormat};
pub use line::{MARK_CLOSE, MARK_OPEN};
pub use machine::{failed_points_reason, point_label, DEFAULT_MAX_BLOCK, NO_TAP_OUTPUT};
pub use parser::*;
