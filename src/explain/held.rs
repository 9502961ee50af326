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

/// The newest lines of some output, at most `max` of them, counting the ones left out; each
/// line may carry a tag of the caller's (`T`), by which [`HeldLines::take_unless`] leaves it
/// out.
#[derive(Debug, Clone, Default)]
pub struct HeldLines<T = ()> {
    lines: VecDeque<(String, T)>,
    dropped: usize,
    max: usize,
}

impl HeldLines {
    pub fn push(&mut self, line: &str) {
        self.push_tagged(line.to_owned(), ());
    }
}

impl<T> HeldLines<T> {
    pub fn new(max: usize) -> Self {
        HeldLines {
            lines: VecDeque::new(),
            dropped: 0,
            max,
        }
    }

    /// Keeps `line` (cut at [`LINE_BYTES`]) with its tag, dropping the oldest past the limit.
    pub fn push_tagged(&mut self, line: String, tag: T) {
        if self.max == 0 {
            self.dropped += 1;
            return;
        }
        if self.lines.len() >= self.max {
            self.lines.pop_front();
            self.dropped += 1;
        }
        let line = match line.len() > LINE_BYTES {
            true => cut_line(&line),
            false => line,
        };
        self.lines.push_back((line, tag));
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
        self.take_unless(|_| false)
    }

    /// [`Self::take`], less the lines whose tag `drop` names.
    pub fn take_unless(&mut self, drop: impl Fn(&T) -> bool) -> Vec<String> {
        // Nothing held: what every passing point of a quiet file asks, a million times in a
        // file of a million points; no drain set up and torn down for nothing.
        if self.is_empty() {
            return Vec::new();
        }
        let (dropped, lines) = self.take_counted(drop);
        let note = (dropped > 0).then(|| earlier_lines_note(dropped));
        note.into_iter().chain(lines).collect()
    }

    /// How many earlier lines were left out, and the lines held less those `drop` names, for
    /// a caller with a note of its own (one with no log to point at); empties it.
    pub fn take_counted(&mut self, drop: impl Fn(&T) -> bool) -> (usize, Vec<String>) {
        let dropped = std::mem::take(&mut self.dropped);
        let kept = self.lines.drain(..).filter(|(_, tag)| !drop(tag));
        (dropped, kept.map(|(line, _)| line).collect())
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
