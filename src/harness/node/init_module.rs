//! A folder's `00init` module, as tstest names it: the file a test file of that folder loads
//! first (docs/tstest.md). In the node room, whose harnesses load it; the browser room's
//! bundler reads it from here too.
use std::path::{Path, PathBuf};

/// A folder's init module names, the first one present taken.
pub(crate) const INIT_NAMES: &[&str] = &["00init.ts", "00init.mts", "00init.js", "00init.mjs"];

/// Whether `name` is a folder's init module (not a test of its own).
pub(crate) fn is_init_name(name: &str) -> bool {
    INIT_NAMES.contains(&name)
}

/// The extensions of the files an init module runs before: node's and TypeScript's modules.
const MODULE_EXTS: &[&str] = &["ts", "mts", "cts", "js", "mjs", "cjs", "tsx", "jsx"];

/// The init module of `file`'s own folder (absolute when `file` is), if `file` is a
/// JavaScript or TypeScript module and is not an init module itself.
pub(crate) fn init_of(file: &Path) -> Option<PathBuf> {
    let name = file.file_name()?.to_str()?;
    let ext = name.rsplit_once('.')?.1;
    if !MODULE_EXTS.contains(&ext) || is_init_name(name) {
        return None;
    }
    let dir = file.parent()?;
    INIT_NAMES.iter().map(|n| dir.join(n)).find(|p| p.is_file())
}
