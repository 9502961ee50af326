//! The harnesses tapline knows, in the order their built-in rules are tried: the only file
//! outside the rooms that names them.
use super::api::{Builtin, Id};
use super::Harness;
use crate::util::shebang::Shebang;
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

// trace and coverage (h39-trace): each language's trace hook and coverage engine.

/// Every language's trace hook, in the order their hook texts are hashed into the hooks'
/// folder name (which a taint-mode perl's command line, and so the result cache, holds).
pub(crate) static TRACE_HOOKS: &[&dyn super::trace::TraceHook] = &[
    &super::perl::trace::PERL_TRACE,
    &super::node::trace::NODE_TRACE,
    &super::python::trace::PYTHON_TRACE,
    &super::go::trace::GO_TRACE,
];

/// Every language's coverage engine, in the order their variables are set and their
/// figures read.
pub(crate) static COVERAGE_ENGINES: &[&dyn super::trace::CoverageEngine] = &[
    &super::node::coverage::V8_COVERAGE,
    &super::python::coverage::COVERAGE_PY,
    &super::perl::coverage::DEVEL_COVER,
    &super::go::coverage::GO_COVER,
];

/// The language whose trace hook traces `argv` (a file's command; `suite`: a `[[suite]]`'s).
pub(crate) fn traced_by(
    argv: &[OsString],
    suite: bool,
) -> Option<&'static dyn super::trace::TraceHook> {
    let program = argv.first()?.to_string_lossy();
    let name = program.rsplit('/').next().unwrap_or(&program);
    TRACE_HOOKS.iter().copied().find(|hook| {
        if suite {
            hook.is_suite(argv)
        } else {
            hook.is_program(name)
        }
    })
}
