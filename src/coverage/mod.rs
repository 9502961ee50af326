//! Line coverage, one model for every language: which lines of which project file each test
//! file reached and how often. A test file's processes report theirs once it ends
//! ([`TestCoverage`], carried by the run's events, so a recorded shard holds it); a run's, or a
//! merge of shards', is their sum ([`RunCoverage`]), which the reports ([`lcov`],
//! [`cobertura`], [`summary`]) and the gate ([`summary::Gate`]) read, and [`who`] keeps for
//! `tapline coverage who`. Collecting it is the runner's (`run::coverage`).
pub mod cobertura;
pub mod lcov;
pub mod patch;
pub mod summary;
pub mod who;

use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::collections::BTreeMap;

/// The engine a source file's figures came from, by the language whose coverage engine
/// measured it (each engine declares its own; the data model knows none by name). Written
/// as its name, a lowercase word (`lang` in a run's jsonl); languages sort by name, as the
/// reports list them.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Lang(pub Cow<'static, str>);

impl Lang {
    /// The language named `name`, as an engine declares it.
    pub const fn new(name: &'static str) -> Lang {
        Lang(Cow::Borrowed(name))
    }

    pub fn name(&self) -> &str {
        &self.0
    }
}

/// One source file as one test file's processes saw it: every line its engine counts as
/// code, with the times it ran (0: never), in line order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SourceLines {
    /// Relative to the project root, `/`-separated.
    pub path: String,
    pub lang: Lang,
    /// (line number from 1, hits), ascending by line, each line once.
    pub lines: Vec<(u32, u64)>,
}

/// What one test file's run reached, and the engines it could not use.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TestCoverage {
    /// The test file, relative to the project root.
    pub test: String,
    pub sources: Vec<SourceLines>,
    /// A runtime without its engine, said as how to get it (`LANGUAGE: ENGINE is not
    /// installed: …`, in its engine's words), or a source its engine could not analyse, left
    /// out alone (`LANGUAGE: src/gen.py is left out: …`); the run's summary says each once.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub missing: Vec<String>,
    /// The project root the paths are relative to (Cobertura's `<source>`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub root: Option<String>,
}

/// One source file over a run: its lines' hits per test file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Source {
    pub lang: Lang,
    /// Test file → line → hits, for every test file whose processes loaded the source.
    pub by_test: BTreeMap<String, BTreeMap<u32, u64>>,
}

impl Source {
    /// Each line's hits summed over the test files.
    pub fn lines(&self) -> BTreeMap<u32, u64> {
        let mut all = BTreeMap::new();
        for lines in self.by_test.values() {
            for (&line, &hits) in lines {
                *all.entry(line).or_insert(0) += hits;
            }
        }
        all
    }

    /// (lines, lines reached).
    pub fn counts(&self) -> (u64, u64) {
        let lines = self.lines();
        let hit = lines.values().filter(|&&h| h > 0).count();
        (lines.len() as u64, hit as u64)
    }
}

/// A run's coverage: the sum of its test files'. Summing is order-free, so shards merged in
/// any order equal the unsharded run.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RunCoverage {
    /// Source path → its figures, in path order.
    pub sources: BTreeMap<String, Source>,
    /// Each missing engine, once.
    pub missing: std::collections::BTreeSet<String>,
    /// Whether any test file reported coverage at all (a run without `--coverage` has none).
    pub collected: bool,
    /// The project root, as the first test file said it.
    pub root: Option<String>,
}

impl RunCoverage {
    /// Adds one test file's figures: hits of a line the same test file already reached (a
    /// retry, a second run of `--runs N`) are summed.
    pub fn add(&mut self, t: &TestCoverage) {
        self.collected = true;
        if self.root.is_none() {
            self.root.clone_from(&t.root);
        }
        self.missing.extend(t.missing.iter().cloned());
        for s in &t.sources {
            let source = self
                .sources
                .entry(s.path.clone())
                .or_insert_with(|| Source {
                    lang: s.lang.clone(),
                    by_test: BTreeMap::new(),
                });
            let lines = source.by_test.entry(t.test.clone()).or_default();
            for &(line, hits) in &s.lines {
                *lines.entry(line).or_insert(0) += hits;
            }
        }
    }

    /// (lines, lines reached) over every source.
    pub fn counts(&self) -> (u64, u64) {
        self.sources.values().fold((0, 0), |(l, h), s| {
            let (sl, sh) = s.counts();
            (l + sl, h + sh)
        })
    }
}

/// `hit` of `total` as a percentage (100 for nothing to cover).
pub fn percent(hit: u64, total: u64) -> f64 {
    if total == 0 {
        100.0
    } else {
        hit as f64 * 100.0 / total as f64
    }
}

/// `3 of 6 lines reached (50.0%)`, as every report says the total; `no measurable lines` where
/// there were none (never `100%` of nothing).
pub fn reached(hit: u64, total: u64) -> String {
    if total == 0 {
        return "no measurable lines".to_owned();
    }
    format!(
        "{hit} of {total} lines reached ({:.1}%)",
        percent(hit, total)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_language_is_written_as_its_name_as_before_the_rooms() {
        let source = SourceLines {
            path: "a".into(),
            lang: Lang::new("x"),
            lines: vec![(1, 2)],
        };
        let json = serde_json::to_string(&source).expect("serialize");
        assert_eq!(json, r#"{"path":"a","lang":"x","lines":[[1,2]]}"#);
        let read: SourceLines = serde_json::from_str(&json).expect("deserialize");
        assert_eq!(read, source);
        assert_eq!(read.lang.name(), "x");
    }

    pub(crate) fn test_file(test: &str, path: &str, lines: &[(u32, u64)]) -> TestCoverage {
        TestCoverage {
            test: test.into(),
            sources: vec![SourceLines {
                path: path.into(),
                lang: Lang::new("ruby"),
                lines: lines.to_vec(),
            }],
            missing: Vec::new(),
            root: None,
        }
    }

    #[test]
    fn issue43_no_measurable_line_is_no_percentage() {
        assert_eq!(reached(0, 0), "no measurable lines");
        assert_eq!(reached(3, 6), "3 of 6 lines reached (50.0%)");
        assert_eq!(
            summary::section(&RunCoverage::default()).lines().next(),
            Some("coverage: no measurable lines")
        );
    }

    #[test]
    fn a_run_sums_its_test_files_in_any_order() {
        let a = test_file("t/a.t", "lib/A.pm", &[(1, 1), (2, 0), (3, 2)]);
        let b = test_file("t/b.t", "lib/A.pm", &[(1, 1), (2, 1), (3, 0)]);
        let (mut ab, mut ba) = (RunCoverage::default(), RunCoverage::default());
        ab.add(&a);
        ab.add(&b);
        ba.add(&b);
        ba.add(&a);
        assert_eq!(ab, ba);
        let source = &ab.sources["lib/A.pm"];
        assert_eq!(source.lines(), BTreeMap::from([(1, 2), (2, 1), (3, 2)]));
        assert_eq!(ab.counts(), (3, 3));
        let mut only_a = RunCoverage::default();
        only_a.add(&a);
        assert_eq!(only_a.counts(), (3, 2));
        assert!((percent(2, 3) - 66.666).abs() < 0.01);
        assert_eq!(percent(0, 0), 100.0);
    }
}
