//! Character-level highlighting inside a pair of changed lines, widened to whole words.
use std::cell::Cell;
use std::ops::Range;

use similar::{Algorithm, DiffTag};

use super::*;

/// Highlighting for a pair of lines.
pub(super) struct Inline {
    pub(super) old: Segments,
    pub(super) new: Segments,
    /// Non-blank characters common to both lines (counted once).
    shared: usize,
    /// Non-blank characters of both lines together.
    total: usize,
}

impl Inline {
    /// Dice similarity `2 * shared / total` of at least one half: the lines
    /// are edits of each other rather than unrelated neighbours.
    pub(super) fn is_edit(&self) -> bool {
        self.shared.saturating_mul(4) >= self.total
    }
}

/// A run of characters that is either common to both lines or changed.
pub(super) struct Chunk {
    equal: bool,
    pub(super) old: Range<usize>,
    pub(super) new: Range<usize>,
    old_chars: usize,
    new_chars: usize,
}

impl Chunk {
    pub(super) fn weight(&self) -> usize {
        self.old_chars.max(self.new_chars)
    }

    pub(super) fn absorb(&mut self, next: &Self) {
        self.equal = self.equal && next.equal;
        self.old.end = next.old.end;
        self.new.end = next.new.end;
        self.old_chars += next.old_chars;
        self.new_chars += next.new_chars;
    }
}

/// Character-level diff of two lines with a light semantic cleanup: a short
/// common run between two changes is folded into them, because highlighting
/// `c`·`a`·`t` → `d`·`o`·`g` piecemeal is harder to read than the whole word.
/// Returns `None` when nothing meaningful is shared, in which case the lines
/// are simply shown as removed and added, and when its worst case would
/// overdraw `work` (the steps left of [`Budget::max_work`]).
pub(super) fn inline_diff(old: &str, new: &str, work: &Cell<u64>) -> Option<Inline> {
    let (old_chars, old_offsets) = chars_with_offsets(old);
    let (new_chars, new_offsets) = chars_with_offsets(new);
    if !charge(work, worst_work(&old_chars, &new_chars)) {
        return None;
    }
    let mut ops = similar::capture_diff_slices(Algorithm::Myers, &old_chars, &new_chars);
    if !recount(&mut ops, old_chars.len(), new_chars.len()) {
        return None;
    }
    let mut chunks: Vec<Chunk> = Vec::new();
    for op in &ops {
        let (tag, o, n) = op.as_tag_tuple();
        let chunk = Chunk {
            equal: tag == DiffTag::Equal,
            old: *old_offsets.get(o.start)?..*old_offsets.get(o.end)?,
            new: *new_offsets.get(n.start)?..*new_offsets.get(n.end)?,
            old_chars: o.len(),
            new_chars: n.len(),
        };
        push_chunk(&mut chunks, chunk);
    }
    // Whitespace is ignored when judging similarity because JSON lines share
    // their indentation whether or not they are related.
    let shared = chunks
        .iter()
        .filter(|c| c.equal)
        .map(|c| non_blank_chars(old.get(c.old.clone()).unwrap_or_default()))
        .sum::<usize>();
    if shared == 0 {
        return None;
    }
    let total = non_blank_chars(old) + non_blank_chars(new);
    // Similarity is judged on the characters; only what is painted is widened.
    let chunks = widen_to_words(chunks, old, new);
    let old_segs: Segments = chunks
        .iter()
        .filter(|c| !c.old.is_empty())
        .map(|c| (!c.equal, c.old.end))
        .collect();
    let new_segs: Segments = chunks
        .iter()
        .filter(|c| !c.new.is_empty())
        .map(|c| (!c.equal, c.new.end))
        .collect();
    Some(Inline {
        old: old_segs,
        new: new_segs,
        shared,
        total,
    })
}

/// Most unchanged characters a change's edge takes in to reach its word's boundary: `[Tru]e`
/// reads better as `[True]`, but in a long token (a hash, a big number, a long identifier)
/// the differing characters alone show where to look.
const MAX_WORD_WIDENING: usize = 8;

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Widens each change whose edge falls inside a word to that word's boundaries, taking the
/// word's unchanged characters out of the neighbouring common runs (the same text on both
/// sides, so both ranges move together).
fn widen_to_words(mut chunks: Vec<Chunk>, old: &str, new: &str) -> Vec<Chunk> {
    for i in 0..chunks.len() {
        if chunks[i].equal || !changes_a_word(&chunks[i], old, new) {
            continue;
        }
        if i > 0 {
            let (before, rest) = chunks.split_at_mut(i);
            if let (Some(common), Some(change)) = (before.last_mut(), rest.first_mut()) {
                widen_start(common, change, old, new);
            }
        }
        if let [change, common, ..] = &mut chunks[i..] {
            widen_end(change, common, old, new);
        }
    }
    let mut merged: Vec<Chunk> = Vec::with_capacity(chunks.len());
    for chunk in chunks {
        if chunk.old.is_empty() && chunk.new.is_empty() {
            continue;
        }
        match merged.last_mut() {
            Some(last) if last.equal == chunk.equal => last.absorb(&chunk),
            _ => merged.push(chunk),
        }
    }
    merged
}

/// Whether the change touches letters or digits on either side: an inserted space or comma
/// (`line2` → `line 2`) is clearest marked alone.
fn changes_a_word(change: &Chunk, old: &str, new: &str) -> bool {
    let touches = |s: Option<&str>| s.unwrap_or_default().chars().any(is_word_char);
    touches(old.get(change.old.clone())) || touches(new.get(change.new.clone()))
}

fn starts_with_word(s: &str) -> bool {
    s.chars().next().is_some_and(is_word_char)
}

fn ends_with_word(s: &str) -> bool {
    s.chars().next_back().is_some_and(is_word_char)
}

/// Moves the word characters ending `common` into `change` when the change starts inside
/// that word (a word character follows the edge on either side).
fn widen_start(common: &mut Chunk, change: &mut Chunk, old: &str, new: &str) {
    let text = old.get(common.old.clone()).unwrap_or_default();
    let after_old = old.get(change.old.start..).unwrap_or_default();
    let after_new = new.get(change.new.start..).unwrap_or_default();
    if !common.equal || !(starts_with_word(after_old) || starts_with_word(after_new)) {
        return;
    }
    let (chars, bytes) = text
        .chars()
        .rev()
        .take_while(|c| is_word_char(*c))
        .fold((0, 0), |(n, b), c| (n + 1, b + c.len_utf8()));
    if chars == 0 || chars > MAX_WORD_WIDENING {
        return;
    }
    common.old.end -= bytes;
    common.new.end -= bytes;
    common.old_chars -= chars;
    common.new_chars -= chars;
    change.old.start -= bytes;
    change.new.start -= bytes;
    change.old_chars += chars;
    change.new_chars += chars;
}

/// Moves the word characters starting `common` into `change` when the change ends inside
/// that word (a word character precedes the edge on either side).
fn widen_end(change: &mut Chunk, common: &mut Chunk, old: &str, new: &str) {
    let text = old.get(common.old.clone()).unwrap_or_default();
    let before_old = old.get(..change.old.end).unwrap_or_default();
    let before_new = new.get(..change.new.end).unwrap_or_default();
    if !common.equal || !(ends_with_word(before_old) || ends_with_word(before_new)) {
        return;
    }
    let (chars, bytes) = text
        .chars()
        .take_while(|c| is_word_char(*c))
        .fold((0, 0), |(n, b), c| (n + 1, b + c.len_utf8()));
    if chars == 0 || chars > MAX_WORD_WIDENING {
        return;
    }
    common.old.start += bytes;
    common.new.start += bytes;
    common.old_chars -= chars;
    common.new_chars -= chars;
    change.old.end += bytes;
    change.new.end += bytes;
    change.old_chars += chars;
    change.new_chars += chars;
}

pub(super) fn non_blank_chars(s: &str) -> usize {
    s.chars().filter(|c| !c.is_whitespace()).count()
}

pub(super) fn chars_with_offsets(s: &str) -> (Vec<char>, Vec<usize>) {
    let mut chars = Vec::with_capacity(s.len());
    let mut offsets = Vec::with_capacity(s.len() + 1);
    for (i, c) in s.char_indices() {
        chars.push(c);
        offsets.push(i);
    }
    offsets.push(s.len());
    (chars, offsets)
}

/// Appends a chunk, merging it with its predecessor when both are changes and
/// folding short equalities (no longer than the changes on either side, the
/// diff-match-patch rule) into the surrounding change. Working on the tail as
/// a stack keeps this linear.
pub(super) fn push_chunk(chunks: &mut Vec<Chunk>, chunk: Chunk) {
    match chunks.last_mut() {
        Some(last) if last.equal == chunk.equal => last.absorb(&chunk),
        _ => chunks.push(chunk),
    }
    while let [.., before, common, after] = chunks.as_slice() {
        let foldable = !before.equal
            && common.equal
            && !after.equal
            && common.old_chars <= before.weight()
            && common.old_chars <= after.weight();
        if !foldable {
            break;
        }
        let (Some(after), Some(mut common)) = (chunks.pop(), chunks.pop()) else {
            break;
        };
        common.equal = false;
        if let Some(before) = chunks.last_mut() {
            before.absorb(&common);
            before.absorb(&after);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The line with its highlighted runs in brackets.
    fn marked(line: &str, segments: &Segments) -> String {
        let mut out = String::new();
        let mut start = 0;
        for &(emphasized, end) in segments {
            let text = line.get(start..end).unwrap_or_default();
            if emphasized {
                out.push_str(&format!("[{text}]"));
            } else {
                out.push_str(text);
            }
            start = end;
        }
        out
    }

    fn pair(old: &str, new: &str) -> (String, String) {
        let work = Cell::new(u64::MAX);
        let inline = inline_diff(old, new, &work).expect("an edit");
        (marked(old, &inline.old), marked(new, &inline.new))
    }

    #[test]
    fn a_change_inside_a_word_marks_the_whole_word() {
        assert_eq!(
            pair("flag is True here", "flag is False here"),
            ("flag is [True] here".into(), "flag is [False] here".into())
        );
        assert_eq!(pair("cat", "cats"), ("[cat]".into(), "[cats]".into()));
        assert_eq!(
            pair("id: 1234, ok", "id: 1235, ok"),
            ("id: [1234], ok".into(), "id: [1235], ok".into())
        );
    }

    #[test]
    fn a_long_token_keeps_its_differing_characters() {
        assert_eq!(
            pair("sha 9f86d081884c7d65", "sha 9f86d081884c7d66"),
            (
                "sha 9f86d081884c7d6[5]".into(),
                "sha 9f86d081884c7d6[6]".into()
            )
        );
    }

    #[test]
    fn changes_between_words_stay_as_they_are() {
        assert_eq!(pair("line2", "line 2"), ("line2".into(), "line[ ]2".into()));
        assert_eq!(
            pair("a, b, c", "a, b; c"),
            ("a, b[,] c".into(), "a, b[;] c".into())
        );
    }
}
