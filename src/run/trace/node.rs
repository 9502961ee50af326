//! Node's hook: `--require tapline-trace.cjs` (in `NODE_OPTIONS`, so node subprocesses load it
//! too) writes `require.cache` at exit and, when ES modules ran (an ES-module test, `import()`,
//! a `require()` of an ES module on node 20.19+/22.12+, a loader), every file V8 compiled, as
//! node's inspector lists them (`Debugger.enable` replays each script). ES modules stay in
//! node's module map for the life of the process, so that list holds every one of them,
//! however it was reached. A process that ran ES modules and has no inspector writes
//! `#partial node: <why>`, which leaves the file no trace. No loader hook is registered: one
//! starts a thread in every process, and node does not pass a `require()`d ES module's imports
//! through it.
use std::path::Path;

/// The hook's file name and text.
pub(crate) const HOOKS: &[(&str, &str)] =
    &[("tapline-trace.cjs", include_str!("hooks/tapline-trace.cjs"))];

fn plain(dir: &Path) -> Option<&str> {
    dir.to_str().filter(|d| !d.contains(char::is_whitespace))
}

/// The `NODE_OPTIONS` words of every node child.
pub(crate) fn cjs_words(dir: &Path) -> Option<String> {
    Some(format!("--require {}/tapline-trace.cjs", plain(dir)?))
}
