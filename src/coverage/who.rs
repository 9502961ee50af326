//! `tapline coverage who FILE:LINE`: which test files reached a line in the last run with
//! `--coverage`. Each such run replaces `coverage.json` in the log folder (`.nogit/testlogs`):
//! the test files once, then per source file each reached line with the test files (by
//! index) that reached it. A lookup reads that one file, nothing else.
use super::RunCoverage;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The file's name in the log folder.
pub const FILE: &str = "coverage.json";

/// What is kept.
#[derive(Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Who {
    pub tests: Vec<String>,
    /// Source → line → indices into `tests`.
    pub sources: BTreeMap<String, BTreeMap<u32, Vec<u32>>>,
    /// Each source's lines no test reached (so `who` can tell "not reached" from "not code").
    #[serde(default)]
    pub unreached: BTreeMap<String, Vec<u32>>,
}

impl Who {
    pub fn of(cov: &RunCoverage) -> Who {
        let mut tests: Vec<String> = cov
            .sources
            .values()
            .flat_map(|s| s.by_test.keys().cloned())
            .collect();
        tests.sort();
        tests.dedup();
        let index = |t: &String| tests.binary_search(t).map_or(0, |i| i as u32);
        let mut who = Who::default();
        for (path, source) in &cov.sources {
            let mut lines: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
            for (test, hits) in &source.by_test {
                for (&line, _) in hits.iter().filter(|(_, &h)| h > 0) {
                    lines.entry(line).or_default().push(index(test));
                }
            }
            let never: Vec<u32> = (source.lines().into_iter())
                .filter(|&(_, h)| h == 0)
                .map(|(l, _)| l)
                .collect();
            who.sources.insert(path.clone(), lines);
            who.unreached.insert(path.clone(), never);
        }
        who.tests = tests;
        who
    }

    /// The test files that reached `line` of `source`: `None` when the line was no code any
    /// engine counted (or the file was never loaded).
    pub fn at(&self, source: &str, line: u32) -> Option<Vec<&str>> {
        if let Some(tests) = self.sources.get(source).and_then(|l| l.get(&line)) {
            return Some(
                tests
                    .iter()
                    .filter_map(|&i| self.tests.get(i as usize).map(String::as_str))
                    .collect(),
            );
        }
        let unreached = self.unreached.get(source)?;
        unreached.binary_search(&line).ok().map(|_| Vec::new())
    }

    /// Replaces the kept file in `dir` (through a temporary file: a reader sees the old one
    /// or the new one).
    ///
    /// # Errors
    ///
    /// The folder or the file cannot be written.
    pub fn save(&self, dir: &Path) -> std::io::Result<()> {
        std::fs::create_dir_all(dir)?;
        let tmp = dir.join(format!(".{FILE}.{}.tmp", std::process::id()));
        std::fs::write(&tmp, serde_json::to_vec(self)?)?;
        std::fs::rename(&tmp, dir.join(FILE))
    }

    /// The kept file of `dir`; `Ok(None)` when no run with `--coverage` kept one.
    ///
    /// # Errors
    ///
    /// It cannot be read, or is not what this version keeps.
    pub fn load(dir: &Path) -> Result<Option<Who>, String> {
        let path: PathBuf = dir.join(FILE);
        let bytes = match std::fs::read(&path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(format!("failed to read {}: {e}", path.display())),
        };
        serde_json::from_slice(&bytes)
            .map(Some)
            .map_err(|e| format!("failed to read {}: {e}", path.display()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::coverage::{Lang, SourceLines, TestCoverage};

    #[test]
    fn a_line_names_the_test_files_that_reached_it() {
        let mut cov = RunCoverage::default();
        for (test, hits) in [("t/b.t", 1), ("t/a.t", 2)] {
            cov.add(&TestCoverage {
                test: test.into(),
                sources: vec![SourceLines {
                    path: "lib/A.pm".into(),
                    lang: Lang::new("ruby"),
                    lines: vec![(1, hits), (2, hits - 1), (3, 0)],
                }],
                missing: Vec::new(),
                root: None,
            });
        }
        let dir = tempfile::TempDir::new().expect("temp dir");
        Who::of(&cov).save(dir.path()).expect("save");
        let who = Who::load(dir.path()).expect("load").expect("kept");
        assert_eq!(who.at("lib/A.pm", 1), Some(vec!["t/a.t", "t/b.t"]));
        assert_eq!(who.at("lib/A.pm", 2), Some(vec!["t/a.t"]));
        assert_eq!(who.at("lib/A.pm", 3), Some(vec![]));
        assert_eq!(who.at("lib/A.pm", 4), None);
        assert_eq!(who.at("lib/B.pm", 1), None);
        assert_eq!(Who::load(&dir.path().join("none")), Ok(None));
    }
}
