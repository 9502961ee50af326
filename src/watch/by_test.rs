//! Watch mode's choice of tests by name: the `t` key's pattern (or `-t` given with `--watch`),
//! kept for every run until `t` changes or clears it, and `F`'s failing tests for one run.
//! Each narrows a run's files as `tapline run -t` and `--only-failed` do
//! ([`crate::inventory::select`]): through each framework's filter, from the tests the last
//! runs reported (the log folder's `tests/`, read afresh for every run).
use crate::inventory::select::{narrow, Pattern, Select};
use crate::run::discover::TestFile;
use std::path::Path;

/// The test-name patterns in force.
#[derive(Debug, Default)]
pub(super) struct ByTest {
    patterns: Vec<Pattern>,
}

impl ByTest {
    /// `-t`'s patterns.
    pub(super) fn new(texts: &[String]) -> Result<ByTest, String> {
        let patterns = texts
            .iter()
            .map(|t| Pattern::parse(t))
            .collect::<Result<_, _>>()?;
        Ok(ByTest { patterns })
    }

    /// `t`'s text: the pattern from now on, or (empty) none.
    pub(super) fn set(&mut self, text: &str) -> Result<(), String> {
        let text = text.trim();
        self.patterns = match text.is_empty() {
            true => Vec::new(),
            false => vec![Pattern::parse(text)?],
        };
        Ok(())
    }

    /// `tests matching `a`, `b``, when any pattern is in force.
    pub(super) fn label(&self) -> Option<String> {
        let shown: Vec<String> = self
            .patterns
            .iter()
            .map(|p| format!("`{}`", p.text))
            .collect();
        (!shown.is_empty()).then(|| format!("tests matching {}", shown.join(", ")))
    }

    /// The run's files narrowed to the chosen tests: only the tests that failed last time
    /// (`failed`), else those the patterns match, else all of them. `log_dir` holds the last
    /// runs' tests.
    pub(super) fn narrow(
        &self,
        root: &Path,
        log_dir: Option<&Path>,
        failed: bool,
        files: Vec<TestFile>,
    ) -> Vec<TestFile> {
        let select = match (failed, self.patterns.is_empty()) {
            (true, _) => Select::Failed,
            (false, false) => Select::Patterns(&self.patterns),
            (false, true) => return files,
        };
        let saved = log_dir
            .and_then(|d| crate::state::tests::load(d).ok())
            .unwrap_or_default();
        narrow(root, files, &saved, select).files
    }
}
