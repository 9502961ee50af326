//! node's and tsx's coverage: V8 writes one JSON file per process into `NODE_V8_COVERAGE`
//! (block coverage: per function, ranges of source offsets with their counts, innermost
//! last). A script's lines get counts as node's `--experimental-test-coverage` gives them: a
//! line takes the count of the last range that covers it whole, an empty line counts as run
//! unless a range with no hits covers it. Scripts are `file://` URLs; the rest (node's own,
//! `eval`) is passed over.
use crate::coverage::Lang;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The variable naming the folder V8 writes to.
pub(crate) const VAR: &str = "NODE_V8_COVERAGE";

#[derive(Deserialize)]
struct Process {
    result: Vec<Script>,
}

#[derive(Deserialize)]
struct Script {
    url: String,
    functions: Vec<Function>,
}

#[derive(Deserialize)]
struct Function {
    ranges: Vec<Range>,
}

#[derive(Deserialize, Clone, Copy)]
#[serde(rename_all = "camelCase")]
struct Range {
    start_offset: usize,
    end_offset: usize,
    count: u64,
}

/// Every script file of every process that wrote into `dir`, with its lines' counts.
pub(crate) fn read(dir: &Path) -> Vec<super::Measured> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut names: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    names.sort();
    let mut out = Vec::new();
    for name in names
        .iter()
        .filter(|n| n.extension().is_some_and(|e| e == "json"))
    {
        let Some(process) = std::fs::read(name)
            .ok()
            .and_then(|bytes| serde_json::from_slice::<Process>(&bytes).ok())
        else {
            continue;
        };
        for script in process.result {
            let Some(path) = file_path(&script.url) else {
                continue;
            };
            // Read as bytes: V8's offsets are of the script as node read it, which for the
            // ASCII most code is equals UTF-16 units; a file gone since is passed over.
            let Ok(source) = std::fs::read_to_string(&path) else {
                continue;
            };
            out.push((path, Lang::Node, lines(&source, &script.functions)));
        }
    }
    out
}

/// The path of a `file://` URL, percent-decoded.
fn file_path(url: &str) -> Option<PathBuf> {
    let rest = url.strip_prefix("file://")?;
    let bytes = rest.as_bytes();
    let mut decoded = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        match (
            bytes[i],
            bytes.get(i + 1).copied(),
            bytes.get(i + 2).copied(),
        ) {
            (b'%', Some(a), Some(b)) if hex(a).is_some() && hex(b).is_some() => {
                decoded.push((hex(a)? * 16 + hex(b)?) as u8);
                i += 3;
            }
            (b, _, _) => {
                decoded.push(b);
                i += 1;
            }
        }
    }
    use std::os::unix::ffi::OsStringExt;
    Some(PathBuf::from(std::ffi::OsString::from_vec(decoded)))
}

/// One line of the script: its offsets without the line break, and its count so far.
struct Line {
    start: usize,
    end: usize,
    count: u64,
}

/// Each line's count, by node's rule. Offsets are in UTF-16 units, as V8 counts them.
fn lines(source: &str, functions: &[Function]) -> BTreeMap<u32, u64> {
    let mut lines = Vec::new();
    let mut offset = 0;
    for text in source.split_inclusive('\n') {
        let units: usize = text.chars().map(char::len_utf16).sum();
        let newline = if text.ends_with("\r\n") {
            2
        } else {
            usize::from(text.ends_with('\n'))
        };
        let (start, end) = (offset, offset + units - newline);
        lines.push(Line {
            start,
            end,
            count: u64::from(start == end),
        });
        offset += units;
    }
    for range in functions.iter().flat_map(|f| &f.ranges) {
        // The lines are in order: the first that could be inside the range is found by
        // halving, then the range's lines are walked.
        let first = lines.partition_point(|l| l.end < range.start_offset);
        for line in &mut lines[first..] {
            if range.end_offset <= line.start {
                break;
            }
            if range.start_offset <= line.start && range.end_offset >= line.end {
                line.count = range.count;
            }
        }
    }
    (lines.iter().enumerate())
        .map(|(i, l)| (i as u32 + 1, l.count))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn range(start: usize, end: usize, count: u64) -> Range {
        Range {
            start_offset: start,
            end_offset: end,
            count,
        }
    }

    #[test]
    fn lines_take_the_innermost_range_that_covers_them_whole() {
        // What V8 reported for this file when a test called `used` only.
        let source = "// Adds and doubles.\nfunction used(a, b) {\n  return a + b;\n}\n\nfunction unused(a) {\n  const doubled = a * 2;\n  return doubled;\n}\n\nmodule.exports = { used, unused };\n";
        let functions = vec![
            Function {
                ranges: vec![range(0, 164, 1)],
            },
            Function {
                ranges: vec![range(21, 60, 1)],
            },
            Function {
                ranges: vec![range(62, 127, 0)],
            },
        ];
        let counted = lines(source, &functions);
        let expected: BTreeMap<u32, u64> = [1, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1]
            .iter()
            .enumerate()
            .map(|(i, &c)| (i as u32 + 1, c))
            .collect();
        // node --test --experimental-test-coverage --test-reporter=lcov says the same.
        assert_eq!(counted, expected);
        assert_eq!(
            file_path("file:///p/a%20b.js"),
            Some(PathBuf::from("/p/a b.js"))
        );
        assert_eq!(file_path("node:fs"), None);
    }
}
