//! The harnesses tapline knows, in the order their built-in rules are tried: the only file
//! outside the rooms that names them.
use super::api::{Builtin, Id};
use super::Harness;
use crate::harness::shebang::Shebang;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// Every harness, in the order their rules are tried (the first rule that matches a file wins).
pub(crate) static HARNESSES: &[&dyn Harness] = &[
    &super::shell_tap::SHELL_TAP, // (a *.t whose #! names a shell; a Makefile's t/)
    &super::perl::PROVE,          // *.{t,t2,pl}
    &super::perl::yath::YATH,     // (files PROVE hands to yath, in a yath project)
    &super::python::PYTHON,       // *.py, under pytest in a pytest project
    &super::python::PYTEST,       // (files PYTHON hands to pytest)
    &super::python::unittest::UNITTEST, // (files PYTHON hands to unittest)
    &super::node::NODE,           // *.{js,mjs,cjs}
    &super::node::TYPESCRIPT,     // *.ts, by the project's TypeScript runner
    &super::shell::SH,            // *.sh
    &super::bats::BATS,           // *.bats
    &super::busted::BUSTED,       // *.lua, busted's specs
    &super::pgtap::PGTAP,         // *.{pg,sql} declaring a pgTAP plan, through psql
    &super::go::GO,               // [[suite]]s of go's JSON
    &super::rust::CARGO,          // [[suite]]s of cargo test's binaries
    &super::mocha::MOCHA,         // a script's `mocha`: its own files, through it
    &super::vitest::VITEST,       // a script's `vitest`: its own files, through it
    &super::jest::JEST,           // a script's `jest`: its own files, through it
    &super::ava::AVA,             // a script's `ava`: its own files, through it
    &super::tap::TAP,             // a script's `tap`: its own files, through tap 18+
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

/// `tapline.toml`'s renamed keys, `(old, new)` as dotted paths (`"run.old"`): the old name
/// still read, with a warning, by the configuration's loader.
pub(crate) fn renamed_keys() -> &'static [(&'static str, &'static str)] {
    super::browser::chromium::RENAMED_KEYS
}

/// The files that mark a project's root, by every harness's word
/// ([`Harness::project_markers`]).
pub(crate) fn project_markers() -> impl Iterator<Item = &'static str> {
    HARNESSES
        .iter()
        .flat_map(|h| h.project_markers().iter().copied())
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

// --- disc: what the harnesses say about a project and how its files run (#39 §2 A, B, D, E) ---

/// What every harness gives a file by its command and name ([`Harness::file_env`]), in order.
pub(crate) fn file_env(command: &[OsString], rel: &str) -> Vec<(OsString, OsString)> {
    HARNESSES
        .iter()
        .flat_map(|h| h.file_env(command, rel))
        .collect()
}

/// `--list`'s notes on what [`file_env`] gives `files` (command, name): one per harness that
/// gives the first file it gives anything.
pub(crate) fn file_env_notes<'a>(files: &[(&'a [OsString], &'a str)]) -> Vec<String> {
    HARNESSES
        .iter()
        .filter_map(|h| {
            let vars = files.iter().find_map(|(command, rel)| {
                let vars = h.file_env(command, rel);
                (!vars.is_empty()).then_some(vars)
            })?;
            let shown: Vec<String> = vars
                .iter()
                .map(|(k, v)| format!("{}={}", k.to_string_lossy(), v.to_string_lossy()))
                .collect();
            Some(h.file_env_note(&shown.join(" ")))
        })
        .collect()
}

/// Why files run one at a time, as the first harness that says so words it
/// ([`Harness::one_at_a_time`]).
pub(crate) fn one_at_a_time(cwd: &Path, programs: &[Option<String>]) -> Option<String> {
    HARNESSES
        .iter()
        .find_map(|h| h.one_at_a_time(cwd, programs))
}

/// `--list`'s notes of every harness on a run in `cwd` ([`Harness::notes`]).
pub(crate) fn notes(cwd: &Path) -> Vec<String> {
    HARNESSES.iter().flat_map(|h| h.notes(cwd)).collect()
}

/// The include variables, each once, in the registry's order ([`Harness::lib_var`]).
pub(crate) fn lib_vars() -> Vec<&'static str> {
    let mut vars: Vec<&'static str> = Vec::new();
    for var in HARNESSES.iter().filter_map(|h| h.lib_var()) {
        if !vars.contains(&var) {
            vars.push(var);
        }
    }
    vars
}

/// The project's own include folders in `dir`, by variable ([`Harness::dist_libs`]).
pub(crate) fn dist_libs(dir: &Path) -> Vec<(&'static str, Vec<PathBuf>)> {
    HARNESSES
        .iter()
        .filter_map(|h| {
            let var = h.lib_var()?;
            let libs = h.dist_libs(dir);
            (!libs.is_empty()).then_some((var, libs))
        })
        .collect()
}

/// `argv` as every harness adapts it to see the include folders ([`Harness::adapt`]).
pub(crate) fn adapt(argv: Vec<OsString>, get: &dyn Fn(&str) -> Option<OsString>) -> Vec<OsString> {
    HARNESSES.iter().fold(argv, |argv, h| h.adapt(argv, get))
}

/// What the harness a project's test-script command runs takes from it
/// ([`Harness::follows`]); `None`: no harness tapline follows.
pub(crate) fn follows(words: &[String]) -> Option<super::follow::Follows> {
    HARNESSES.iter().find_map(|h| h.follows(words))
}

/// The module a file at `abs` loads first ([`Harness::init_of`]).
pub(crate) fn init_of(abs: &Path) -> Option<PathBuf> {
    HARNESSES.iter().find_map(|h| h.init_of(abs))
}

/// `argv` loading `init` first, as the first harness that loads it says
/// ([`Harness::preload`]); `argv` unchanged when none does.
pub(crate) fn preload(
    argv: Vec<OsString>,
    init: &Path,
    shown: &str,
    inline: bool,
) -> Result<super::Preloaded, String> {
    for h in HARNESSES {
        if let Some(preloaded) = h.preload(&argv, init, shown, inline)? {
            return Ok(preloaded);
        }
    }
    Ok((argv, Vec::new()))
}

/// What the result cache adds to a key for `init` ([`Harness::init_cache_word`]).
pub(crate) fn init_cache_word(init: &Path) -> String {
    HARNESSES
        .iter()
        .find_map(|h| h.init_cache_word(init))
        .unwrap_or_default()
}

/// Whether the file at `path` declares one of `wanted`, by any harness's reading.
pub(crate) fn declares_tag(path: &Path, wanted: &[String]) -> bool {
    HARNESSES.iter().any(|h| h.declares_tag(path, wanted))
}

/// `--tag`'s `KEY=VALUE`s, as every harness passes the tags on.
pub(crate) fn tag_env(wanted: &[String]) -> Vec<String> {
    HARNESSES.iter().filter_map(|h| h.tag_env(wanted)).collect()
}

/// The packages a `[[suite]]` tests, as the first harness that reads them says
/// ([`Harness::suite_packages`]).
pub(crate) fn suite_packages(
    format: crate::protocol::InputFormat,
    dir: &Path,
    root: &Path,
) -> Option<crate::protocol::gojson::PackageDirs> {
    HARNESSES
        .iter()
        .find_map(|h| h.suite_packages(format, dir, root))
}

/// How a crashed test binary of a stream in `format` names its running tests, as the first
/// harness that can ask one says ([`Harness::crash_lister`]).
pub(crate) fn crash_lister(
    format: crate::protocol::InputFormat,
) -> Option<crate::protocol::libtest::TestLister> {
    HARNESSES.iter().find_map(|h| h.crash_lister(format))
}

/// The `[[suite]]`s the project in `cwd` implies, as the first harness that implies any says
/// ([`Harness::implied_suite`]).
pub(crate) fn implied_suite(cwd: &Path) -> Option<Vec<super::follow::Implied>> {
    HARNESSES.iter().find_map(|h| h.implied_suite(cwd))
}

// --- dsc2: a project a harness owns and a folder's walk it takes over ---

/// The harness that runs the file at `abs` though another's rule maps it
/// ([`Harness::claims`]).
pub(crate) fn claimant(abs: &std::path::Path) -> Option<&'static dyn Harness> {
    HARNESSES.iter().copied().find(|h| h.claims(abs))
}

/// The harness that owns the project in `cwd`, if one does ([`Harness::owns_project`]).
pub(crate) fn owner(cwd: &Path) -> Option<&'static dyn Harness> {
    HARNESSES.iter().copied().find(|h| h.owns_project(cwd))
}

/// Whether `name` alone says some harness runs the file as a test ([`Harness::is_test_name`]).
fn any_test_name(name: &str) -> bool {
    HARNESSES.iter().any(|h| h.is_test_name(name))
}

/// Whether some harness holds the folder at `dir` (absolute) as wholly its tests
/// ([`Harness::holds_own_only`]).
pub(crate) fn holds_own_only(dir: &Path) -> bool {
    HARNESSES
        .iter()
        .any(|h| h.holds_own_only(dir, &any_test_name))
}

/// The walk of `dir` as a harness takes it over ([`Harness::folder`]): the owner's, in a
/// project one owns, else the first harness's that takes it.
pub(crate) fn folder(
    cwd: &Path,
    dir: &Path,
    owner: Option<&'static dyn Harness>,
    bare: bool,
) -> Option<Box<dyn super::folder::Folder>> {
    HARNESSES.iter().find_map(|h| {
        let owned = owner.is_some_and(|o| o.id() == h.id());
        h.folder(cwd, dir, owned, bare, &any_test_name)
    })
}

// --- dsc2: `tapline init` ---

/// The harnesses `tapline init` writes `[[suite]]`s for, in the order it writes them.
pub(crate) static INIT_ORDER: &[&dyn Harness] = &[&super::go::GO, &super::python::PYTEST];

/// The test script the project at `root` declares, and the harness whose ecosystem declares
/// it ([`Harness::init_script`]).
pub(crate) fn init_script(root: &Path) -> Option<(&'static dyn Harness, String)> {
    HARNESSES
        .iter()
        .copied()
        .find_map(|h| Some((h, h.init_script(root)?)))
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

// --- warm (h39-warm): the harnesses' long-lived workers ---

/// The harness whose worker runs in `program` (a base name), with that worker.
pub(crate) fn worker_for(program: &str) -> Option<(Id, &'static dyn super::worker::Worker)> {
    HARNESSES.iter().find_map(|h| {
        let worker = h
            .worker()
            .filter(|w| w.serves_others() && w.runs(program))?;
        Some((h.id(), worker))
    })
}

/// The worker of the harness named `id`.
pub(crate) fn worker(id: Id) -> Option<&'static dyn super::worker::Worker> {
    harness(id)?.worker()
}

/// Whether a change to `path` may reach what a harness's worker loaded before its first file:
/// it lies in a dependency folder ([`super::Harness::dependency_folders`]) of a harness that
/// has a worker.
pub(crate) fn stales_workers(path: &Path) -> bool {
    HARNESSES
        .iter()
        .filter(|h| h.worker().is_some())
        .flat_map(|h| h.dependency_folders().iter())
        .any(|folder| path.components().any(|c| c.as_os_str() == *folder))
}

// --- the page host (h39-cfg2): what the generic layers reach of the room that runs pages ---

/// The run's browser, shared by the files that run as pages ([`super::api::Host::Page`]):
/// started when the first is due, ended with the run.
pub(crate) type Pages = super::browser::Shared;

/// One page file's run, as the page host takes it from the dispatcher.
pub(crate) type PageJob = super::browser::BrowserJob;

/// What each page file's bundle loaded, recorded for traces and `watch`.
pub use super::browser::inputs::LoadedInputs as PageInputs;

/// The word a `[[runner]]`'s `runtime` names the page host by; a rule that names it runs its
/// files as pages ([`super::api::Host::Page`]).
pub(crate) fn page_runtime() -> &'static str {
    super::browser::adapter::RUNTIME
}

/// Why a run's page coverage could not be read (the note the page host left in `out`).
pub(crate) fn page_coverage_note(out: &Path) -> Option<String> {
    super::browser::coverage::read_note(out)
}

// --- workspaces (h39-ws) ---

/// The workspace whose root is `root`, as the first harness that reads one declares it
/// ([`Harness::workspace`]).
pub(crate) fn workspace(root: &Path) -> Option<Result<super::follow::Workspace, String>> {
    HARNESSES.iter().find_map(|h| h.workspace(root))
}

// --- the harnesses tapline names but does not follow (gdisc) ---

/// Harnesses a project's test script may name that tapline knows but does not follow (yet):
/// they have no room (nothing runs through them), so they are listed here alone; discovery
/// names them in the error that says what a `tapline.toml` entry running their files needs.
static UNFOLLOWED: &[&str] = &[
    "jasmine",
    "karma",
    "lab",
    "uvu",
    "playwright",
    "cypress",
    "wtr",
    "web-test-runner",
    "qunit",
];

/// The harness tapline does not follow that `program` (a base name) is, if it is one.
pub(crate) fn unfollowed(program: &str) -> Option<&'static str> {
    UNFOLLOWED.iter().copied().find(|h| *h == program)
}
