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
    for path in source_files(dir) {
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
