//! The harnesses tapline runs test files through, one room each behind one interface
//! ([`Harness`]), and their [`registry`]: the generic layers (discovery, planning, the runner)
//! ask the registry, never a room by name. Adding a harness is a room of its own and one line
//! in [`registry`]; docs/harness-adapters.md shows the interface.
//!
//! The model is neotest's adapters: a harness says which files it runs ([`Harness::rules`],
//! [`Harness::takes`]), how one runs through it ([`Harness::command`], [`Harness::by_line`]),
//! how a silent one is judged ([`Harness::silent`]) and what its files run with
//! ([`Harness::env`]). Every method but [`Harness::id`] has a default, so a room implements only
//! what its harness does. The rooms sit below the runner: they import only `util`, the
//! protocol crate and each other's vocabulary ([`api`]).
use crate::util::shebang::Shebang;
use api::{Builtin, Candidate, Cx, Hosts, Id, Made, Silent};
use std::ffi::OsString;
use std::path::{Path, PathBuf};

pub mod api;
pub mod filter;
pub(crate) mod hooks;
pub mod registry;
// trace and coverage (h39-trace): the per-language trace hooks and coverage engines.
pub mod trace;

mod bats;
mod go;
pub(crate) mod node;
pub(crate) mod perl;
pub(crate) mod python;
mod shell;

/// One harness: how tapline finds, runs and judges the files it runs.
pub(crate) trait Harness: Sync {
    /// Its name in the registry and in a file's description.
    fn id(&self) -> Id;

    /// Its built-in runner rules, tried after the user's `[[runner]]` rules in the registry's
    /// order.
    fn rules(&self) -> &'static [Builtin] {
        &[]
    }

    /// Whether a directory walk takes a file one of its rules maps (and the rule's walk names
    /// take): as the harness names its tests, beyond a glob.
    fn takes(&self, _file: &Candidate<'_>) -> bool {
        true
    }

    /// Whether `name` alone says the harness runs the file as a test (`test_x.py`, `x.bats`),
    /// wherever it lies: a folder of another harness's tests is then not wholly that
    /// harness's.
    fn is_test_name(&self, _name: &str) -> bool {
        false
    }

    /// The command a rule of its own made for a file, shaped by the file's `#!` line as the
    /// harness shapes it (the line's flags for the interpreter, a shell it asks for).
    fn by_line(&self, command: Vec<OsString>, _line: &Shebang) -> Vec<OsString> {
        command
    }

    /// The words of its rule's command when the harness chooses them at run time (the
    /// project's own TypeScript runner); `{}` stands for the file, else it goes last.
    fn template(&self, _cx: &mut Cx<'_>) -> Option<Vec<String>> {
        None
    }

    /// The command of a file its rule maps, when the harness makes it (`None`: the rule's
    /// command, shaped by the `#!` line). `abs` is the file's absolute path.
    fn command(&self, _path: &Path, _abs: &Path, _cx: &mut Cx<'_>) -> Option<Made> {
        None
    }

    /// A user's `[[runner]]` command for a file with a `#!` line: what the interpreter insists
    /// on seeing on its command line (perl's `-T`). Asked of every harness.
    fn user_command(&self, command: Vec<OsString>, _line: &Shebang) -> Vec<OsString> {
        command
    }

    /// Where a file its rule maps runs, when its name may say (`None`: by its command).
    fn hosts(&self, _name: &str) -> Option<Hosts> {
        None
    }

    /// How a file named `name` that prints no TAP is judged, when one of its rules maps it.
    fn silent(&self, _name: &str) -> Silent {
        Silent::Fails
    }

    /// Whether `program` (a command's program, its base name) writes each line whole to
    /// stdout and stderr as it goes, so one pipe for both keeps them in order.
    fn flushes_each_line(&self, _program: &str) -> bool {
        false
    }

    /// The filter of a file's tests when this harness runs it ([`filter::Probe`]: by its
    /// command, source or format).
    fn filter(&self, _probe: &filter::Probe<'_>) -> Option<filter::Filter> {
        None
    }

    /// What a file this harness runs gets in its environment, given the run's (`Err`: why the
    /// file cannot run).
    fn env(&self, _env: &[(OsString, OsString)]) -> Result<Vec<(OsString, OsString)>, String> {
        Ok(Vec::new())
    }

    /// Folders a sandboxed file of this harness must still read (tapline's own plugin in the
    /// temp folder, which the sandbox replaces).
    fn sandbox_reads(&self) -> Result<Vec<PathBuf>, String> {
        Ok(Vec::new())
    }
}

#[cfg(test)]
mod tests;
