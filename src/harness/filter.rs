//! Test-name filters: `-t`'s patterns ([`Pattern`]) and the vocabulary a harness's own filter
//! is written in ([`Narrow`]): how its command narrows to named tests, for `tapline run -t`,
//! `--only-failed` and a retry of only the failed tests. A file whose harness has none runs
//! whole, its other tests marked not selected.
use super::api::Id;
use crate::protocol::InputFormat;
use regex::Regex;
use std::collections::BTreeSet;
use std::ffi::OsString;

/// One `-t` pattern: a substring, or `/regex/`.
#[derive(Debug, Clone)]
pub struct Pattern {
    /// As given.
    pub text: String,
    regex: Regex,
    /// A substring (escaped into `regex`), not a regular expression.
    pub(crate) plain: bool,
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

    /// A pattern selecting the test named `path` (outermost first) and no other:
    /// `--only-failed`'s choice in a file run whole.
    pub fn exact(path: &[String]) -> Pattern {
        let text = path.join(" > ");
        let source = format!("^{}$", regex::escape(&text));
        Pattern {
            regex: Regex::new(&source).unwrap_or_else(|_| Regex::new("$^").expect("a literal")),
            text,
            plain: false,
        }
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

    pub(crate) fn source(&self) -> &str {
        self.regex.as_str()
    }
}

/// A harness's filter: how its command narrows to named tests.
pub(crate) trait Narrow: Sync {
    /// The filter's name as the run's header says it (`bats --filter`).
    fn said(&self) -> &'static str;

    /// Puts the filter on `command`: `matching` are the known tests that match `patterns`
    /// (names outermost first); `patterns` also stand for tests only known at run time.
    fn narrow(&self, command: &mut Vec<OsString>, patterns: &[Pattern], matching: &[Vec<String>]);

    /// The skip reason the framework prints for a test its filter left out, when it reports
    /// them at all: the run counts those as not selected, as every filter's leftovers
    /// (docs/tests.md), not as skipped by the test.
    fn left_out(&self) -> Option<&'static str> {
        None
    }
}

/// How a file's tests are filtered: its harness's filter, or none (it runs whole).
#[derive(Clone, Copy)]
pub struct Filter(Option<&'static dyn Narrow>);

impl Filter {
    /// No filter of its own: the file runs whole.
    pub const NONE: Filter = Filter(None);

    pub(crate) const fn of(narrow: &'static dyn Narrow) -> Filter {
        Filter(Some(narrow))
    }

    /// The filter's name as the run's header says it.
    pub fn said(self) -> &'static str {
        self.0
            .map_or("no filter of its own: runs whole", |n| n.said())
    }

    /// The skip reason the filter gives the tests it left out ([`Narrow::left_out`]).
    pub fn left_out(self) -> Option<&'static str> {
        self.0.and_then(|n| n.left_out())
    }

    /// Whether the file runs whole, its other tests marked not selected.
    pub fn runs_whole(self) -> bool {
        self.0.is_none()
    }

    pub(crate) fn narrow(
        self,
        command: &mut Vec<OsString>,
        patterns: &[Pattern],
        matching: &[Vec<String>],
    ) {
        if let Some(narrow) = self.0 {
            narrow.narrow(command, patterns, matching);
        }
    }
}

impl PartialEq for Filter {
    fn eq(&self, other: &Filter) -> bool {
        self.said() == other.said()
    }
}

impl std::fmt::Debug for Filter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.said())
    }
}

/// What a harness reads to tell a file's filter.
pub(crate) struct Probe<'a> {
    /// Whether the command runs a program of this base name.
    pub program: &'a dyn Fn(&str) -> bool,
    /// The file's source (empty when unreadable).
    pub source: &'a dyn Fn() -> String,
    /// A `[[suite]]`'s output format; `None` for a file.
    pub suite: Option<InputFormat>,
    /// The harness that runs the file, when a built-in rule mapped it.
    pub harness: Option<Id>,
}

/// One level's filter for a harness that matches a pattern against each test's own name (or
/// its top level's): the patterns that name no parent (`adds`, not `math > adds`), for tests
/// only known at run time, and the names of the matching tests, anchored.
pub(crate) fn level(patterns: &[Pattern], names: BTreeSet<&str>) -> String {
    let own: Vec<String> = names.into_iter().map(regex::escape).collect();
    let raw = (patterns.iter())
        .filter(|p| !p.text.contains(" > "))
        .map(Pattern::source);
    let mut all: Vec<String> = raw.map(str::to_owned).collect();
    if !own.is_empty() {
        all.push(format!("^({})$", own.join("|")));
    }
    all.join("|")
}

/// [`level`] over the matching tests' own (last) names.
pub(crate) fn own_level(patterns: &[Pattern], matching: &[Vec<String>]) -> String {
    level(
        patterns,
        matching
            .iter()
            .filter_map(|n| n.last().map(String::as_str))
            .collect(),
    )
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
}
