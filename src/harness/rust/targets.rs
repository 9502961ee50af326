//! The test binaries a bare `cargo test` runs in a crate or workspace, read from `cargo
//! metadata --no-deps` (no build, no network): each package cargo selects from here (the
//! package in this folder, or at a workspace's root its default members), each of its targets
//! cargo tests (a lib's unit tests, bins, `tests/*.rs`, examples and benches whose `test` is
//! on, the doc tests of a lib), each a `[[suite]]` of its own run as `cargo test
//! --lib|--bin N|--test N|--example N|--bench N|--doc` from the package's folder (through
//! `cargo nextest run` where the project uses nextest, but for the doc tests).
use crate::harness::follow::Implied;
use crate::protocol::InputFormat;
use serde::Deserialize;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

#[derive(Debug, Deserialize)]
struct Metadata {
    packages: Vec<Package>,
    #[serde(default)]
    workspace_members: Vec<String>,
    /// cargo 1.71+; older cargo: every member (a virtual manifest's default).
    #[serde(default)]
    workspace_default_members: Option<Vec<String>>,
    workspace_root: PathBuf,
}

#[derive(Debug, Deserialize)]
struct Package {
    name: String,
    id: String,
    manifest_path: PathBuf,
    targets: Vec<Target>,
    #[serde(default)]
    features: std::collections::BTreeMap<String, Vec<String>>,
}

#[derive(Debug, Deserialize)]
struct Target {
    kind: Vec<String>,
    name: String,
    src_path: PathBuf,
    #[serde(default = "yes")]
    test: bool,
    #[serde(default = "yes")]
    doctest: bool,
    #[serde(default, rename = "required-features")]
    required_features: Vec<String>,
}

fn yes() -> bool {
    true
}

/// The suites of the crate or workspace in `cwd`: one per test binary, or one whole `cargo
/// test` when cargo cannot say (not installed, a manifest it refuses): that run then fails
/// saying why, as `cargo test` would.
pub(super) fn implied(cwd: &Path) -> Vec<Implied> {
    match metadata(cwd) {
        Some(m) => binaries(&m, cwd),
        None => vec![Implied {
            name: "cargo test".to_owned(),
            folder: String::new(),
            run_in: String::new(),
            command: ["cargo", "test"].map(str::to_owned).to_vec(),
            format: InputFormat::Libtest,
        }],
    }
}

fn metadata(cwd: &Path) -> Option<Metadata> {
    let out = crate::util::quiet::stdout_of(
        Command::new("cargo")
            .args(["metadata", "--no-deps", "--format-version", "1"])
            .current_dir(cwd),
    )?;
    serde_json::from_slice(&out).ok()
}

/// The packages a bare `cargo test` in `cwd` tests: at the workspace's root its default
/// members (the root package alone when it has one and no `default-members`, every member of
/// a virtual manifest), elsewhere the package whose manifest is here.
fn selected<'m>(m: &'m Metadata, cwd: &Path) -> Vec<&'m Package> {
    let here = canonical(cwd);
    let at_root = canonical(&m.workspace_root) == here;
    let own = m
        .packages
        .iter()
        .find(|p| p.manifest_path.parent().map(canonical).as_ref() == Some(&here));
    let ids: BTreeSet<&str> = match (at_root, own) {
        (false, Some(p)) => [p.id.as_str()].into(),
        _ => m
            .workspace_default_members
            .as_ref()
            .unwrap_or(&m.workspace_members)
            .iter()
            .map(String::as_str)
            .collect(),
    };
    let mut out: Vec<&Package> = (m.packages.iter())
        .filter(|p| ids.contains(p.id.as_str()))
        .collect();
    out.sort_by(|a, b| a.manifest_path.cmp(&b.manifest_path));
    out
}

/// Each selected package's test binaries, named by their source from `cwd`.
fn binaries(m: &Metadata, cwd: &Path) -> Vec<Implied> {
    binaries_with(m, cwd, uses_nextest(&m.workspace_root, cwd))
}

/// [`binaries`], through nextest (`nextest`) or `cargo test`.
fn binaries_with(m: &Metadata, cwd: &Path, nextest: bool) -> Vec<Implied> {
    let here = canonical(cwd);
    let mut out: Vec<Implied> = Vec::new();
    for p in selected(m, cwd) {
        let dir = p.manifest_path.parent().unwrap_or(Path::new(""));
        let run_in = rel(&here, dir);
        let pick = package_word(m, p, dir);
        let runner = if nextest {
            &NEXTEST[..]
        } else {
            &CARGO_TEST[..]
        };
        let defaults: BTreeSet<&str> = (p.features.get("default").into_iter().flatten())
            .map(String::as_str)
            .collect();
        let mut doc = Vec::new();
        for kind in ["lib", "bin", "test", "example", "bench"] {
            for t in p.targets.iter().filter(|t| kind_of(t) == Some(kind)) {
                // cargo leaves out a target whose required features a plain run does not enable.
                if !(t.required_features.iter()).all(|f| defaults.contains(f.as_str())) {
                    continue;
                }
                let src = rel(&here, &t.src_path);
                if t.test {
                    let flag: Vec<String> = match kind {
                        "lib" => vec!["--lib".to_owned()],
                        k => vec![format!("--{k}"), t.name.clone()],
                    };
                    push(
                        &mut out,
                        (runner, p, &pick),
                        &run_in,
                        &src,
                        src.clone(),
                        flag,
                    );
                }
                if kind == "lib" && t.doctest && documented(t) {
                    doc.push((src.clone(), format!("{src} (doc tests)")));
                }
            }
        }
        // cargo runs the doc tests last.
        // nextest runs no doc tests: cargo test does, as a nextest project's CI does.
        for (src, name) in doc {
            let flag = vec!["--doc".to_owned()];
            push(&mut out, (&CARGO_TEST, p, &pick), &run_in, &src, name, flag);
        }
    }
    out
}

/// Adds one binary's suite; a name taken already gets its package's name. `pick`: the words
/// that select its package ([`package_word`]).
fn push(
    out: &mut Vec<Implied>,
    (runner, p, pick): (&[&str], &Package, &[String]),
    run_in: &str,
    src: &str,
    name: String,
    flag: Vec<String>,
) {
    let name = if out.iter().any(|i| i.name == name) {
        format!("{name} ({} {})", p.name, flag.join(" "))
    } else {
        name
    };
    let mut command: Vec<String> = runner.iter().map(|w| (*w).to_owned()).collect();
    command.extend(pick.iter().cloned());
    command.extend(flag);
    out.push(Implied {
        name,
        folder: src.to_owned(),
        run_in: run_in.to_owned(),
        command,
        format: InputFormat::Libtest,
    });
}

/// A binary's command before its package and target words.
const CARGO_TEST: [&str; 2] = ["cargo", "test"];

/// The same through nextest: its libtest JSON (which it gives on stable only with the
/// variable set), none of its own reporting on stderr, every test run.
pub(super) const NEXTEST: [&str; 14] = [
    "env",
    "NEXTEST_EXPERIMENTAL_LIBTEST_JSON=1",
    "cargo",
    "nextest",
    "run",
    "--no-fail-fast",
    "--message-format",
    "libtest-json",
    "--status-level",
    "none",
    "--final-status-level",
    "none",
    "--failure-output",
    "never",
];

/// Whether the project runs its tests through nextest: its configuration
/// (`.config/nextest.toml` at the workspace's root) and `cargo-nextest` installed.
fn uses_nextest(workspace_root: &Path, cwd: &Path) -> bool {
    workspace_root.join(".config/nextest.toml").is_file()
        && crate::util::which::find(std::ffi::OsStr::new("cargo-nextest"), cwd).is_some()
}

/// How `cargo test`, run in the package's folder `dir`, selects package `p`: by nothing, as
/// cargo takes the package whose folder it runs in; by `-p ID` (its package ID spec) where
/// that folder is a workspace's root whose `default-members` say otherwise. Never `-p NAME`: a
/// dependency may bear the crate's own name (itoa's dev-dependencies pull in itoa), and cargo
/// then refuses the name as ambiguous.
fn package_word(m: &Metadata, p: &Package, dir: &Path) -> Vec<String> {
    let at_root = canonical(dir) == canonical(&m.workspace_root);
    let others =
        (m.workspace_default_members.as_ref()).is_some_and(|d| d != std::slice::from_ref(&p.id));
    if at_root && others {
        vec!["-p".to_owned(), p.id.clone()]
    } else {
        Vec::new()
    }
}

/// Which of cargo's test flags a target is built under (`None`: no test binary: a build
/// script).
fn kind_of(t: &Target) -> Option<&'static str> {
    let lib = ["lib", "rlib", "dylib", "cdylib", "staticlib", "proc-macro"];
    let k = t.kind.first()?.as_str();
    Some(match k {
        "bin" => "bin",
        "test" => "test",
        "example" => "example",
        "bench" => "bench",
        _ if t.kind.iter().any(|k| lib.contains(&k.as_str())) => "lib",
        _ => return None,
    })
}

/// Whether rustdoc can test a lib target: a Rust library (not a C one alone).
fn documented(t: &Target) -> bool {
    (t.kind.iter()).any(|k| matches!(k.as_str(), "lib" | "rlib" | "dylib" | "proc-macro"))
}

fn canonical(p: &Path) -> PathBuf {
    p.canonicalize().unwrap_or_else(|_| p.to_path_buf())
}

/// `path` from `here`, `/`-separated (`""`: `here` itself); absolute when outside it.
fn rel(here: &Path, path: &Path) -> String {
    let path = canonical(path);
    let inside = path.strip_prefix(here).unwrap_or(&path);
    let parts: Vec<String> = (inside.components())
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if inside.is_absolute() {
        inside.to_string_lossy().into_owned()
    } else {
        parts.join("/")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `cargo metadata` of a workspace: a root package, a member, an example to be tested,
    /// a build script, a bin needing a feature off by default.
    fn workspace(default_members: Option<&[&str]>) -> Metadata {
        let target = |kind: &str, name: &str, src: &str, test: bool| Target {
            kind: vec![kind.to_owned()],
            name: name.to_owned(),
            src_path: PathBuf::from(src),
            test,
            doctest: kind == "lib",
            required_features: Vec::new(),
        };
        let mut gated = target("bin", "gated", "/w/src/bin/gated.rs", true);
        gated.required_features = vec!["extra".to_owned()];
        Metadata {
            packages: vec![
                Package {
                    name: "root".to_owned(),
                    id: "root-id".to_owned(),
                    manifest_path: PathBuf::from("/w/Cargo.toml"),
                    targets: vec![
                        target("lib", "root", "/w/src/lib.rs", true),
                        target("bin", "root", "/w/src/main.rs", true),
                        gated,
                        target("test", "api", "/w/tests/api.rs", true),
                        target("example", "demo", "/w/examples/demo.rs", false),
                        target("example", "checked", "/w/examples/checked.rs", true),
                        target("custom-build", "build-script-build", "/w/build.rs", false),
                    ],
                    features: Default::default(),
                },
                Package {
                    name: "member".to_owned(),
                    id: "member-id".to_owned(),
                    manifest_path: PathBuf::from("/w/crates/member/Cargo.toml"),
                    targets: vec![target("lib", "member", "/w/crates/member/src/lib.rs", true)],
                    features: Default::default(),
                },
            ],
            workspace_members: vec!["root-id".to_owned(), "member-id".to_owned()],
            workspace_default_members: default_members
                .map(|d| d.iter().map(|s| s.to_string()).collect()),
            workspace_root: PathBuf::from("/w"),
        }
    }

    fn said(suites: Vec<Implied>) -> Vec<(String, String, String)> {
        suites
            .into_iter()
            .map(|i| (i.name, i.run_in, i.command[2..].join(" ")))
            .collect()
    }

    fn s(a: &str, b: &str, c: &str) -> (String, String, String) {
        (a.to_owned(), b.to_owned(), c.to_owned())
    }

    #[test]
    fn a_bare_run_tests_each_binary_cargo_test_would() {
        let m = workspace(Some(&["root-id"]));
        assert_eq!(
            said(binaries(&m, Path::new("/w"))),
            [
                s("src/lib.rs", "", "--lib"),
                s("src/main.rs", "", "--bin root"),
                s("tests/api.rs", "", "--test api"),
                s("examples/checked.rs", "", "--example checked"),
                s("src/lib.rs (doc tests)", "", "--doc"),
            ]
        );
        // default-members naming more than the root package: cargo at the root would test
        // them all, so each names its package by its ID.
        let m = workspace(Some(&["root-id", "member-id"]));
        let suites = binaries(&m, Path::new("/w"));
        assert_eq!(
            suites[0].command,
            ["cargo", "test", "-p", "root-id", "--lib"]
        );
        let member = suites.iter().find(|i| i.name == "crates/member/src/lib.rs");
        assert_eq!(
            member.map(|i| (i.run_in.as_str(), i.command.join(" "))),
            Some(("crates/member", "cargo test --lib".to_owned()))
        );
        // A virtual manifest's default: every member.
        let m = workspace(None);
        let names: Vec<String> = binaries(&m, Path::new("/w"))
            .into_iter()
            .map(|i| i.name)
            .collect();
        assert!(
            names.contains(&"crates/member/src/lib.rs".to_owned()),
            "{names:?}"
        );
        assert!(names.contains(&"crates/member/src/lib.rs (doc tests)".to_owned()));
        // Through nextest: every binary but the doc tests, which nextest does not run.
        let next = binaries_with(&m, Path::new("/w/crates/member"), true);
        assert_eq!(next[0].command[..5], NEXTEST[..5]);
        assert_eq!(next[0].command.last().map(String::as_str), Some("--lib"));
        assert_eq!(next[1].command, ["cargo", "test", "--doc"]);
        // In a member's folder: that member alone, from its folder.
        assert_eq!(
            said(binaries(&m, Path::new("/w/crates/member"))),
            [
                s("src/lib.rs", "", "--lib"),
                s("src/lib.rs (doc tests)", "", "--doc"),
            ]
        );
    }
}
