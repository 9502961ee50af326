//! node's warm worker: tape files (and a `[[runner]]`'s with `warm = true`) run one after
//! another in a node process that stays up, as `tape 'test/*.js'` runs them, instead of a node
//! start and a `require('tape')` per file. The generic pool (`run/worker`) starts and feeds it;
//! this room gives it its driver (`tapline-warm.cjs`, which reads [`super::trace::COMPILED`]
//! beside it), says which files may run in it and what a worker starts with (its extra CA
//! certificates, [`extra_ca`]).
//!
//! - the driver ends each file as `node FILE` would end: when node's event loop is empty
//!   ('beforeExit', the driver holding no handle while a file runs), it runs the 'exit'
//!   listeners the file added (tape's prints the plan and names the exit code) and writes the
//!   pool's end marker. A file that calls `process.exit`, throws, or crashes the process ends
//!   the worker; one that never lets the loop empty (a leaked handle) is timed out.
//! - tape keeps one harness per copy of its module: each file gets a fresh copy of tape's
//!   `index.js` behind one module object, so every `require('tape')` (a helper's cached one
//!   too) reaches this file's harness.
//! - a trace is the file's module and, through each module's `children`, what it loaded, so a
//!   module an earlier file loaded first still counts.
//!
//! Not warm: an ES-module file, a file that does not name tape (unless its rule says
//! `warm = true`), a command whose program is not node.
use crate::harness::worker::Worker;
use std::ffi::OsString;
use std::path::Path;

mod extra_ca;

/// node's worker.
pub(crate) struct Warm;
pub(crate) static WARM: Warm = Warm;

/// The driver's file name and text, and what it reads beside it.
const FILES: &[(&str, &str)] = &[
    ("tapline-warm.cjs", include_str!("tapline-warm.cjs")),
    super::trace::COMPILED,
];

impl Worker for Warm {
    fn runs(&self, program: &str) -> bool {
        matches!(program, "node" | "nodejs")
    }

    fn files(&self) -> &'static [(&'static str, &'static str)] {
        FILES
    }

    fn key_extra(&self, path: &Path, asked: bool) -> Option<bool> {
        if super::trace::is_esm(path) {
            return None;
        }
        let tape = tape_file(path);
        (asked || tape).then_some(tape)
    }

    fn start_env(
        &self,
        hooks: &Path,
        argv: &[OsString],
        cwd: &Path,
        get: &dyn Fn(&str) -> Option<OsString>,
    ) -> Vec<(OsString, OsString)> {
        extra_ca::vars(hooks, argv, cwd, get)
    }
}

/// Whether a file runs warm beside tape's files: it requires tape or one of its modules
/// itself (a file that reaches it only through a helper runs isolated, which is always right),
/// or it loads no module at all (a fixture or data file that `tape 'test/**/*.js'` requires
/// beside the tests: it cannot reach a harness, and a node start of its own would cost more
/// than the file) in a folder where tape is installed.
fn tape_file(path: &Path) -> bool {
    const LIMIT: u64 = 1024 * 1024;
    let Ok(meta) = std::fs::metadata(path) else {
        return false;
    };
    if meta.len() > LIMIT {
        return false;
    }
    let Ok(text) = std::fs::read(path) else {
        return false;
    };
    let has = |needle: &str| memchr::memmem::find(&text, needle.as_bytes()).is_some();
    let names_tape = [
        "require('tape')",
        "require(\"tape\")",
        "require('tape/",
        "require(\"tape/",
    ]
    .iter()
    .any(|needle| has(needle));
    // Anywhere, comments and strings too: a word that might load something keeps it out.
    let loads_nothing = !has("require") && !has("import");
    (names_tape || loads_nothing) && resolves_to_tape(path)
}

/// Whether the `tape` node would load for `path` is the tape package (the driver runs each
/// file through tape's own harness; a module of another make under that name, such as a
/// stand-in a fixture writes, keeps a process of its own).
fn resolves_to_tape(path: &Path) -> bool {
    path.ancestors()
        .skip(1)
        .map(|dir| dir.join("node_modules/tape/package.json"))
        .find(|p| p.is_file())
        .and_then(|p| std::fs::read(p).ok())
        .and_then(|bytes| serde_json::from_slice::<serde_json::Value>(&bytes).ok())
        .is_some_and(|doc| doc["name"] == "tape")
}

#[cfg(test)]
mod tests {
    use crate::harness::registry::stales_workers;
    use std::path::Path;

    #[test]
    fn issue26_an_installed_module_stales_the_spares_and_a_test_does_not() {
        assert!(stales_workers(Path::new("/p/node_modules/tape/index.js")));
        assert!(!stales_workers(Path::new("/p/test/util.test.js")));
        assert!(!stales_workers(Path::new("/p/node_modules_notes.md")));
    }
}
