//! The framework's own listing of a file's tests (`tapline list --source runtime`), where it
//! has one: `pytest --collect-only -q` for the Python files tapline runs under pytest and for a
//! pytest `[[suite]]`, `go test -list` for a go `[[suite]]`. Each listed test gets the ID a run
//! reports for it: a native pytest file's `file > Class::test[param]` (the plugin's name, the
//! node ID after its file), a pytest suite's JUnit `suite > pytest > module.Class.test`, a go
//! suite's `suite > module/package > TestX` (go lists top-level tests only: subtests are
//! known once a run reported them).
//!
//! A listing that fails (the framework missing, a collection error) leaves its files to their
//! static scan, with a one-line note saying why.
use super::{Entry, Source};
use crate::explain::names::test_id;
use crate::protocol::InputFormat;
use crate::run::discover::TestFile;
use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// What the frameworks listed: each listed file's tests, by file, and a note per listing that
/// failed.
#[derive(Debug, Default)]
pub struct Listed {
    pub tests: BTreeMap<String, Vec<Entry>>,
    pub notes: Vec<String>,
}

/// How a file's tests can be listed by its framework.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Lister {
    /// A Python file run under pytest with tapline's plugin: pytest's own command.
    PytestFile(Vec<OsString>),
    /// A pytest `[[suite]]`: pytest's command and the paths it was given.
    PytestSuite(Vec<OsString>, Vec<OsString>),
    /// A go `[[suite]]`: its command (`go test -json …`).
    Go(Vec<OsString>),
}

impl Lister {
    /// The listing `f`'s framework has, if any.
    pub(crate) fn of(f: &TestFile, root: &Path) -> Option<Lister> {
        let command = f.command.as_ref().ok()?;
        let is = |w: &OsString, name: &str| Path::new(w).file_name().is_some_and(|n| n == name);
        if !f.input.suite {
            // `pytest… -p tapline_pytest FILE` (crate::harness::python::command).
            let at = command
                .windows(2)
                .position(|w| w[0] == "-p" && w[1] == crate::harness::python::MODULE)?;
            return Some(Lister::PytestFile(command[..at].to_vec()));
        }
        match f.input.format {
            InputFormat::GoJson if command.first().is_some_and(|w| is(w, "go")) => {
                Some(Lister::Go(command.clone()))
            }
            InputFormat::Junit => {
                let at = command.iter().position(|w| is(w, "pytest"))?;
                let dir = suite_dir(f, root);
                let paths = (command[at + 1..].iter())
                    .filter(|w| !w.to_string_lossy().starts_with('-'))
                    .filter(|w| dir.join(w).exists())
                    .cloned()
                    .collect();
                Some(Lister::PytestSuite(command[..=at].to_vec(), paths))
            }
            _ => None,
        }
    }
}

/// Where a suite runs: its `dir` under `root`, or `root`.
fn suite_dir(f: &TestFile, root: &Path) -> PathBuf {
    match &f.input.cwd {
        Some(d) if d.is_absolute() => d.clone(),
        Some(d) => root.join(d),
        None => root.to_owned(),
    }
}

/// Lists the tests of every file of `files` whose framework has a listing and `wanted` takes;
/// `cwd` is where the files run (a suite, in its own folder under `root`). The native pytest
/// files run under one pytest command are listed by one pytest process.
pub(crate) fn list(
    root: &Path,
    cwd: &Path,
    files: &[TestFile],
    wanted: impl Fn(&Lister) -> bool,
) -> Listed {
    let mut out = Listed::default();
    let mut pytest_files: BTreeMap<Vec<OsString>, Vec<&TestFile>> = BTreeMap::new();
    for f in files {
        match Lister::of(f, root).filter(|l| wanted(l)) {
            Some(Lister::PytestFile(pytest)) => pytest_files.entry(pytest).or_default().push(f),
            Some(Lister::PytestSuite(pytest, paths)) => {
                let dir = suite_dir(f, root);
                let mut argv = pytest;
                argv.extend(collect_args());
                argv.extend(paths);
                let listed = output(&argv, &dir, &[0, 5]).map(|text| {
                    let ids = node_ids(&text).map(|(path, test)| junit_name(path, test));
                    ids.map(|name| runtime_entry(&f.rel, vec!["pytest".to_owned(), name]))
                        .collect()
                });
                out.take(&f.rel, listed);
            }
            Some(Lister::Go(command)) => {
                let mut argv = command;
                argv.extend(["-list".into(), ".*".into()]);
                let listed =
                    output(&argv, &suite_dir(f, root), &[0]).map(|text| go_tests(&text, &f.rel));
                out.take(&f.rel, listed);
            }
            None => {}
        }
    }
    for (pytest, group) in pytest_files {
        out.pytest_files(&pytest, cwd, &group);
    }
    out
}

impl Listed {
    /// Native pytest files run by one `pytest` command: one listing for them all, or, when it
    /// fails (one file's collection error fails it), one each, so the error stays its file's.
    fn pytest_files(&mut self, pytest: &[OsString], cwd: &Path, group: &[&TestFile]) {
        let mut argv = pytest.to_vec();
        argv.extend(collect_args());
        argv.extend(group.iter().map(|f| f.path.clone().into_os_string()));
        match output(&argv, cwd, &[0, 5]) {
            Ok(text) => {
                for f in group {
                    self.tests.insert(f.rel.clone(), Vec::new());
                }
                for (path, test) in node_ids(&text) {
                    let Some(f) = group.iter().find(|f| cwd.join(&f.path).ends_with(path)) else {
                        continue;
                    };
                    let entry = runtime_entry(&f.rel, vec![test.to_owned()]);
                    self.tests.entry(f.rel.clone()).or_default().push(entry);
                }
            }
            Err(_) if group.len() > 1 => {
                for f in group {
                    self.pytest_files(pytest, cwd, &[f]);
                }
            }
            Err(e) => {
                let rels: Vec<&str> = group.iter().map(|f| f.rel.as_str()).collect();
                self.notes.push(format!("{}: {e}", rels.join(", ")));
            }
        }
    }

    fn take(&mut self, rel: &str, listed: Result<Vec<Entry>, String>) {
        match listed {
            Ok(entries) => {
                self.tests.insert(rel.to_owned(), entries);
            }
            Err(e) => self.notes.push(format!("{rel}: {e}")),
        }
    }
}

/// pytest's arguments for a listing: node IDs one a line, nothing written to its cache.
fn collect_args() -> [OsString; 4] {
    ["--collect-only", "-q", "-p", "no:cacheprovider"].map(OsString::from)
}

fn runtime_entry(rel: &str, name: Vec<String>) -> Entry {
    Entry {
        id: test_id(rel, &name, None),
        file: rel.to_owned(),
        name,
        source: Source::Runtime,
        location: None,
        dynamic: false,
        when: None,
        status: None,
    }
}

/// Runs a listing in `dir`; its stdout when it exits with one of `ok` codes, else why not in
/// one line (its last line of output, or how it failed to start).
fn output(argv: &[OsString], dir: &Path, ok: &[i32]) -> Result<String, String> {
    let shown = (argv.iter())
        .map(|w| w.to_string_lossy())
        .collect::<Vec<_>>()
        .join(" ");
    let (program, args) = argv.split_first().ok_or("failed to list: no command")?;
    let out = Command::new(program)
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("failed to list the tests with `{shown}`: {e}"))?;
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    if out.status.code().is_some_and(|c| ok.contains(&c)) {
        return Ok(stdout);
    }
    let stderr = String::from_utf8_lossy(&out.stderr);
    let lines = || {
        (stderr.lines().chain(stdout.lines()))
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('{'))
    };
    // pytest names the error on an `E   ` line (`E   ModuleNotFoundError: …`); its summary's
    // `ERROR t.py - …` line, on its own, names only the file in some versions.
    let last = (lines().find_map(|l| l.strip_prefix("E ").map(str::trim_start)))
        .or_else(|| lines().filter(|l| l.starts_with("ERROR")).last())
        .or_else(|| lines().last())
        .unwrap_or("no output");
    let status = match out.status.code() {
        Some(c) => format!("exit code {c}"),
        None => "killed by a signal".to_owned(),
    };
    Err(format!(
        "failed to list the tests with `{shown}` ({status}): {last}"
    ))
}

/// The node IDs pytest's `--collect-only -q` printed: each as its file's path and the rest
/// (`test_calc.py::TestWords::test_upper` → `test_calc.py`, `TestWords::test_upper`).
fn node_ids(text: &str) -> impl Iterator<Item = (&str, &str)> {
    text.lines()
        .take_while(|l| !l.trim().is_empty())
        .filter_map(|l| l.trim().split_once("::"))
}

/// A node ID as pytest's JUnit XML names the test: `classname.name`, the classname the
/// module's dotted path and the class (`sub/test_calc.py`, `TestWords::test_upper` →
/// `sub.test_calc.TestWords.test_upper`).
fn junit_name(path: &str, test: &str) -> String {
    let module = path.strip_suffix(".py").unwrap_or(path).replace('/', ".");
    format!("{module}.{}", test.replace("::", "."))
}

/// The tests `go test -json -list` printed, each under its package, as the go suite `rel`
/// names them. Benchmarks are listed by go but never run by `go test`: left out.
fn go_tests(text: &str, rel: &str) -> Vec<Entry> {
    let mut out = Vec::new();
    for line in text.lines() {
        let Ok(ev) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        let (Some("output"), Some(package), Some(output)) = (
            ev["Action"].as_str(),
            ev["Package"].as_str(),
            ev["Output"].as_str(),
        ) else {
            continue;
        };
        let name = output.trim_end();
        let test_like = ["Test", "Example", "Fuzz"]
            .iter()
            .any(|p| name.starts_with(p));
        if test_like && name.chars().all(|c| c.is_alphanumeric() || c == '_') {
            out.push(runtime_entry(
                rel,
                vec![package.to_owned(), name.to_owned()],
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pytest_node_ids_are_named_as_the_run_and_junit_name_them() {
        let text = "test_calc.py::test_adds\nsub/test_w.py::TestWords::test_upper[a-1]\n\n2 tests collected in 0.01s\n";
        let ids: Vec<_> = node_ids(text).collect();
        assert_eq!(
            ids,
            [
                ("test_calc.py", "test_adds"),
                ("sub/test_w.py", "TestWords::test_upper[a-1]")
            ]
        );
        assert_eq!(
            junit_name("sub/test_w.py", "TestWords::test_upper[a-1]"),
            "sub.test_w.TestWords.test_upper[a-1]"
        );
    }

    #[test]
    fn go_lists_tests_by_package_without_benchmarks() {
        let text = concat!(
            r#"{"Action":"start","Package":"ex.com/c"}"#,
            "\n",
            r#"{"Action":"output","Package":"ex.com/c","Output":"TestAdd\n"}"#,
            "\n",
            r#"{"Action":"output","Package":"ex.com/c","Output":"BenchmarkAdd\n"}"#,
            "\n",
            r#"{"Action":"output","Package":"ex.com/c","Output":"ExampleAdd\n"}"#,
            "\n",
            r#"{"Action":"output","Package":"ex.com/c","Output":"ok  \tex.com/c\t0.002s\n"}"#,
            "\n"
        );
        let ids: Vec<String> = go_tests(text, "go").into_iter().map(|e| e.id).collect();
        assert_eq!(
            ids,
            ["go > ex.com/c > TestAdd", "go > ex.com/c > ExampleAdd"]
        );
    }
}
