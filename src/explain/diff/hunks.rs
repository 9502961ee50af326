//! Line operations grouped into hunks with context, their headers, and block sliding.
use similar::{DiffOp, DiffTag};

use super::*;

/// Recounts where each op sits from the lengths of the ops before it, and says whether they
/// spell both inputs (`old_len` and `new_len` items) exactly.
///
/// `similar`'s compaction, which both its char and its line diffs run, swaps an insertion
/// with a neighbouring deletion without updating the index each keeps for the side it leaves
/// alone: `1.0 MB` against `1000 kB` comes back as `= 1`, `- .` at new index 2, `= 0` at new
/// index 1, `+ 00`, …; a change taken from the first op's start to the last one's end skipped
/// a character, and `100 kB` was on screen (`1.` and `10` for `1.0` against `100`). A line
/// diff gets the same ops and lost or misplaced lines and hunk headers. The order and the
/// lengths are right, so the positions are taken from them; an equal run that sits elsewhere
/// than counted (never seen) makes the ops unusable rather than trusted.
pub(super) fn recount(ops: &mut [DiffOp], old_len: usize, new_len: usize) -> bool {
    let (mut at_old, mut at_new) = (0, 0);
    for op in ops.iter_mut() {
        match op {
            DiffOp::Equal {
                old_index,
                new_index,
                len,
            } => {
                if (*old_index, *new_index) != (at_old, at_new) {
                    return false;
                }
                at_old += *len;
                at_new += *len;
            }
            DiffOp::Delete {
                old_index,
                old_len,
                new_index,
            } => {
                (*old_index, *new_index) = (at_old, at_new);
                at_old += *old_len;
            }
            DiffOp::Insert {
                old_index,
                new_index,
                new_len,
            } => {
                (*old_index, *new_index) = (at_old, at_new);
                at_new += *new_len;
            }
            DiffOp::Replace {
                old_index,
                old_len,
                new_index,
                new_len,
            } => {
                (*old_index, *new_index) = (at_old, at_new);
                at_old += *old_len;
                at_new += *new_len;
            }
        }
    }
    (at_old, at_new) == (old_len, new_len)
}

/// Moves each pure insertion or deletion to the equivalent position where it
/// starts and ends least indented, a simple form of git's indent heuristic.
/// Without it, adding an object to an array of objects shows up as
/// `+ "new": 1,` / `+ },` / `+ {` instead of the whole inserted `{ … },`.
pub(super) fn slide_blocks(ops: &mut Vec<DiffOp>, old: &[&str], new: &[&str]) {
    for i in 1..ops.len().saturating_sub(1) {
        let Some(
            [DiffOp::Equal { len: before, .. }, block, DiffOp::Equal {
                old_index: next_old,
                new_index: next_new,
                len: after,
            }],
        ) = ops.get_mut(i - 1..i + 2)
        else {
            continue;
        };
        let (lines, start, end) = match *block {
            DiffOp::Insert {
                new_index, new_len, ..
            } => (new, new_index, new_index + new_len),
            DiffOp::Delete {
                old_index, old_len, ..
            } => (old, old_index, old_index + old_len),
            _ => continue,
        };
        if start == end {
            continue;
        }
        let line = |k: usize| lines.get(k).copied().unwrap_or_default();
        let score =
            |start: usize, end: usize| indent_width(line(start)) + indent_width(line(end - 1));
        // Shifting by one is valid when the line entering the block equals
        // the one leaving it.
        let mut up = 0;
        while up < *before && up < start && line(start - 1 - up) == line(end - 1 - up) {
            up += 1;
        }
        let mut down = 0;
        while down < *after && line(start + down) == line(end + down) {
            down += 1;
        }
        // Ties keep the differ's choice.
        let mut best = (score(start, end), 0, 0);
        for k in 1..=up {
            let candidate = score(start - k, end - k);
            if candidate < best.0 {
                best = (candidate, k, 0);
            }
        }
        for k in 1..=down {
            let candidate = score(start + k, end + k);
            if candidate < best.0 {
                best = (candidate, 0, k);
            }
        }
        let (_, up, down) = best;
        *before = *before - up + down;
        *after = *after + up - down;
        *next_old = *next_old + down - up;
        *next_new = *next_new + down - up;
        match block {
            DiffOp::Insert {
                old_index,
                new_index,
                ..
            }
            | DiffOp::Delete {
                old_index,
                new_index,
                ..
            } => {
                *old_index = *old_index + down - up;
                *new_index = *new_index + down - up;
            }
            _ => {}
        }
    }
    ops.retain(|op| !matches!(op, DiffOp::Equal { len: 0, .. }));
}

pub(super) fn indent_width(line: &str) -> usize {
    line.len() - line.trim_start_matches([' ', '\t']).len()
}

/// The ops of a diff that aligns nothing but the common prefix and suffix: what lies between
/// is one change. It is what a line diff shows when aligning would overdraw the budget; no
/// line is lost or repeated, and it costs one pass.
pub(super) fn coarse_ops(old: &[&str], new: &[&str]) -> Vec<DiffOp> {
    let prefix = old.iter().zip(new).take_while(|(a, b)| a == b).count();
    let suffix = old
        .iter()
        .rev()
        .zip(new.iter().rev())
        .take(old.len().min(new.len()) - prefix)
        .take_while(|(a, b)| a == b)
        .count();
    let (old_mid, new_mid) = (old.len() - prefix - suffix, new.len() - prefix - suffix);
    let mut ops = Vec::new();
    if prefix > 0 {
        ops.push(DiffOp::Equal {
            old_index: 0,
            new_index: 0,
            len: prefix,
        });
    }
    match (old_mid, new_mid) {
        (0, 0) => {}
        (old_len, 0) => ops.push(DiffOp::Delete {
            old_index: prefix,
            old_len,
            new_index: prefix,
        }),
        (0, new_len) => ops.push(DiffOp::Insert {
            old_index: prefix,
            new_index: prefix,
            new_len,
        }),
        (old_len, new_len) => ops.push(DiffOp::Replace {
            old_index: prefix,
            old_len,
            new_index: prefix,
            new_len,
        }),
    }
    if suffix > 0 {
        ops.push(DiffOp::Equal {
            old_index: prefix + old_mid,
            new_index: prefix + new_mid,
            len: suffix,
        });
    }
    ops
}

/// Splits ops into hunks with `context` unchanged lines around changes, like
/// `similar`'s `grouped_ops`, except that a gap of a single line is shown
/// rather than replaced by a hunk header of the same height.
pub(super) fn group_ops(ops: &[DiffOp], context: usize) -> Vec<Vec<DiffOp>> {
    let mut groups = Vec::new();
    if ops.iter().all(|op| op.tag() == DiffTag::Equal) {
        return groups;
    }
    let last = ops.len().saturating_sub(1);
    let mut current = Vec::new();
    for (i, op) in ops.iter().enumerate() {
        let DiffOp::Equal {
            old_index,
            new_index,
            len,
        } = *op
        else {
            current.push(*op);
            continue;
        };
        let head = if i == 0 { 0 } else { context };
        let tail = if i == last { 0 } else { context };
        if len <= head + tail + 1 {
            current.push(*op);
            continue;
        }
        if head > 0 {
            current.push(DiffOp::Equal {
                old_index,
                new_index,
                len: head,
            });
        }
        if !current.is_empty() {
            groups.push(std::mem::take(&mut current));
        }
        if tail > 0 {
            let skip = len - tail;
            current.push(DiffOp::Equal {
                old_index: old_index + skip,
                new_index: new_index + skip,
                len: tail,
            });
        }
    }
    if current.iter().any(|op| op.tag() != DiffTag::Equal) {
        groups.push(current);
    }
    groups
}

pub(super) fn omits_lines(groups: &[Vec<DiffOp>], old_len: usize, new_len: usize) -> bool {
    let (Some(first), Some(last)) = (
        groups.first().and_then(|g| g.first()),
        groups.last().and_then(|g| g.last()),
    ) else {
        return false;
    };
    groups.len() > 1
        || first.old_range().start > 0
        || first.new_range().start > 0
        || last.old_range().end < old_len
        || last.new_range().end < new_len
}

pub(super) fn unified_header(group: &[DiffOp]) -> String {
    let (Some(first), Some(last)) = (group.first(), group.last()) else {
        return "@@ @@".to_owned();
    };
    let old = first.old_range().start..last.old_range().end;
    let new = first.new_range().start..last.new_range().end;
    format!("@@ -{} +{} @@", unified_range(&old), unified_range(&new))
}

/// Unified-diff convention: 1-based start, except that an empty range names
/// the line after which it sits.
pub(super) fn unified_range(range: &Range<usize>) -> String {
    let start = if range.is_empty() {
        range.start
    } else {
        range.start + 1
    };
    format!("{start},{}", range.len())
}

pub(super) fn first_change_path(
    group: &[DiffOp],
    expected: &Pretty<'_>,
    actual: &Pretty<'_>,
) -> String {
    for op in group {
        let (tag, o, n) = op.as_tag_tuple();
        if tag == DiffTag::Equal {
            continue;
        }
        return if o.is_empty() {
            actual.path_of_line(n.start)
        } else {
            expected.path_of_line(o.start)
        };
    }
    "$".to_owned()
}
