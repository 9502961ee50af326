//! Test-name filters, each framework's own: how a file's command is narrowed to named tests
//! (node:test's `--test-name-pattern`, node-tap's `TAP_GREP`, bats' `--filter`, pytest's `-k`
//! or node IDs, go's `-run` anchored level by level), what `tapline run -t` and `--only-failed`
//! (the inventory's selection) and a retry of only the failed tests
//! (`retry_failed`) put on the command line. A file whose framework has none (tape,
//! Test::More) runs whole, its other tests marked not selected (`not_selected`). Both read this
//! module, so it names them in plain text, not as links back to them.
use crate::protocol::InputFormat;
use crate::run::discover::TestFile;
use regex::Regex;
use std::collections::BTreeSet;
use std::ffi::OsString;
use std::path::Path;

/// One `-t` pattern: a substring, or `/regex/`.
#[derive(Debug, Clone)]
pub struct Pattern {
    /// As given.
    pub text: String,
    regex: Regex,
    /// A substring (escaped into `regex`), not a regular expression.
    plain: bool,
}

impl Pattern {
    /// Reads `-t`'s argument.
    ///
    /// # Errors
    ///
    /// A `/regex/` that does not compile, or an empty pattern.
    pub fn parse(text: &str) -> Result<Pattern, String> {
        if text.is_empty() {
            return Err("failed to read -t: the pattern is empty".into());
        }
        let (source, plain) = match text.strip_prefix('/').and_then(|t| t.strip_suffix('/')) {
            Some(re) if !re.is_empty() => (re.to_owned(), false),
            _ => (regex::escape(text), true),
        };
        let regex = Regex::new(&source).map_err(|e| format!("failed to read -t {text}: {e}"))?;
        Ok(Pattern {
            text: text.to_owned(),
            regex,
            plain,
        })
    }

    /// Whether a test named `path` (outermost first) matches: its names joined by ` > `, from
    /// any level down (`/^adds$/` matches `math > adds`, `/^TestAdd$/` a go package's test).
    pub fn matches(&self, path: &[String]) -> bool {
        (0..path.len()).any(|from| self.regex.is_match(&path[from..].join(" > ")))
    }

    /// Whether a test named `path` is selected: it matches, or a subtest it is in does (a
    /// matching `describe` or subtest runs its children, as the frameworks' filters do).
    pub fn selects(&self, path: &[String]) -> bool {
        (1..=path.len()).any(|end| self.matches(&path[..end]))
    }

    fn source(&self) -> &str {
        self.regex.as_str()
    }
}

/// How a file's tests are filtered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Filter {
    NodeTest,
    NodeTap,
    Bats,
    /// A pytest `[[suite]]`: `-k`.
    Pytest,
    /// A Python file run under pytest with tapline's plugin: its tests' node IDs.
    PytestFile,
    Go,
    /// The framework has no filter: the file runs whole.
    None,
}

impl Filter {
    /// The filter's name as the run's header says it.
    pub fn said(self) -> &'static str {
        match self {
            Filter::NodeTest => "node --test-name-pattern",
            Filter::NodeTap => "tap's TAP_GREP",
            Filter::Bats => "bats --filter",
            Filter::Pytest => "pytest -k",
            Filter::PytestFile => "pytest node IDs",
            Filter::Go => "go test -run",
            Filter::None => "no filter of its own: runs whole",
        }
    }
}

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
    (filter != Filter::None).then_some(Refilter { filter, base })
}

/// The framework a file's tests are written in, by its command and source.
pub(crate) fn filter_of(root: &Path, f: &TestFile) -> Filter {
    let command: Vec<String> = match &f.command {
        Ok(c) => c.iter().map(|w| w.to_string_lossy().into_owned()).collect(),
        Err(_) => return Filter::None,
    };
    let program = |name: &str| {
        command
            .iter()
            .any(|w| Path::new(w).file_name().is_some_and(|n| n == name))
    };
    if f.input.suite {
        return match f.input.format {
            InputFormat::GoJson if program("go") => Filter::Go,
            InputFormat::Junit if program("pytest") => Filter::Pytest,
            _ => Filter::None,
        };
    }
    if f.input.pytest {
        return Filter::PytestFile;
    }
    if program("bats") {
        return Filter::Bats;
    }
    if !program("node") {
        return Filter::None;
    }
    let src = std::fs::read_to_string(root.join(&f.rel)).unwrap_or_default();
    let imports = |module: &str| {
        ["'", "\""]
            .iter()
            .any(|q| src.contains(&format!("{q}{module}{q}")))
    };
    match () {
        () if imports("node:test") => Filter::NodeTest,
        () if imports("tap") => Filter::NodeTap,
        () => Filter::None,
    }
}

/// Puts the filter on the command line: `matching` are the known tests that match. node:test
/// and bats match a pattern against each test's own name, node-tap's against the top level's,
/// so they get the names of the matching tests, anchored, and the patterns that name no
/// parent (`adds`, not `math > adds`) for tests only known at run time.
pub(crate) fn add_filter(
    command: &mut Vec<OsString>,
    filter: Filter,
    patterns: &[Pattern],
    matching: &[Vec<String>],
) {
    let level = |names: BTreeSet<&str>| {
        let own: Vec<String> = names.into_iter().map(regex::escape).collect();
        let raw = (patterns.iter())
            .filter(|p| !p.text.contains(" > "))
            .map(Pattern::source);
        let mut all: Vec<String> = raw.map(str::to_owned).collect();
        if !own.is_empty() {
            all.push(format!("^({})$", own.join("|")));
        }
        all.join("|")
    };
    let own = || {
        level(
            matching
                .iter()
                .filter_map(|n| n.last().map(String::as_str))
                .collect(),
        )
    };
    let after_program = |command: &mut Vec<OsString>, args: Vec<String>| {
        let at = 1.min(command.len());
        command.splice(at..at, args.into_iter().map(OsString::from));
    };
    match filter {
        Filter::NodeTest => after_program(command, vec![format!("--test-name-pattern={}", own())]),
        Filter::NodeTap => {
            // tap reads its `--grep` from the environment when a file runs on its own; its
            // first pattern is the top level's.
            let top = level(
                matching
                    .iter()
                    .filter_map(|n| n.first().map(String::as_str))
                    .collect(),
            );
            command.splice(
                0..0,
                ["env".into(), OsString::from(format!("TAP_GREP={top}"))],
            );
        }
        Filter::Bats => after_program(command, vec!["--filter".into(), own()]),
        Filter::Pytest => {
            let args = pytest_args(patterns, matching);
            command.extend(args.into_iter().map(OsString::from));
        }
        Filter::PytestFile => {
            // `pytest … FILE` becomes `pytest … FILE::test_a FILE::Class::test_b[1]`.
            if let Some(file) = command.pop() {
                let ids: BTreeSet<&str> = (matching.iter())
                    .filter_map(|n| n.last())
                    .map(String::as_str)
                    .collect();
                let nodes = ids.iter().map(|id| {
                    let mut node = file.clone();
                    node.push("::");
                    node.push(id);
                    node
                });
                let nodes: Vec<OsString> = nodes.collect();
                match nodes.is_empty() {
                    true => command.push(file),
                    false => command.extend(nodes),
                }
            }
        }
        Filter::Go => {
            if let Some(run) = go_run(matching) {
                command.extend(["-run".into(), OsString::from(run)]);
            }
        }
        Filter::None => {}
    }
}

/// pytest's `-k` for plain words; otherwise the matching tests' names as `-k` alternatives.
fn pytest_args(patterns: &[Pattern], matching: &[Vec<String>]) -> Vec<String> {
    let word = |p: &Pattern| p.plain && p.text.chars().all(|c| c.is_alphanumeric() || c == '_');
    let words: Vec<String> = match !patterns.is_empty() && patterns.iter().all(word) {
        true => patterns.iter().map(|p| p.text.clone()).collect(),
        // JUnit names a test `module.Class.test`: its last part is its pytest name.
        false => matching
            .iter()
            .filter_map(|n| n.last()?.rsplit('.').next().map(str::to_owned))
            .map(|n| n.split('[').next().unwrap_or(&n).to_owned())
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect(),
    };
    match words.is_empty() {
        true => Vec::new(),
        false => vec!["-k".into(), words.join(" or ")],
    }
}

/// go's `-run` for the matching tests (`[package, TestX, subtest…]`): each level anchored,
/// `^(TestA|TestB)$/^(one)$`, as deep as every match goes. None when a whole package matches.
fn go_run(matching: &[Vec<String>]) -> Option<String> {
    let levels: Vec<&[String]> = matching
        .iter()
        .map(|n| n.get(1..).unwrap_or_default())
        .collect();
    if levels.iter().any(|l| l.is_empty()) {
        return None;
    }
    let depth = levels.iter().map(|l| l.len()).min().unwrap_or(0);
    let parts: Vec<String> = (0..depth)
        .map(|d| {
            let names: BTreeSet<String> = levels
                .iter()
                .map(|l| regex::escape(&l[d].replace(' ', "_")))
                .collect();
            format!("^({})$", names.into_iter().collect::<Vec<_>>().join("|"))
        })
        .collect();
    Some(parts.join("/"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn path(p: &[&str]) -> Vec<String> {
        p.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn a_pattern_is_a_substring_or_a_regex_over_the_names() {
        let sub = Pattern::parse("a > b").expect("pattern");
        assert!(sub.matches(&path(&["x a", "b y"])));
        assert!(!sub.matches(&path(&["a", "c"])));
        let re = Pattern::parse("/^math > (adds|subtracts)$/").expect("pattern");
        assert!(re.matches(&path(&["math", "adds"])));
        assert!(!re.matches(&path(&["math", "adds more"])));
        let own = Pattern::parse("/^adds$/").expect("pattern");
        assert!(own.matches(&path(&["math", "adds"])));
        let group = Pattern::parse("/^math$/").expect("pattern");
        assert!(!group.matches(&path(&["math", "adds"])));
        assert!(group.selects(&path(&["math", "adds"])));
        assert!(!group.selects(&path(&["mathx", "adds"])));
        assert!(Pattern::parse("/(/").is_err());
        assert!(Pattern::parse("").is_err());
    }

    #[test]
    fn go_run_anchors_each_level() {
        let m = [
            path(&["ex.com/c", "TestTable", "two"]),
            path(&["ex.com/c", "TestAdd", "x"]),
        ];
        assert_eq!(
            go_run(&m).as_deref(),
            Some("^(TestAdd|TestTable)$/^(two|x)$")
        );
        let top = [
            path(&["ex.com/c", "TestAdd"]),
            path(&["ex.com/c", "TestTable", "two"]),
        ];
        assert_eq!(go_run(&top).as_deref(), Some("^(TestAdd|TestTable)$"));
        assert_eq!(go_run(&[path(&["ex.com/c"])]), None);
    }

    #[test]
    fn a_refilter_runs_only_the_named_tests_from_the_unfiltered_command() {
        let os = |w: &[&str]| w.iter().map(OsString::from).collect::<Vec<_>>();
        let node = Refilter {
            filter: Filter::NodeTest,
            base: os(&["/usr/bin/node", "test/a.test.mjs"]),
        };
        assert_eq!(
            node.command(&[path(&["math", "flaky"])]),
            os(&[
                "/usr/bin/node",
                "--test-name-pattern=^(flaky)$",
                "test/a.test.mjs"
            ])
        );
        let py = Refilter {
            filter: Filter::PytestFile,
            base: os(&["pytest", "-p", "tapline_pytest", "t/test_a.py"]),
        };
        assert_eq!(
            py.command(&[path(&["TestBox::test_open"]), path(&["test_x[1]"])]),
            os(&[
                "pytest",
                "-p",
                "tapline_pytest",
                "t/test_a.py::TestBox::test_open",
                "t/test_a.py::test_x[1]"
            ])
        );
        let leaves = failed_leaves(
            [path(&["math"]), path(&["math", "flaky"]), path(&["other"])]
                .iter()
                .map(Vec::as_slice),
        );
        assert_eq!(leaves, [path(&["math", "flaky"]), path(&["other"])]);
    }

    #[test]
    fn pytest_gets_words_as_k_and_a_regex_as_the_matching_names() {
        let words = [Pattern::parse("adds").expect("p")];
        assert_eq!(pytest_args(&words, &[]), ["-k", "adds"]);
        let re = [Pattern::parse("/upper$/").expect("p")];
        let m = [path(&["pytest", "test_calc.TestWords.test_upper"])];
        assert_eq!(pytest_args(&re, &m), ["-k", "test_upper"]);
    }
}
