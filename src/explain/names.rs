//! Every test point's name path and its stable test ID, by the rule the explanations name a
//! failure with: a stream's headings (`# name` comments, see headings.rs), the enclosing
//! subtests, its own name. [`PointNames`] follows one file's stream as a [`super::FileExplainer`] does (the
//! lines a failure owns are no heading), so a point's ID in `--format jsonl`, history and
//! `tapline list` is the name the terminal shows for it.
use tapline_protocol::event::{Assert, Event, OpenSubtests};

use super::headings::Headings;

use super::trailing::{Step, Trailing};

/// What joins a test ID's parts: the file, then each name outermost first.
pub const SEPARATOR: &str = " > ";

/// The stable ID of a test: `file > outer > inner` (`test/math.test.js > group > adds`), a
/// point without a name by its number (`t/a.t > #3`).
pub fn test_id(file: &str, path: &[String], number: Option<u64>) -> String {
    // `outer > ` (or nothing) then the number, where the last name is empty.
    let mut suffix = path.join(SEPARATOR);
    if path.last().is_none_or(String::is_empty) {
        push_unnamed(&mut suffix, number);
    }
    id_of(file, &suffix)
}

/// The stable ID of a test from its file and its names already joined ([`PointName::path`]).
pub fn id_of(file: &str, path: &str) -> String {
    let mut id = String::with_capacity(file.len() + SEPARATOR.len() + path.len());
    id.push_str(file);
    id.push_str(SEPARATOR);
    id.push_str(path);
    id
}

/// A point without a name stands as its number (`#3`), or `(unnamed)` without one.
pub(crate) fn push_unnamed(out: &mut String, number: Option<u64>) {
    match number {
        Some(n) => {
            use std::fmt::Write;
            let _ = write!(out, "#{n}");
        }
        None => out.push_str("(unnamed)"),
    }
}

/// A point's names as one string: what the ID is after its file. One string, not a list, so
/// naming a point costs one allocation (what a 200,000-point run feels).
#[derive(Debug, Clone, PartialEq)]
pub struct PointName {
    /// The names outermost first joined by [`SEPARATOR`], a point without a name standing as
    /// its number: `group > inner adds`, `outer > #3`.
    pub path: String,
    /// The names themselves, only where `path` does not split back into them at
    /// [`SEPARATOR`] (a name holding ` > `, a point without a name).
    pub parts: Option<Box<[String]>>,
}

impl PointName {
    /// Its names outermost first (a point without a name: its number's stand-in).
    pub fn parts(&self) -> Vec<String> {
        match &self.parts {
            Some(p) => p.to_vec(),
            None => self.path.split(SEPARATOR).map(str::to_owned).collect(),
        }
    }
}

/// Names the test points of one file's stream, fed its events in order.
pub struct PointNames {
    headings: Headings,
    subtests: OpenSubtests,
    /// The failure whose own lines are still arriving: they head nothing. Its first line is
    /// kept, for the failure's first error line.
    trailing: Trailing<()>,
    /// The first trailing line of the failure that just closed.
    closed: Option<String>,
}

impl Default for PointNames {
    fn default() -> Self {
        PointNames {
            headings: Headings::default(),
            subtests: OpenSubtests::default(),
            trailing: Trailing::new(1),
            closed: None,
        }
    }
}

impl PointNames {
    /// One event; for a test point, its names.
    pub fn event(&mut self, event: &Event<'_>) -> Option<PointName> {
        self.follow(event, true)
    }

    /// One event, followed as [`Self::event`] follows it; a test point is named only when
    /// `name`, else its name is empty (a point whose name is not wanted costs no allocation).
    pub fn follow(&mut self, event: &Event<'_>, name: bool) -> Option<PointName> {
        match self.trailing.event(event) {
            Step::Kept => return None,
            Step::Closed((), lines) => self.closed = lines.into_iter().next(),
            Step::Passed => {}
        }
        self.headings.event(event);
        match event {
            Event::SubtestStart { depth, name, .. } => {
                self.subtests.start(*depth, name);
                None
            }
            Event::Assert(a) if name => Some(self.point(a)),
            Event::Assert(a) => {
                self.unnamed(a);
                Some(PointName {
                    path: String::new(),
                    parts: None,
                })
            }
            _ => None,
        }
    }

    /// A point not named: what naming it changes, without the name.
    fn unnamed(&mut self, a: &Assert<'_>) {
        if a.failed_as_printed() || (!a.ok && a.todo.is_some()) {
            self.trailing.open(a, ());
        }
        self.subtests.after(a);
    }

    /// The first line printed after the failing point before this one (a `#` diagnostic, a
    /// traceback), once that failure's lines have ended; taken once.
    pub fn take_trailing_line(&mut self) -> Option<String> {
        self.closed.take()
    }

    fn point(&mut self, a: &Assert<'_>) -> PointName {
        let parents = self.subtests.parents(a.depth);
        let mut name = self.headings.joined(parents, &a.name);
        if a.name.is_empty() {
            // As `test_id` of the names: the empty last name stands as the number.
            let parts = name
                .parts
                .take()
                .map_or_else(|| split_all(&name.path), Vec::from);
            name.parts = Some(parts.into_boxed_slice());
            push_unnamed(&mut name.path, a.id);
        }
        // As the explainer: a failure's (or a failing TODO's) lines after it are its own.
        if a.failed_as_printed() || (!a.ok && a.todo.is_some()) {
            self.trailing.open(a, ());
        }
        self.subtests.after(a);
        name
    }
}

fn split_all(path: &str) -> Vec<String> {
    path.split(SEPARATOR).map(str::to_owned).collect()
}

/// The first line of a failing point's error: its YAML `message:` (or `error:`), else the
/// first line of its diagnostics or of its v2 blocks; `None` when the point says nothing
/// (its trailing output may: [`PointNames::take_trailing_line`]).
pub fn first_error_line<'a>(a: &'a Assert<'_>) -> Option<&'a str> {
    if let Some(yaml) = a.diagnostics.as_deref() {
        let keyed = yaml.lines().find_map(|l| {
            l.strip_prefix("message:")
                .or_else(|| l.strip_prefix("error:"))
                .map(|v| v.trim().trim_matches(|c| c == '\'' || c == '"'))
                .filter(|v| !v.is_empty() && *v != "|-" && *v != "|" && *v != ">-")
        });
        if let Some(v) = keyed {
            return Some(v);
        }
        if let Some(l) = yaml.lines().map(str::trim).find(|l| !l.is_empty()) {
            return Some(l);
        }
    }
    a.blocks
        .iter()
        .flat_map(|b| b.payload.lines())
        .map(str::trim)
        .find(|l| !l.is_empty())
}

/// The hash of a failure's first error line as history keeps it: 16 hex digits of FNV-1a.
pub fn error_hash(line: &str) -> u64 {
    crate::util::fnv1a(line.trim().as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explain::{Explained, FileExplainer};
    use crate::protocol::Parser;

    #[test]
    fn an_id_is_the_file_and_the_names_and_an_unnamed_point_its_number() {
        let names = |p: &[&str]| p.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            test_id(
                "test/math.test.js",
                &names(&["group", "inner adds"]),
                Some(1)
            ),
            "test/math.test.js > group > inner adds"
        );
        assert_eq!(
            test_id("t/a.t", &names(&["outer", ""]), Some(3)),
            "t/a.t > outer > #3"
        );
        assert_eq!(test_id("t/a.t", &[], Some(2)), "t/a.t > #2");
    }

    /// Every failing point of every recorded stream is named as its explanation names it.
    #[test]
    fn names_agree_with_the_explanations_on_every_recording() {
        let root = concat!(env!("CARGO_MANIFEST_DIR"), "/test-data");
        let mut checked = 0;
        for dir in ["conformance", "producers", "streams"] {
            let Ok(entries) = std::fs::read_dir(format!("{root}/{dir}")) else {
                continue;
            };
            for entry in entries.flatten() {
                let path = entry.path();
                if path.extension().is_none_or(|e| e != "tap") {
                    continue;
                }
                let bytes = std::fs::read(&path).expect("readable");
                let mut p = Parser::new(Vec::<Event<'static>>::new());
                p.feed(&bytes);
                let events = p.finish();
                let mut x = FileExplainer::new(None);
                let mut names = PointNames::default();
                let mut paths = Vec::new();
                let mut explained = Vec::new();
                for ev in &events {
                    paths.extend(names.event(ev));
                    x.event(ev);
                    explained.extend(x.take());
                }
                explained.extend(x.end());
                for e in explained {
                    if let Explained::Failure(e) = e {
                        let named: &PointName = &paths[e.point];
                        assert_eq!(named.parts(), e.path, "{}", path.display());
                        checked += 1;
                    }
                }
            }
        }
        assert!(checked > 50, "only {checked} failures checked");
    }
}
