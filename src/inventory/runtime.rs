//! The harness's own listing of a file's tests (`tapline list --source runtime`), where it
//! has one (`Harness::lister` in [`crate::harness`]). Each listed test gets the ID a run reports
//! for it: the room names it as its run does, and this module makes the entry.
//!
//! A listing that fails (the harness missing, a collection error) leaves its files to their
//! static scan, with a one-line note saying why.
use super::{listable, Entry, Source};
use crate::explain::names::test_id;
use crate::harness::api::Id;
use crate::harness::list::{Listable, Lister, Listing};
use crate::harness::registry;
use crate::run::discover::TestFile;
use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::Path;

/// What the harnesses listed: each listed file's tests, by file, and a note per listing that
/// failed.
#[derive(Debug, Default)]
pub struct Listed {
    pub tests: BTreeMap<String, Vec<Entry>>,
    pub notes: Vec<String>,
}

/// The files each harness lists together, by its id and batch key (in that order).
type Batches<'a> = BTreeMap<(Id, Vec<OsString>), (Lister, Vec<&'a Listable<'a>>)>;

/// Lists the tests of every file of `files` whose harness has a listing and `wanted` takes;
/// `cwd` is where the files run (a suite, in its own folder under `root`). The files one
/// harness lists together (one command's) are listed by one call, after the others.
pub(crate) fn list(
    root: &Path,
    cwd: &Path,
    files: &[TestFile],
    wanted: impl Fn(&Lister) -> bool,
) -> Listed {
    let listables: Vec<Listable<'_>> = files.iter().map(|f| listable(f, root)).collect();
    let mut out = Listing::default();
    let mut batches: Batches<'_> = BTreeMap::new();
    for file in &listables {
        let Some(lister) = registry::lister(file).filter(|l| wanted(l)) else {
            continue;
        };
        let Some(harness) = registry::harness(lister.harness) else {
            continue;
        };
        match &lister.batch {
            Some(key) => {
                let at = (lister.harness, key.clone());
                let batch = batches
                    .entry(at)
                    .or_insert_with(|| (lister.clone(), Vec::new()));
                batch.1.push(file);
            }
            None => harness.list(&lister, &[file], cwd, &mut out),
        }
    }
    for (lister, group) in batches.into_values() {
        if let Some(harness) = registry::harness(lister.harness) {
            harness.list(&lister, &group, cwd, &mut out);
        }
    }
    entries(out)
}

/// The listed names as entries.
fn entries(listing: Listing) -> Listed {
    let tests = (listing.tests.into_iter())
        .map(|(rel, names)| {
            let entries = names.into_iter().map(|n| runtime_entry(&rel, n)).collect();
            (rel, entries)
        })
        .collect();
    Listed {
        tests,
        notes: listing.notes,
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn listed_names_get_the_ids_a_run_reports() {
        let mut listing = Listing::default();
        let names = vec![vec!["ex.com/c".to_owned(), "TestAdd".to_owned()]];
        listing.take("suite", Ok(names));
        listing.take("broken", Err("failed to list".to_owned()));
        let listed = entries(listing);
        let ids: Vec<&str> = listed.tests["suite"]
            .iter()
            .map(|e| e.id.as_str())
            .collect();
        assert_eq!(ids, ["suite > ex.com/c > TestAdd"]);
        assert_eq!(listed.notes, ["broken: failed to list"]);
    }
}
