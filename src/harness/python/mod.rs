//! pytest, natively: which Python test files run under pytest, the pytest that runs them, and
//! tapline's own pytest plugin that makes pytest print TAP.
//!
//! A Python test file runs under pytest when the project is pytest's ([`is_project`]:
//! `pytest.ini`, `[tool.pytest…]` in `pyproject.toml`, `[tool:pytest]` in `setup.cfg`,
//! `[pytest]` in `tox.ini`, a `conftest.py`), or when the file itself is written for it
//! ([`is_test_module`]: it imports pytest, defines a `unittest.TestCase`, or defines `test_`
//! functions and runs nothing itself). A run with no PATH takes the files pytest's own session
//! collects, and each `-j` worker is one pytest that collected the session once and runs the
//! files tapline hands it ([`session`]); a file that cannot share a worker (`-t`, a retry's
//! node IDs, coverage, `--isolate`) runs alone as `PYTHON -m pytest -p tapline_pytest FILE`.
//! Each file is a tapline file with its own log and verdict. The interpreter is the project's
//! ([`interpreter`]).
//!
//! The plugin (`tapline_pytest.py`, in the binary) is written to tapline's folder in the temp
//! folder, as the trace hooks are ([`super::hooks`]), in a subfolder of its own that goes
//! first on the child's `PYTHONPATH` ([`env`]): the project installs nothing. It prints TAP 14
//! with protocol v2 markers, one point per test, live (see its own header for the details).
use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

#[cfg(test)]
pub(crate) mod discovery_cases;
mod root;

use super::api::{insert_after_program, Builtin, Cx, Id, Made};
use super::filter::{Filter, Narrow, Pattern, Probe};
use super::list::{Listable, Lister, Listing, Scanned};
use super::Harness;
use crate::harness::shebang::Shebang;
use crate::protocol::InputFormat;
use std::collections::BTreeSet;

pub(crate) mod interpreter;
mod list;
mod scan;
pub(crate) mod session;
pub(crate) mod unittest;

/// Python files: as pytest runs them in a project of pytest's or a file written for it, else as
/// a program (`python3 FILE`, which prints its own TAP).
// trace and coverage (h39-trace): the trace hook and coverage.py.
pub(crate) mod coverage;
pub(crate) mod trace;

pub(crate) struct Python;
pub(crate) static PYTHON: Python = Python;

/// The harness of files run under pytest with tapline's plugin.
pub(crate) const PYTEST_ID: Id = "pytest";

/// Files run under pytest with tapline's plugin ([`PYTHON`] hands them over).
pub(crate) struct Pytest;
pub(crate) static PYTEST: Pytest = Pytest;

impl Harness for Python {
    fn id(&self) -> Id {
        "python"
    }

    // --- inventory (h39-inv) ---
    fn scanner(&self, path: &str) -> Option<crate::harness::scan::Scanner> {
        scan::reads(path).then_some(scan::scan as crate::harness::scan::Scanner)
    }

    // --- disc (#39 §2 B) ---

    fn lib_var(&self) -> Option<&'static str> {
        Some("PYTHONPATH")
    }

    fn project_files(
        &self,
        cwd: &Path,
        root: &Path,
    ) -> Option<Result<Vec<PathBuf>, ignore::Error>> {
        // pytest with no argument looks from the cwd down.
        (is_project(cwd) || is_project(root)).then(|| root::files(cwd))
    }

    fn no_project_files(&self) -> &'static str {
        root::NONE_FOUND
    }

    fn rules(&self) -> &'static [Builtin] {
        // pytest's default names; other modules are helpers.
        &[Builtin {
            glob: "*.py",
            walk: &["test*.py", "*_test.py"],
            command: &["python3", "{}"],
        }]
    }

    fn is_test_name(&self, name: &str) -> bool {
        name.ends_with(".py") && (name.starts_with("test") || name.ends_with("_test.py"))
    }

    fn dependency_folders(&self) -> &'static [&'static str] {
        &["__pycache__"]
    }

    fn by_line(&self, mut command: Vec<OsString>, line: &Shebang) -> Vec<OsString> {
        // The line's words (`-u`, `-W error`, `-X dev`) go on the command line.
        if line.name().starts_with("python") {
            insert_after_program(&mut command, line.args.clone());
        }
        command
    }

    fn command(&self, path: &Path, abs: &Path, cx: &mut Cx<'_>) -> Option<Made> {
        let (cwd, root) = (cx.cwd, cx.root);
        let project = cx.memo.get_or_insert_with(("pytest", "project"), || {
            is_project(cwd) || is_project(root)
        });
        if !(project || reads_as_test_module(abs)) {
            return None;
        }
        if !project {
            if let Some(made) = unittest_command(path, abs, cx) {
                return Some(made);
            }
        }
        // Whether this python has pytest is the run's one question ([`Pytest::collects`]).
        let python = pytest_python(cx);
        Some(Made {
            command: Ok(command(&pytest_program(&python), path)),
            harness: PYTEST.id(),
            cwd: None,
        })
    }
}

impl Harness for Pytest {
    fn id(&self) -> Id {
        PYTEST_ID
    }

    // As pytest's rootdir: the nearest folder with one of its configuration files.
    fn project_markers(&self) -> &'static [&'static str] {
        &[
            "pyproject.toml",
            "pytest.ini",
            "tox.ini",
            "setup.cfg",
            "setup.py",
        ]
    }

    // --- inventory (h39-inv) ---
    fn scanned_name(&self, file: &Listable<'_>, name: &[String]) -> Option<Vec<String>> {
        list::scanned_name(file, name)
    }

    fn suite_tests(&self, suite: &Listable<'_>) -> Option<Vec<Scanned>> {
        list::suite_tests(suite)
    }

    fn lister(&self, file: &Listable<'_>) -> Option<Lister> {
        list::lister(file)
    }

    fn list(&self, lister: &Lister, files: &[&Listable<'_>], cwd: &Path, out: &mut Listing) {
        list::list(lister, files, cwd, out)
    }

    fn env(&self, vars: &[(OsString, OsString)]) -> Result<Vec<(OsString, OsString)>, String> {
        env(vars)
    }

    fn collects(
        &self,
        bare: bool,
        cx: &mut Cx<'_>,
    ) -> Option<Result<Option<Vec<PathBuf>>, String>> {
        let python = pytest_python(cx);
        // pytest's session decides a bare run's files in a project of its own; elsewhere (files
        // written for pytest in a project without its configuration) the walk does.
        let project = is_project(cx.cwd) || is_project(cx.root);
        if !(bare && project) {
            let (cwd, python_) = (cx.cwd, python.clone());
            let has = cx
                .memo
                .get_or_insert_with(("pytest", "has"), || interpreter::has_pytest(&python_, cwd));
            if !has {
                interpreter::forget(cx.cwd);
            }
            return Some(match has {
                true => Ok(None),
                false => Err(missing(&python, cx.cwd)),
            });
        }
        let collected = session::collected(&python, cx.cwd, cx.root);
        if collected.is_err() {
            // The next run chooses the interpreter afresh.
            interpreter::forget(cx.cwd);
        }
        Some(collected.map(Some))
    }

    fn worker(&self) -> Option<&'static dyn super::worker::Worker> {
        Some(&session::PYTEST_WORKER)
    }

    fn sandbox_reads(&self) -> Result<Vec<PathBuf>, String> {
        Ok(vec![plugin_dir()?])
    }

    fn filter(&self, probe: &Probe<'_>) -> Option<Filter> {
        match probe.suite {
            Some(InputFormat::Junit) if (probe.program)("pytest") => Some(Filter::of(&PytestK)),
            None if probe.harness == Some(PYTEST_ID) => Some(PYTEST_FILE_FILTER),
            _ => None,
        }
    }

    // --- dsc2: `tapline init` ---

    fn init_marks(&self, dir: &Path) -> bool {
        pytest_configured(dir)
    }

    fn init_nests(&self) -> bool {
        // A plain run runs the root's pytest tests, and those in the folders it walks, under
        // pytest itself (docs/discovery.md#pytest): only a folder it does not walk needs a
        // suite.
        true
    }

    fn init_suite(&self, where_: &str, name: &str, dir: &str) -> String {
        format!(
            "\n# pytest's tests in {where_} (pytest configuration found): run by pytest, read from\n\
             # its JUnit report. Python files run one by one print no TAP.\n\
             [[suite]]\nname = {name}\ndir = {dir}\n\
             command = [\"python3\", \"-m\", \"pytest\", \"--junitxml=.nogit/pytest.xml\"]\n\
             format = \"junit\"\nreport = \".nogit/pytest.xml\"      # relative to dir\n"
        )
    }
}

/// A file run under pytest with tapline's plugin: its tests' node IDs.
pub(crate) const PYTEST_FILE_FILTER: Filter = Filter::of(&NodeIds);

struct NodeIds;

impl Narrow for NodeIds {
    fn said(&self) -> &'static str {
        "pytest node IDs"
    }

    fn narrow(&self, command: &mut Vec<OsString>, _patterns: &[Pattern], matching: &[Vec<String>]) {
        // `pytest … FILE` becomes `pytest … FILE::test_a FILE::Class::test_b[1]`.
        let Some(file) = command.pop() else {
            return;
        };
        let ids: BTreeSet<&str> = (matching.iter())
            .filter_map(|n| n.last())
            .map(String::as_str)
            .collect();
        let nodes = ids.iter().map(|id| {
            let mut node = file.clone();
            node.push("::");
            node.push(id);
            node
        });
        let nodes: Vec<OsString> = nodes.collect();
        match nodes.is_empty() {
            true => command.push(file),
            false => command.extend(nodes),
        }
    }
}

/// A pytest `[[suite]]`: `-k`.
struct PytestK;

impl Narrow for PytestK {
    fn said(&self) -> &'static str {
        "pytest -k"
    }

    fn narrow(&self, command: &mut Vec<OsString>, patterns: &[Pattern], matching: &[Vec<String>]) {
        command.extend(
            pytest_args(patterns, matching)
                .into_iter()
                .map(OsString::from),
        );
    }
}

/// pytest's `-k` for plain words; otherwise the matching tests' names as `-k` alternatives.
fn pytest_args(patterns: &[Pattern], matching: &[Vec<String>]) -> Vec<String> {
    let word = |p: &Pattern| p.plain && p.text.chars().all(|c| c.is_alphanumeric() || c == '_');
    let words: Vec<String> = match !patterns.is_empty() && patterns.iter().all(word) {
        true => patterns.iter().map(|p| p.text.clone()).collect(),
        // JUnit names a test `module.Class.test`: its last part is its pytest name.
        false => matching
            .iter()
            .filter_map(|n| n.last()?.rsplit('.').next().map(str::to_owned))
            .map(|n| n.split('[').next().unwrap_or(&n).to_owned())
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect(),
    };
    match words.is_empty() {
        true => Vec::new(),
        false => vec!["-k".into(), words.join(" or ")],
    }
}

/// A file of a project with no pytest configuration, written for unittest only, whose
/// interpreter has no pytest: run under unittest ([`unittest`]).
fn unittest_command(path: &Path, abs: &Path, cx: &mut Cx<'_>) -> Option<Made> {
    if !reads_as(abs, unittest::is_unittest_only) {
        return None;
    }
    let (cwd, root) = (cx.cwd, cx.root);
    let python = cx.memo.get_or_insert_with(("unittest", "python"), || {
        if !unittest_project(cwd) {
            return None;
        }
        let python = interpreter::python(cwd, root);
        let pytest = interpreter::has_pytest(&python, cwd);
        (!pytest).then_some(python)
    })?;
    Some(Made {
        command: Ok(unittest::command(&python, path)),
        harness: unittest::UNITTEST_ID,
        cwd: None,
    })
}

/// Whether the test files pytest would find from `cwd` down are unittest's only: none imports
/// pytest or holds pytest-style `test_` functions with no `TestCase` ([`unittest::is_unittest_only`]).
/// Files that are no test module (scripts printing their own TAP) do not count.
fn unittest_project(cwd: &Path) -> bool {
    let Ok(files) = root::files(cwd) else {
        return false;
    };
    let unittest_or_other = |text: &str| !is_test_module(text) || unittest::is_unittest_only(text);
    files.iter().all(|file| {
        let abs = cwd.join(file);
        !abs.is_file() || reads_as(&abs, unittest_or_other)
    })
}

/// The plugin's module name, as `-p` loads it.
pub(crate) const MODULE: &str = "tapline_pytest";
pub(crate) const PLUGIN: &str = include_str!("tapline_pytest.py");

/// The helpers the plugin and the unittest runner share, written beside each.
pub(crate) const COMMON: (&str, &str) = (
    "tapline_python_common.py",
    include_str!("tapline_python_common.py"),
);

/// How to get pytest, for the error when it is missing.
pub(crate) const INSTALL_HINT: &str = ": install it in the project's venv (`python3 -m venv .venv && .venv/bin/pip install pytest`) or system-wide (Debian: apt-get install python3-pytest)";

/// Whether `dir` holds pytest's configuration or a `conftest.py`.
pub(crate) fn is_project(dir: &Path) -> bool {
    pytest_configured(dir)
        || ["tests", "test"]
            .iter()
            .any(|d| dir.join(d).join("conftest.py").is_file())
}

/// Whether a Python file's text is written for pytest (or unittest, which pytest runs): it
/// imports pytest or unittest, defines a `TestCase` class, or defines `test_` functions with no
/// `__main__` block of its own that would run them.
pub(crate) fn is_test_module(text: &str) -> bool {
    let mut test_functions = false;
    for line in text.lines() {
        let code = line.trim_start();
        if code.starts_with("import pytest")
            || code.starts_with("from pytest ")
            || code.starts_with("from _pytest")
        {
            return true;
        }
        if code.starts_with("class ") && code.contains("TestCase") || imports_unittest(code) {
            return true;
        }
        test_functions |= code.starts_with("def test_") || code.starts_with("async def test_");
    }
    test_functions && !text.contains("__main__")
}

/// `import unittest` or `from unittest import …` of more than its `mock` (which a script
/// that prints its own TAP may use).
fn imports_unittest(code: &str) -> bool {
    if code == "import unittest" || code.starts_with("import unittest ") {
        return true;
    }
    let Some(names) = code.strip_prefix("from unittest import ") else {
        return false;
    };
    names
        .split(',')
        .filter_map(|n| n.trim_matches(['(', ')', ' ']).split_whitespace().next())
        .any(|name| name != "mock")
}

/// Whether the file at `abs` is written for pytest ([`is_test_module`]); a file that cannot be
/// read is not.
pub(crate) fn reads_as_test_module(abs: &Path) -> bool {
    reads_as(abs, is_test_module)
}

/// Whether the file at `abs` reads as `kind` says (its first 256 KiB); one that cannot be read
/// does not.
fn reads_as(abs: &Path, kind: fn(&str) -> bool) -> bool {
    use std::io::Read;
    let mut text = String::new();
    let read = std::fs::File::open(abs).and_then(|f| f.take(256 * 1024).read_to_string(&mut text));
    read.is_ok() && kind(&text)
}

/// The interpreter pytest's files run with, once per discovery ([`interpreter::for_pytest`]).
fn pytest_python(cx: &mut Cx<'_>) -> OsString {
    let (cwd, root) = (cx.cwd, cx.root);
    cx.memo
        .get_or_insert_with(("pytest", "python"), || interpreter::for_pytest(cwd, root))
}

/// `PYTHON -m pytest`: pytest as the project's interpreter runs it.
fn pytest_program(python: &OsStr) -> Vec<OsString> {
    vec![python.to_owned(), "-m".into(), "pytest".into()]
}

/// The run's one error when the project's interpreter (run from `cwd`) has no pytest.
pub(crate) fn missing(python: &OsStr, cwd: &Path) -> String {
    let shown = python.to_string_lossy();
    match crate::util::which::find(python, cwd) {
        Some(_) => format!("the project's interpreter `{shown}` has no pytest{INSTALL_HINT}"),
        None => format!("the interpreter `{shown}` is not installed, nor is pytest{INSTALL_HINT}"),
    }
}

/// The command that runs one file: `pytest` (as [`find`] gave it), the plugin, the file.
pub(crate) fn command(pytest: &[OsString], file: &Path) -> Vec<OsString> {
    let mut argv = pytest.to_vec();
    argv.extend(["-p".into(), MODULE.into(), file.as_os_str().to_owned()]);
    argv
}

/// The plugin's folder, written once per process: `<temp>/tapline-trace-<uid>/pytest-<hash>/`.
pub(crate) fn plugin_dir() -> Result<PathBuf, String> {
    static DIR: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    DIR.get_or_init(|| {
        write_plugin().map_err(|e| format!("failed to write tapline's pytest plugin: {e}"))
    })
    .clone()
}

fn write_plugin() -> std::io::Result<PathBuf> {
    // Not the trace hooks' folder itself: their sitecustomize takes that one off sys.path.
    super::hooks::versioned_hooks("pytest", &[(&format!("{MODULE}.py"), PLUGIN), COMMON])
}

/// The `PYTHONPATH` a pytest file's child gets: the plugin's folder first, then what it would
/// have had (`before`: set for the children, else inherited). `None` when the folder's path
/// holds a `:`, which `PYTHONPATH` cannot carry.
pub(crate) fn python_path(dir: &Path, before: Option<OsString>) -> Option<OsString> {
    if dir.as_os_str().as_encoded_bytes().contains(&b':') {
        return None;
    }
    let mut value = dir.as_os_str().to_owned();
    if let Some(before) = before.filter(|b| !b.is_empty()) {
        value.push(":");
        value.push(before);
    }
    Some(value)
}

/// The variables a pytest file's child gets over `vars` (the run's): `PYTHONPATH` with the
/// plugin's folder first. `Err` says why the file cannot run.
pub(crate) fn env(vars: &[(OsString, OsString)]) -> Result<Vec<(OsString, OsString)>, String> {
    let dir = plugin_dir()?;
    let before = vars
        .iter()
        .rev()
        .find(|(k, _)| k == "PYTHONPATH")
        .map(|(_, v)| v.clone())
        .or_else(|| std::env::var_os("PYTHONPATH"));
    let value = python_path(&dir, before).ok_or_else(|| {
        format!(
            "failed to load tapline's pytest plugin: its folder {} holds a `:`",
            dir.display()
        )
    })?;
    Ok(vec![("PYTHONPATH".into(), value)])
}

/// Whether `dir` holds pytest's configuration: `pytest.ini`, a `[tool.pytest…]` table in
/// `pyproject.toml`, `[tool:pytest]` in `setup.cfg`, `[pytest]` in `tox.ini`, or a
/// `conftest.py`.
pub(crate) fn pytest_configured(dir: &Path) -> bool {
    let holds = |file: &str, section: &str| {
        std::fs::read_to_string(dir.join(file)).is_ok_and(|text| text.contains(section))
    };
    dir.join("pytest.ini").is_file()
        || dir.join("conftest.py").is_file()
        || holds("pyproject.toml", "[tool.pytest")
        || holds("setup.cfg", "[tool:pytest]")
        || holds("tox.ini", "[pytest]")
}

#[cfg(test)]
mod tests {

    use super::*;

    fn path(p: &[&str]) -> Vec<String> {
        p.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn pytest_gets_words_as_k_and_a_regex_as_the_matching_names() {
        let words = [Pattern::parse("adds").expect("p")];
        assert_eq!(pytest_args(&words, &[]), ["-k", "adds"]);
        let re = [Pattern::parse("/upper$/").expect("p")];
        let m = [path(&["pytest", "test_calc.TestWords.test_upper"])];
        assert_eq!(pytest_args(&re, &m), ["-k", "test_upper"]);
    }

    #[test]
    fn files_written_for_pytest_or_unittest() {
        assert!(is_test_module("import pytest\n"));
        assert!(is_test_module("from pytest import raises\n"));
        assert!(is_test_module(
            "import unittest\n\nclass T(unittest.TestCase):\n    pass\n"
        ));
        assert!(is_test_module(
            "from unittest import TestCase\nclass T(TestCase): pass\n"
        ));
        assert!(is_test_module("def test_x():\n    assert 1\n"));
        assert!(is_test_module("async def test_x():\n    pass\n"));
        // It runs its tests itself, or prints TAP: python runs it.
        assert!(!is_test_module(
            "def test_x():\n    pass\n\nif __name__ == '__main__':\n    test_x()\n"
        ));
        assert!(!is_test_module("print('1..1')\nprint('ok 1')\n"));
        assert!(!is_test_module(
            "from unittest import mock\nprint('1..0')\n"
        ));
        assert!(!is_test_module("import unittest.mock\nprint('1..0')\n"));
        assert!(is_test_module("import unittest\n"));
        assert!(is_test_module("from unittest import mock, skipIf\n"));
        assert!(!is_test_module("from unittest import mock as m\n"));
    }

    #[test]
    fn pytest_projects_by_their_configuration() {
        let dir = tempfile::TempDir::new().expect("temp dir");
        let p = dir.path();
        assert!(!is_project(p));
        std::fs::write(p.join("pyproject.toml"), "[tool.ruff]\n").expect("write");
        assert!(!is_project(p), "another tool's table");
        std::fs::write(p.join("pyproject.toml"), "[tool.pytest.ini_options]\n").expect("write");
        assert!(is_project(p));
        std::fs::remove_file(p.join("pyproject.toml")).expect("rm");
        std::fs::write(p.join("setup.cfg"), "[tool:pytest]\n").expect("write");
        assert!(is_project(p));
        std::fs::remove_file(p.join("setup.cfg")).expect("rm");
        std::fs::write(p.join("tox.ini"), "[tox]\n").expect("write");
        assert!(!is_project(p), "tox without a [pytest] section");
        std::fs::create_dir(p.join("tests")).expect("mkdir");
        std::fs::write(p.join("tests/conftest.py"), "").expect("write");
        assert!(is_project(p));
    }

    #[test]
    fn the_plugin_goes_first_on_pythonpath() {
        let dir = Path::new("/tmp/tapline-trace-1/pytest");
        assert_eq!(
            python_path(dir, Some("/a:/b".into())),
            Some("/tmp/tapline-trace-1/pytest:/a:/b".into())
        );
        assert_eq!(python_path(dir, Some("".into())), Some(dir.into()));
        assert_eq!(python_path(Path::new("/odd:dir"), None), None);
        assert_eq!(
            command(&["pytest".into()], Path::new("tests/test_a.py")),
            ["pytest", "-p", MODULE, "tests/test_a.py"]
        );
    }

    /// The plugin written is the one in the binary, where a python finds it by its name.
    #[test]
    fn the_plugin_is_written_once_where_pythonpath_points() {
        let dir = plugin_dir().expect("plugin written");
        let held = std::fs::read_to_string(dir.join(format!("{MODULE}.py"))).expect("read");
        assert_eq!(held, PLUGIN);
        let vars = env(&[("PYTHONPATH".into(), "/x".into())]).expect("env");
        let mut expected = dir.into_os_string();
        expected.push(":/x");
        assert_eq!(vars, [("PYTHONPATH".into(), expected)]);
    }
}
