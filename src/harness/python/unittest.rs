//! unittest, as unittest: the Python files of a project with no pytest run under unittest's own
//! loader, through tapline's small TAP result class (`tapline_unittest.py`, in the binary).
//!
//! A file runs here ([`runs_here`]) when the project is not pytest's (no `pytest.ini`,
//! `[tool.pytest…]`, `[tool:pytest]`, `[pytest]` in `tox.ini`, `conftest.py`: see
//! [`super::is_project`]), the file is written for unittest only (it imports unittest or
//! defines a `TestCase` class, and imports no pytest), and the project's interpreter
//! ([`super::interpreter::python`]) cannot import pytest. The runner is written to tapline's folder in the
//! temp folder as the pytest plugin is, goes first on `PYTHONPATH`, and runs as
//! `PYTHON -m tapline_unittest FILE` (docs/discovery.md#unittest).
use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use super::super::api::Id;
use super::super::list::Listable;
use super::super::Harness;

/// The harness of files run under unittest with tapline's result class.
pub(crate) const UNITTEST_ID: Id = "unittest";

pub(crate) struct Unittest;
pub(crate) static UNITTEST: Unittest = Unittest;

/// The runner's module name, as `-m` runs it.
const MODULE: &str = "tapline_unittest";
const RUNNER: &str = include_str!("tapline_unittest.py");

impl Harness for Unittest {
    fn id(&self) -> Id {
        UNITTEST_ID
    }

    fn env(&self, vars: &[(OsString, OsString)]) -> Result<Vec<(OsString, OsString)>, String> {
        let dir = runner_dir()?;
        let before = (vars.iter().rev())
            .find(|(k, _)| k == "PYTHONPATH")
            .map(|(_, v)| v.clone())
            .or_else(|| std::env::var_os("PYTHONPATH"));
        let value = super::python_path(&dir, before).ok_or_else(|| {
            format!(
                "failed to load tapline's unittest runner: its folder {} holds a `:`",
                dir.display()
            )
        })?;
        Ok(vec![("PYTHONPATH".into(), value)])
    }

    fn sandbox_reads(&self) -> Result<Vec<PathBuf>, String> {
        Ok(vec![runner_dir()?])
    }

    // --- inventory ---
    fn scanned_name(&self, file: &Listable<'_>, name: &[String]) -> Option<Vec<String>> {
        // The runner names a test `Class.test_method`, as unittest does without the module.
        let command = file.command.filter(|_| !file.suite)?;
        let ours = (command.windows(2)).any(|w| w[0] == "-m" && w[1] == MODULE);
        ours.then(|| vec![name.join(".")])
    }
}

/// Whether a Python file's text is unittest's only: it imports unittest (more than its `mock`)
/// or defines a `TestCase` class, and imports no pytest.
pub(crate) fn is_unittest_only(text: &str) -> bool {
    let mut unittest = false;
    for line in text.lines() {
        let code = line.trim_start();
        if code.starts_with("import pytest")
            || code.starts_with("from pytest ")
            || code.starts_with("from _pytest")
        {
            return false;
        }
        unittest |= code.starts_with("class ") && code.contains("TestCase")
            || super::imports_unittest(code);
    }
    unittest
}

/// The command that runs one file: the interpreter, the runner, the file.
pub(crate) fn command(python: &OsStr, file: &Path) -> Vec<OsString> {
    vec![
        python.to_owned(),
        "-m".into(),
        MODULE.into(),
        file.as_os_str().to_owned(),
    ]
}

/// The runner's folder, written once per process: `<temp>/tapline-trace-<uid>/unittest-<hash>/`.
fn runner_dir() -> Result<PathBuf, String> {
    static DIR: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    DIR.get_or_init(|| {
        super::super::hooks::versioned_hooks(
            "unittest",
            &[(&format!("{MODULE}.py"), RUNNER), super::COMMON],
        )
        .map_err(|e| format!("failed to write tapline's unittest runner: {e}"))
    })
    .clone()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unittest_only_files() {
        assert!(is_unittest_only(
            "import unittest\n\nclass T(unittest.TestCase):\n    pass\n"
        ));
        assert!(is_unittest_only(
            "from unittest import TestCase\nclass T(TestCase): pass\n"
        ));
        assert!(!is_unittest_only("import unittest\nimport pytest\n"));
        assert!(!is_unittest_only("def test_x():\n    assert 1\n"));
        assert!(!is_unittest_only("from unittest import mock\n"));
    }

    #[test]
    fn the_runner_is_written_where_pythonpath_points() {
        let dir = runner_dir().expect("runner written");
        let held = std::fs::read_to_string(dir.join(format!("{MODULE}.py"))).expect("read");
        assert_eq!(held, RUNNER);
        assert_eq!(
            command(OsStr::new("python3"), Path::new("tests/test_a.py")),
            ["python3", "-m", MODULE, "tests/test_a.py"]
        );
    }
}
