//! `tapline init`: reads a repository (the projects each harness's suite runs, the test script
//! the project declares, the test folders a plain run walks) and writes the `tapline.toml` a
//! plain `tapline run` needs there: a `[[suite]]` for each test command that is not a file,
//! and comments saying what a plain run already does by itself. What each harness detects and
//! writes is its room's ([`crate::harness::Harness::init_marks`] and the methods after it);
//! the order the suites are written in is the registry's `INIT_ORDER`.
use super::discover;
use crate::harness::registry;
use crate::harness::Harness;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

/// How deep below the root a harness's project is looked for.
const MAX_DEPTH: usize = 3;

/// Folders never looked into (and every harness's dependency folders).
const SKIPPED: &[&str] = &["vendor", "target", "dist", "build", "testdata"];

/// What `init` found in a repository.
#[derive(Debug, Default, PartialEq)]
pub struct Findings {
    /// For each harness `init` writes suites for, in the registry's init order, the folders
    /// holding its project, relative to the root (`""` for the root itself).
    pub suites: Vec<(&'static str, Vec<String>)>,
    /// The test script the project at the root declares, if any, by the harness of the
    /// ecosystem that declares it.
    pub script: Option<(&'static str, String)>,
    /// Whether a plain run follows that script by itself.
    pub script_followed: bool,
    /// The harness that owns the project at the root, if one does.
    pub owner: Option<&'static str>,
    /// Which of `test/`, `tests/`, `t/` exist.
    pub test_dirs: Vec<String>,
    /// The projects found that need no suite, by harness, each with the comment saying why
    /// ([`Harness::init_no_suite`]).
    pub notes: Vec<(&'static str, String)>,
}

impl Findings {
    /// The folders holding a project of harness `id` that `init` writes a suite for.
    pub fn dirs(&self, id: &str) -> &[String] {
        self.suites
            .iter()
            .find(|(h, _)| *h == id)
            .map_or(&[], |(_, dirs)| dirs.as_slice())
    }
}

/// Looks at the repository at `root`.
pub fn look(root: &Path) -> Findings {
    let mut findings = Findings::default();
    let mut found: Vec<(&'static dyn Harness, Vec<String>)> = registry::INIT_ORDER
        .iter()
        .map(|h| (*h, Vec::new()))
        .collect();
    let mut dirs = vec![(root.to_path_buf(), 0)];
    while let Some((dir, depth)) = dirs.pop() {
        let rel = rel_dir(root, &dir);
        for (h, places) in &mut found {
            let inside = h.init_nests() && places.iter().any(|p| is_within(&rel, p));
            if !h.init_marks(&dir) || inside {
                continue;
            }
            match h.init_no_suite(&rel) {
                Some(note) => findings.notes.push((h.id(), note)),
                None => places.push(rel.clone()),
            }
        }
        if depth < MAX_DEPTH {
            dirs.extend(subfolders(&dir).into_iter().map(|d| (d, depth + 1)));
        }
    }
    findings.script = registry::init_script(root).map(|(h, script)| (h.id(), script));
    findings.script_followed = discover::declared_by_project(root).is_some();
    findings.owner = registry::owner(root).map(|h| h.id());
    findings.test_dirs = ["test", "tests", "t"]
        .into_iter()
        .filter(|d| root.join(d).is_dir())
        .map(str::to_owned)
        .collect();
    for (h, places) in &mut found {
        places.sort();
        if h.init_nests() {
            nest(places, &findings.test_dirs);
        }
    }
    findings.suites = found.into_iter().map(|(h, dirs)| (h.id(), dirs)).collect();
    findings
}

/// Drops the projects a plain run already runs: one inside another (the outer one's tests),
/// the root's, and those in the folders it walks (`walked`).
fn nest(places: &mut Vec<String>, walked: &[String]) {
    let outer = places.clone();
    places.retain(|p| !outer.iter().any(|o| o != p && is_within(p, o)));
    places.retain(|p| !p.is_empty() && !walked.iter().any(|d| is_within(p, d)));
}

fn subfolders(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<PathBuf> = entries
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .filter(|e| {
            let name = e.file_name();
            let name = name.to_string_lossy();
            !name.starts_with('.')
                && !SKIPPED.contains(&name.as_ref())
                && !crate::harness::registry::dependency_folders().any(|d| d == name)
        })
        .map(|e| e.path())
        .collect();
    out.sort();
    out
}

fn rel_dir(root: &Path, dir: &Path) -> String {
    dir.strip_prefix(root)
        .map(|p| p.to_string_lossy().replace('\\', "/"))
        .unwrap_or_default()
}

/// Whether folder `inner` is `outer` or inside it (both relative, `""` the root).
fn is_within(inner: &str, outer: &str) -> bool {
    outer.is_empty() || inner == outer || inner.starts_with(&format!("{outer}/"))
}

/// A suite's name: the tool's, and its folder's when there are several.
fn suite_name(tool: &str, dir: &str, several: bool) -> String {
    if several && !dir.is_empty() {
        format!("{tool}-{}", dir.replace('/', "-"))
    } else {
        tool.to_owned()
    }
}

/// A TOML basic string.
fn quoted(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The commented `tapline.toml` for `findings`.
pub fn render(f: &Findings) -> String {
    let mut out = String::from(
        "# tapline.toml, written by `tapline init`: what a plain `tapline run` runs here.\n\
         # Every key is optional; `tapline run --list` shows the files a run takes.\n\n",
    );
    render_run(&mut out, f);
    for (_, note) in &f.notes {
        out.push('\n');
        out.push_str(note);
    }
    for (id, dirs) in &f.suites {
        let Some(h) = registry::harness(id) else {
            continue;
        };
        // Named by folder when the harness has several projects here, suites or not.
        let others = f.notes.iter().filter(|(n, _)| n == id).count();
        let several = dirs.len() + others > 1;
        for dir in dirs {
            out.push_str(&h.init_suite(
                if dir.is_empty() { "the root" } else { dir },
                &quoted(&suite_name(h.init_name(), dir, several)),
                &quoted(if dir.is_empty() { "." } else { dir }),
            ));
        }
    }
    render_script(&mut out, f);
    out
}

/// The `[run]` table: where a plain run looks, as comments (the defaults already do it).
fn render_run(out: &mut String, f: &Findings) {
    out.push_str("[run]\n");
    let owner = f.owner.and_then(registry::harness);
    // The folders a plain run walks (a project's owner's only, in one it owns).
    let walked: Vec<&String> = f
        .test_dirs
        .iter()
        .filter(|d| owner.is_none_or(|o| o.owned_dirs().contains(&d.as_str())))
        .collect();
    let shown =
        |dirs: &[&String]| -> Vec<String> { dirs.iter().map(|d| format!("{d}/")).collect() };
    let owned_note = owner.and_then(|o| o.init_owned_note());
    if let (Some((h, script)), true) = (script_of(f), f.script_followed) {
        out.push_str(&h.init_script_text(&quoted(script), &[], true));
    } else if let Some(note) = owned_note {
        out.push_str(note);
    } else if walked.is_empty() {
        out.push_str("# No test/, tests/ or t/ here: name the folders that hold test files.\n");
    } else {
        let _ = writeln!(
            out,
            "# A plain run walks {} (test/, tests/ and t/, whichever exist).",
            shown(&walked).join(", ")
        );
    }
    let dirs: Vec<String> = if walked.is_empty() {
        vec![quoted("test")]
    } else {
        walked.iter().map(|d| quoted(d)).collect()
    };
    let _ = writeln!(
        out,
        "# test_dirs = [{}]\n# jobs = 4\n# timeout = \"120s\"",
        dirs.join(", ")
    );
}

/// The project's declared test script and the harness whose ecosystem declares it.
fn script_of(f: &Findings) -> Option<(&'static dyn Harness, &str)> {
    let (id, script) = f.script.as_ref()?;
    Some((registry::harness(id)?, script.as_str()))
}

/// A note, or a suite, for a test script a plain run does not follow.
fn render_script(out: &mut String, f: &Findings) {
    let Some((h, script)) = script_of(f).filter(|_| !f.script_followed) else {
        return;
    };
    let words: Vec<&str> = script.split_whitespace().collect();
    out.push_str(&h.init_script_text(&quoted(script), &words, false));
}

// What `init` finds and writes, per harness: tests/integration/issue39_init_finds.rs and
// issue39_init.rs, on real project layouts.
