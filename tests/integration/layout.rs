//! Issue 24: a house a newcomer can walk. Between the top-level modules of each crate (the
//! protocol crate, the library, the binary's command files) imports point one way: no two
//! modules use each other, directly or round a longer loop. And no top-level module holds more
//! than 30% of its crate's production lines (a file's lines before its `#[cfg(test)]`, test
//! files left out).
//!
//! Imports are read from the source text: `crate::NAME` anywhere (a `use`, a path, a doc link
//! counts too, as a reader follows it), and `super::NAME` in a file whose parent is the crate
//! root. Test code is left out.
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use crate::util::repo;

/// The most of a crate's production lines one top-level module may hold.
const MAX_SHARE: f64 = 0.30;

/// A crate's top-level modules: each name with its files and production lines, and the
/// other top-level modules it uses.
struct Crate {
    lines: BTreeMap<String, usize>,
    uses: BTreeMap<String, BTreeSet<String>>,
}

/// The crate whose root file is `root` (`lib.rs` or `main.rs`), its modules being the `.rs`
/// files and folders beside it that `skip` does not name; their production code, or every
/// line with `with_tests`.
fn read_crate(root: &Path, skip: &[&str], with_tests: bool) -> Crate {
    let dir = root.parent().expect("a folder");
    let mut modules: BTreeMap<String, Vec<(PathBuf, bool)>> = BTreeMap::new();
    for entry in std::fs::read_dir(dir).expect("readable").flatten() {
        let path = entry.path();
        let name = path
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or_default()
            .to_owned();
        if skip.contains(&name.as_str()) || name == "lib" || name == "main" {
            continue;
        }
        if path.is_dir() {
            modules.insert(name, rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            modules.insert(name, vec![(path, true)]);
        }
    }
    let names: BTreeSet<String> = modules.keys().cloned().collect();
    let mut lines = BTreeMap::new();
    let mut uses = BTreeMap::new();
    for (name, files) in &modules {
        let mut count = 0;
        let mut used = BTreeSet::new();
        for (file, at_root) in files {
            let text = match with_tests {
                true => std::fs::read_to_string(file).expect("readable"),
                false => production(file),
            };
            count += text.lines().count();
            used.extend(
                modules_named(&text, *at_root, &names)
                    .into_iter()
                    .filter(|u| u != name),
            );
        }
        lines.insert(name.clone(), count);
        uses.insert(name.clone(), used);
    }
    Crate { lines, uses }
}

/// The `.rs` files under `dir`, each with whether its `super` is the crate root (the folder's
/// own `mod.rs`).
fn rust_files(dir: &Path) -> Vec<(PathBuf, bool)> {
    let mut out = Vec::new();
    let mut stack = vec![(dir.to_path_buf(), true)];
    while let Some((d, top)) = stack.pop() {
        for entry in std::fs::read_dir(&d).expect("readable").flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push((path, false));
            } else if path.extension().is_some_and(|e| e == "rs") {
                let root_super = top && path.file_name().is_some_and(|n| n == "mod.rs");
                out.push((path, root_super));
            }
        }
    }
    out
}

/// A file's production text: nothing of a test file, and nothing from its `#[cfg(test)]` on.
fn production(file: &Path) -> String {
    let name = file
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default();
    if name == "tests.rs"
        || name.ends_with("_tests.rs")
        || file.components().any(|c| c.as_os_str() == "tests")
    {
        return String::new();
    }
    let text = std::fs::read_to_string(file).expect("readable");
    if text.contains("\n#![cfg(test)]") || text.starts_with("#![cfg(test)]") {
        return String::new();
    }
    match text.find("\n#[cfg(test)]") {
        Some(cut) => text[..cut].to_owned(),
        None => text,
    }
}

/// The top-level modules `text` names through `crate::` (or `super::`, when its `super` is
/// the crate root).
fn modules_named(text: &str, root_super: bool, names: &BTreeSet<String>) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    let prefixes: &[&str] = if root_super {
        &["crate::", "super::"]
    } else {
        &["crate::"]
    };
    for prefix in prefixes {
        for (at, _) in text.match_indices(prefix) {
            let before = text[..at].chars().next_back();
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
                continue;
            }
            let rest = &text[at + prefix.len()..];
            let word: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if names.contains(&word) {
                found.insert(word);
            }
        }
    }
    found
}

/// Every loop of uses, as the modules on it (none: the imports point one way).
fn cycles(uses: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    let mut found = Vec::new();
    for start in uses.keys() {
        let mut stack = vec![(start.clone(), vec![start.clone()])];
        while let Some((at, path)) = stack.pop() {
            for next in uses.get(&at).into_iter().flatten() {
                if next == start {
                    // Each loop once: from its smallest name.
                    if path.iter().all(|p| p >= start) {
                        found.push(path.clone());
                    }
                } else if !path.contains(next) && next > start {
                    let mut longer = path.clone();
                    longer.push(next.clone());
                    stack.push((next.clone(), longer));
                }
            }
        }
    }
    found
}

fn check(what: &str, c: &Crate) -> Vec<String> {
    let mut wrong: Vec<String> = cycles(&c.uses)
        .into_iter()
        .map(|loop_| {
            format!(
                "{what}: an import cycle: {} -> {}",
                loop_.join(" -> "),
                loop_[0]
            )
        })
        .collect();
    let total: usize = c.lines.values().sum();
    for (name, n) in &c.lines {
        let share = *n as f64 / total.max(1) as f64;
        if share > MAX_SHARE {
            wrong.push(format!(
                "{what}: {name} holds {:.1}% of {total} production lines",
                share * 100.0
            ));
        }
    }
    wrong
}

#[test]
fn issue24_imports_point_one_way_and_no_room_is_a_third_of_its_crate() {
    let root = repo();
    let protocol = read_crate(&root.join("crates/tapline-protocol/src/lib.rs"), &[], false);
    // The library's modules are what lib.rs declares; the command files beside them are the
    // binary's.
    let lib_rs = std::fs::read_to_string(root.join("src/lib.rs")).expect("lib.rs");
    let declared: Vec<String> = lib_rs
        .lines()
        .filter_map(|l| {
            l.trim()
                .strip_prefix("pub mod ")
                .or_else(|| l.trim().strip_prefix("mod "))
        })
        .map(|l| l.trim_end_matches(';').to_owned())
        .collect();
    let all = read_crate(&root.join("src/lib.rs"), &[], false);
    let split = |keep: &dyn Fn(&str) -> bool| Crate {
        lines: all
            .lines
            .iter()
            .filter(|(n, _)| keep(n))
            .map(|(n, l)| (n.clone(), *l))
            .collect(),
        uses: all
            .uses
            .iter()
            .filter(|(n, _)| keep(n))
            .map(|(n, u)| (n.clone(), u.iter().filter(|x| keep(x)).cloned().collect()))
            .collect(),
    };
    let library = split(&|n| declared.iter().any(|d| d == n));
    let binary = split(&|n| !declared.iter().any(|d| d == n));
    let mut wrong = check("tapline-protocol", &protocol);
    wrong.extend(check("tapline (library)", &library));
    wrong.extend(
        cycles(&binary.uses)
            .into_iter()
            .map(|l| format!("tapline (binary): an import cycle: {}", l.join(" -> "))),
    );
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// Issue 39: test code points the same way as the code it tests (the diff's tests, which read
/// it painted, live with the painter in `report`, not in `explain`).
#[test]
fn issue39_no_import_cycle_between_top_level_modules_even_in_tests() {
    let root = repo();
    let protocol = read_crate(&root.join("crates/tapline-protocol/src/lib.rs"), &[], true);
    let library = read_crate(&root.join("src/lib.rs"), &[], true);
    let wrong: Vec<String> = [("tapline-protocol", &protocol), ("tapline", &library)]
        .into_iter()
        .flat_map(|(what, c)| {
            cycles(&c.uses)
                .into_iter()
                .map(move |l| format!("{what}: an import cycle: {}", l.join(" -> ")))
        })
        .collect();
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn the_cycle_finder_finds_loops_of_any_length() {
    let uses = |pairs: &[(&str, &str)]| {
        let mut m: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for (a, b) in pairs {
            m.entry((*a).to_owned())
                .or_default()
                .insert((*b).to_owned());
            m.entry((*b).to_owned()).or_default();
        }
        m
    };
    assert!(cycles(&uses(&[("a", "b"), ("b", "c")])).is_empty());
    assert_eq!(cycles(&uses(&[("a", "b"), ("b", "a")])), [["a", "b"]]);
    assert_eq!(
        cycles(&uses(&[("b", "c"), ("c", "d"), ("d", "b")])),
        [["b", "c", "d"]]
    );
    let names: BTreeSet<String> = ["event", "report"].map(str::to_owned).into();
    let found = modules_named(
        "use crate::event::X; // see [`crate::report`]; mycrate::run",
        false,
        &names,
    );
    assert_eq!(found, names);
    assert!(modules_named("use super::event;", false, &names).is_empty());
    assert_eq!(modules_named("use super::event;", true, &names).len(), 1);
}
