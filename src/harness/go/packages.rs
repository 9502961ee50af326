//! The packages a bare run in a go module tests, as `go test ./...` selects them: `go list`
//! says which (no `testdata`, `_`- or `.`-folders, nested modules), tapline re-implements none
//! of it. Each package with test files is a `[[suite]]` of its own, so a package is an entry
//! with its own verdict and log, as `go test` prints a line per package.
use crate::harness::follow::Implied;
use crate::protocol::InputFormat;
use std::path::Path;
use std::process::Command;

/// What `go list` prints for each package: its import path, folder and module's folder,
/// tab-separated, for the packages with test files only (`go test` reports the others
/// `[no test files]`).
const LIST_FORMAT: &str = "{{if or .TestGoFiles .XTestGoFiles}}\
    {{.ImportPath}}\t{{.Dir}}\t{{with .Module}}{{.Dir}}{{end}}\n{{end}}";

/// A package `go list` gave: folders relative to the cwd, `/`-separated (`""`: the cwd).
#[derive(Debug, PartialEq)]
struct Package {
    import: String,
    folder: String,
    module: String,
}

/// The suites of the module (or `go.work`) in `cwd`: one per package `go list ./...` gives
/// with test files, or one `go test -json ./...` when go cannot list them (no go installed, a
/// module go refuses): that run then fails saying why, as `go test` would.
pub(super) fn implied(cwd: &Path) -> Vec<Implied> {
    match listed(cwd) {
        Some(packages) => packages.into_iter().map(package_suite).collect(),
        None => vec![Implied {
            name: "go".to_owned(),
            folder: String::new(),
            run_in: String::new(),
            command: ["go", "test", "-json", "./..."].map(str::to_owned).to_vec(),
            format: InputFormat::GoJson,
        }],
    }
}

/// The suite of one package: named by its folder as a file is (the module's own package by
/// its import path's last word), run from its module's folder as `go test -json ./PKG`, so
/// that its failures are located by that module (a `go.work`'s modules each by its own).
fn package_suite(p: Package) -> Implied {
    let name = if p.folder.is_empty() {
        (p.import.rsplit('/').next().unwrap_or(&p.import)).to_owned()
    } else {
        p.folder.clone()
    };
    let within = if p.module.is_empty() {
        Some(p.folder.as_str())
    } else if p.folder == p.module {
        Some("")
    } else {
        p.folder.strip_prefix(&format!("{}/", p.module))
    };
    let (run_in, target) = match within {
        Some("") => (p.module, ".".to_owned()),
        Some(rel) => (p.module.clone(), format!("./{rel}")),
        // A module folder go gave that does not hold the package: run it from here.
        None => (String::new(), format!("./{}", p.folder)),
    };
    Implied {
        name,
        folder: p.folder,
        run_in,
        command: vec!["go".into(), "test".into(), "-json".into(), target],
        format: InputFormat::GoJson,
    }
}

/// `go list ./...`'s packages with tests (import path, folder relative to `cwd`), sorted by
/// folder; `None` when go is missing or fails. In a `go.work` folder with no module of its
/// own, `./...` matches nothing (go says so), so the packages are those of each module
/// the workspace uses (`go list -m`), each `DIR/...`.
fn listed(cwd: &Path) -> Option<Vec<Package>> {
    let mut patterns = vec!["./...".to_owned()];
    if !cwd.join("go.mod").is_file() {
        let modules = go(cwd, &["list", "-m", "-f", "{{.Dir}}"])?;
        patterns = modules.lines().map(|dir| format!("{dir}/...")).collect();
    }
    let mut args = vec!["list", "-f", LIST_FORMAT];
    args.extend(patterns.iter().map(String::as_str));
    let text = go(cwd, &args)?;
    let cwd = cwd.canonicalize().unwrap_or_else(|_| cwd.to_path_buf());
    Some(parse(&text, &cwd))
}

/// What `go ARGS` run in `cwd` prints, when it succeeds.
fn go(cwd: &Path, args: &[&str]) -> Option<String> {
    let out = crate::util::quiet::stdout_of(Command::new("go").args(args).current_dir(cwd))?;
    Some(String::from_utf8_lossy(&out).into_owned())
}

/// Reads `go list`'s lines (`import\tdir\tmodule dir`); a folder outside `cwd` (a
/// `go.work`'s module elsewhere) stays absolute.
fn parse(text: &str, cwd: &Path) -> Vec<Package> {
    let rel = |dir: &str| -> String {
        let dir = Path::new(dir);
        let folder = dir.strip_prefix(cwd).unwrap_or(dir);
        let parts: Vec<String> = (folder.components())
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        parts.join("/")
    };
    let mut out: Vec<Package> = text
        .lines()
        .filter_map(|l| {
            let mut words = l.split('\t');
            let (import, dir) = (words.next()?, words.next()?);
            let module = words.next().filter(|m| !m.is_empty());
            Some(Package {
                import: import.to_owned(),
                folder: rel(dir),
                module: module.map(rel).unwrap_or_default(),
            })
        })
        .collect();
    out.sort_by(|a, b| a.folder.cmp(&b.folder));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_lists_packages_by_folder_relative_to_the_cwd() {
        let text =
            "ex.com/m/b\t/p/m/b\t/p/m\nex.com/m\t/p/m\t/p/m\nex.com/w/x\t/p/m/w/x\t/p/m/w\n\n";
        let got: Vec<(String, String, String)> = parse(text, Path::new("/p/m"))
            .into_iter()
            .map(|p| (p.import, p.folder, p.module))
            .collect();
        let want = [
            ("ex.com/m", "", ""),
            ("ex.com/m/b", "b", ""),
            ("ex.com/w/x", "w/x", "w"),
        ];
        let want: Vec<(String, String, String)> = (want.iter())
            .map(|(a, b, c)| (a.to_string(), b.to_string(), c.to_string()))
            .collect();
        assert_eq!(got, want);
    }

    #[test]
    fn a_package_is_a_suite_named_by_its_folder_run_from_its_module() {
        let package = |import: &str, folder: &str, module: &str| {
            package_suite(Package {
                import: import.to_owned(),
                folder: folder.to_owned(),
                module: module.to_owned(),
            })
        };
        let said = |i: Implied| (i.name, i.run_in, i.command[3].clone());
        let s = |a: &str, b: &str, c: &str| (a.to_owned(), b.to_owned(), c.to_owned());
        assert_eq!(said(package("ex.com/m", "", "")), s("m", "", "."));
        assert_eq!(
            said(package("ex.com/m/a/x", "a/x", "")),
            s("a/x", "", "./a/x")
        );
        // A go.work's module: run from its folder.
        assert_eq!(said(package("ex.com/w", "w", "w")), s("w", "w", "."));
        assert_eq!(
            said(package("ex.com/w/x", "w/x", "w")),
            s("w/x", "w", "./x")
        );
    }
}
