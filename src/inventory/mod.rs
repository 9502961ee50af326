//! The project's tests, one by one (`tapline list`): each test of each discovered file or
//! suite by its stable ID ([`crate::explain::names::test_id`]), from what the last run of the
//! file reported (`history`, [`crate::state::tests`]) or read from its source (`static`,
//! [`scan`]).
//!
//! By default a file that has run is listed as its last run reported it, so the list and a
//! run never disagree on an ID; one that never ran is listed by its static scan, refined by
//! pytest's own listing where it runs under pytest (a parametrized test's parameters, and
//! tests the scan cannot see, are known only to pytest, [`runtime`]).
pub mod runtime;
pub mod scan;
pub mod select;

use crate::explain::names::test_id;
use crate::protocol::InputFormat;
use crate::run::discover::TestFile;
use crate::state::tests::{Saved, Status};
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, HashSet};
use std::path::Path;

use scan::{Found, Lang};

/// Where an entry was learned.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Source {
    /// Read from the source without running it.
    Static,
    /// The framework's own listing.
    Runtime,
    /// What the last run of the file reported.
    History,
}

/// One test.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    pub id: String,
    /// The test file (or suite) it is in, from the project root.
    pub file: String,
    /// Its names, outermost first.
    pub name: Vec<String>,
    pub source: Source,
    /// `file:line`, from the project root, where known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub location: Option<String>,
    /// Its name is only known at run time: `name` is its source text.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub dynamic: bool,
    /// `history`: when that run ended, and the test's status in it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub when: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<Status>,
}

/// Which sources to list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pick {
    /// Per file: its last run's report, else its static scan.
    Auto,
    Only(Source),
}

/// The tests of `files` (rooted at `root`, run from `cwd`), by `pick`, in file order then
/// source order; and a note for each framework listing that failed (its files are then listed
/// by their static scan).
///
/// `--source runtime` lists only the files whose framework has a listing. `auto` asks the
/// framework only for a pytest file or suite that never ran: go's listing names no more than
/// the static scan (its top-level tests) and builds every package to say it.
pub fn list(
    root: &Path,
    cwd: &Path,
    files: &[TestFile],
    saved: &Saved,
    pick: Pick,
) -> (Vec<Entry>, Vec<String>) {
    let runtime = match pick {
        Pick::Only(Source::Runtime) => runtime::list(root, cwd, files, |_| true),
        Pick::Auto => {
            let unrun: Vec<TestFile> = (files.iter())
                .filter(|f| !saved.contains_key(&f.rel))
                .cloned()
                .collect();
            runtime::list(root, cwd, &unrun, |l| !matches!(l, runtime::Lister::Go(_)))
        }
        Pick::Only(_) => runtime::Listed::default(),
    };
    let mut out = Vec::new();
    for f in files {
        let history = || history_of(&f.rel, saved);
        let listed = runtime.tests.get(&f.rel);
        match pick {
            Pick::Auto => match (history(), listed) {
                (Some(h), _) => out.extend(h),
                (None, Some(l)) => out.extend(refined(l, static_of(root, f))),
                (None, None) => out.extend(static_of(root, f)),
            },
            Pick::Only(Source::History) => out.extend(history().unwrap_or_default()),
            Pick::Only(Source::Static) => out.extend(static_of(root, f)),
            Pick::Only(Source::Runtime) => match listed {
                Some(l) => out.extend(with_locations(l, &static_of(root, f))),
                // Its listing failed (said in the notes): what the scan knows.
                None if runtime::Lister::of(f, root).is_some() => out.extend(static_of(root, f)),
                None => {}
            },
        }
    }
    (out, runtime.notes)
}

/// The framework's entries, each with the place the static scan found it at (a parameter's
/// entry, `test_x[1]`, at its function's).
fn with_locations(listed: &[Entry], found: &[Entry]) -> Vec<Entry> {
    let at: HashMap<&str, &String> = (found.iter())
        .filter_map(|e| Some((e.id.as_str(), e.location.as_ref()?)))
        .collect();
    (listed.iter())
        .map(|e| Entry {
            location: at.get(unparametrized(&e.id)).map(|l| (*l).clone()),
            ..e.clone()
        })
        .collect()
}

/// A test's ID without pytest's parameters (`f > test_x[1]` → `f > test_x`).
fn unparametrized(id: &str) -> &str {
    id.split('[').next().unwrap_or(id)
}

/// `auto`'s list of a file that never ran: its static scan, each test the framework knows
/// only by its parameters (`test_x` → `test_x[1]`, `test_x[2]`) replaced by those, and the
/// tests only the framework found (generated, inherited) after them.
fn refined(listed: &[Entry], found: Vec<Entry>) -> Vec<Entry> {
    let listed = with_locations(listed, &found);
    let known: HashSet<&str> = found.iter().map(|e| e.id.as_str()).collect();
    let mut placed: HashSet<&str> = HashSet::new();
    let mut out = Vec::new();
    for s in &found {
        let params: Vec<&Entry> = (listed.iter())
            .filter(|l| l.id != s.id && unparametrized(&l.id) == s.id)
            .collect();
        match params.is_empty() {
            true => out.push(s.clone()),
            false => {
                placed.extend(params.iter().map(|l| l.id.as_str()));
                out.extend(params.into_iter().cloned());
            }
        }
    }
    let rest = (listed.iter())
        .filter(|l| !known.contains(l.id.as_str()) && !placed.contains(l.id.as_str()));
    out.extend(rest.cloned());
    out
}

/// The tests the last run of `rel` reported.
fn history_of(rel: &str, saved: &Saved) -> Option<Vec<Entry>> {
    let file = saved.get(rel)?;
    let entries = file.tests.iter().map(|t| Entry {
        id: t.id.clone(),
        file: rel.to_owned(),
        name: t.name.clone(),
        source: Source::History,
        location: None,
        dynamic: false,
        when: Some(file.when.clone()),
        status: Some(t.status),
    });
    Some(entries.collect())
}

/// A file's (or a suite's) tests by its static scan.
pub fn static_of(root: &Path, f: &TestFile) -> Vec<Entry> {
    if f.input.suite {
        return suite_static(root, f);
    }
    let Some(lang) = Lang::of(&f.rel) else {
        return Vec::new();
    };
    let Ok(src) = std::fs::read_to_string(root.join(&f.rel)) else {
        return Vec::new();
    };
    let found = scan::scan(lang, &src);
    // A file run under pytest: the plugin names a test by its node ID after the file.
    let pytest = matches!(
        runtime::Lister::of(f, root),
        Some(runtime::Lister::PytestFile(_))
    );
    found
        .into_iter()
        .map(|t| match pytest {
            true => Found {
                name: vec![t.name.join("::")],
                ..t
            },
            false => t,
        })
        .map(|t| entry(&f.rel, &f.rel, t, Vec::new()))
        .collect()
}

fn entry(file: &str, source_file: &str, t: Found, prefix: Vec<String>) -> Entry {
    let mut name = prefix;
    name.extend(t.name);
    Entry {
        id: test_id(file, &name, None),
        file: file.to_owned(),
        name,
        source: Source::Static,
        location: Some(format!("{source_file}:{}", t.line)),
        dynamic: t.dynamic,
        when: None,
        status: None,
    }
}

/// A go or pytest `[[suite]]`'s tests, named as the suite's reports name them: go's
/// `suite > module/package > TestX`, pytest's JUnit `suite > pytest > module.Class.test`.
fn suite_static(root: &Path, f: &TestFile) -> Vec<Entry> {
    let dir = f.input.cwd.clone().unwrap_or_else(|| root.to_owned());
    let dir = if dir.is_absolute() {
        dir
    } else {
        root.join(dir)
    };
    let command = match &f.command {
        Ok(c) => c
            .iter()
            .map(|w| w.to_string_lossy())
            .collect::<Vec<_>>()
            .join(" "),
        Err(_) => String::new(),
    };
    let (go, pytest) = (
        f.input.format == InputFormat::GoJson,
        f.input.format == InputFormat::Junit && command.contains("pytest"),
    );
    if !go && !pytest {
        return Vec::new();
    }
    let module = go.then(|| go_module(&dir)).flatten();
    let mut out = Vec::new();
    for path in source_files(&dir) {
        let rel_dir = path.strip_prefix(&dir).unwrap_or(&path);
        let from_root = path.strip_prefix(root).unwrap_or(&path).to_string_lossy();
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy())
            .unwrap_or_default();
        let prefix = if go && name.ends_with("_test.go") {
            let (module, module_dir) = module
                .as_ref()
                .map_or(("", dir.as_path()), |(m, d)| (m.as_str(), d.as_path()));
            let pkg_dir = path.parent().and_then(|p| p.strip_prefix(module_dir).ok());
            let pkg = match pkg_dir.map(|p| p.to_string_lossy().into_owned()) {
                Some(p) if !p.is_empty() => format!("{module}/{p}"),
                _ => module.to_owned(),
            };
            vec![pkg]
        } else if pytest
            && (name.starts_with("test_") || name.ends_with("_test.py"))
            && name.ends_with(".py")
        {
            vec!["pytest".to_owned()]
        } else {
            continue;
        };
        let Ok(src) = std::fs::read_to_string(&path) else {
            continue;
        };
        let lang = if go { Lang::Go } else { Lang::Python };
        let module_name = rel_dir
            .with_extension("")
            .to_string_lossy()
            .replace('/', ".");
        for t in scan::scan(lang, &src) {
            let t = match pytest {
                // JUnit's `classname.name`: the module's dotted path, the class, the test.
                true => Found {
                    name: vec![format!("{module_name}.{}", t.name.join("."))],
                    ..t
                },
                false => t,
            };
            out.push(entry(&f.rel, &from_root, t, prefix.clone()));
        }
    }
    out
}

/// The module path of the nearest `go.mod` at or above `dir`, and its folder.
fn go_module(dir: &Path) -> Option<(String, std::path::PathBuf)> {
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

/// The files under `dir`, sorted, hidden folders and dependencies left out.
fn source_files(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_owned()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let path = e.path();
            let name = e.file_name().to_string_lossy().into_owned();
            if name.starts_with('.')
                || matches!(
                    name.as_str(),
                    "node_modules" | "vendor" | "testdata" | "__pycache__"
                )
            {
                continue;
            }
            match e.file_type() {
                Ok(t) if t.is_dir() => stack.push(path),
                Ok(_) => out.push(path),
                Err(_) => {}
            }
        }
    }
    out.sort();
    out
}
