//! Rust: a crate or workspace runs through `cargo test`, one entry per test binary as cargo
//! builds them (a lib's unit tests, each bin's, each `tests/*.rs`, examples and benches that
//! ask to be tested, the doc tests), each read from libtest's plain output, every test a
//! point. docs/discovery.md (Rust) says how and why.
use super::api::Id;
use super::filter::{Filter, Narrow, Pattern, Probe};
use super::follow::Implied;
use super::list::{Listable, Lister, Listing, Scanned};
use super::Harness;
use crate::protocol::InputFormat;
use std::ffi::OsString;
use std::path::Path;

mod crash;
mod list;
mod targets;

pub(crate) struct Cargo;
pub(crate) static CARGO: Cargo = Cargo;

/// The manifest whose folder is a crate's or a workspace's root.
const MANIFEST: &str = "Cargo.toml";

impl Harness for Cargo {
    fn id(&self) -> Id {
        "cargo"
    }

    // A crate's or a workspace member's root, as cargo finds it from a subfolder.
    fn project_markers(&self) -> &'static [&'static str] {
        &[MANIFEST]
    }

    fn implied_suite(&self, cwd: &Path) -> Option<Vec<Implied>> {
        cwd.join(MANIFEST).is_file().then(|| targets::implied(cwd))
    }

    fn filter(&self, probe: &Probe<'_>) -> Option<Filter> {
        (probe.suite == Some(InputFormat::Libtest) && (probe.program)("cargo"))
            .then_some(Filter::of(&LibtestFilter))
    }

    fn crash_lister(&self, format: InputFormat) -> Option<crate::protocol::libtest::TestLister> {
        (format == InputFormat::Libtest).then(crash::lister)
    }

    fn suite_tests(&self, suite: &Listable<'_>) -> Option<Vec<Scanned>> {
        list::suite_tests(suite)
    }

    fn lister(&self, file: &Listable<'_>) -> Option<Lister> {
        list::lister(file)
    }

    fn list(&self, _lister: &Lister, files: &[&Listable<'_>], _cwd: &Path, out: &mut Listing) {
        list::list(files, out)
    }
}

/// libtest's own filter, after `--` on the command: its names are substrings, or with
/// `--exact` whole names.
struct LibtestFilter;

impl Narrow for LibtestFilter {
    fn said(&self) -> &'static str {
        "cargo test -- FILTER"
    }

    fn narrow(&self, command: &mut Vec<OsString>, patterns: &[Pattern], matching: &[Vec<String>]) {
        command.extend(
            filter_words(patterns, matching)
                .into_iter()
                .map(OsString::from),
        );
    }
}

/// The words after `--`: plain patterns as libtest's substrings (which match tests only known
/// at run time too); else the matching tests' whole names with `--exact` (a `/regex/`, or
/// `--only-failed`'s exact names). Nothing when no test is known to match a regex: the binary
/// runs whole.
fn filter_words(patterns: &[Pattern], matching: &[Vec<String>]) -> Vec<String> {
    let plain = patterns.iter().all(|p| p.plain && !p.text.contains(" > "));
    let mut words = vec!["--".to_owned()];
    if plain && !patterns.is_empty() {
        words.extend(patterns.iter().map(|p| p.text.clone()));
        return words;
    }
    let mut names: Vec<String> = matching.iter().filter_map(|n| n.last().cloned()).collect();
    names.sort();
    names.dedup();
    if names.is_empty() {
        return Vec::new();
    }
    words.push("--exact".to_owned());
    words.extend(names);
    words
}

#[cfg(test)]
mod tests {
    use super::*;

    fn path(p: &[&str]) -> Vec<String> {
        p.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn plain_patterns_are_libtests_substrings_else_exact_names() {
        let plain = [Pattern::parse("adds").expect("pattern")];
        assert_eq!(filter_words(&plain, &[]), ["--", "adds"]);
        let re = [Pattern::parse("/^tests::a/").expect("pattern")];
        let m = [path(&["tests::b"]), path(&["tests::a"])];
        assert_eq!(
            filter_words(&re, &m),
            ["--", "--exact", "tests::a", "tests::b"]
        );
        assert!(filter_words(&re, &[]).is_empty());
        let failed = [Pattern::exact(&path(&["tests::subtracts"]))];
        assert_eq!(
            filter_words(&failed, &[path(&["tests::subtracts"])]),
            ["--", "--exact", "tests::subtracts"]
        );
    }
}
