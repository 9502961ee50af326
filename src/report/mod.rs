//! Sinks on the event stream: summary JSON, JSON lines, the human report, diffs.
pub mod jsonl;
pub mod summary;
