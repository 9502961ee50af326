//! The packages a bare run in a go module tests, as `go test ./...` selects them: `go list`
//! says which (no `testdata`, `_`- or `.`-folders, nested modules), tapline re-implements none
//! of it. Each package with test files is a `[[suite]]` of its own, so a package is an entry
//! with its own verdict and log, as `go test` prints a line per package.
use crate::harness::follow::Implied;
use crate::protocol::InputFormat;
use std::path::Path;
use std::process::{Command, Stdio};

/// What `go list` prints for each package: its import path and folder, tab-separated, for the
/// packages with test files only (`go test` reports the others `[no test files]`).
const LIST_FORMAT: &str = "{{if or .TestGoFiles .XTestGoFiles}}{{.ImportPath}}\t{{.Dir}}{{end}}";

/// The suites of the module (or `go.work`) in `cwd`: one per package `go list ./...` gives
/// with test files, or one `go test -json ./...` when go cannot list them (no go installed, a
/// module go refuses): that run then fails saying why, as `go test` would.
pub(super) fn implied(cwd: &Path) -> Vec<Implied> {
    match listed(cwd) {
        Some(packages) => packages
            .into_iter()
            .map(|(import, folder)| package_suite(&import, folder))
            .collect(),
        None => vec![Implied {
            name: "go".to_owned(),
            folder: String::new(),
            command: ["go", "test", "-json", "./..."].map(str::to_owned).to_vec(),
            format: InputFormat::GoJson,
        }],
    }
}

/// The suite of one package: named by its folder as a file is (the module's own package by
/// its import path's last word), run as `go test -json ./folder`.
fn package_suite(import: &str, folder: String) -> Implied {
    let name = if folder.is_empty() {
        import.rsplit('/').next().unwrap_or(import).to_owned()
    } else {
        folder.clone()
    };
    let target = if folder.is_empty() {
        ".".to_owned()
    } else {
        format!("./{folder}")
    };
    Implied {
        name,
        folder,
        command: vec!["go".into(), "test".into(), "-json".into(), target],
        format: InputFormat::GoJson,
    }
}

/// `go list ./...`'s packages with tests (import path, folder relative to `cwd`), sorted by
/// folder; `None` when go is missing or fails.
fn listed(cwd: &Path) -> Option<Vec<(String, String)>> {
    let out = Command::new("go")
        .args(["list", "-f", LIST_FORMAT, "./..."])
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    let cwd = cwd.canonicalize().unwrap_or_else(|_| cwd.to_path_buf());
    Some(parse(&String::from_utf8_lossy(&out.stdout), &cwd))
}

/// Reads `go list`'s lines (`import\tdir`); a package outside `cwd` (a `go.work`'s module
/// elsewhere) keeps its absolute folder.
fn parse(text: &str, cwd: &Path) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = text
        .lines()
        .filter_map(|l| l.split_once('\t'))
        .map(|(import, dir)| {
            let dir = Path::new(dir);
            let folder = dir.strip_prefix(cwd).unwrap_or(dir);
            let folder: Vec<String> = folder
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            (import.to_owned(), folder.join("/"))
        })
        .collect();
    out.sort_by(|a, b| a.1.cmp(&b.1));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_lists_packages_by_folder_relative_to_the_cwd() {
        let text = "ex.com/m/b\t/p/m/b\nex.com/m\t/p/m\nex.com/m/a/x\t/p/m/a/x\n\n";
        assert_eq!(
            parse(text, Path::new("/p/m")),
            [
                ("ex.com/m".to_owned(), String::new()),
                ("ex.com/m/a/x".to_owned(), "a/x".to_owned()),
                ("ex.com/m/b".to_owned(), "b".to_owned()),
            ]
        );
    }

    #[test]
    fn a_package_is_a_suite_named_by_its_folder() {
        let root = package_suite("ex.com/m", String::new());
        assert_eq!((root.name.as_str(), root.command[3].as_str()), ("m", "."));
        let sub = package_suite("ex.com/m/a/x", "a/x".to_owned());
        assert_eq!(
            (sub.name.as_str(), sub.command[3].as_str()),
            ("a/x", "./a/x")
        );
    }
}
