//! A failure's places in built JavaScript mapped to the source they were built from, as node's
//! `--enable-source-maps` maps them: a producer that ran `dist/x.js` without it (node-tap's
//! YAML `at:` and `stack:`, any stack) names `dist/x.js:15:7`, where the user wrote
//! `src/x.ts:17:5`. A place is mapped when its file is a `.js`, `.mjs` or `.cjs` file here
//! (relative to the project root, or the working folder for `parse`), not under
//! `node_modules/`, whose last line is `//# sourceMappingURL=NAME` naming a map file beside
//! it (a `data:` map inline in the file is not read, nor a URL); places the map does not
//! know, and files without one, stay as they came. A stream that went through such a loader
//! already (tap runs with `--enable-source-maps`) names the source, and nothing here changes.
use crate::util::source_map::SourceMap;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// Built files larger than this are not read for their map's name.
const LIMIT: u64 = 16 * 1024 * 1024;

/// The maps read while mapping one failure, by built file (`None`: it has none).
pub(crate) struct Maps<'r> {
    root: Option<&'r Path>,
    read: HashMap<String, Option<SourceMap>>,
}

impl<'r> Maps<'r> {
    /// Places relative to `root` (or the working folder) are read there.
    pub(crate) fn new(root: Option<&'r Path>) -> Self {
        Maps {
            root,
            read: HashMap::new(),
        }
    }

    /// `file:line:column` mapped to its source's place, or `None` when it maps nowhere.
    pub(crate) fn place(&mut self, location: &str) -> Option<String> {
        let (file, line, column) = split(location)?;
        let map = self.map(file)?;
        Some(map.lookup(line, column)?.to_string())
    }

    /// Each frame of `stack` whose place maps, mapped; the other lines as they are.
    pub(crate) fn stack(&mut self, stack: &str) -> String {
        let mut out = String::with_capacity(stack.len());
        for (i, line) in stack.split('\n').enumerate() {
            if i > 0 {
                out.push('\n');
            }
            match frame_place(line).and_then(|(at, place)| Some((at, self.place(place)?))) {
                Some(((start, end), mapped)) => {
                    out.push_str(&line[..start]);
                    out.push_str(&mapped);
                    out.push_str(&line[end..]);
                }
                None => out.push_str(line),
            }
        }
        out
    }

    /// node-tap's `source:` excerpt at a mapped place, as tap prints it under
    /// `--enable-source-maps`: two lines before it, its line, a `--^` under its column, two
    /// lines after (the built file's excerpt, which tap gave, shows code the user never wrote).
    pub(crate) fn excerpt(&self, location: &str) -> Option<String> {
        let (file, line, column) = split(location)?;
        let base = match self.root {
            Some(root) => root.to_path_buf(),
            None => std::env::current_dir().ok()?,
        };
        let path = base.join(file);
        if !std::fs::metadata(&path).is_ok_and(|m| m.is_file() && m.len() <= LIMIT) {
            return None;
        }
        let text = std::fs::read_to_string(path).ok()?;
        let lines: Vec<&str> = text.lines().collect();
        let at = (line as usize)
            .checked_sub(1)
            .filter(|&i| i < lines.len())?;
        let mut out = String::new();
        for l in &lines[at.saturating_sub(2)..=at] {
            out.push_str(l);
            out.push('\n');
        }
        out.push_str(&"-".repeat(column.saturating_sub(1) as usize));
        out.push_str("^\n");
        for l in lines.iter().skip(at + 1).take(2) {
            out.push_str(l);
            out.push('\n');
        }
        Some(out)
    }

    fn map(&mut self, file: &str) -> Option<&SourceMap> {
        let built = file.ends_with(".js") || file.ends_with(".mjs") || file.ends_with(".cjs");
        if !built || file.contains("node_modules/") {
            return None;
        }
        if !self.read.contains_key(file) {
            let map = self.read_map(file);
            self.read.insert(file.to_owned(), map);
        }
        self.read.get(file)?.as_ref()
    }

    fn read_map(&self, file: &str) -> Option<SourceMap> {
        let base = match self.root {
            Some(root) => root.to_path_buf(),
            None => std::env::current_dir().ok()?,
        };
        let path = base.join(file.strip_prefix("file://").unwrap_or(file));
        if !std::fs::metadata(&path).is_ok_and(|m| m.is_file() && m.len() <= LIMIT) {
            return None;
        }
        let text = std::fs::read_to_string(&path).ok()?;
        let name = map_name(&text)?;
        let map: PathBuf = path.parent()?.join(name);
        // Sources shown as the project names them: relative to its root (or the working
        // folder), as node-tap names the built file.
        SourceMap::read(&map, &base).ok()
    }
}

/// The map file named by the last non-empty line's `//# sourceMappingURL=`: a name or a
/// relative path, never a `data:` map or a URL.
fn map_name(text: &str) -> Option<&str> {
    let last = text.lines().rev().find(|l| !l.trim().is_empty())?;
    let name = (last.trim())
        .strip_prefix("//# sourceMappingURL=")
        .or_else(|| last.trim().strip_prefix("//@ sourceMappingURL="))?
        .trim();
    (!name.is_empty() && !name.contains(':')).then_some(name)
}

/// `file`, line and column (1-based) of `file:line:column`.
fn split(location: &str) -> Option<(&str, u32, u32)> {
    let mut parts = location.rsplitn(3, ':');
    let column = parts.next()?.parse().ok()?;
    let line = parts.next()?.parse().ok()?;
    Some((parts.next()?, line, column))
}

/// The byte range and text of a stack line's place: inside its last `(…)`
/// (`Test.<anonymous> (dist/x.js:15:7)`), or the line after `at ` (`at dist/x.js:3:1`).
fn frame_place(line: &str) -> Option<((usize, usize), &str)> {
    let trimmed = line.trim_end();
    let (start, end) = match trimmed.strip_suffix(')') {
        Some(inner) => (inner.rfind('(')? + 1, inner.len()),
        None => {
            let lead = trimmed.len() - trimmed.trim_start().len();
            let body = &trimmed[lead..];
            let skip = if body.starts_with("at ") { 3 } else { 0 };
            (lead + skip, trimmed.len())
        }
    };
    let place = line.get(start..end)?;
    split(place)?;
    Some(((start, end), place))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_map_is_named_by_the_last_line_and_never_inline() {
        assert_eq!(
            map_name("x\n//# sourceMappingURL=x.js.map\n"),
            Some("x.js.map")
        );
        assert_eq!(
            map_name("//# sourceMappingURL=data:application/json;base64,e30="),
            None
        );
        assert_eq!(map_name("//# sourceMappingURL=x.js.map\nlater();\n"), None);
    }

    #[test]
    fn a_frames_place_is_found_in_its_parentheses_or_after_at() {
        let line = "    Test.<anonymous> (dist/x.js:15:7)";
        let ((s, e), place) = frame_place(line).expect("a place");
        assert_eq!(
            (place, &line[..s], &line[e..]),
            ("dist/x.js:15:7", "    Test.<anonymous> (", ")")
        );
        assert_eq!(
            frame_place("  at dist/x.js:3:1").map(|p| p.1),
            Some("dist/x.js:3:1")
        );
        assert_eq!(frame_place("Error: boom"), None);
    }

    /// tsc's map of `src/maps.ts` (test-data/producers/node-tap/dist/): the places node's
    /// `--enable-source-maps` gives for the same stack.
    #[test]
    fn built_places_map_to_the_source_as_node_maps_them() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("test-data/producers/node-tap");
        let mut maps = Maps::new(Some(&root));
        assert_eq!(
            maps.place("dist/maps.js:15:7").as_deref(),
            Some("src/maps.ts:17:5")
        );
        assert_eq!(
            maps.stack("Test.<anonymous> (dist/maps.js:15:7)\nObject.<anonymous> (dist/maps.js:13:15)\nnode:internal/x (node:internal/x:1:1)"),
            "Test.<anonymous> (src/maps.ts:17:5)\nObject.<anonymous> (src/maps.ts:15:3)\nnode:internal/x (node:internal/x:1:1)"
        );
        assert_eq!(
            maps.place("src/maps.ts:17:5"),
            None,
            "a source is no built file"
        );
        assert_eq!(maps.place("dist/absent.js:1:1"), None);
        assert_eq!(
            maps.excerpt("src/maps.ts:17:5").as_deref(),
            Some("t.test('points', async t => {\n  const p: Point = { x: 1, y: 2 }\n  t.same(moved(p, 1), { x: 2, y: 3 }, 'moves both')\n----^\n})\n")
        );
    }
}
