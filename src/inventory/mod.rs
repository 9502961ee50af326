//! The project's tests, one by one (`tapline list`): each test of each discovered file or
//! suite by its stable ID ([`crate::explain::names::test_id`]), from what the last run of the
//! file reported (`history`, [`crate::state::tests`]) or read from its source (`static`, by
//! the scanner of its language, `Harness::scanner` in [`crate::harness`]).
//!
//! By default a file that has run is listed as its last run reported it, so the list and a
//! run never disagree on an ID; one that never ran is listed by its static scan, refined by
//! its harness's own listing where that listing may name more ([`runtime`]: a parametrized
//! test's parameters, and tests the scan cannot see, are known only to the harness).
pub mod runtime;
pub mod select;

use crate::explain::names::test_id;
use crate::harness::list::Listable;
use crate::harness::registry;
use crate::harness::scan::Found;
use crate::run::discover::TestFile;
use crate::state::tests::{Saved, Status};
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, HashSet};
use std::path::Path;

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
/// source order; and a note for each harness's listing that failed (its files are then listed
/// by their static scan).
///
/// `--source runtime` lists only the files whose harness has a listing. `auto` asks the
/// harness only for a file or suite that never ran, and only when its listing may name more
/// than the static scan (`Lister::refines` in [`crate::harness`]: one that names no more
/// and costs a build is not asked).
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
            runtime::list(root, cwd, &unrun, |l| l.refines)
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
                None if registry::lister(&listable(f, root)).is_some() => {
                    out.extend(static_of(root, f))
                }
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

/// A listed test's ID without the parameters its harness lists after its name, in brackets
/// (`f > test_x[1]` → `f > test_x`).
fn unparametrized(id: &str) -> &str {
    id.split('[').next().unwrap_or(id)
}

/// `auto`'s list of a file that never ran: its static scan, each test the framework knows
/// only by its parameters (`test_x` → `test_x[1]`, `test_x[2]`) replaced by those, and the
/// tests only the framework found (generated, inherited) after them. A test the scan could
/// only name by its source (a name known at run time) gives way to what the framework
/// listed, which names it.
fn refined(listed: &[Entry], found: Vec<Entry>) -> Vec<Entry> {
    let found: Vec<Entry> = match listed.is_empty() {
        true => found,
        false => found.into_iter().filter(|e| !e.dynamic).collect(),
    };
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

/// A file's (or a suite's) tests by its static scan: a file's by the scanner of its
/// language, named as the harness that runs it names them; a suite's by its harness, from the
/// sources under its folder.
pub fn static_of(root: &Path, f: &TestFile) -> Vec<Entry> {
    let file = listable(f, root);
    if f.input.suite {
        let found = registry::suite_tests(&file).into_iter();
        return found.map(|s| entry(&f.rel, &s.source, s.found)).collect();
    }
    let Some(scan) = registry::scanner(&f.rel) else {
        return Vec::new();
    };
    let Ok(src) = std::fs::read_to_string(root.join(&f.rel)) else {
        return Vec::new();
    };
    (scan(&src).into_iter())
        .map(|t| Found {
            name: registry::scanned_name(&file, t.name),
            ..t
        })
        .map(|t| entry(&f.rel, &f.rel, t))
        .collect()
}

/// `f` as a harness is asked about its tests.
fn listable<'a>(f: &'a TestFile, root: &'a Path) -> Listable<'a> {
    let dir = match &f.input.cwd {
        Some(d) if d.is_absolute() => d.clone(),
        Some(d) => root.join(d),
        None => root.to_owned(),
    };
    Listable {
        rel: &f.rel,
        path: &f.path,
        command: f.command.as_ref().ok().map(Vec::as_slice),
        suite: f.input.suite,
        format: f.input.format,
        dir,
        root,
    }
}

fn entry(file: &str, source_file: &str, t: Found) -> Entry {
    Entry {
        id: test_id(file, &t.name, None),
        file: file.to_owned(),
        name: t.name,
        source: Source::Static,
        location: Some(format!("{source_file}:{}", t.line)),
        dynamic: t.dynamic,
        when: None,
        status: None,
    }
}
