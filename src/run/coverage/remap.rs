//! V8's ranges of a script that has a source map (a TypeScript test run by a loader, a
//! browser page's esbuild bundle), mapped to the lines of the sources it was made from, as c8 maps them
//! (v8-to-istanbul 9 over @jridgewell/trace-mapping), so that tapline's figures for a `.ts`
//! file are c8's, line for line:
//!
//! - each range's start is looked up at or before its column (else after it, else the line's
//!   first mapping), its end one column before the end, then widened to the end of that
//!   original segment (the next generated place of the same source line, or the line's end);
//!   a start and end in different sources, or without a mapping, map nowhere;
//! - in the source, every line starts counted as run, and a range sets the count of each line
//!   it covers whole, innermost last: the rule [`super::v8`] applies to an unmapped script.
//!
//! Which bound each lookup takes is trace-mapping's (`GREATEST_LOWER_BOUND`, or
//! `LEAST_UPPER_BOUND`), kept as it is even where it surprises (a function's first line is
//! often counted as run although the function never was): agreement with the tool users
//! compare against is worth more here than a rule of tapline's own.
use super::v8::{Lines, Range};
use crate::util::source_map::{Segment, SourceMap};
use std::collections::{BTreeMap, HashMap};

/// `Infinity` in v8-to-istanbul: the end of the line.
const LINE_END: i64 = i64::MAX / 4;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Bias {
    /// The last segment at or before the column.
    Lower,
    /// The first segment at or after it.
    Upper,
}

/// A place in a source: its index, line (1-based) and column (0-based, or [`LINE_END`]).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
struct Original {
    source: u32,
    line: u32,
    column: i64,
}

/// A map, with the reverse index (per source and source line, the generated places in
/// source-column order) that the end of a range needs.
pub(crate) struct Remapper<'a> {
    map: &'a SourceMap,
    /// By (source, source line): (source column, generated line, generated column), stably
    /// sorted. A map, not a table: a map's line numbers are not to be trusted with memory.
    by_source: HashMap<(u32, u32), Vec<(u32, u32, u32)>>,
}

impl<'a> Remapper<'a> {
    pub(crate) fn new(map: &'a SourceMap) -> Remapper<'a> {
        let mut by_source: HashMap<(u32, u32), Vec<(u32, u32, u32)>> = HashMap::new();
        for line in 0..map.line_count() {
            for seg in map.segments(line).iter().filter(|s| s.mapped) {
                let places = by_source.entry((seg.source, seg.line)).or_default();
                places.push((seg.source_column, line as u32, seg.column));
            }
        }
        for places in by_source.values_mut() {
            places.sort_by_key(|p| p.0);
        }
        Remapper { map, by_source }
    }

    /// Each source's lines counted from `ranges` of the generated script whose lines are
    /// `generated`; `sources` holds the text of the sources read (by index), the others are
    /// left out.
    pub(crate) fn counts(
        &self,
        generated: &Lines,
        ranges: impl Iterator<Item = Range>,
        sources: &[Option<String>],
    ) -> BTreeMap<u32, BTreeMap<u32, u64>> {
        let mut lines: Vec<Option<Lines>> = (sources.iter())
            .map(|s| s.as_deref().map(|text| Lines::of_source(text.trim_end())))
            .collect();
        for range in ranges {
            let start = range.start_offset as i64;
            let end = (range.end_offset as i64).min(generated.eof());
            let Some((from, to)) = self.original(generated, start, end) else {
                continue;
            };
            let Some(Some(target)) = lines.get_mut(from.source as usize) else {
                continue;
            };
            let s = target.offset(from.line, from.column);
            let e = target.offset(to.line, to.column);
            target.cover_as_c8(s, e, range.count);
        }
        (lines.into_iter().enumerate())
            .filter_map(|(i, l)| Some((i as u32, l?.counts())))
            .collect()
    }

    /// v8-to-istanbul's `offsetToOriginalRelative`: the generated offsets `start..end` as a
    /// start and end place in one source.
    fn original(&self, generated: &Lines, start: i64, end: i64) -> Option<(Original, Original)> {
        let touched = generated.slice(start - 1, end);
        let (first, last) = (touched.first()?, touched.last()?);
        let from = self.try_both(first.0, (start - first.1).max(0))?;
        let mut to = self.end_position(last.0, end - last.1)?;
        if from.source != to.source {
            return None;
        }
        if from.line == to.line && from.column == to.column {
            to = self.position(last.0, end - last.1, Bias::Upper)?;
            to.column -= 1;
        }
        Some((from, to))
    }

    /// trace-mapping's `originalPositionFor` at generated `line` (1-based) and `column`.
    fn position(&self, line: u32, column: i64, bias: Bias) -> Option<Original> {
        let segments: &[Segment] = self.map.segments(line.checked_sub(1)? as usize);
        let at = trace(segments.len(), |i| segments[i].column, column, bias)?;
        let seg = segments[at];
        seg.mapped.then_some(Original {
            source: seg.source,
            line: seg.line + 1,
            column: i64::from(seg.source_column),
        })
    }

    /// `originalPositionTryBoth`: at or before the column, else after it; never a line above
    /// the line's first mapping.
    fn try_both(&self, line: u32, column: i64) -> Option<Original> {
        let found = (self.position(line, column, Bias::Lower))
            .or_else(|| self.position(line, column, Bias::Upper));
        match (found, self.position(line, 0, Bias::Lower)) {
            (None, min) => min,
            (Some(f), Some(min)) if min.line > f.line => Some(min),
            (found, _) => found,
        }
    }

    /// `originalEndPositionFor`: the end of the original segment the place before `column`
    /// falls in.
    fn end_position(&self, line: u32, column: i64) -> Option<Original> {
        let before = self.try_both(line, (column - 1).max(1))?;
        let widened = Original {
            column: LINE_END,
            ..before
        };
        let Some((gen_line, gen_column)) = self.generated(before, before.column + 1) else {
            return Some(widened);
        };
        match self.position(gen_line, gen_column, Bias::Lower) {
            Some(after) if after.line == before.line => Some(after),
            _ => Some(widened),
        }
    }

    /// `generatedPositionFor` with the upper bias: the first generated place of `at`'s source
    /// line at or after `column`, as (line 1-based, column).
    fn generated(&self, at: Original, column: i64) -> Option<(u32, i64)> {
        let places = self.by_source.get(&(at.source, at.line.checked_sub(1)?))?;
        let i = trace(places.len(), |i| places[i].0, column, Bias::Upper)?;
        Some((places[i].1 + 1, i64::from(places[i].2)))
    }
}

/// trace-mapping's `traceSegmentInternal` over `len` items in column order: on an exact
/// match the first such item (lower) or the last (upper), else the one before or after.
fn trace(len: usize, column: impl Fn(usize) -> u32, needle: i64, bias: Bias) -> Option<usize> {
    let below = |i: usize| i64::from(column(i)) < needle;
    let first_not_below = partition(len, below);
    let found = first_not_below < len && i64::from(column(first_not_below)) == needle;
    let at = match (found, bias) {
        (true, Bias::Lower) => first_not_below,
        (true, Bias::Upper) => partition(len, |i| i64::from(column(i)) <= needle) - 1,
        (false, Bias::Lower) => first_not_below.checked_sub(1)?,
        (false, Bias::Upper) => first_not_below,
    };
    (at < len).then_some(at)
}

/// The first index in `0..len` for which `before` is false (`before` holds for a prefix).
fn partition(len: usize, before: impl Fn(usize) -> bool) -> usize {
    let (mut low, mut high) = (0, len);
    while low < high {
        let mid = low + (high - low) / 2;
        if before(mid) {
            low = mid + 1;
        } else {
            high = mid;
        }
    }
    low
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    #[test]
    fn trace_takes_trace_mappings_bounds() {
        let cols = [2u32, 5, 5, 9];
        let at = |needle, bias| trace(cols.len(), |i| cols[i], needle, bias);
        assert_eq!(at(5, Bias::Lower), Some(1), "the first of equals");
        assert_eq!(at(5, Bias::Upper), Some(2), "the last of equals");
        assert_eq!(at(6, Bias::Lower), Some(2));
        assert_eq!(at(6, Bias::Upper), Some(3));
        assert_eq!(at(1, Bias::Lower), None);
        assert_eq!(at(10, Bias::Upper), None);
        assert_eq!(at(0, Bias::Upper), Some(0));
    }

    /// What the TypeScript loader tapline prefers (docs/discovery.md), version 4, gives node
    /// 20 for this file (its source-map-cache entry), and the ranges V8 reported when a test
    /// called `used` only; c8 10 (`c8 --reporter=lcovonly` over that loader) reports lines
    /// 1-12 run and 13-15 not.
    #[test]
    fn a_loaded_typescript_file_is_counted_as_c8_counts_it() {
        let source = "// Adds and doubles, typed.\nexport interface Pair {\n  a: number;\n  b: number;\n}\n\nexport function used(p: Pair): number {\n  const sum: number = p.a + p.b;\n  return sum;\n}\n\nexport function unused(a: number): number {\n  const doubled: number = a * 2;\n  return doubled;\n}\n";
        let map = serde_json::json!({
            "version": 3,
            "sources": ["file:///p/lib/calc.ts"],
            "mappings": ";suBAAA,uHAMO,SAAS,KAAK,EAAiB,CACpC,MAAM,IAAc,EAAE,EAAI,EAAE,EAC5B,OAAO,GACT,CAHgB,oBAKT,SAAS,OAAO,EAAmB,CACxC,MAAM,QAAkB,EAAI,EAC5B,OAAO,OACT,CAHgB",
        });
        let map = SourceMap::from_value(map, Path::new("/p/lib"), Path::new("/p")).expect("map");
        let generated = Lines::of_lengths(&[43, 1037, 4, 0, 778]);
        let ranges = [
            (0, 1866, 1),
            (38, 1083, 1),
            (1048, 1080, 0),
            (242, 308, 2),
            (322, 412, 1),
            (357, 411, 2),
            (429, 706, 1),
            (484, 510, 0),
            (551, 695, 2),
            (617, 630, 1),
            (724, 785, 1),
            (836, 846, 0),
            (852, 860, 1),
            (905, 951, 1),
            (971, 1023, 0),
        ]
        .map(|(start_offset, end_offset, count)| Range {
            start_offset,
            end_offset,
            count,
        });
        let counts =
            Remapper::new(&map).counts(&generated, ranges.into_iter(), &[Some(source.to_owned())]);
        let expected: BTreeMap<u32, u64> = (1..=15).map(|l| (l, u64::from(l <= 12))).collect();
        assert_eq!(counts.get(&0), Some(&expected));
    }
}
