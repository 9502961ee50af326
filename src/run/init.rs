//! `tapline init`: reads a repository (go modules, pytest's configuration, `package.json`'s
//! test script, the test folders a plain run walks) and writes the `tapline.toml` a plain
//! `tapline run` needs there: a `[[suite]]` for each test command that is not a file, and
//! comments saying what a plain run already does by itself.
use super::discover;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

/// How deep below the root `go.mod` and pytest's configuration are looked for.
const MAX_DEPTH: usize = 3;

/// Folders never looked into.
const SKIPPED: &[&str] = &[
    "node_modules",
    "vendor",
    "target",
    "dist",
    "build",
    "testdata",
];

/// What `init` found in a repository.
#[derive(Debug, Default, PartialEq)]
pub struct Findings {
    /// Folders holding a `go.mod`, relative to the root (`""` for the root itself).
    pub go_modules: Vec<String>,
    /// Folders holding pytest's configuration (or a `conftest.py`), relative to the root.
    pub pytest: Vec<String>,
    /// `package.json`'s test script at the root, if any.
    pub npm_test: Option<String>,
    /// Whether a plain run follows that script by itself.
    pub npm_test_followed: bool,
    /// The root holds a Perl distribution.
    pub perl_dist: bool,
    /// Which of `test/`, `tests/`, `t/` exist.
    pub test_dirs: Vec<String>,
}

/// Looks at the repository at `root`.
pub fn look(root: &Path) -> Findings {
    let mut findings = Findings::default();
    let mut dirs = vec![(root.to_path_buf(), 0)];
    while let Some((dir, depth)) = dirs.pop() {
        let rel = rel_dir(root, &dir);
        if dir.join("go.mod").is_file() {
            findings.go_modules.push(rel.clone());
        }
        if pytest_configured(&dir) && !findings.pytest.iter().any(|p| is_within(&rel, p)) {
            findings.pytest.push(rel);
        }
        if depth < MAX_DEPTH {
            dirs.extend(subfolders(&dir).into_iter().map(|d| (d, depth + 1)));
        }
    }
    findings.go_modules.sort();
    findings.pytest.sort();
    // A pytest folder inside another is the outer one's tests.
    let outer = findings.pytest.clone();
    findings
        .pytest
        .retain(|p| !outer.iter().any(|o| o != p && is_within(p, o)));
    findings.npm_test = npm_test(root);
    findings.npm_test_followed = discover::declared_by_project(root).is_some();
    findings.perl_dist = discover::is_perl_dist(root);
    findings.test_dirs = ["test", "tests", "t"]
        .into_iter()
        .filter(|d| root.join(d).is_dir())
        .map(str::to_owned)
        .collect();
    // A plain run runs the root's pytest tests, and those in the folders it walks, under
    // pytest itself (docs/discovery.md#pytest): only a folder it does not walk needs a suite.
    let walked = findings.test_dirs.clone();
    findings
        .pytest
        .retain(|p| !p.is_empty() && !walked.iter().any(|d| is_within(p, d)));
    findings
}

use crate::harness::python::pytest_configured;

fn npm_test(root: &Path) -> Option<String> {
    let text = fs::read_to_string(root.join("package.json")).ok()?;
    let json: serde_json::Value = serde_json::from_str(&text).ok()?;
    Some(json.get("scripts")?.get("test")?.as_str()?.to_owned())
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
            !name.starts_with('.') && !SKIPPED.contains(&name.as_ref())
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
    let several = f.go_modules.len() > 1;
    for dir in &f.go_modules {
        let _ = write!(
            out,
            "\n# The go module in {where_}: `go test -json` is read test by test.\n\
             [[suite]]\nname = {name}\ndir = {dir}\n\
             command = [\"go\", \"test\", \"-json\", \"./...\"]\nformat = \"go-json\"\n\
             optional = true                 # no `go` installed: skipped, saying so\n",
            where_ = if dir.is_empty() { "the root" } else { dir },
            name = quoted(&suite_name("go", dir, several)),
            dir = quoted(if dir.is_empty() { "." } else { dir }),
        );
    }
    let several = f.pytest.len() > 1;
    for dir in &f.pytest {
        let _ = write!(
            out,
            "\n# pytest's tests in {where_} (pytest configuration found): run by pytest, read from\n\
             # its JUnit report. Python files run one by one print no TAP.\n\
             [[suite]]\nname = {name}\ndir = {dir}\n\
             command = [\"python3\", \"-m\", \"pytest\", \"--junitxml=.nogit/pytest.xml\"]\n\
             format = \"junit\"\nreport = \".nogit/pytest.xml\"      # relative to dir\n",
            where_ = if dir.is_empty() { "the root" } else { dir },
            name = quoted(&suite_name("pytest", dir, several)),
            dir = quoted(if dir.is_empty() { "." } else { dir }),
        );
    }
    render_npm(&mut out, f);
    out
}

/// The `[run]` table: where a plain run looks, as comments (the defaults already do it).
fn render_run(out: &mut String, f: &Findings) {
    out.push_str("[run]\n");
    // The folders a plain run walks.
    let walked: Vec<&String> = f
        .test_dirs
        .iter()
        .filter(|d| !f.perl_dist || *d == "t")
        .collect();
    let shown =
        |dirs: &[&String]| -> Vec<String> { dirs.iter().map(|d| format!("{d}/")).collect() };
    if let (Some(script), true) = (&f.npm_test, f.npm_test_followed) {
        let _ = writeln!(
            out,
            "# A plain run follows package.json's test script ({}).",
            quoted(script)
        );
    } else if f.perl_dist {
        out.push_str(
            "# A Perl distribution: a plain run walks t/ for *.t with lib/ on @INC, one file at a time, as prove -l.\n",
        );
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

/// A note, or a suite, for a test script a plain run does not follow.
fn render_npm(out: &mut String, f: &Findings) {
    let Some(script) = f.npm_test.as_deref().filter(|_| !f.npm_test_followed) else {
        return;
    };
    let words: Vec<&str> = script.split_whitespace().collect();
    let uses = |tool: &str| words.iter().any(|w| w.rsplit('/').next() == Some(tool));
    let _ = writeln!(out, "\n# package.json's test script: {}", quoted(script));
    if uses("mocha") {
        out.push_str(
            "[[suite]]\nname = \"mocha\"\ncommand = [\"npx\", \"mocha\", \"--reporter\", \"tap\"]\n",
        );
    } else if uses("vitest") {
        out.push_str(
            "[[suite]]\nname = \"vitest\"\ncommand = [\"npx\", \"vitest\", \"run\", \"--reporter=tap\"]\n",
        );
    } else if uses("jest") {
        out.push_str(
            "# jest prints no TAP; with the jest-junit package installed, its JUnit report can be read:\n\
             # [[suite]]\n# name = \"jest\"\n\
             # command = [\"npx\", \"jest\", \"--ci\", \"--reporters=default\", \"--reporters=jest-junit\"]\n\
             # format = \"junit\"\n# report = \"junit.xml\"\n",
        );
    } else {
        out.push_str(
            "# tapline does not know how it runs tests; if it prints TAP, run it as a suite:\n\
             # [[suite]]\n# name = \"npm\"\n# command = [\"npm\", \"test\", \"--silent\"]\n",
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tempfile::TempDir;

    fn repo(files: &[(&str, &str)]) -> TempDir {
        let dir = TempDir::new().expect("temp dir");
        for (name, text) in files {
            let path = dir.path().join(name);
            fs::create_dir_all(path.parent().expect("inside")).expect("mkdir");
            fs::write(path, text).expect("write");
        }
        dir
    }

    #[test]
    fn finds_go_modules_and_pytest() {
        let dir = repo(&[
            ("go.mod", "module x\n"),
            ("tools/go.mod", "module y\n"),
            ("node_modules/z/go.mod", "module z\n"),
            ("py/pyproject.toml", "[tool.pytest.ini_options]\n"),
            ("py/sub/conftest.py", ""),
            ("other/pyproject.toml", "[project]\nname = \"x\"\n"),
            ("t/a.t", ""),
        ]);
        let f = look(dir.path());
        assert_eq!(f.go_modules, ["", "tools"]);
        assert_eq!(
            f.pytest,
            ["py"],
            "py/sub is py's; other/ has no pytest table"
        );
        assert_eq!(f.test_dirs, ["t"]);
        let text = render(&f);
        assert!(text.contains("name = \"go\"\ndir = \".\""), "{text}");
        assert!(
            text.contains("name = \"go-tools\"\ndir = \"tools\""),
            "{text}"
        );
        assert!(text.contains("name = \"pytest\"\ndir = \"py\""), "{text}");
    }

    #[test]
    fn what_it_writes_loads() {
        let dir = repo(&[
            ("go.mod", "module x\n"),
            ("pytest.ini", "[pytest]\n"),
            ("package.json", r#"{"scripts": {"test": "mocha \"a b\""}}"#),
        ]);
        let text = render(&look(dir.path()));
        fs::write(dir.path().join("tapline.toml"), &text).expect("write");
        let cfg = super::super::config::load(dir.path()).unwrap_or_else(|e| panic!("{e}\n{text}"));
        let names: Vec<&str> = cfg.suites.iter().map(|s| s.name.as_str()).collect();
        // The root's pytest tests run under pytest in a plain run: no suite for them.
        assert_eq!(names, ["go", "mocha"], "{text}");
        assert!(text.contains("\"mocha \\\"a b\\\"\""), "{text}");
    }

    /// Issue 25: pytest's tests in the folders a plain run walks run under pytest there; a
    /// suite is written only for a pytest folder it does not walk.
    #[test]
    fn a_walked_pytest_folder_needs_no_suite() {
        let dir = repo(&[
            ("pyproject.toml", "[tool.pytest.ini_options]\n"),
            ("tests/test_a.py", "def test_a():\n    pass\n"),
            ("tests/sub/conftest.py", ""),
            ("t/a.t", ""),
        ]);
        let f = look(dir.path());
        assert!(f.pytest.is_empty(), "{:?}", f.pytest);
        let text = render(&f);
        assert!(!text.contains("[[suite]]"), "{text}");
        assert!(text.contains("# A plain run walks tests/, t/"), "{text}");
    }

    #[test]
    fn a_followed_script_needs_no_suite() {
        let dir = repo(&[("package.json", r#"{"scripts": {"test": "tape test/*.js"}}"#)]);
        let f = look(dir.path());
        assert!(f.npm_test_followed);
        let text = render(&f);
        assert!(
            text.contains("follows package.json's test script"),
            "{text}"
        );
        assert!(!text.contains("[[suite]]"), "{text}");
    }
}
