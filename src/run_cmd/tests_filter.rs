//! `-t PATTERN` (and `--only-failed`): the run's files narrowed to those holding a selected
//! test, each with its framework's filter (`tapline::inventory::select`), and the line that
//! says so before the run.
use crate::cli::RunArgs;
use crate::Failure;
use std::path::PathBuf;
use tapline::event::run::TestFilterInfo;
use tapline::inventory::select::{self, Pattern, Select};
use tapline::run::discover::TestFile;
use tapline::run::options::Project;
use tapline::state::tests::{self, Saved};

/// The selection asked for on the command line.
pub(super) struct TestFilter {
    root: PathBuf,
    saved: Saved,
    patterns: Vec<Pattern>,
    /// `--only-failed`.
    only_failed: bool,
    /// What the selection did, once it has: the run's header says it.
    said: std::cell::RefCell<Option<TestFilterInfo>>,
}

impl TestFilter {
    /// `None` without `-t` or `--only-failed`.
    pub(super) fn from_args(args: &RunArgs) -> Result<Option<TestFilter>, Failure> {
        if args.test.is_empty() && !args.only_failed {
            return Ok(None);
        }
        let patterns = (args.test.iter())
            .map(|t| Pattern::parse(t))
            .collect::<Result<Vec<_>, _>>()
            .map_err(Failure::usage)?;
        let project = Project::current().map_err(Failure::usage)?;
        let saved = tests::load(&project.log_dir(args.log_dir.as_deref())).unwrap_or_default();
        Ok(Some(TestFilter {
            root: project.root,
            saved,
            patterns,
            only_failed: args.only_failed,
            said: Default::default(),
        }))
    }

    /// The files holding a selected test, filtered; says what was filtered on stderr.
    pub(super) fn select(&self, files: Vec<TestFile>) -> Vec<TestFile> {
        let select = match self.only_failed {
            true => Select::Failed,
            false => Select::Patterns(&self.patterns),
        };
        let n = select::narrow(&self.root, files, &self.saved, select);
        let asked: Vec<&str> = self.patterns.iter().map(|p| p.text.as_str()).collect();
        let what = match self.only_failed {
            true => "only the tests that failed in the last run".to_owned(),
            false => format!("only tests matching {}", asked.join(", ")),
        };
        tapline::say!(
            "tapline: {what}: {} of {} files run",
            n.files.len(),
            n.files.len() + n.dropped.len()
        );
        for (rel, filter) in &n.filtered {
            tapline::say!("tapline:   {rel}: {}", filter.said());
        }
        if !n.dropped.is_empty() {
            let why = match self.only_failed {
                true => "passed or never ran",
                false => "no matching test",
            };
            tapline::say!("tapline:   not run ({why}): {}", n.dropped.join(", "));
        }
        // Run whole with a selection: its other tests are marked not selected, whichever
        // filter chose (a file that failed with no failing test runs whole and selects all).
        let whole = (n.files.iter())
            .filter(|f| f.input.selection.is_some())
            .count();
        if whole > 0 {
            tapline::say!("tapline:   a file run whole reports its other tests as not selected");
        }
        *self.said.borrow_mut() = Some(TestFilterInfo {
            patterns: asked.iter().map(|p| (*p).to_owned()).collect(),
            only_failed: self.only_failed,
            files_not_run: n.dropped.len(),
            files_run_whole: whole,
        });
        n.files
    }

    /// What the selection did ([`Self::select`]), for the run's `RunStarted`.
    pub(super) fn info(&self) -> Option<TestFilterInfo> {
        self.said.borrow().clone()
    }
}
