//! `tapline run -t PATTERN`: only the tests whose names match run. Each file's tests are known
//! from its static scan and its last run's report ([`super::list`]); a file none of whose
//! known tests matches does not run (one with a name only known at run time does), and each
//! file that runs gets its harness's own filter on its command line (`Harness::filter`: a
//! name pattern, an environment variable, node IDs, a regex anchored level by level). A file
//! whose harness has none runs whole, its other tests reported as not selected
//! ([`crate::run::not_selected`]).
use super::{static_of, Entry};
use crate::run::discover::TestFile;
use crate::run::not_selected::Selection;
use crate::run::test_filter::{add_filter, filter_of, refilter};
pub use crate::run::test_filter::{failed_leaves, keep_refilters, Filter, Pattern, Refilter};
use crate::state::tests::Saved;
use std::path::Path;

/// What `-t` did to the run's files.
#[derive(Debug, Default)]
pub struct Narrowed {
    pub files: Vec<TestFile>,
    /// Each file that runs, with how it is filtered.
    pub filtered: Vec<(String, Filter)>,
    /// Files not run: no test of theirs matches.
    pub dropped: Vec<String>,
}

/// What to run.
#[derive(Debug, Clone, Copy)]
pub enum Select<'p> {
    /// `-t`: the tests these match.
    Patterns(&'p [Pattern]),
    /// `--only-failed`: the tests that failed in the last run of each file, and whole the
    /// files that failed with no failing test.
    Failed,
}

/// What one file runs of `select`: `None`, nothing; `Some(vec![])`, all of it; else the
/// matching tests' names.
fn chosen(
    root: &Path,
    f: &TestFile,
    saved: &Saved,
    select: Select<'_>,
) -> Option<Vec<Vec<String>>> {
    match select {
        Select::Patterns(patterns) => {
            let mut known = static_of(root, f);
            known.extend(super::history_of(&f.rel, saved).unwrap_or_default());
            let dynamic = known.iter().any(|e| e.dynamic);
            let matching: Vec<Vec<String>> = (known.iter())
                .map(|e: &Entry| e.name.clone())
                .filter(|n| patterns.iter().any(|p| p.matches(n)))
                .collect();
            (!matching.is_empty() || dynamic).then_some(matching)
        }
        Select::Failed => {
            let last = saved.get(&f.rel).filter(|t| !t.ok)?;
            Some(failed_leaves(last.failed().map(|t| t.name.as_slice())))
        }
    }
}

/// The files `select` runs anything of, each with its framework's filter.
pub fn narrow(root: &Path, files: Vec<TestFile>, saved: &Saved, select: Select<'_>) -> Narrowed {
    let patterns = match select {
        Select::Patterns(p) => p,
        Select::Failed => &[],
    };
    let mut out = Narrowed::default();
    for mut f in files {
        let Some(matching) = chosen(root, &f, saved, select) else {
            out.dropped.push(f.rel.clone());
            continue;
        };
        let filter = match (select, matching.is_empty()) {
            // A file that failed with no failing test runs whole.
            (Select::Failed, true) => Filter::NONE,
            _ => filter_of(root, &f),
        };
        f.input.refilter = refilter(filter_of(root, &f), &f.command);
        if filter.runs_whole() {
            // Run whole: the tests the patterns (or the failed tests) do not select are
            // reported as such; a file that failed with no failing test selects all it runs.
            f.input.selection = match select {
                Select::Patterns(p) => Some(Selection::new(p)),
                Select::Failed if matching.is_empty() => None,
                // A failed point with no name (`not ok 6`) is told from the others by its
                // number alone, which no name pattern matches: the file reports all it ran.
                Select::Failed
                    if matching
                        .iter()
                        .any(|m| m.last().is_none_or(String::is_empty)) =>
                {
                    None
                }
                Select::Failed => Some(Selection::new(
                    &matching
                        .iter()
                        .map(|m| Pattern::exact(m))
                        .collect::<Vec<_>>(),
                )),
            };
        }
        if let Ok(command) = &mut f.command {
            add_filter(command, filter, patterns, &matching);
        }
        out.filtered.push((f.rel.clone(), filter));
        out.files.push(f);
    }
    out
}
