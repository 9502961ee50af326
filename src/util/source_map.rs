//! A bundle's source map (v3), decoded to map a stack's `bundle.js:LINE:COL` frames back to
//! the source file a test's author wrote (`test/foo.browser.ts:12:5`), and, for coverage, read
//! segment by segment (the run's `coverage::remap`).
//!
//! Written here rather than taken from a crate: the whole job is the base64 VLQ `mappings`
//! string and a binary search per frame (~100 lines), while the source-map crates carry
//! generation, index maps and URL handling tapline has no use for. Only the v3 fields esbuild
//! writes are read (`sources`, `mappings`, `sourceRoot`); `names` is not needed to name a
//! place. A map that cannot be decoded maps nothing: the stack is shown as the page gave it.
use crate::util::paths::{from_file_url, normalize};
use serde::Deserialize;
use std::path::{Path, PathBuf};

/// One decoded mapping: a place in the bundle and the place in a source it came from (all
/// 0-based, as the format counts). A one-field segment (`mapped` false) maps its column to
/// no source: kept, since a lookup landing on it finds nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Segment {
    pub(crate) column: u32,
    pub(crate) source: u32,
    pub(crate) line: u32,
    pub(crate) source_column: u32,
    pub(crate) mapped: bool,
}

/// A decoded source map: per generated line, its segments in column order.
#[derive(Debug, Clone)]
pub(crate) struct SourceMap {
    /// Each source as a display path: relative to the project root when under it.
    sources: Vec<String>,
    /// Each source as an absolute path (a `file://` source decoded), normalized by name.
    paths: Vec<PathBuf>,
    lines: Vec<Vec<Segment>>,
}

/// A place in a source file, 1-based as stacks and editors count.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Place {
    pub file: String,
    pub line: u32,
    pub column: u32,
}

impl std::fmt::Display for Place {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}:{}", self.file, self.line, self.column)
    }
}

#[derive(Deserialize)]
struct Raw {
    #[serde(default)]
    sources: Vec<String>,
    #[serde(default)]
    mappings: String,
    #[serde(default, rename = "sourceRoot")]
    source_root: Option<String>,
}

#[derive(Debug, thiserror::Error)]
pub(crate) enum MapError {
    #[error("failed to read the source map {path}: {reason}")]
    Read { path: PathBuf, reason: String },
    #[error("failed to decode the source map's mappings at byte {0}")]
    Mappings(usize),
}

impl SourceMap {
    /// Reads the map esbuild wrote at `path`; its sources are relative to the map's folder and
    /// are shown relative to `project_root` when under it.
    pub(crate) fn read(path: &Path, project_root: &Path) -> Result<SourceMap, MapError> {
        let read_err = |reason: String| MapError::Read {
            path: path.to_owned(),
            reason,
        };
        let text = std::fs::read_to_string(path).map_err(|e| read_err(e.to_string()))?;
        let base = path.parent().unwrap_or(Path::new(""));
        SourceMap::parse(&text, base, project_root).map_err(|e| match e {
            MapError::Read { reason, .. } => read_err(reason),
            other => other,
        })
    }

    /// Decodes the map's JSON; `base` is the folder its relative sources start from.
    pub(crate) fn parse(
        json: &str,
        base: &Path,
        project_root: &Path,
    ) -> Result<SourceMap, MapError> {
        let raw: Raw = serde_json::from_str(json).map_err(not_a_map)?;
        SourceMap::decoded(raw, base, project_root)
    }

    /// A map given as JSON already (node's `source-map-cache`); `base` as for [`Self::parse`].
    pub(crate) fn from_value(
        value: serde_json::Value,
        base: &Path,
        project_root: &Path,
    ) -> Result<SourceMap, MapError> {
        let raw: Raw = serde_json::from_value(value).map_err(not_a_map)?;
        SourceMap::decoded(raw, base, project_root)
    }

    fn decoded(raw: Raw, base: &Path, project_root: &Path) -> Result<SourceMap, MapError> {
        let root = raw.source_root.unwrap_or_default();
        let paths: Vec<PathBuf> = (raw.sources.iter())
            .map(|s| {
                let joined = format!("{root}{s}");
                match from_file_url(&joined) {
                    Some(path) => normalize(&path),
                    None => normalize(&base.join(&root).join(s)),
                }
            })
            .collect();
        let sources = (paths.iter())
            .map(|path| display_source(path, project_root))
            .collect();
        Ok(SourceMap {
            sources,
            paths,
            lines: decode_mappings(&raw.mappings)?,
        })
    }

    /// The sources' paths, by index (absolute when the map's base was).
    pub(crate) fn paths(&self) -> &[PathBuf] {
        &self.paths
    }

    /// The segments of generated line `line` (0-based), in column order.
    pub(crate) fn segments(&self, line: usize) -> &[Segment] {
        self.lines.get(line).map_or(&[], Vec::as_slice)
    }

    /// How many generated lines the mappings name.
    pub(crate) fn line_count(&self) -> usize {
        self.lines.len()
    }

    /// Where the bundle's `line`:`column` (1-based, as a stack names them) came from: the
    /// last mapping at or before that column on that line.
    pub(crate) fn lookup(&self, line: u32, column: u32) -> Option<Place> {
        let segments = self.lines.get(line.checked_sub(1)? as usize)?;
        let column = column.saturating_sub(1);
        let at = segments.partition_point(|s| s.column <= column);
        let seg = segments[..at].iter().rev().find(|s| s.mapped)?;
        Some(Place {
            file: self.sources.get(seg.source as usize)?.clone(),
            line: seg.line + 1,
            column: seg.source_column + 1,
        })
    }
}

/// JSON that is no source map (the path is filled in by the caller that knows it).
fn not_a_map(e: serde_json::Error) -> MapError {
    MapError::Read {
        path: PathBuf::new(),
        reason: e.to_string(),
    }
}

/// `path` (normalized) relative to `project_root` when under it (lexically: esbuild wrote it
/// from absolute paths), else as it is.
fn display_source(path: &Path, project_root: &Path) -> String {
    let shown = path.strip_prefix(normalize(project_root)).unwrap_or(path);
    shown.to_string_lossy().into_owned()
}

/// Decodes the `mappings` string: `;` ends a generated line, `,` separates segments, each
/// segment is 1, 4 or 5 base64 VLQ numbers, each relative to the same field of the segment
/// before (the generated column only within its line). One-field segments map to nothing.
fn decode_mappings(mappings: &str) -> Result<Vec<Vec<Segment>>, MapError> {
    let bytes = mappings.as_bytes();
    let mut lines = vec![Vec::new()];
    let (mut source, mut line, mut source_column) = (0i64, 0i64, 0i64);
    let mut column = 0i64;
    let mut at = 0;
    while at < bytes.len() {
        match bytes[at] {
            b';' => {
                lines.push(Vec::new());
                column = 0;
                at += 1;
            }
            b',' => at += 1,
            _ => {
                let mut fields = [0i64; 5];
                let mut n = 0;
                while at < bytes.len() && !matches!(bytes[at], b',' | b';') {
                    if n == fields.len() {
                        return Err(MapError::Mappings(at));
                    }
                    let (value, next) = vlq(bytes, at).ok_or(MapError::Mappings(at))?;
                    fields[n] = value;
                    n += 1;
                    at = next;
                }
                column += fields[0];
                if n < 4 {
                    let column = u32::try_from(column).map_err(|_| MapError::Mappings(at))?;
                    let seg = Segment {
                        column,
                        source: 0,
                        line: 0,
                        source_column: 0,
                        mapped: false,
                    };
                    lines.last_mut().expect("one line at least").push(seg);
                } else {
                    source += fields[1];
                    line += fields[2];
                    source_column += fields[3];
                    let field = |v: i64| u32::try_from(v).map_err(|_| MapError::Mappings(at));
                    let seg = Segment {
                        column: field(column)?,
                        source: field(source)?,
                        line: field(line)?,
                        source_column: field(source_column)?,
                        mapped: true,
                    };
                    lines.last_mut().expect("one line at least").push(seg);
                }
            }
        }
    }
    // Segments come in column order; sort anyway (stably), lookup's binary search relies on it.
    for segments in &mut lines {
        segments.sort_by_key(|s| s.column);
    }
    Ok(lines)
}

/// One base64 VLQ number starting at `at`: 5 bits a digit, least significant first, bit 6
/// says another digit follows; the lowest bit of the result is the sign.
fn vlq(bytes: &[u8], mut at: usize) -> Option<(i64, usize)> {
    let mut value: i64 = 0;
    let mut shift = 0;
    loop {
        let digit = base64(*bytes.get(at)?)?;
        at += 1;
        value |= i64::from(digit & 31).checked_shl(shift)?;
        if digit & 32 == 0 {
            break;
        }
        shift += 5;
        if shift > 60 {
            return None;
        }
    }
    let magnitude = value >> 1;
    Some((
        if value & 1 == 1 {
            -magnitude
        } else {
            magnitude
        },
        at,
    ))
}

fn base64(c: u8) -> Option<u8> {
    Some(match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        b'/' => 63,
        _ => return None,
    })
}

/// Rewrites every `…/ENTRY:LINE:COL` in `stack` (a frame of the bundle, whatever the URL's
/// host and port) to the source place it came from. Frames the map does not know, and every
/// other line, are kept as they are.
pub(crate) fn map_stack(stack: &str, entry: &str, map: &SourceMap) -> String {
    let mut out = String::with_capacity(stack.len());
    for (i, line) in stack.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        match map_frame(line, entry, map) {
            Some(mapped) => out.push_str(&mapped),
            None => out.push_str(line),
        }
    }
    out
}

/// The first frame of `stack` that maps into a source: where an uncaught error was thrown.
pub(crate) fn first_place(stack: &str, entry: &str, map: &SourceMap) -> Option<Place> {
    stack.lines().find_map(|line| {
        let (_, _, l, c) = frame_location(line, entry)?;
        map.lookup(l, c)
    })
}

fn map_frame(line: &str, entry: &str, map: &SourceMap) -> Option<String> {
    let (start, end, l, c) = frame_location(line, entry)?;
    let place = map.lookup(l, c)?;
    Some(format!("{}{place}{}", &line[..start], &line[end..]))
}

/// Where in `line` the bundle's location sits (`http://127.0.0.1:4000/ENTRY:12:5`), as the
/// byte range of that whole URL-and-place and its line and column.
fn frame_location(line: &str, entry: &str) -> Option<(usize, usize, u32, u32)> {
    let entry_at = line.find(entry)?;
    let after = entry_at + entry.len();
    let rest = &line[after..];
    let (l, rest) = number_after_colon(rest)?;
    let (c, rest) = number_after_colon(rest)?;
    let end = line.len() - rest.len();
    // The URL starts after the frame's `(`, `@` or space.
    let start = line[..entry_at].rfind(['(', ' ', '@']).map_or(0, |i| i + 1);
    Some((start, end, l, c))
}

fn number_after_colon(s: &str) -> Option<(u32, &str)> {
    let s = s.strip_prefix(':')?;
    let digits = s.bytes().take_while(u8::is_ascii_digit).count();
    Some((s[..digits].parse().ok()?, &s[digits..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every value VLQ can carry in a map decodes to itself (encoded the format's way).
    fn encode(value: i64) -> String {
        const B64: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        let mut v = if value < 0 {
            (-value << 1) | 1
        } else {
            value << 1
        };
        let mut out = String::new();
        loop {
            let mut digit = v & 31;
            v >>= 5;
            if v > 0 {
                digit |= 32;
            }
            out.push(B64[digit as usize] as char);
            if v == 0 {
                return out;
            }
        }
    }

    #[test]
    fn vlq_round_trips() {
        for value in [
            0,
            1,
            -1,
            15,
            16,
            -16,
            31,
            32,
            1000,
            -1000,
            123_456_789,
            -(1 << 40),
        ] {
            let text = encode(value);
            assert_eq!(
                vlq(text.as_bytes(), 0),
                Some((value, text.len())),
                "{value} as {text}"
            );
        }
        // Known encodings from the format's own examples.
        assert_eq!(vlq(b"A", 0), Some((0, 1)));
        assert_eq!(vlq(b"C", 0), Some((1, 1)));
        assert_eq!(vlq(b"D", 0), Some((-1, 1)));
        assert_eq!(vlq(b"gB", 0), Some((16, 2)));
    }

    #[test]
    fn bad_mappings_are_errors_not_panics() {
        assert!(decode_mappings("A!").is_err());
        assert!(
            decode_mappings("g").is_err(),
            "a continuation with nothing after"
        );
        assert!(decode_mappings("AAAAAA").is_err(), "six fields");
        assert!(decode_mappings("AAAD").is_err(), "a negative column");
        assert!(vlq(b"gggggggggggggggggA", 0).is_none(), "past 64 bits");
    }

    fn sample() -> SourceMap {
        // Line 1: col 0 -> a.ts 1:1; col 10 -> a.ts 2:5. Line 2: nothing. Line 3: col 4 ->
        // b.ts 7:3, and a one-field segment at col 8 (maps nothing, dropped).
        let mappings = format!(
            "{},{};;{},{}",
            ["A", "A", "A", "A"].concat(),
            [encode(10), encode(0), encode(1), encode(4)].concat(),
            [encode(4), encode(1), encode(5), encode(-2)].concat(),
            encode(4),
        );
        let json = serde_json::json!({
            "version": 3,
            "sources": ["../proj/test/a.ts", "../proj/lib/b.ts"],
            "mappings": mappings,
        });
        SourceMap::parse(
            &json.to_string(),
            Path::new("/tmp/out"),
            Path::new("/tmp/proj"),
        )
        .expect("decodes")
    }

    #[test]
    fn lookup_takes_the_last_mapping_at_or_before_the_column() {
        let map = sample();
        let at = |l, c| map.lookup(l, c).map(|p| p.to_string());
        assert_eq!(at(1, 1).as_deref(), Some("test/a.ts:1:1"));
        assert_eq!(at(1, 10).as_deref(), Some("test/a.ts:1:1"));
        assert_eq!(at(1, 11).as_deref(), Some("test/a.ts:2:5"));
        assert_eq!(at(1, 500).as_deref(), Some("test/a.ts:2:5"));
        assert_eq!(at(2, 1), None, "an empty line");
        assert_eq!(at(3, 4), None, "before the line's first mapping");
        assert_eq!(at(3, 5).as_deref(), Some("lib/b.ts:7:3"));
        assert_eq!(at(3, 20).as_deref(), Some("lib/b.ts:7:3"));
        assert_eq!(at(4, 1), None, "past the last line");
        assert_eq!(at(0, 1), None);
    }

    #[test]
    fn sources_outside_the_project_stay_as_they_are() {
        let json = r#"{"version":3,"sources":["../elsewhere/x.js"],"mappings":"AAAA"}"#;
        let map = SourceMap::parse(json, Path::new("/tmp/out"), Path::new("/tmp/proj")).unwrap();
        assert_eq!(map.lookup(1, 1).unwrap().file, "/tmp/elsewhere/x.js");
    }

    /// Regression: a source climbing two folders above a relative base lost both `..`
    /// (`../../lib/x.js` was shown as `lib/x.js`, a file under the base's folder).
    #[test]
    fn a_source_above_a_relative_base_keeps_every_parent() {
        let json = r#"{"version":3,"sources":["../../lib/x.js"],"mappings":"AAAA"}"#;
        let map = SourceMap::parse(json, Path::new(""), Path::new("/tmp/proj")).unwrap();
        assert_eq!(map.lookup(1, 1).unwrap().file, "../../lib/x.js");
        let map = SourceMap::parse(json, Path::new("out/b"), Path::new("/tmp/proj")).unwrap();
        assert_eq!(map.lookup(1, 1).unwrap().file, "lib/x.js");
    }

    #[test]
    fn map_stack_rewrites_bundle_frames_and_keeps_the_rest() {
        let map = sample();
        let stack = "Error: boom\n    at check (http://127.0.0.1:40123/b/test__a.js:1:12)\n    at http://127.0.0.1:40123/b/test__a.js:3:9\n    at other (http://127.0.0.1:40123/elsewhere.js:1:1)\n    at http://127.0.0.1:40123/b/test__a.js:2:1";
        assert_eq!(
            map_stack(stack, "/b/test__a.js", &map),
            "Error: boom\n    at check (test/a.ts:2:5)\n    at lib/b.ts:7:3\n    at other (http://127.0.0.1:40123/elsewhere.js:1:1)\n    at http://127.0.0.1:40123/b/test__a.js:2:1"
        );
        assert_eq!(
            first_place(stack, "/b/test__a.js", &map)
                .map(|p| p.to_string())
                .as_deref(),
            Some("test/a.ts:2:5")
        );
        assert_eq!(first_place("Error: no frames", "/b/test__a.js", &map), None);
    }

    #[test]
    fn frames_without_a_place_are_left_alone() {
        let map = sample();
        for line in [
            "    at http://h/b/test__a.js",
            "    at http://h/b/test__a.js:x:1",
            "/b/test__a.js:1",
        ] {
            assert_eq!(map_stack(line, "/b/test__a.js", &map), line);
        }
    }
}
