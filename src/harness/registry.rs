//! The harnesses tapline knows, in the order their built-in rules are tried: the only file
//! outside the rooms that names them.
use super::api::{Builtin, Id};
use super::Harness;
use crate::harness::shebang::Shebang;
use std::ffi::OsString;

/// Every harness, in the order their rules are tried (the first rule that matches a file wins).
pub(crate) static HARNESSES: &[&dyn Harness] = &[
    &super::perl::PROVE,      // *.{t,pl}
    &super::python::PYTHON,   // *.py, under pytest in a pytest project
    &super::python::PYTEST,   // (files PYTHON hands to pytest)
    &super::node::NODE,       // *.{js,mjs,cjs}
    &super::node::TYPESCRIPT, // *.ts, by the project's TypeScript runner
    &super::shell::SH,        // *.sh
    &super::bats::BATS,       // *.bats
    &super::go::GO,           // [[suite]]s of go's JSON
];

/// The harness named `id`.
pub(crate) fn harness(id: Id) -> Option<&'static dyn Harness> {
    HARNESSES.iter().copied().find(|h| h.id() == id)
}

/// Every built-in rule with its harness, in the order they are tried.
pub(crate) fn builtin_rules() -> impl Iterator<Item = (&'static dyn Harness, &'static Builtin)> {
    HARNESSES
        .iter()
        .copied()
        .flat_map(|h| h.rules().iter().map(move |rule| (h, rule)))
}

/// Whether `program` (a base name) writes each line whole as it goes (by any harness's word).
pub(crate) fn flushes_each_line(program: &str) -> bool {
    HARNESSES.iter().any(|h| h.flushes_each_line(program))
}

/// A user's `[[runner]]` command for a file with a `#!` line, as every harness shapes it
/// ([`Harness::user_command`]).
pub(crate) fn user_command(command: Vec<OsString>, line: &Shebang) -> Vec<OsString> {
    HARNESSES
        .iter()
        .fold(command, |command, h| h.user_command(command, line))
}

/// The filter of a file's tests, as the first harness that knows it says.
pub(crate) fn filter_of(probe: &super::filter::Probe<'_>) -> super::filter::Filter {
    HARNESSES
        .iter()
        .find_map(|h| h.filter(probe))
        .unwrap_or(super::filter::Filter::NONE)
}

/// The command `--list` shows for a file that runs as a page, or why it cannot run.
pub(crate) fn page_command(
    path: &std::path::Path,
    cx: &mut super::api::Cx<'_>,
) -> Result<Vec<OsString>, super::api::MissingInterpreter> {
    super::browser::adapter::page_command(path, cx)
}

/// The folders every harness's ecosystem fills with dependencies or caches.
pub(crate) fn dependency_folders() -> impl Iterator<Item = &'static str> {
    HARNESSES
        .iter()
        .flat_map(|h| h.dependency_folders().iter().copied())
}

// --- inventory (h39-inv): the static scan and the harnesses' own listings ---

/// How the tests of a file named `path` are read from its source, by its language.
pub(crate) fn scanner(path: &str) -> Option<super::scan::Scanner> {
    HARNESSES.iter().find_map(|h| h.scanner(path))
}

/// A scanned test's names as the run of `file` names it (as scanned, unless its harness says).
pub(crate) fn scanned_name(file: &super::list::Listable<'_>, name: Vec<String>) -> Vec<String> {
    HARNESSES
        .iter()
        .find_map(|h| h.scanned_name(file, &name))
        .unwrap_or(name)
}

/// The tests of a `[[suite]]` read from its sources, by the harness that runs it.
pub(crate) fn suite_tests(suite: &super::list::Listable<'_>) -> Vec<super::list::Scanned> {
    HARNESSES
        .iter()
        .find_map(|h| h.suite_tests(suite))
        .unwrap_or_default()
}

/// The harness's own listing of `file`'s tests, if it has one.
pub(crate) fn lister(file: &super::list::Listable<'_>) -> Option<super::list::Lister> {
    HARNESSES.iter().find_map(|h| h.lister(file))
}
