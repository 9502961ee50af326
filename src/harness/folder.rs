//! A folder's walk as a harness takes it over ([`crate::harness::Harness::folder`]): which of
//! the files the walk finds the harness runs, where the rest of the folder is its suite's own
//! machinery (prove's `t/`: its `*.t`, not the `t/lib.sh` beside them).
use std::fmt::Debug;
use std::path::Path;

/// A folder a walk reads as its harness reads it.
pub(crate) trait Folder: Debug {
    /// Whether `rel` (relative to the root) names a file of the kind the harness runs here
    /// (prove's `*.t`), wherever in the folder it lies.
    fn is_own(&self, rel: &str) -> bool;

    /// Whether the harness runs the file of its own kind at `path` (as walked from `cwd`): a
    /// folder's own files only, or those its project's configuration names.
    fn runs(&self, cwd: &Path, path: &Path) -> bool;

    /// Why a run with no PATH that walked this folder runs its files one at a time, as the
    /// harness runs them (`None`: the harness runs them side by side, as yath with `-j N`).
    fn one_at_a_time(&self) -> Option<&'static str>;

    /// Why a walk passed over a file beside its tests (`--list` says it after the file).
    fn helper(&self) -> &'static str;

    /// Why a walk passed over a file of its own kind the harness does not run.
    fn unrun(&self) -> &'static str;
}
