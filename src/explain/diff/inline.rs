//! Character-level highlighting inside a pair of changed lines.
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
