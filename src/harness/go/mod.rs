//! go's tests as a `[[suite]]` reads them (`go test -json`): how its command narrows to named
//! tests (`-run`, anchored level by level).
use super::api::Id;
use super::filter::{Filter, Narrow, Pattern, Probe};
use super::follow::Implied;
use super::list::{Listable, Lister, Listing, Scanned};
use super::Harness;
use crate::protocol::gojson::PackageDirs;
use crate::protocol::InputFormat;
use std::collections::BTreeSet;
use std::ffi::OsString;
use std::fs;
use std::path::Path;

mod list;
mod packages;
mod scan;

// trace and coverage (h39-trace): `go list` and `-coverprofile`.
pub(crate) mod coverage;
pub(crate) mod trace;

pub(crate) struct Go;
pub(crate) static GO: Go = Go;

impl Harness for Go {
    fn id(&self) -> Id {
        "go"
    }

    // A module's root, as go finds it.
    fn project_markers(&self) -> &'static [&'static str] {
        &["go.mod"]
    }

    // --- inventory (h39-inv) ---
    fn scanner(&self, path: &str) -> Option<crate::harness::scan::Scanner> {
        scan::reads(path).then_some(scan::scan as crate::harness::scan::Scanner)
    }

    fn suite_tests(&self, suite: &Listable<'_>) -> Option<Vec<Scanned>> {
        list::suite_tests(suite)
    }

    fn lister(&self, file: &Listable<'_>) -> Option<Lister> {
        list::lister(file)
    }

    fn list(&self, _lister: &Lister, files: &[&Listable<'_>], _cwd: &Path, out: &mut Listing) {
        list::list(files, out)
    }

    fn filter(&self, probe: &Probe<'_>) -> Option<Filter> {
        (probe.suite == Some(InputFormat::GoJson) && (probe.program)("go"))
            .then_some(Filter::of(&GoRun))
    }

    // --- disc (#39 §2 E) ---

    fn implied_suite(&self, cwd: &Path) -> Option<Vec<Implied>> {
        // A module's (or a workspace's) packages as `go test ./...` selects them, each run by
        // `go test -json` on its own, every test a point.
        let module = cwd.join("go.mod").is_file() || cwd.join("go.work").is_file();
        module.then(|| packages::implied(cwd))
    }

    fn suite_packages(&self, format: InputFormat, dir: &Path, root: &Path) -> Option<PackageDirs> {
        (format == InputFormat::GoJson)
            .then(|| go_packages(dir, root))
            .flatten()
    }

    // --- dsc2: `tapline init` ---

    fn init_marks(&self, dir: &Path) -> bool {
        dir.join("go.mod").is_file()
    }

    fn init_no_suite(&self, rel: &str) -> Option<String> {
        // The root's module is a bare run's own (its packages as `go list ./...` gives them); a
        // module under a `_`/`.` folder or `testdata` is one go itself never runs (examples
        // with dependencies of their own, fixtures).
        if rel.is_empty() {
            return Some(
                "# The go module in the root: a plain run tests its packages as `go test ./...`\n\
                 # selects them, each package an entry (no suite needed).\n"
                    .to_owned(),
            );
        }
        let skipped = (rel.split('/')).any(|c| c.starts_with(['_', '.']) || c == "testdata");
        skipped.then(|| {
            format!("# The go module in {rel}: `go test ./...` never runs it (a `_`, `.` or testdata folder).\n")
        })
    }

    fn init_suite(&self, where_: &str, name: &str, dir: &str) -> String {
        format!(
            "\n# The go module in {where_}: `go test -json` is read test by test.\n\
             [[suite]]\nname = {name}\ndir = {dir}\n\
             command = [\"go\", \"test\", \"-json\", \"./...\"]\nformat = \"go-json\"\n\
             optional = true                 # no `go` installed: skipped, saying so\n"
        )
    }
}

/// The module a go suite run in `dir` tests: the nearest `go.mod` at or above `dir` inside the
/// project, its module path and its folder relative to `root`. `None` when there is none or it
/// cannot be read: locations then stay as go prints them, relative to their package's folder.
fn go_packages(dir: &Path, root: &Path) -> Option<PackageDirs> {
    let module_dir = dir
        .ancestors()
        .take_while(|d| d.starts_with(root))
        .find(|d| d.join("go.mod").is_file())?;
    let module = module_path(&fs::read_to_string(module_dir.join("go.mod")).ok()?)?;
    let rel: Vec<String> = module_dir
        .strip_prefix(root)
        .ok()?
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    Some(PackageDirs::new(&module, &rel.join("/")))
}

/// The path of go.mod's `module` directive: `module example.com/x`, quoted, or in a block.
fn module_path(go_mod: &str) -> Option<String> {
    let mut lines = go_mod
        .lines()
        .map(|l| l.split("//").next().unwrap_or_default().trim());
    while let Some(line) = lines.next() {
        let Some(rest) = line.strip_prefix("module") else {
            continue;
        };
        let mut path = rest.trim();
        if !rest.starts_with([' ', '\t', '(']) {
            // `modulex`: another word.
            continue;
        }
        if path == "(" {
            path = lines.find(|l| !l.is_empty())?;
        }
        let path = path.trim_matches(|c| c == '"' || c == '`');
        return (!path.is_empty()).then(|| path.to_owned());
    }
    None
}

/// `go test -run`.
struct GoRun;

impl Narrow for GoRun {
    fn said(&self) -> &'static str {
        "go test -run"
    }

    fn narrow(&self, command: &mut Vec<OsString>, _patterns: &[Pattern], matching: &[Vec<String>]) {
        if let Some(run) = go_run(matching) {
            command.extend(["-run".into(), OsString::from(run)]);
        }
    }
}

/// go's `-run` for the matching tests (`[package, TestX, subtest…]`): each level anchored,
/// `^(TestA|TestB)$/^(one)$`, as deep as every match goes. None when a whole package matches.
fn go_run(matching: &[Vec<String>]) -> Option<String> {
    let levels: Vec<&[String]> = matching
        .iter()
        .map(|n| n.get(1..).unwrap_or_default())
        .collect();
    if levels.iter().any(|l| l.is_empty()) {
        return None;
    }
    let depth = levels.iter().map(|l| l.len()).min().unwrap_or(0);
    let parts: Vec<String> = (0..depth)
        .map(|d| {
            let names: BTreeSet<String> = levels
                .iter()
                .map(|l| regex::escape(&l[d].replace(' ', "_")))
                .collect();
            format!("^({})$", names.into_iter().collect::<Vec<_>>().join("|"))
        })
        .collect();
    Some(parts.join("/"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn module_path_reads_go_mods_directive() {
        for (go_mod, want) in [
            ("module example.com/x\n\ngo 1.19\n", Some("example.com/x")),
            (
                "// a comment\nmodule \"example.com/q\" // trailing\n",
                Some("example.com/q"),
            ),
            (
                "module (\n\texample.com/block\n)\n",
                Some("example.com/block"),
            ),
            ("modulex example.com/no\ngo 1.19\n", None),
            ("go 1.19\n", None),
            ("", None),
        ] {
            assert_eq!(module_path(go_mod).as_deref(), want, "{go_mod:?}");
        }
    }

    #[test]
    fn a_go_suite_knows_its_modules_folder_relative_to_the_root() {
        let tmp = tempfile::TempDir::new().expect("temp dir");
        let root = tmp.path();
        fs::create_dir_all(root.join("go/cmp/cmpopts")).expect("mkdir");
        fs::write(root.join("go/go.mod"), "module example.com/gonested\n").expect("write");
        let dirs = |dir: &str| go_packages(&root.join(dir), root);
        let module = Some(PackageDirs::new("example.com/gonested", "go"));
        assert_eq!(dirs("go"), module);
        // Run in a folder of the module: the module is above it.
        assert_eq!(dirs("go/cmp"), module);
        assert_eq!(dirs(""), None);
        fs::write(root.join("go.mod"), "module example.com/root\n").expect("write");
        assert_eq!(dirs(""), Some(PackageDirs::new("example.com/root", "")));
        let packages = |format| GO.suite_packages(format, &root.join("go"), root);
        assert_eq!(packages(InputFormat::GoJson), module);
        assert_eq!(packages(InputFormat::Tap), None);
    }

    fn path(p: &[&str]) -> Vec<String> {
        p.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn go_run_anchors_each_level() {
        let m = [
            path(&["ex.com/c", "TestTable", "two"]),
            path(&["ex.com/c", "TestAdd", "x"]),
        ];
        assert_eq!(
            go_run(&m).as_deref(),
            Some("^(TestAdd|TestTable)$/^(two|x)$")
        );
        let top = [
            path(&["ex.com/c", "TestAdd"]),
            path(&["ex.com/c", "TestTable", "two"]),
        ];
        assert_eq!(go_run(&top).as_deref(), Some("^(TestAdd|TestTable)$"));
        assert_eq!(go_run(&[path(&["ex.com/c"])]), None);
    }
}
