//! Patch coverage (`run --changed REV --coverage`): of the lines a change added or altered
//! (`git diff -U0 REV`), those its engine counts as code, and which of them no test reached.
use super::summary::unreached;
use super::RunCoverage;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

/// Changed lines per file, relative to the project root.
pub type Changed = BTreeMap<String, BTreeSet<u32>>;

/// The new side's lines of `git diff -U0` output, per file (`+++ b/path`; `/dev/null`, a
/// removed file, has none). `rel` places a repository path under the project root, or drops it.
pub fn parse_diff(text: &str, rel: impl Fn(&str) -> Option<String>) -> Changed {
    let mut changed = Changed::new();
    let mut file: Option<String> = None;
    for line in text.lines() {
        if let Some(path) = line.strip_prefix("+++ ") {
            file = path.strip_prefix("b/").and_then(&rel);
        } else if let (Some(hunk), Some(f)) = (line.strip_prefix("@@ "), &file) {
            // `@@ -a,b +c,d @@`: d lines from c (d omitted: 1; 0: a removal only).
            let Some(new) = hunk.split(' ').find_map(|w| w.strip_prefix('+')) else {
                continue;
            };
            let (start, count) = match new.split_once(',') {
                Some((s, c)) => (s.parse::<u32>().ok(), c.parse::<u32>().ok()),
                None => (new.parse::<u32>().ok(), Some(1)),
            };
            if let (Some(start), Some(count)) = (start, count) {
                changed
                    .entry(f.clone())
                    .or_default()
                    .extend(start..start + count);
            }
        }
    }
    changed
}

/// What the change's code lines came to.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Patch {
    /// Changed lines that are code.
    pub lines: u64,
    pub reached: u64,
    /// Per file, the changed code lines no test reached, as ranges.
    pub missed: Vec<(String, String)>,
    /// Changed files (of a language measured) that no test loaded.
    pub not_loaded: Vec<String>,
}

/// The patch coverage of `changed` in `cov`; `measured` says whether a path is of a language
/// with an engine (a changed README is no code).
pub fn of(cov: &RunCoverage, changed: &Changed, measured: impl Fn(&str) -> bool) -> Patch {
    let mut patch = Patch::default();
    for (path, lines) in changed {
        let Some(source) = cov.sources.get(path) else {
            if measured(path) {
                patch.not_loaded.push(path.clone());
            }
            continue;
        };
        let code: BTreeMap<u32, u64> = (source.lines().into_iter())
            .filter(|(line, _)| lines.contains(line))
            .collect();
        patch.lines += code.len() as u64;
        patch.reached += code.values().filter(|&&h| h > 0).count() as u64;
        // Ranges over the whole file, unchanged lines counted as reached: two changed lines
        // are one range only when no other code line lies between them.
        let marked: BTreeMap<u32, u64> = (source.lines().into_iter())
            .map(|(line, hits)| (line, if lines.contains(&line) { hits } else { 1 }))
            .collect();
        let missed = unreached(&marked);
        if !missed.is_empty() {
            patch.missed.push((path.clone(), missed));
        }
    }
    patch
}

impl Patch {
    /// The lines the run's end says.
    pub fn text(&self, since: &str) -> String {
        let mut out = format!(
            "patch coverage since {since}: {} of {} changed lines reached ({:.1}%)",
            self.reached,
            self.lines,
            super::percent(self.reached, self.lines)
        );
        for (path, missed) in &self.missed {
            let _ = write!(out, "\n  {path}: not reached: {missed}");
        }
        for path in &self.not_loaded {
            let _ = write!(out, "\n  {path}: changed, loaded by no test that ran");
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::coverage::{Lang, SourceLines, TestCoverage};

    #[test]
    fn changed_code_lines_no_test_reached() {
        let diff = "diff --git a/lib/A.pm b/lib/A.pm\n--- a/lib/A.pm\n+++ b/lib/A.pm\n@@ -3 +3,2 @@ sub\n-x\n+y\n+z\n@@ -9,0 +11 @@\n+w\ndiff --git a/gone b/gone\n--- a/gone\n+++ /dev/null\n@@ -1 +0,0 @@\n-q\n+++ b/lib/New.pm\n@@ -0,0 +1,2 @@\n";
        let changed = parse_diff(diff, |p| Some(p.to_owned()));
        assert_eq!(changed["lib/A.pm"], BTreeSet::from([3, 4, 11]));
        assert_eq!(changed["lib/New.pm"], BTreeSet::from([1, 2]));
        assert!(!changed.contains_key("gone"));
        let mut cov = RunCoverage::default();
        cov.add(&TestCoverage {
            test: "t/a.t".into(),
            sources: vec![SourceLines {
                path: "lib/A.pm".into(),
                lang: Lang::new("ruby"),
                lines: vec![(3, 1), (4, 0), (5, 0), (11, 0)],
            }],
            missing: Vec::new(),
            root: None,
        });
        let patch = of(&cov, &changed, |p| p.ends_with(".pm"));
        assert_eq!(
            patch,
            Patch {
                lines: 3,
                reached: 1,
                missed: vec![("lib/A.pm".into(), "4, 11".into())],
                not_loaded: vec!["lib/New.pm".into()],
            }
        );
        assert_eq!(
            patch.text("main"),
            "patch coverage since main: 1 of 3 changed lines reached (33.3%)\n  lib/A.pm: not reached: 4, 11\n  lib/New.pm: changed, loaded by no test that ran"
        );
    }
}
