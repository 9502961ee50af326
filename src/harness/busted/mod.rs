//! busted (Lua): `*_spec.lua` files run one by one as `busted -o TAP FILE` from the project
//! root, where busted reads `.busted` itself; a run with no PATH takes the files `.busted`'s
//! `ROOT` and `pattern` select (busted's defaults: `spec/`, `_spec`).
use super::api::{Builtin, Id};
use super::Harness;
use std::path::{Path, PathBuf};
mod config;
#[cfg(test)]
pub(crate) mod discovery_cases;
mod folder;
mod pattern;

pub(crate) struct Busted;
pub(crate) static BUSTED: Busted = Busted;

impl Harness for Busted {
    fn id(&self) -> Id {
        "busted"
    }

    fn rules(&self) -> &'static [Builtin] {
        // A Lua file named as a test is a spec (a plain Lua script printing TAP takes a
        // `[[runner]]`); a walk takes busted's default names.
        &[Builtin {
            glob: "*.lua",
            walk: &["*_spec.lua"],
            command: &["busted", "-o", "TAP", "{}"],
        }]
    }

    fn is_test_name(&self, name: &str) -> bool {
        name.ends_with("_spec.lua")
    }

    fn project_markers(&self) -> &'static [&'static str] {
        &[".busted"]
    }

    fn project_files(
        &self,
        cwd: &Path,
        _root: &Path,
    ) -> Option<Result<Vec<PathBuf>, ignore::Error>> {
        is_project(cwd).then(|| files(cwd, &config::selection(cwd)))
    }

    fn configures_files(&self, cwd: &Path) -> bool {
        // `.busted` says which files run (its ROOT, else busted's `spec/`), whatever folders
        // lie beside them; a project seen by its Makefile or rockspec alone is asked only
        // where no default test folder exists.
        cwd.join(".busted").is_file()
    }

    fn no_project_files(&self) -> &'static str {
        "no file under busted's ROOT (`.busted`, else `spec/`) matches its pattern (else `_spec`)"
    }

    fn folder(
        &self,
        cwd: &Path,
        dir: &Path,
        _owned: bool,
        _bare: bool,
        _another_test: &dyn Fn(&str) -> bool,
    ) -> Option<Box<dyn super::folder::Folder>> {
        if !cwd.join(".busted").is_file() {
            return None;
        }
        let selection = config::selection(cwd);
        folder::of(cwd, dir, &selection).map(|f| Box::new(f) as Box<dyn super::folder::Folder>)
    }

    fn one_at_a_time(&self, _cwd: &Path, programs: &[Option<String>]) -> Option<String> {
        // busted runs a project's files one after another in one process: they may share a
        // fixture file or a port. A walk of busted files alone keeps that.
        let busted = |p: &Option<String>| p.as_deref() == Some("busted");
        (!programs.is_empty() && programs.iter().all(busted))
            .then(|| "busted runs files one at a time".to_owned())
    }
}

/// Whether the project in `dir` runs busted: a `.busted` file, a rockspec whose `test` says
/// `type = "busted"`, a Makefile recipe that runs `busted`, or a `spec/` folder holding a
/// `*_spec.lua` file (busted's defaults, `ROOT` `spec` and pattern `_spec`: a bare `busted`
/// there runs them, with no file of its own, as kikito/middleclass is tested).
pub(crate) fn is_project(dir: &Path) -> bool {
    if dir.join(".busted").is_file() || holds_a_spec(&dir.join("spec"), SPEC_DEPTH) {
        return true;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return false;
    };
    entries.flatten().any(|e| {
        let name = e.file_name().to_string_lossy().into_owned();
        let read = || std::fs::read_to_string(e.path()).unwrap_or_default();
        if name.ends_with(".rockspec") {
            rockspec_tests_with_busted(&read())
        } else if matches!(name.as_str(), "Makefile" | "makefile" | "GNUmakefile") {
            makefile_runs_busted(&read())
        } else {
            false
        }
    })
}

/// How deep under `spec/` a `*_spec.lua` file is looked for (busted's walk is recursive; a
/// project's specs sit a level or two down).
const SPEC_DEPTH: usize = 3;

/// Whether `dir`, or a folder `depth` levels under it, holds a `*_spec.lua` file (hidden
/// folders passed over, as busted passes them over).
fn holds_a_spec(dir: &Path, depth: usize) -> bool {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return false;
    };
    entries.flatten().any(|e| {
        let name = e.file_name().to_string_lossy().into_owned();
        let Ok(kind) = e.file_type() else {
            return false;
        };
        if kind.is_dir() {
            depth > 0 && !name.starts_with('.') && holds_a_spec(&e.path(), depth - 1)
        } else {
            name.ends_with("_spec.lua")
        }
    })
}

/// A rockspec's `test = { type = "busted" … }`.
fn rockspec_tests_with_busted(text: &str) -> bool {
    let squeezed: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    squeezed.contains("test={type=\"busted\"") || squeezed.contains("test={type='busted'")
}

/// A recipe line (tab-indented) whose command is `busted`.
fn makefile_runs_busted(text: &str) -> bool {
    text.lines().any(|l| {
        let Some(recipe) = l.strip_prefix('\t') else {
            return false;
        };
        let words = recipe
            .trim_start_matches(['@', '-', '+'])
            .split_whitespace();
        words
            .take(3)
            .any(|w| w == "busted" || w.ends_with("/busted"))
    })
}

/// The files busted runs from `cwd` with `selection`, relative to `cwd`, each root's sorted
/// (as busted sorts them): a root that is a file is taken as it is; a folder's `*.lua` files
/// whose base name matches a pattern and no exclude, hidden ones passed over.
fn files(cwd: &Path, selection: &config::Selection) -> Result<Vec<PathBuf>, ignore::Error> {
    let patterns: Vec<regex::Regex> = pattern::compile_all(&selection.patterns);
    let excludes: Vec<regex::Regex> = pattern::compile_all(&selection.excludes);
    let mut out = Vec::new();
    for root in &selection.roots {
        let path = cwd.join(root);
        if path.is_file() {
            out.push(PathBuf::from(root));
            continue;
        }
        if !path.is_dir() {
            continue;
        }
        let walker = ignore::WalkBuilder::new(&path)
            .standard_filters(false)
            .hidden(true)
            .max_depth((!selection.recursive).then_some(1))
            .build();
        let mut found = Vec::new();
        for entry in walker {
            let entry = entry?;
            if !entry.file_type().is_some_and(|t| t.is_file()) {
                continue;
            }
            let name = entry.file_name().to_string_lossy();
            let chosen = name.ends_with(".lua")
                && !excludes.iter().any(|p| p.is_match(&name))
                && (patterns.is_empty() || patterns.iter().any(|p| p.is_match(&name)));
            if let (true, Ok(rel)) = (chosen, entry.path().strip_prefix(cwd)) {
                found.push(rel.to_path_buf());
            }
        }
        found.sort();
        out.extend(found);
    }
    out.dedup();
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_project_says_it_runs_busted() {
        assert!(makefile_runs_busted("test:\n\tbusted\n"));
        assert!(makefile_runs_busted(
            "test:\n\t@busted -o utfTerminal spec\n"
        ));
        assert!(!makefile_runs_busted("# busted\ntest:\n\tprove t\n"));
        assert!(rockspec_tests_with_busted(
            "build = {}\ntest = {\n  type = \"busted\",\n}\n"
        ));
        assert!(!rockspec_tests_with_busted(
            "test_dependencies = { \"busted\" }\n"
        ));
    }

    #[test]
    fn files_are_busteds_selection() {
        let d = tempfile::tempdir().expect("temp dir");
        for f in [
            "spec/a_spec.lua",
            "spec/deep/b_spec.lua",
            "spec/helper.lua",
            "spec/.hidden/c_spec.lua",
            "spec/slow_spec.lua",
            "spec/d_spec.moon",
            "test/e_test.lua",
        ] {
            let p = d.path().join(f);
            std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
            std::fs::write(p, "").expect("write");
        }
        let names = |s: &config::Selection| -> Vec<String> {
            files(d.path(), s)
                .expect("walk")
                .iter()
                .map(|p| p.display().to_string())
                .collect()
        };
        let mut s = config::Selection::default();
        assert_eq!(
            names(&s),
            [
                "spec/a_spec.lua",
                "spec/deep/b_spec.lua",
                "spec/slow_spec.lua"
            ]
        );
        s.excludes = vec!["slow".into()];
        s.recursive = false;
        assert_eq!(names(&s), ["spec/a_spec.lua"]);
        let other = config::selection_of(
            "return { default = { ROOT = {'test'}, pattern = '_test%.lua$' } }",
        );
        assert_eq!(names(&other), ["test/e_test.lua"]);
    }
}
