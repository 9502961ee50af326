//! V8's coverage, of node and of what runs over it: V8 writes one JSON file per process into
//! the folder node's coverage variable names (the node room's engine sets it)
//! (block coverage: per function, ranges of source offsets with their counts, innermost
//! last). A script's lines get counts as node's `--experimental-test-coverage` gives them: a
//! line takes the count of the last range that covers it whole, an empty line counts as run
//! unless a range with no hits covers it. Scripts are `file://` URLs; the rest (node's own,
//! `eval`) is passed over.
//!
//! A script with a source map (node writes the maps it knows into the file's
//! `source-map-cache` once they are enabled: a TypeScript loader enables them, as does
//! `--enable-source-maps`) is counted in its sources instead, as c8 counts it
//! ([`super::remap`]): a TypeScript test gets the hits, line for line as c8 gives them, not
//! the JavaScript its loader made of it. A page's coverage is written here in the same form,
//! by the page host.
use crate::coverage::Lang;
use crate::util::paths::from_file_url;
use serde::Deserialize;
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

#[derive(Deserialize)]
struct Process {
    result: Vec<Script>,
    /// The source maps of the process's scripts, by URL.
    #[serde(rename = "source-map-cache", default)]
    maps: HashMap<String, Cached>,
    /// Who measured: absent for node, `browser` for a page (tapline's own field).
    #[serde(rename = "tapline-lang", default)]
    lang: Option<Lang>,
}

/// A `source-map-cache` entry.
#[derive(Deserialize)]
struct Cached {
    /// The generated script's line lengths (UTF-16 units), which V8's offsets count in.
    #[serde(rename = "lineLengths", default)]
    line_lengths: Option<Vec<usize>>,
    /// The map itself.
    data: Option<serde_json::Value>,
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

/// A block's source offsets (UTF-16 units) and how often it ran.
#[derive(Deserialize, Clone, Copy)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Range {
    pub(crate) start_offset: usize,
    pub(crate) end_offset: usize,
    pub(crate) count: u64,
}

/// Every script file of every process that wrote into `dir`, with its lines' counts.
pub(crate) fn read(dir: &Path, default: &Lang) -> Vec<super::Measured> {
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
        let lang = process.lang.unwrap_or_else(|| default.clone());
        for script in process.result {
            let Some(path) = from_file_url(&script.url) else {
                continue;
            };
            if let Some(cached) = process.maps.get(&script.url) {
                out.extend(mapped(&path, cached, &script.functions, &lang));
                continue;
            }
            // A file gone since is passed over.
            let Ok(source) = std::fs::read_to_string(&path) else {
                continue;
            };
            out.push((path, lang.clone(), lines(&source, &script.functions)));
        }
    }
    out
}

/// The sources of a script with a source map, counted through it; nothing when the map or
/// the generated script's lines cannot be had.
fn mapped(
    path: &Path,
    cached: &Cached,
    functions: &[Function],
    lang: &Lang,
) -> Vec<super::Measured> {
    let base = path.parent().unwrap_or(Path::new("/"));
    let Some(map) = (cached.data.clone())
        .and_then(|data| crate::util::source_map::SourceMap::from_value(data, base, base).ok())
    else {
        return Vec::new();
    };
    let generated = match &cached.line_lengths {
        Some(lengths) => Lines::of_lengths(lengths),
        None => match std::fs::read_to_string(path) {
            Ok(text) => Lines::of_source(text.trim_end()),
            Err(_) => return Vec::new(),
        },
    };
    // A source in a dependency folder is never measured: not read at all.
    let sources: Vec<Option<String>> = (map.paths().iter())
        .map(|p| {
            let dependency = (p.components()).any(|c| {
                crate::harness::registry::dependency_folders().any(|d| c.as_os_str() == d)
            });
            (!dependency)
                .then(|| std::fs::read_to_string(p).ok())
                .flatten()
        })
        .collect();
    let ranges = functions.iter().flat_map(|f| &f.ranges).copied();
    let counts = super::remap::Remapper::new(&map).counts(&generated, ranges, &sources);
    (counts.into_iter())
        .filter_map(|(i, lines)| Some((map.paths().get(i as usize)?.clone(), lang.clone(), lines)))
        .collect()
}

/// One line of a script: its offsets without the line break, and its count so far.
struct Line {
    start: usize,
    end: usize,
    count: u64,
}

/// A script's lines, in UTF-16 units as V8 counts offsets, and their counts.
pub(crate) struct Lines(Vec<Line>);

impl Lines {
    /// The lines of `source`, counted as node counts them before any range: an empty line as
    /// run, any other as not.
    fn of_node_script(source: &str) -> Lines {
        let mut lines = Lines::of_source(source);
        for line in &mut lines.0 {
            line.count = u64::from(line.start == line.end);
        }
        lines
    }

    /// The lines of `source`, each counted as run before any range (c8's start).
    pub(crate) fn of_source(source: &str) -> Lines {
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
                count: 1,
            });
            offset += units;
        }
        Lines(lines)
    }

    /// Lines of these lengths, each ended by one line break (node's `lineLengths` of a script
    /// it compiled from a transpiler's output), without the empty lines at the end (c8 trims
    /// the text it builds from them).
    pub(crate) fn of_lengths(lengths: &[usize]) -> Lines {
        let kept = lengths.iter().rposition(|&l| l > 0).map_or(0, |i| i + 1);
        let mut offset = 0;
        let lines = (lengths[..kept].iter())
            .map(|&len| {
                let line = Line {
                    start: offset,
                    end: offset + len,
                    count: 1,
                };
                offset += len + 1;
                line
            })
            .collect();
        Lines(lines)
    }

    /// The offset the text ends at.
    pub(crate) fn eof(&self) -> i64 {
        self.0.last().map_or(0, |l| l.end as i64)
    }

    /// The lines `start..end` touches as v8-to-istanbul's `sliceRange` finds them (`start`
    /// before the line's end, `end` at or after its start), each as (number, start offset).
    pub(crate) fn slice(&self, start: i64, end: i64) -> Vec<(u32, i64)> {
        let first = self.0.partition_point(|l| (l.end as i64) <= start);
        (self.0[first..].iter().enumerate())
            .take_while(|(_, l)| end >= l.start as i64)
            .map(|(i, l)| ((first + i) as u32 + 1, l.start as i64))
            .collect()
    }

    /// The offset of `column` on `line` (1-based), kept within the line; past the last line,
    /// the end of the text (v8-to-istanbul's `relativeToOffset`).
    pub(crate) fn offset(&self, line: u32, column: i64) -> i64 {
        match self.0.get(line.max(1) as usize - 1) {
            Some(l) => (l.start as i64).saturating_add(column).min(l.end as i64),
            None => self.eof(),
        }
    }

    /// c8's rule for a range of the source: each line of [`Self::slice`] it covers whole takes
    /// its count.
    pub(crate) fn cover_as_c8(&mut self, start: i64, end: i64, count: u64) {
        let first = self.0.partition_point(|l| (l.end as i64) <= start);
        for line in &mut self.0[first..] {
            if end < line.start as i64 {
                break;
            }
            if start <= line.start as i64 && end >= line.end as i64 {
                line.count = count;
            }
        }
    }

    /// node's rule for a range of the script: each line it covers whole takes its count.
    fn cover(&mut self, range: &Range) {
        // The lines are in order: the first that could be inside the range is found by
        // halving, then the range's lines are walked.
        let first = self.0.partition_point(|l| l.end < range.start_offset);
        for line in &mut self.0[first..] {
            if range.end_offset <= line.start {
                break;
            }
            if range.start_offset <= line.start && range.end_offset >= line.end {
                line.count = range.count;
            }
        }
    }

    pub(crate) fn counts(&self) -> BTreeMap<u32, u64> {
        (self.0.iter().enumerate())
            .map(|(i, l)| (i as u32 + 1, l.count))
            .collect()
    }
}

/// Each line's count, by node's rule. Offsets are in UTF-16 units, as V8 counts them.
fn lines(source: &str, functions: &[Function]) -> BTreeMap<u32, u64> {
    let mut lines = Lines::of_node_script(source);
    for range in functions.iter().flat_map(|f| &f.ranges) {
        lines.cover(range);
    }
    lines.counts()
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
    }

    /// A script with a map is counted in its source, by the name the map gives; a map that is
    /// no map, or a source gone, leaves the script out without failing the rest.
    #[test]
    fn a_mapped_script_is_counted_in_its_source() {
        let dir = tempfile::tempdir().expect("tempdir");
        let src = dir.path().join("a.ts");
        std::fs::write(&src, "const a: number = 1;\n").expect("write");
        let url = |name: &str| format!("file://{}/{name}", dir.path().display());
        let map =
            serde_json::json!({ "version": 3, "sources": ["a.ts"], "mappings": "AAAA,MAAM,EAAa" });
        let process = serde_json::json!({
            "result": [
                { "url": url("a.js"), "functions": [{ "ranges": [{ "startOffset": 0, "endOffset": 12, "count": 1 }] }] },
                { "url": url("b.js"), "functions": [] },
                { "url": url("gone.js"), "functions": [] },
            ],
            "source-map-cache": {
                url("a.js"): { "lineLengths": [11, 0], "data": map },
                url("b.js"): { "lineLengths": [3], "data": "no map" },
                url("gone.js"): { "lineLengths": [3], "data": { "sources": ["gone.ts"], "mappings": "AAAA" } },
            },
            "tapline-lang": "browser",
        });
        let out = dir.path().join("out");
        std::fs::create_dir(&out).expect("mkdir");
        std::fs::write(out.join("p.json"), process.to_string()).expect("write");
        let read = read(&out, &Lang::new("default"));
        assert_eq!(
            read,
            vec![(src, Lang::new("browser"), BTreeMap::from([(1, 1)]))]
        );
    }
}
