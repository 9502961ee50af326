//! Test-name filters, each framework's own: how a file's command is narrowed to named tests
//! (a name pattern after the program, a variable, the test IDs in place of the file, anchored
//! level by level: each harness's [`Narrow`](crate::harness::filter::Narrow)), what `tapline run -t` and `--only-failed`
//! (the inventory's selection) and a retry of only the failed tests
//! (`retry_failed`) put on the command line, each through the filter of the harness that runs
//! the file ([`crate::harness::filter`]). A file whose harness has none runs whole, its other
//! tests marked not selected (`not_selected`). Both read this module, so it names them in plain
//! text, not as links back to them.
use crate::harness::filter::Probe;
use crate::harness::registry;
use crate::run::discover::TestFile;
use std::ffi::OsString;
use std::path::Path;

pub use crate::harness::filter::{Filter, Pattern};

/// The failing tests (names outermost first) to run again: a subtest that failed because its
/// children did is selected by its failing children.
pub fn failed_leaves<'n>(failed: impl Iterator<Item = &'n [String]>) -> Vec<Vec<String>> {
    let failed: Vec<&[String]> = failed.collect();
    (failed.iter())
        .filter(|n| !failed.iter().any(|m| m.len() > n.len() && m.starts_with(n)))
        .map(|n| n.to_vec())
        .collect()
}

/// How a file's command narrows to named tests, kept with the file for a retry of only its
/// failed tests (`--retries`): its framework's filter and its command before any filter.
#[derive(Debug, Clone, PartialEq)]
pub struct Refilter {
    filter: Filter,
    /// The command without a filter; its program resolved by the planner ([`Self::resolve`]).
    base: Vec<OsString>,
}

impl Refilter {
    /// The command that runs only `tests` (names outermost first) of the file.
    pub fn command(&self, tests: &[Vec<String>]) -> Vec<OsString> {
        let mut command = self.base.clone();
        add_filter(&mut command, self.filter, &[], tests);
        command
    }

    /// The filter's name as the run says it.
    pub fn said(&self) -> &'static str {
        self.filter.said()
    }

    /// The skip reason the filter gives the tests it left out ([`Filter::left_out`]).
    pub fn left_out(&self) -> Option<&'static str> {
        self.filter.left_out()
    }

    /// The command's program found as the planner finds it.
    pub fn resolve(&mut self, resolve: impl FnOnce(Vec<OsString>) -> Vec<OsString>) {
        self.base = resolve(std::mem::take(&mut self.base));
    }
}

/// Keeps with each file whose framework has a filter how to narrow it (a file `-t` narrowed
/// already has it), so that a retry runs only its failed tests.
pub fn keep_refilters(root: &Path, files: &mut [TestFile]) {
    for f in files.iter_mut().filter(|f| f.input.refilter.is_none()) {
        f.input.refilter = refilter(filter_of(root, f), &f.command);
    }
}

pub(crate) fn refilter<E>(filter: Filter, command: &Result<Vec<OsString>, E>) -> Option<Refilter> {
    let base = command.as_ref().ok()?.clone();
    (!filter.runs_whole()).then_some(Refilter { filter, base })
}

/// The filter of a file's tests, as the harness that runs it says by its command and source.
pub(crate) fn filter_of(root: &Path, f: &TestFile) -> Filter {
    let command: Vec<String> = match &f.command {
        Ok(c) => c.iter().map(|w| w.to_string_lossy().into_owned()).collect(),
        Err(_) => return Filter::NONE,
    };
    let program = |name: &str| {
        command
            .iter()
            .any(|w| Path::new(w).file_name().is_some_and(|n| n == name))
    };
    let source = || std::fs::read_to_string(root.join(&f.rel)).unwrap_or_default();
    let probe = Probe {
        program: &program,
        source: &source,
        suite: f.input.suite.then_some(f.input.format),
        harness: f.input.harness,
    };
    registry::filter_of(&probe)
}

/// Puts the filter on the command line: `matching` are the known tests that match, for a
/// filter that matches names one level at a time ([`Filter`]).
pub(crate) fn add_filter(
    command: &mut Vec<OsString>,
    filter: Filter,
    patterns: &[Pattern],
    matching: &[Vec<String>],
) {
    filter.narrow(command, patterns, matching);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::filter::Narrow;

    fn path(p: &[&str]) -> Vec<String> {
        p.iter().map(|s| s.to_string()).collect()
    }

    /// A filter that names each test after the program, its levels joined by `/`.
    struct Only;

    impl Narrow for Only {
        fn said(&self) -> &'static str {
            "only"
        }

        fn narrow(&self, command: &mut Vec<OsString>, _: &[Pattern], matching: &[Vec<String>]) {
            let named = matching.iter().map(|t| format!("--only={}", t.join("/")));
            let at = command.len().min(1);
            command.splice(at..at, named.map(OsString::from));
        }
    }

    #[test]
    fn a_refilter_runs_only_the_named_tests_from_the_unfiltered_command() {
        let os = |w: &[&str]| w.iter().map(OsString::from).collect::<Vec<_>>();
        let mut only = Refilter {
            filter: Filter::of(&Only),
            base: os(&["runner", "t/a"]),
        };
        only.resolve(|mut base| {
            base[0] = "/usr/bin/runner".into();
            base
        });
        assert_eq!(only.said(), "only");
        assert_eq!(
            only.command(&[path(&["math", "flaky"]), path(&["other"])]),
            os(&[
                "/usr/bin/runner",
                "--only=math/flaky",
                "--only=other",
                "t/a"
            ])
        );
        assert_eq!(
            only.command(&[path(&["x"])]),
            os(&["/usr/bin/runner", "--only=x", "t/a"]),
            "from the unfiltered command each time"
        );
        let whole: Result<_, ()> = Ok(os(&["runner", "t/a"]));
        assert!(
            refilter(Filter::NONE, &whole).is_none(),
            "no filter: runs whole"
        );
        let leaves = failed_leaves(
            [path(&["math"]), path(&["math", "flaky"]), path(&["other"])]
                .iter()
                .map(Vec::as_slice),
        );
        assert_eq!(leaves, [path(&["math", "flaky"]), path(&["other"])]);
    }
}
