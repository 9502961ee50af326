//! Every test point's name path and its stable test ID, by the rule the explanations name a
//! failure with: a stream's headings (tape's `# name` comments), the enclosing subtests, its
//! own name. [`PointNames`] follows one file's stream as a [`super::FileExplainer`] does (the
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
    let mut id = String::with_capacity(file.len() + 32);
    id.push_str(file);
    let own = path.len().saturating_sub(1);
    for (i, name) in path.iter().enumerate() {
        id.push_str(SEPARATOR);
        match (i == own && name.is_empty(), number) {
            (true, Some(n)) => {
                id.push('#');
                id.push_str(&n.to_string());
            }
            (true, None) => id.push_str("(unnamed)"),
            (false, _) => id.push_str(name),
        }
    }
    if path.is_empty() {
        id.push_str(SEPARATOR);
        id.push_str(&number.map_or("(unnamed)".to_owned(), |n| format!("#{n}")));
    }
    id
}

/// Names the test points of one file's stream, fed its events in order.
pub struct PointNames {
    headings: Headings,
    subtests: OpenSubtests,
    /// The failure whose own lines are still arriving: they head nothing.
    trailing: Trailing<()>,
}

impl Default for PointNames {
    fn default() -> Self {
        PointNames {
            headings: Headings::default(),
            subtests: OpenSubtests::default(),
            // Only whether a line is a failure's matters here, not the lines.
            trailing: Trailing::new(0),
        }
    }
}

impl PointNames {
    /// One event; for a test point, its names outermost first.
    pub fn event(&mut self, event: &Event<'_>) -> Option<Vec<String>> {
        if let Step::Kept = self.trailing.event(event) {
            return None;
        }
        self.headings.event(event);
        match event {
            Event::SubtestStart { depth, name, .. } => {
                self.subtests.start(*depth, name);
                None
            }
            Event::Assert(a) => Some(self.point(a)),
            _ => None,
        }
    }

    fn point(&mut self, a: &Assert<'_>) -> Vec<String> {
        let path = (self.headings).path(self.subtests.parents(a.depth), &a.name);
        // As the explainer: a failure's (or a failing TODO's) lines after it are its own.
        if a.is_failure() || (!a.ok && a.todo.is_some()) {
            self.trailing.open(a, ());
        }
        self.subtests.after(a);
        path
    }
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
                        assert_eq!(paths[e.point], e.path, "{}", path.display());
                        checked += 1;
                    }
                }
            }
        }
        assert!(checked > 50, "only {checked} failures checked");
    }
}
