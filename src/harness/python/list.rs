//! pytest's own listing of a file's tests (`pytest --collect-only -q`) and the static scan of a
//! pytest `[[suite]]`, named as a run names them: a native pytest file's `file > Class::test[param]`
//! (the plugin's name, the node ID after its file), a pytest suite's JUnit
//! `suite > pytest > module.Class.test`.
use super::scan;
use crate::harness::list::{output, source_files, Listable, Lister, Listing, Scanned};
use crate::harness::scan::Found;
use crate::protocol::InputFormat;
use std::ffi::OsString;
use std::path::Path;

/// The pytest command of a Python file run under pytest with tapline's plugin
/// (`pytest… -p tapline_pytest FILE`, [`super::command`]).
fn native_file(file: &Listable<'_>) -> Option<Vec<OsString>> {
    if file.suite {
        return None;
    }
    let command = file.command?;
    let at = (command.windows(2)).position(|w| w[0] == "-p" && w[1] == super::MODULE)?;
    Some(command[..at].to_vec())
}

/// A pytest `[[suite]]`'s pytest command and the paths it was given.
fn suite(file: &Listable<'_>) -> Option<(Vec<OsString>, Vec<OsString>)> {
    let command = file.command?;
    if !file.suite || file.format != InputFormat::Junit {
        return None;
    }
    let is_pytest = |w: &OsString| Path::new(w).file_name().is_some_and(|n| n == "pytest");
    let at = command.iter().position(is_pytest)?;
    let paths = (command[at + 1..].iter())
        .filter(|w| !w.to_string_lossy().starts_with('-'))
        .filter(|w| file.dir.join(w).exists())
        .cloned()
        .collect();
    Some((command[..=at].to_vec(), paths))
}

/// pytest's listing of `file`: one process for the native files run by one pytest command.
pub(super) fn lister(file: &Listable<'_>) -> Option<Lister> {
    let batch = match native_file(file) {
        Some(pytest) => Some(pytest),
        None => {
            suite(file)?;
            None
        }
    };
    Some(Lister {
        harness: super::PYTEST_ID,
        batch,
        refines: true,
    })
}

/// Lists `files` (native files of one pytest command, or a suite) into `out`.
pub(super) fn list(lister: &Lister, files: &[&Listable<'_>], cwd: &Path, out: &mut Listing) {
    if let Some(pytest) = &lister.batch {
        return native_files(out, pytest, cwd, files);
    }
    for file in files {
        let Some((mut argv, paths)) = suite(file) else {
            continue;
        };
        argv.extend(collect_args());
        argv.extend(paths);
        let listed = output(&argv, &file.dir, &[0, 5]).map(|text| {
            let ids = node_ids(&text).map(|(path, test)| junit_name(path, test));
            ids.map(|name| vec!["pytest".to_owned(), name]).collect()
        });
        out.take(file.rel, listed);
    }
}

/// Native pytest files run by one `pytest` command: one listing for them all, or, when it
/// fails (one file's collection error fails it), one each, so the error stays its file's.
fn native_files(out: &mut Listing, pytest: &[OsString], cwd: &Path, group: &[&Listable<'_>]) {
    let mut argv = pytest.to_vec();
    argv.extend(collect_args());
    argv.extend(group.iter().map(|f| f.path.as_os_str().to_owned()));
    match output(&argv, cwd, &[0, 5]) {
        Ok(text) => {
            for f in group {
                out.tests.insert(f.rel.to_owned(), Vec::new());
            }
            for (path, test) in node_ids(&text) {
                let Some(f) = group.iter().find(|f| cwd.join(f.path).ends_with(path)) else {
                    continue;
                };
                let entry = vec![test.to_owned()];
                out.tests.entry(f.rel.to_owned()).or_default().push(entry);
            }
        }
        Err(_) if group.len() > 1 => {
            for f in group {
                native_files(out, pytest, cwd, &[f]);
            }
        }
        Err(e) => {
            let rels: Vec<&str> = group.iter().map(|f| f.rel).collect();
            out.notes.push(format!("{}: {e}", rels.join(", ")));
        }
    }
}

/// A scanned test's name in a native pytest file: the plugin names a test by its node ID
/// after the file.
pub(super) fn scanned_name(file: &Listable<'_>, name: &[String]) -> Option<Vec<String>> {
    native_file(file).map(|_| vec![name.join("::")])
}

/// A pytest `[[suite]]`'s tests by the static scan of its test modules, named as its JUnit
/// report names them: `pytest > module.Class.test`.
pub(super) fn suite_tests(file: &Listable<'_>) -> Option<Vec<Scanned>> {
    if file.format != InputFormat::Junit || !file.command_line().contains("pytest") {
        return None;
    }
    let prefix = ["pytest".to_owned()];
    let mut out = Vec::new();
    for path in source_files(&file.dir) {
        let name = (path.file_name())
            .map(|n| n.to_string_lossy())
            .unwrap_or_default();
        let is_test = name.starts_with("test_") || name.ends_with("_test.py");
        if !(is_test && name.ends_with(".py")) {
            continue;
        }
        let Ok(src) = std::fs::read_to_string(&path) else {
            continue;
        };
        let rel_dir = path.strip_prefix(&file.dir).unwrap_or(&path);
        let module_name = (rel_dir.with_extension(""))
            .to_string_lossy()
            .replace('/', ".");
        for t in scan::scan(&src) {
            // JUnit's `classname.name`: the module's dotted path, the class, the test.
            let t = Found {
                name: vec![format!("{module_name}.{}", t.name.join("."))],
                ..t
            };
            out.push(Scanned::new(file.root, &path, &prefix, t));
        }
    }
    Some(out)
}

/// pytest's arguments for a listing: node IDs one a line, nothing written to its cache.
fn collect_args() -> [OsString; 4] {
    ["--collect-only", "-q", "-p", "no:cacheprovider"].map(OsString::from)
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
}
