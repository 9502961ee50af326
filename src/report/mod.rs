//! Sinks on the event stream: summary JSON, JSON lines, the human report, diffs. Every
//! renderer writes to any `Write`, styles off unless asked, so every output is snapshot-testable.
pub mod diff;
pub mod failure;
pub mod human;
pub mod jsonl;
pub mod style;
pub mod summary;
pub mod terminal;

use crate::event::Assert;
use style::Style;

/// Test points counted the way people read them: a SKIP or TODO point counts only as that.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Tally {
    pub pass: u64,
    pub fail: u64,
    pub skip: u64,
    pub todo: u64,
}

impl Tally {
    pub fn add(&mut self, a: &Assert<'_>) {
        if a.skip.is_some() {
            self.skip += 1;
        } else if a.todo.is_some() {
            self.todo += 1;
        } else if a.ok {
            self.pass += 1;
        } else {
            self.fail += 1;
        }
    }

    pub fn merge(&mut self, o: &Tally) {
        self.pass += o.pass;
        self.fail += o.fail;
        self.skip += o.skip;
        self.todo += o.todo;
    }

    pub fn total(&self) -> u64 {
        self.pass + self.fail + self.skip + self.todo
    }

    /// `2 failed, 5 passed, 1 skipped, 1 todo` (zero counts left out, `passed` always there).
    pub fn render(&self, s: Style) -> String {
        let mut parts = Vec::new();
        if self.fail > 0 {
            parts.push(s.paint(style::RED, format!("{} failed", self.fail)));
        }
        parts.push(s.paint(style::GREEN, format!("{} passed", self.pass)));
        if self.skip > 0 {
            parts.push(s.paint(style::YELLOW, format!("{} skipped", self.skip)));
        }
        if self.todo > 0 {
            parts.push(s.paint(style::MAGENTA, format!("{} todo", self.todo)));
        }
        parts.join(", ")
    }
}
