//! tapline's protocol: the bytes of a test stream read into one event model. TAP 12/13/14
//! with its producers' quirks and tstest's protocol v2 `⟦TSTEST:…⟧` markers, `go test -json`
//! and JUnit XML, each read incrementally: framing (lines, with a length cap), per-line
//! parsers, the state machine (YAML blocks, subtests, v2 blocks, plans), and the verdict.
//!
//! Pure and synchronous: no runtime, no terminal, no files, no network. Feed bytes to a
//! [`protocol::Parser`] (TAP) or an [`protocol::AnyParser`] (any of the three, detected), and
//! an [`event::Sink`] receives each [`event::Event`] as soon as it is complete:
//!
//! ```
//! use tapline_protocol::event::Event;
//! use tapline_protocol::protocol::Parser;
//!
//! let mut parser = Parser::new(Vec::<Event<'static>>::new());
//! parser.feed(b"TAP version 14\n1..2\nok 1 - adds\nnot ok 2 - subtracts\n");
//! let events = parser.finish();
//! let Some(Event::End { verdict }) = events.last() else { unreachable!() };
//! assert!(!verdict.ok);
//! assert_eq!((verdict.pass, verdict.fail), (1, 1));
//! ```
pub mod event;
pub mod json;
pub mod protocol;
pub mod summary;
