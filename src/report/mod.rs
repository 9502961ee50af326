//! Sinks on the event stream: summary JSON, JSON lines, the human report, diffs. Every
//! renderer writes to any `Write`, styles off unless asked, so every output is snapshot-testable.
pub mod coverage;
#[cfg(test)]
mod diff_tests;
pub mod explanation;
pub mod github;
pub mod html;
pub mod human;
pub(crate) use tapline_protocol::json;
pub mod jsonl;
pub mod junit;
#[cfg(test)]
pub(crate) mod lossless;
pub use crate::event::leaves;
pub mod markdown;
pub mod merge;
pub mod outlets;
pub mod output;
pub(crate) mod paint;
pub(crate) mod progress;
pub mod reader_gone;
pub mod record;
pub mod sink;
pub mod stream_as_run;
pub mod style;
pub use tapline_protocol::summary;
pub mod terminal;
pub mod threaded;
pub mod visible;

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
        let cancelled = match t.cancelled {
            0 => String::new(),
            n => format!(" ({n} cancelled)"),
        };
        parts.push(s.paint(style::RED, format!("{} failed{cancelled}", t.fail)));
    }
    parts.push(s.paint(style::GREEN, format!("{} passed", t.pass)));
    if t.skip > 0 {
        parts.push(s.paint(style::YELLOW, format!("{} skipped", t.skip)));
    }
    if t.todo > 0 {
        parts.push(s.paint(style::MAGENTA, format!("{} todo", t.todo)));
    }
    if let Some(words) = not_selected_words(t) {
        parts.push(s.paint(style::DIM, words));
    }
    parts.join(", ")
}

/// What `-t` or `--only-failed` narrowed a run to, as every report's header says it:
/// `-t 'adds' -t '/^b$/' (3 files with no matching test not run; 1 file run whole, other tests
/// not selected)`.
pub(crate) fn test_filter_said(f: &crate::event::run::TestFilterInfo) -> String {
    let mut out = match f.only_failed {
        true => "--only-failed".to_owned(),
        false => (f.patterns.iter())
            .map(|p| format!("-t '{p}'"))
            .collect::<Vec<_>>()
            .join(" "),
    };
    let why = match f.only_failed {
        true => "passed or never ran",
        false => "with no matching test",
    };
    let mut notes = Vec::new();
    if f.files_not_run > 0 {
        notes.push(format!(
            "{} {why} not run",
            counted(f.files_not_run as u64, "file")
        ));
    }
    if f.files_run_whole > 0 {
        let files = counted(f.files_run_whole as u64, "file");
        notes.push(format!("{files} run whole, other tests not selected"));
    }
    if !notes.is_empty() {
        out.push_str(&format!(" ({})", notes.join("; ")));
    }
    out
}

/// `3 not selected (2 of them failed)`: points `-t` did not select in files run whole,
/// neither passed nor failed, a failure among them said rather than lost. `None` for none.
pub(crate) fn not_selected_words(t: &Tally) -> Option<String> {
    let failed = match t.not_selected_failed {
        0 => String::new(),
        n => format!(" ({n} of them failed)"),
    };
    (t.not_selected > 0).then(|| format!("{} not selected{failed}", t.not_selected))
}
