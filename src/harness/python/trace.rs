//! Python's trace hook: a `sitecustomize.py` first on `PYTHONPATH`, which records
//! `sys.modules`' files at exit (`atexit`), then imports the `sitecustomize` it shadows, if
//! any, and takes its folder off `sys.path` again. `python -I`/`-E`/`-S` skip it: no trace then.
use crate::harness::api::Id;
use crate::harness::trace::{EnvEdit, TraceHook};
use std::path::Path;

pub(crate) struct PythonTrace;
pub(crate) static PYTHON_TRACE: PythonTrace = PythonTrace;

/// The hook's file name and text.
const HOOKS: &[(&str, &str)] = &[(
    "sitecustomize.py",
    include_str!("hooks/trace/sitecustomize.py"),
)];

impl TraceHook for PythonTrace {
    fn id(&self) -> Id {
        "python"
    }

    /// A pytest file (issue 25) runs python: its hook traces it.
    fn is_program(&self, program: &str) -> bool {
        program.starts_with("python") || program == "pytest"
    }

    fn hooks(&self) -> &'static [(&'static str, &'static str)] {
        HOOKS
    }

    fn env(&self, dir: &Path) -> Option<(&'static str, EnvEdit)> {
        let entry = path_entry(dir)?;
        Some(("PYTHONPATH", EnvEdit::PrependPath(entry.to_path_buf())))
    }

    fn shapes_every_run(&self) -> &'static [&'static str] {
        &[
            "pyproject.toml",
            "setup.py",
            "setup.cfg",
            "requirements.txt",
            "Pipfile",
            "Pipfile.lock",
            "poetry.lock",
            "uv.lock",
            "tox.ini",
            "pytest.ini",
            "conftest.py",
        ]
    }

    fn shapes_every_run_like(&self, name: &str) -> bool {
        name.starts_with("requirements") && name.ends_with(".txt")
    }

    fn module_exts(&self) -> &'static [&'static str] {
        &["py"]
    }
}

/// The `PYTHONPATH` entry that finds a hook in `dir`; none when the path holds a `:`.
pub(crate) fn path_entry(dir: &Path) -> Option<&Path> {
    (!dir.as_os_str().as_encoded_bytes().contains(&b':')).then_some(dir)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::registry::traced_by;
    use std::ffi::OsString;

    /// A pytest file (issue 25) runs python: its hook traces it.
    #[test]
    fn pytest_commands_are_traced_as_python() {
        let kind = |words: &[&str]| {
            let argv: Vec<OsString> = words.iter().map(OsString::from).collect();
            traced_by(&argv, false).map(|hook| hook.id())
        };
        let file = ["-p", "tapline_pytest", "tests/test_a.py"];
        assert_eq!(kind(&[&["pytest"][..], &file].concat()), Some("python"));
        assert_eq!(
            kind(&[&["/p/.venv/bin/pytest"][..], &file].concat()),
            Some("python")
        );
        assert_eq!(
            kind(&[&["python3", "-m", "pytest"][..], &file].concat()),
            Some("python")
        );
    }

    #[test]
    fn the_hook_goes_first_on_pythonpath_unless_its_folder_has_a_colon() {
        assert_eq!(
            PYTHON_TRACE.env(Path::new("/tmp/h")),
            Some(("PYTHONPATH", EnvEdit::PrependPath("/tmp/h".into())))
        );
        assert_eq!(PYTHON_TRACE.env(Path::new("/tmp/a:b")), None);
    }
}
