//! Python's hook: a `sitecustomize.py` first on `PYTHONPATH`, which records `sys.modules`'
//! files at exit (`atexit`), then imports the `sitecustomize` it shadows, if any, and takes its
//! folder off `sys.path` again. `python -I`/`-E`/`-S` skip it: no trace then.
use std::path::Path;

/// The hook's file name and text.
pub(crate) const HOOKS: &[(&str, &str)] =
    &[("sitecustomize.py", include_str!("hooks/sitecustomize.py"))];

/// The `PYTHONPATH` entry that finds the hook; none when the path holds a `:`.
pub(crate) fn path_entry(dir: &Path) -> Option<&Path> {
    (!dir.as_os_str().as_encoded_bytes().contains(&b':')).then_some(dir)
}
