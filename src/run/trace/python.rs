//! Python's hook: a `sitecustomize.py` first on `PYTHONPATH`, which records `sys.modules`'
//! files at exit (`atexit`), then imports the `sitecustomize` it shadows, if any, and takes its
//! folder off `sys.path` again. `python -I`/`-E`/`-S` skip it: no trace then.
use std::path::Path;

const HOOK: &str = include_str!("hooks/sitecustomize.py");

pub(crate) fn write_hook(dir: &Path) -> std::io::Result<()> {
    std::fs::write(dir.join("sitecustomize.py"), HOOK)
}

/// The `PYTHONPATH` entry that finds the hook; none when the path holds a `:`.
pub(crate) fn path_entry(dir: &Path) -> Option<&Path> {
    (!dir.as_os_str().as_encoded_bytes().contains(&b':')).then_some(dir)
}
