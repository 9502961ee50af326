//! What the reports hold of a child's output, bounded however much it prints: a line is kept
//! up to [`LINE_BYTES`] (cut with a note of the bytes left out), and output held for one test
//! point keeps its newest lines, under a note of how many earlier ones were left out (the
//! output after a failing point keeps its first lines: [`super::trailing`]). The file's log
//! keeps every byte; the notes say so.
use std::collections::VecDeque;

/// Bytes of one output line a report keeps.
pub const LINE_BYTES: usize = 4096;

/// `line`, cut to [`LINE_BYTES`] (at a character boundary) with a note of what was left out.
pub fn cut_line(line: &str) -> String {
    if line.len() <= LINE_BYTES {
        return line.to_owned();
    }
    let mut end = LINE_BYTES;
    while !line.is_char_boundary(end) {
        end -= 1;
    }
    format!(
        "{} … ({} more bytes in the log)",
        &line[..end],
        line.len() - end
    )
}

/// The note that stands for `n` lines left out before the ones shown.
pub fn earlier_lines_note(n: usize) -> String {
    format!("… {n} earlier lines not kept (the log has every line)")
}

/// The newest lines of some output, at most `max` of them, counting the ones left out.
#[derive(Debug, Clone, Default)]
pub struct HeldLines {
    lines: VecDeque<String>,
    dropped: usize,
    max: usize,
}

impl HeldLines {
    pub fn new(max: usize) -> Self {
        HeldLines {
            lines: VecDeque::new(),
            dropped: 0,
            max,
        }
    }

    pub fn push(&mut self, line: &str) {
        if self.lines.len() >= self.max {
            self.lines.pop_front();
            self.dropped += 1;
        }
        if self.max > 0 {
            self.lines.push_back(cut_line(line));
        } else {
            self.dropped += 1;
        }
    }

    pub fn is_empty(&self) -> bool {
        self.lines.is_empty() && self.dropped == 0
    }

    pub fn clear(&mut self) {
        self.lines.clear();
        self.dropped = 0;
    }

    /// The lines held, under a note of how many earlier ones were left out; empties it.
    pub fn take(&mut self) -> Vec<String> {
        let note = (self.dropped > 0).then(|| earlier_lines_note(self.dropped));
        let lines = note.into_iter().chain(self.lines.drain(..)).collect();
        self.dropped = 0;
        lines
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_newest_lines_are_kept_under_a_note_of_the_rest() {
        let mut held = HeldLines::new(3);
        for n in 0..10 {
            held.push(&format!("line {n}"));
        }
        assert_eq!(
            held.take(),
            [
                "… 7 earlier lines not kept (the log has every line)",
                "line 7",
                "line 8",
                "line 9"
            ]
        );
        held.push("again");
        assert_eq!(held.take(), ["again"], "taking starts afresh");
        assert!(held.take().is_empty());
    }

    #[test]
    fn a_long_line_is_cut_at_a_character_boundary_with_a_note() {
        let line = "é".repeat(LINE_BYTES); // two bytes each
        let cut = cut_line(&line);
        let (kept, note) = cut.split_once(" … (").expect("a note");
        assert_eq!(kept.len(), LINE_BYTES);
        assert_eq!(note, format!("{} more bytes in the log)", LINE_BYTES));
        let odd = format!("x{line}");
        let cut = cut_line(&odd);
        assert!(
            cut.starts_with('x') && cut.contains(" … ("),
            "{}",
            &cut[..10]
        );
        assert_eq!(cut_line("short"), "short");
    }
}
