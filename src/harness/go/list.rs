//! go's own listing of a go `[[suite]]`'s tests (`go test -list`) and the static scan of its
//! sources, named as a run names them: `suite > module/package > TestX` (go lists top-level
//! tests only: subtests are known once a run reported them).
use super::scan;
use crate::harness::list::{output, source_files, Listable, Lister, Listing, Scanned};
use crate::harness::Harness;
use crate::protocol::InputFormat;
use std::path::{Path, PathBuf};

/// go's listing of a go `[[suite]]` (`go test -json …`): it names no more than the static scan
/// (its top-level tests) and builds every package to say it.
pub(super) fn lister(file: &Listable<'_>) -> Option<Lister> {
    let command = file.command?;
    let is_go = |w: &std::ffi::OsString| Path::new(w).file_name().is_some_and(|n| n == "go");
    (file.suite && file.format == InputFormat::GoJson && command.first().is_some_and(is_go)).then(
        || Lister {
            harness: super::GO.id(),
            batch: None,
            refines: false,
        },
    )
}

/// Lists each suite of `files` into `out`.
pub(super) fn list(files: &[&Listable<'_>], out: &mut Listing) {
    for file in files {
        let Some(command) = file.command else {
            continue;
        };
        let mut argv = command.to_vec();
        argv.extend(["-list".into(), ".*".into()]);
        let listed = output(&argv, &file.dir, &[0]).map(|text| go_tests(&text));
        out.take(file.rel, listed);
    }
}

/// A go `[[suite]]`'s tests by the static scan of its `_test.go` files, each under its
/// package (`module/package > TestX`).
pub(super) fn suite_tests(file: &Listable<'_>) -> Option<Vec<Scanned>> {
    if file.format != InputFormat::GoJson {
        return None;
    }
    let dir = file.dir.as_path();
    let module = go_module(dir);
    let mut out = Vec::new();
    for path in test_files(dir, file.command) {
        let name = (path.file_name())
            .map(|n| n.to_string_lossy())
            .unwrap_or_default();
        if !name.ends_with("_test.go") {
            continue;
        }
        let (module, module_dir) =
            (module.as_ref()).map_or(("", dir), |(m, d)| (m.as_str(), d.as_path()));
        let pkg_dir = path.parent().and_then(|p| p.strip_prefix(module_dir).ok());
        let pkg = match pkg_dir.map(|p| p.to_string_lossy().into_owned()) {
            Some(p) if !p.is_empty() => format!("{module}/{p}"),
            _ => module.to_owned(),
        };
        let Ok(src) = std::fs::read_to_string(&path) else {
            continue;
        };
        for t in scan::scan(&src) {
            out.push(Scanned::new(
                file.root,
                &path,
                std::slice::from_ref(&pkg),
                t,
            ));
        }
    }
    Some(out)
}

/// The files a suite's `go test … TARGET` builds, as far as a scan can tell: one package's
/// folder (`./calc`, `.`), or for `DIR/...` (and a command naming no target) the folders below
/// as go walks them (no `_`- or `.`-folder, no `testdata`, no nested module).
fn test_files(dir: &Path, command: Option<&[std::ffi::OsString]>) -> Vec<PathBuf> {
    let target = (command.and_then(|c| c.last()))
        .map(|w| w.to_string_lossy().into_owned())
        .filter(|w| w.starts_with('.'))
        .unwrap_or_else(|| "./...".to_owned());
    let Some(base) = target.strip_suffix("...") else {
        let folder = dir.join(&target);
        let mut files: Vec<PathBuf> = (std::fs::read_dir(&folder).into_iter().flatten())
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.is_file())
            .collect();
        files.sort();
        return files;
    };
    let start = dir.join(base.trim_end_matches('/'));
    (source_files(&start).into_iter())
        .filter(|p| {
            let Ok(rel) = p.strip_prefix(&start) else {
                return false;
            };
            let mut folder = start.clone();
            let parents: Vec<_> = rel
                .parent()
                .map(|d| d.components().collect())
                .unwrap_or_default();
            parents.iter().all(|c| {
                let name = c.as_os_str().to_string_lossy();
                folder.push(c);
                !name.starts_with(['_', '.'])
                    && name != "testdata"
                    && !folder.join("go.mod").is_file()
            })
        })
        .collect()
}

/// The module path of the nearest `go.mod` at or above `dir`, and its folder.
fn go_module(dir: &Path) -> Option<(String, PathBuf)> {
    let mut at = Some(dir);
    while let Some(d) = at {
        if let Ok(text) = std::fs::read_to_string(d.join("go.mod")) {
            let module = text
                .lines()
                .find_map(|l| l.trim().strip_prefix("module "))?;
            return Some((module.trim().trim_matches('"').to_owned(), d.to_owned()));
        }
        at = d.parent();
    }
    None
}

/// The tests `go test -json -list` printed, each under its package. Benchmarks are listed by
/// go but never run by `go test`: left out.
fn go_tests(text: &str) -> Vec<Vec<String>> {
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
            out.push(vec![package.to_owned(), name.to_owned()]);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_scan_takes_the_files_go_test_builds() {
        let tmp = tempfile::TempDir::new().expect("temp dir");
        let dir = tmp.path();
        for f in [
            "go.mod",
            "a_test.go",
            "p/p_test.go",
            "p/q/q_test.go",
            "_x/x_test.go",
            "testdata/t_test.go",
            "n/go.mod",
            "n/n_test.go",
        ] {
            let path = dir.join(f);
            std::fs::create_dir_all(path.parent().expect("a folder")).expect("mkdir");
            std::fs::write(path, "").expect("write");
        }
        let took = |words: &[&str]| -> Vec<String> {
            let command: Vec<std::ffi::OsString> = words.iter().map(|w| w.into()).collect();
            (test_files(dir, Some(&command)).iter())
                .filter_map(|p| p.strip_prefix(dir).ok())
                .map(|p| p.to_string_lossy().into_owned())
                .filter(|p| p.ends_with("_test.go"))
                .collect()
        };
        assert_eq!(took(&["go", "test", "-json", "./p"]), ["p/p_test.go"]);
        assert_eq!(took(&["go", "test", "-json", "."]), ["a_test.go"]);
        let all = ["a_test.go", "p/p_test.go", "p/q/q_test.go"];
        assert_eq!(took(&["go", "test", "-json", "./..."]), all);
        assert_eq!(took(&["go", "test", "-json"]), all);
        assert_eq!(
            took(&["go", "test", "-json", "./p/..."]),
            ["p/p_test.go", "p/q/q_test.go"]
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
        assert_eq!(
            go_tests(text),
            [["ex.com/c", "TestAdd"], ["ex.com/c", "ExampleAdd"]]
        );
    }
}
