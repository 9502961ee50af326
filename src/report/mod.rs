//! Sinks on the event stream: summary JSON, JSON lines, the human report, diffs. Every
//! renderer writes to any `Write`, styles off unless asked, so every output is snapshot-testable.
pub mod coverage;
pub mod explanation;
pub mod github;
pub mod html;
pub mod human;
pub(crate) use tapline_protocol::json;
pub mod jsonl;
pub mod junit;
pub use crate::event::leaves;
pub mod markdown;
pub mod merge;
pub mod outlets;
pub mod output;
pub(crate) mod paint;
pub(crate) mod progress;
pub mod record;
pub mod sink;
pub mod stream_as_run;
pub mod style;
pub use tapline_protocol::summary;
pub mod terminal;
pub mod threaded;

use style::Style;

pub use crate::event::run::Tally;

/// `1 file`, `2 files`, `0 tests`: a count with its noun, singular only for one.
pub fn counted(n: impl Into<u64>, noun: &str) -> String {
    let n = n.into();
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// `2 failed, 5 passed, 1 skipped, 1 todo` (zero counts left out, `passed` always there).
pub fn render_tally(t: &Tally, s: Style) -> String {
    let mut parts = Vec::new();
    if t.fail > 0 {
        parts.push(s.paint(style::RED, format!("{} failed", t.fail)));
    }
    parts.push(s.paint(style::GREEN, format!("{} passed", t.pass)));
    if t.skip > 0 {
        parts.push(s.paint(style::YELLOW, format!("{} skipped", t.skip)));
    }
    if t.todo > 0 {
        parts.push(s.paint(style::MAGENTA, format!("{} todo", t.todo)));
    }
    if t.not_selected > 0 {
        // Ran (the framework has no filter) but not asked for: neither passed nor failed,
        // and a failure among them is said, not lost.
        let failed = match t.not_selected_failed {
            0 => String::new(),
            n => format!(" ({n} of them failed)"),
        };
        parts.push(s.paint(
            style::DIM,
            format!("{} not selected{failed}", t.not_selected),
        ));
    }
    parts.join(", ")
}
