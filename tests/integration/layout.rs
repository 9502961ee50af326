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
    let skip: Vec<&str> = skip.iter().copied().chain(["lib", "main"]).collect();
    let modules = children(dir, &skip);
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

/// The modules that are children of `dir` (its `.rs` files and folders), by name, each with
/// its files as [`rust_files`] gives them; those `skip` names are left out.
fn children(dir: &Path, skip: &[&str]) -> BTreeMap<String, Vec<(PathBuf, bool)>> {
    let mut modules = BTreeMap::new();
    for entry in std::fs::read_dir(dir).expect("readable").flatten() {
        let path = entry.path();
        let name = path
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or_default()
            .to_owned();
        if skip.contains(&name.as_str()) {
            continue;
        }
        if path.is_dir() {
            modules.insert(name, rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            modules.insert(name, vec![(path, true)]);
        }
    }
    modules
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

/// Issue 39: the harness rooms sit below the runner, so that every layer above can ask them
/// and none of them can reach up: `harness` imports only the utilities, the parser (the
/// library's `protocol`), supervision and the coverage data model, its tests included.
#[test]
fn issue39_the_rooms_sit_below_the_runner() {
    const BELOW: &[&str] = &["util", "supervise", "coverage"];
    let library = read_crate(&repo().join("src/lib.rs"), &[], true);
    let used = library
        .uses
        .get("harness")
        .expect("src/harness is a module");
    let above: Vec<&String> = used
        .iter()
        .filter(|m| !BELOW.contains(&m.as_str()))
        .collect();
    assert!(above.is_empty(), "src/harness imports {above:?}, above it");
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

/// Import loops among the runner's rooms allowed for now (issue 39, §3.2 of
/// `docs/harness-adapters-plan.md`), each from its smallest name. The harness rooms' move out
/// of `src/run/` cut the last of them; a new one is a design error, not an entry here.
const KNOWN_RUN_LOOPS: &[&str] = &[];

/// Issue 39: the runner's rooms, the children of `src/run/` (its `.rs` files and folders,
/// `mod.rs` left out), import one way, as the top-level modules do. An import is read from a
/// file's production text as the top-level test reads it (doc links count): `crate::run::NAME`,
/// or `super::NAME` with as many `super::` as the file lies below `src/run/` (one in `run/x.rs`
/// and `run/x/mod.rs`, two in `run/x/y.rs`), or each item of a list after either
/// (`super::{a, b::C}`).
///
/// A ratchet while the rooms move: every loop of today is in [`KNOWN_RUN_LOOPS`]. The test
/// fails when a loop not listed appears (a new import closing one), and when a listed loop is
/// gone (then take it out), so the list only ever shrinks. Loops, not edges, are listed: a new
/// loop through an old edge is caught too.
#[test]
fn issue39_the_runners_rooms_import_one_way() {
    let rooms = run_rooms(&repo().join("src/run"));
    let uses: BTreeMap<String, BTreeSet<String>> = rooms
        .iter()
        .map(|(room, used)| (room.clone(), used.keys().cloned().collect()))
        .collect();
    let found: BTreeMap<String, Vec<String>> = cycles(&uses)
        .into_iter()
        .map(|l| (l.join(" -> "), l))
        .collect();
    let mut wrong = Vec::new();
    for (name, rooms_on_it) in &found {
        if !KNOWN_RUN_LOOPS.contains(&name.as_str()) {
            let why: Vec<String> = rooms_on_it
                .iter()
                .zip(rooms_on_it.iter().cycle().skip(1))
                .map(|(a, b)| format!("{} names {b}", rooms[a][b]))
                .collect();
            wrong.push(format!(
                "src/run: a new import loop: {name} -> {} ({})",
                rooms_on_it[0],
                why.join("; ")
            ));
        }
    }
    for known in KNOWN_RUN_LOOPS {
        if !found.contains_key(*known) {
            wrong.push(format!(
                "src/run: the loop {known} is gone: take it out of KNOWN_RUN_LOOPS"
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// The rooms of the runner (`run`), each with the other rooms it imports and, for each, the
/// first file (relative to `run`) that names it.
fn run_rooms(run: &Path) -> BTreeMap<String, BTreeMap<String, String>> {
    let files: BTreeMap<String, Vec<PathBuf>> = children(run, &["mod"])
        .into_iter()
        .map(|(name, inside)| {
            let mut paths: Vec<PathBuf> = inside.into_iter().map(|(p, _)| p).collect();
            paths.sort();
            (name, paths)
        })
        .collect();
    let names: BTreeSet<String> = files.keys().cloned().collect();
    let mut rooms = BTreeMap::new();
    for (room, paths) in &files {
        let mut used: BTreeMap<String, String> = BTreeMap::new();
        for path in paths {
            let rel = path.strip_prefix(run).expect("under run");
            let depth = rel.components().count() - usize::from(rel.ends_with("mod.rs"));
            for other in rooms_named(&production(path), depth, &names) {
                if other != *room {
                    used.entry(other)
                        .or_insert_with(|| rel.display().to_string());
                }
            }
        }
        rooms.insert(room.clone(), used);
    }
    rooms
}

/// The rooms `text` names through `crate::run::`, or through `depth` times `super::` (what
/// reaches `run` from the file), one name or each item of a `{…}` list.
fn rooms_named(text: &str, depth: usize, names: &BTreeSet<String>) -> BTreeSet<String> {
    let supers = "super::".repeat(depth);
    let mut found = BTreeSet::new();
    for prefix in ["crate::run::", supers.as_str()] {
        if prefix.is_empty() {
            continue;
        }
        for (at, _) in text.match_indices(prefix) {
            // Not the tail of a longer path (`super::super::x` read one `super::` deep).
            let before = text[..at].chars().next_back();
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
                continue;
            }
            let rest = &text[at + prefix.len()..];
            let heads = match rest.strip_prefix('{') {
                Some(list) => list_heads(list),
                None => vec![first_word(rest)],
            };
            found.extend(
                heads
                    .into_iter()
                    .filter(|w| names.contains(*w))
                    .map(str::to_owned),
            );
        }
    }
    found
}

/// The first word of each item of a `use` list (`list` is the text after its `{`), up to the
/// list's closing brace: `a`, `b` and `c` of `a, b::{X, Y}, c}`.
fn list_heads(list: &str) -> Vec<&str> {
    let mut heads = vec![first_word(list.trim_start())];
    let mut depth = 0usize;
    for (i, c) in list.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => break,
            '}' => depth -= 1,
            ',' if depth == 0 => heads.push(first_word(list[i + 1..].trim_start())),
            _ => {}
        }
    }
    heads
}

fn first_word(text: &str) -> &str {
    let end = text
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(text.len());
    &text[..end]
}

#[test]
fn issue39_the_runners_rooms_are_read_by_depth_and_in_lists() {
    let names: BTreeSet<String> = ["config", "discover", "order", "plan"]
        .map(str::to_owned)
        .into();
    let read = |text: &str, depth: usize| -> Vec<String> {
        rooms_named(text, depth, &names).into_iter().collect()
    };
    assert_eq!(read("use super::config::Config;", 1), ["config"]);
    // One folder deeper, `super::` is the room's own file; `super::super::` is `run`.
    assert!(read("use super::config::Config;", 2).is_empty());
    assert_eq!(read("use super::super::discover::Input;", 2), ["discover"]);
    assert!(read("use super::super::super::plan;", 2).is_empty());
    assert_eq!(
        read("use super::{config::{self, Config}, order, plan::X};", 1),
        ["config", "order", "plan"]
    );
    assert_eq!(
        read(
            "/// See [`crate::run::discover`].\nuse crate::run::{order};",
            3
        ),
        ["discover", "order"]
    );
    assert!(read("mycrate::run::plan; my_super::order", 1).is_empty());
}

/// Harness words as `scripts/harness-names.sh` reads them (docs/harness-adapters-plan.md §5.1):
/// long words match as a prefix (`PERL5LIB`, `pytest_root`), short ones as a whole word.
const LONG_NAMES: &[&str] = &[
    "pytest",
    "unittest",
    "tstest",
    "tapbundle",
    "perl",
    "python",
    "chromium",
    "mocha",
    "vitest",
    "yath",
    "node:test",
    "node-tap",
    "@tapjs",
    "libtest",
    "gotest",
    "busted",
    "sharness",
    "pgtap",
    "pg_prove",
    "psql",
];
const SHORT_NAMES: &[&str] = &[
    "tape", "ava", "jest", "bats", "bun", "deno", "prove", "tsx", "tsrun",
];
/// Literal spellings that name a harness, an interpreter's variables, or the browser room.
const PHRASES: &[&str] = &[
    "go test",
    "cargo test",
    "cargo.toml",
    "cargo metadata",
    "cargo nextest",
    "cargo-nextest",
    "rustdoc",
    "test::more",
    "test::harness",
    "devel::cover",
    "coverage.py",
    "node_options",
    "node_path",
    "node_v8_coverage",
    "node_modules",
    "\"node\"",
    "\"nodejs\"",
    "\"go\"",
    "go.mod",
    "go.sum",
    "go.work",
    "crate::browser",
];

/// Whether a line of the generic layers names a harness, as the gate script decides.
fn names_a_harness(line: &str) -> bool {
    let lower = line.to_ascii_lowercase();
    let bytes = line.as_bytes();
    let letter = |i: usize| bytes.get(i).is_some_and(u8::is_ascii_alphabetic);
    // Not after a letter, or a capitalised hump after a lowercase one (`NoPytestFiles`).
    let starts_word = |at: usize| {
        at == 0
            || !letter(at - 1)
            || (bytes[at - 1].is_ascii_lowercase() && bytes[at].is_ascii_uppercase())
    };
    let hit = |word: &str, whole: bool| {
        lower
            .match_indices(word)
            .any(|(at, _)| starts_word(at) && !(whole && letter(at + word.len())))
    };
    LONG_NAMES.iter().any(|w| hit(w, false))
        || SHORT_NAMES.iter().any(|w| hit(w, true))
        || PHRASES.iter().any(|p| lower.contains(p))
        || hit("test2", true)
        || line
            .match_indices("browser::")
            .any(|(at, _)| at == 0 || !(letter(at - 1) || bytes[at - 1] == b'_'))
}

/// #39's Done-when: no line of the generic layers (everything under `src/` but the rooms and
/// their registry in `src/harness/`, the producers' failure readers in `src/explain/failure/`
/// and the user's help in `src/cli/`) names a harness, comments and tests included: the
/// same reading as `scripts/harness-names.sh` (pinned by
/// `issue39_the_gate_reads_words_as_the_script_does`), which prints nothing. This was a ratchet
/// while the move went on; a new name in a generic file now fails at once.
#[test]
fn issue39_harness_names_stay_in_their_rooms() {
    let src = repo().join("src");
    let mut found: BTreeMap<String, usize> = BTreeMap::new();
    let mut stack = vec![src.clone()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("src is readable").flatten() {
            let path = entry.path();
            let rel = path
                .strip_prefix(repo())
                .expect("inside")
                .to_string_lossy()
                .into_owned();
            if rel == "src/harness" || rel == "src/explain/failure" || rel == "src/cli" {
                continue;
            }
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            let Ok(text) = std::fs::read_to_string(&path) else {
                continue;
            };
            let lines = text.lines().filter(|l| names_a_harness(l)).count();
            if lines > 0 {
                found.insert(rel, lines);
            }
        }
    }
    let list: Vec<String> = found
        .iter()
        .map(|(f, n)| format!("  {f}: {n} lines"))
        .collect();
    assert!(
        found.is_empty(),
        "harness names outside src/harness/ (say the shape, or move the knowledge into its room):\n{}",
        list.join("\n")
    );
}

/// The lines of `text` that are code: not a comment, not in a test module (a
/// `#[cfg(test)] mod` runs to the end of its file, as this tree writes them), with their
/// numbers.
fn code_lines(text: &str) -> Vec<(usize, &str)> {
    let lines: Vec<&str> = text.lines().collect();
    let tests = (lines.windows(2))
        .position(|w| w[0].trim() == "#[cfg(test)]" && w[1].trim_start().starts_with("mod "))
        .unwrap_or(lines.len());
    (lines[..tests].iter().enumerate())
        .filter(|(_, l)| !l.trim_start().starts_with("//"))
        .map(|(i, l)| (i + 1, *l))
        .collect()
}

/// #39's Done-when, for code alone (the test above holds comments and tests too): the generic
/// layers' code names no harness: `scripts/harness-names.sh --code` prints
/// nothing (the `[run] chromium` key, the last, became `[run] browser`: its old name is the
/// browser room's, through the registry's renamed keys).
#[test]
fn issue39_the_generic_layers_code_names_no_harness() {
    let src = repo().join("src");
    let mut named = Vec::new();
    let mut stack = vec![src];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("src is readable").flatten() {
            let path = entry.path();
            let rel = (path.strip_prefix(repo()).expect("inside"))
                .to_string_lossy()
                .into_owned();
            if rel == "src/harness" || rel == "src/explain/failure" || rel == "src/cli" {
                continue;
            }
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            let name = path
                .file_name()
                .and_then(|n| n.to_str())
                .unwrap_or_default();
            if name == "tests.rs" || name.ends_with("_tests.rs") {
                continue;
            }
            let Ok(text) = std::fs::read_to_string(&path) else {
                continue;
            };
            for (n, line) in code_lines(&text) {
                if names_a_harness(line) {
                    named.push(format!("{rel}:{n}: {}", line.trim()));
                }
            }
        }
    }
    named.sort();
    assert!(
        named.is_empty(),
        "harness names in the generic layers' code:\n{}",
        named.join("\n")
    );
}

#[test]
fn issue39_the_gate_reads_words_as_the_script_does() {
    assert!(names_a_harness("use crate::run::pytest;"));
    assert!(names_a_harness("let x = NoPytestFiles;"));
    assert!(names_a_harness("PERL5LIB"));
    assert!(names_a_harness("fn is_perl(name: &str)"));
    assert!(names_a_harness("runs under prove."));
    assert!(names_a_harness("crate::browser::Shared"));
    assert!(
        !names_a_harness("improve the hyperlink"),
        "prove and perl inside words"
    );
    assert!(!names_a_harness("BUNDLE_DEADLINE majestic Java"));
    assert!(!names_a_harness("the browser's pages"));
    assert!(!names_a_harness("let go = 1; // go on"));
    assert!(names_a_harness("Test2::V0 and Test2"));
    assert!(names_a_harness("the nearest Cargo.toml"));
    assert!(names_a_harness("run through cargo nextest"));
    assert!(!names_a_harness("env!(\"CARGO_MANIFEST_DIR\")"));
}
