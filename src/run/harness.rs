//! What a run takes from the harness it mirrors beyond which files run: a Perl distribution's
//! include folders (`lib/` on `@INC`, as `prove -l`, `make test` and yath put it) and whether
//! files run one at a time (bats, prove and a distribution's `make test` do; node's runner,
//! tap and tstest run them in parallel), and the variables prove sets for a Perl test file
//! (`HARNESS_ACTIVE`, `HARNESS_VERSION`).
use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use super::discover::TestFile;

/// The folders a Perl distribution's tests see on `@INC`, in order, those that exist: the
/// checkout's `lib/` (`prove -l`), the built `blib/lib` and `blib/arch` (`make test`, `prove
/// -b`: XS modules live there once built), and `t/lib`, the helpers' usual home.
const PERL_DIST_LIBS: &[&str] = &["lib", "blib/lib", "blib/arch", "t/lib"];

/// The include folders of the Perl distribution in `dir` (absolute), none when it is not one.
pub fn perl_dist_libs(dir: &Path) -> Vec<PathBuf> {
    if super::discover::perl_dist_marker(dir).is_none() {
        return Vec::new();
    }
    PERL_DIST_LIBS
        .iter()
        .map(|lib| dir.join(lib))
        .filter(|lib| lib.is_dir())
        .collect()
}

/// Why the files run one at a time (then `-j1` unless `-j`/`[run] jobs` say otherwise): the
/// project's test command does (`declared`: `Some` when a run followed one, holding its
/// reason), else a Perl distribution (`dist`: the file that makes it one) whose harness runs
/// one file after another, else every file is a bats file. `None`: as many as the cores.
pub fn one_at_a_time(
    declared: Option<Option<&'static str>>,
    dist: Option<&'static str>,
    files: &[TestFile],
) -> Option<String> {
    if let Some(reason) = declared {
        return reason.map(str::to_owned);
    }
    if let Some(marker) = dist {
        let harness = match marker {
            "Build.PL" => "`./Build test`",
            "dist.ini" => "`dzil test`",
            _ => "`make test`",
        };
        return Some(format!(
            "a Perl distribution's {harness} runs files one at a time"
        ));
    }
    let bats = |f: &TestFile| {
        f.command.as_ref().is_ok_and(|argv| {
            argv.first()
                .and_then(|p| Path::new(p).file_name())
                .is_some_and(|name| name == OsStr::new("bats"))
        })
    };
    (!files.is_empty() && files.iter().all(bats))
        .then(|| "bats runs files one at a time".to_owned())
}

/// The variables prove (TAP::Harness) sets for every file it runs, which a file run under
/// perl's rules gets too: `HARNESS_ACTIVE=1`, and `HARNESS_VERSION`, TAP::Harness's version
/// where perl has it. Test2 leaves out its `# Seeded srand` note under a harness, and shell
/// test libraries (sharness, git's test-lib) write their result files only without one.
/// A file is perl's when its command's program is perl (`*.t`, `*.pl`, a perl `[[runner]]`)
/// or its name is `*.t` (what prove runs, whatever runs it). `--env` and `[run] env` win.
pub fn prove_env(command: &[OsString], rel: &str) -> Vec<(OsString, OsString)> {
    let program = command
        .first()
        .and_then(|p| Path::new(p).file_name())
        .map(OsStr::to_string_lossy)
        .unwrap_or_default();
    if !(crate::harness::perl::is_perl(&program) || rel.ends_with(".t")) {
        return Vec::new();
    }
    let mut vars = vec![("HARNESS_ACTIVE".into(), "1".into())];
    if let Some(version) = harness_version() {
        vars.push(("HARNESS_VERSION".into(), version.into()));
    }
    vars
}

/// TAP::Harness's version, as prove sets it (`make test`'s Test::Harness, of the same
/// distribution, sets the same): asked of perl once a run.
fn harness_version() -> Option<&'static str> {
    static VERSION: OnceLock<Option<String>> = OnceLock::new();
    VERSION
        .get_or_init(|| {
            let out = std::process::Command::new("perl")
                .args(["-MTAP::Harness", "-e", "print $TAP::Harness::VERSION"])
                .stdin(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .output()
                .ok()?;
            let version = String::from_utf8(out.stdout).ok()?;
            let version = version.trim();
            let plausible = !version.is_empty()
                && version
                    .chars()
                    .all(|c| c.is_ascii_digit() || c == '.' || c == '_');
            (out.status.success() && plausible).then(|| version.to_owned())
        })
        .as_deref()
}

/// `--list`'s notes on what the run takes from the harness it mirrors: a Perl
/// distribution's include folders, and why files run one at a time.
pub fn notes(cwd: &Path, one_at_a_time: Option<&str>) -> Vec<String> {
    let mut notes = Vec::new();
    let libs: Vec<String> = perl_dist_libs(cwd)
        .iter()
        .map(|lib| crate::util::paths::relative(lib, cwd))
        .collect();
    if !libs.is_empty() {
        notes.push(format!(
            "a Perl distribution: {} on @INC (PERL5LIB), as prove -l and make test; -I DIR and [run] lib come first",
            libs.join(", ")
        ));
    }
    if let Some(reason) = one_at_a_time {
        notes.push(format!("-j1: {reason}; -j N to change"));
    }
    notes
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::discover::Input;
    use std::ffi::OsString;

    fn file(program: &str) -> TestFile {
        TestFile {
            path: "t/a".into(),
            rel: "t/a".into(),
            command: Ok(vec![OsString::from(program), "t/a".into()]),
            input: Input::default(),
        }
    }

    #[test]
    fn serial_harnesses() {
        let bats = [file("/usr/bin/bats"), file("bats")];
        assert_eq!(
            one_at_a_time(None, None, &bats).as_deref(),
            Some("bats runs files one at a time")
        );
        assert_eq!(
            one_at_a_time(None, None, &[file("bats"), file("node")]),
            None,
            "a mixed walk keeps the cores"
        );
        assert_eq!(one_at_a_time(None, None, &[]), None);
        assert_eq!(
            one_at_a_time(None, Some("Makefile.PL"), &[file("perl")]).as_deref(),
            Some("a Perl distribution's `make test` runs files one at a time")
        );
        assert_eq!(
            one_at_a_time(Some(None), Some("dist.ini"), &bats),
            None,
            "a followed command that runs in parallel wins"
        );
        assert_eq!(
            one_at_a_time(Some(Some("prove runs files one at a time")), None, &[]).as_deref(),
            Some("prove runs files one at a time")
        );
    }

    #[test]
    fn perl_files_see_a_harness() {
        let argv = |words: &[&str]| -> Vec<OsString> { words.iter().map(OsString::from).collect() };
        let keys = |vars: Vec<(OsString, OsString)>| -> Vec<OsString> {
            vars.into_iter().map(|(k, _)| k).collect()
        };
        for (command, rel) in [
            (&["perl", "t/a.t"][..], "t/a.t"),
            (&["/usr/bin/perl", "-T", "x.pl"], "x.pl"),
            (&["bash", "t/s.t"], "t/s.t"),
        ] {
            let vars = prove_env(&argv(command), rel);
            assert_eq!(vars[0], ("HARNESS_ACTIVE".into(), "1".into()), "{rel}");
            assert!(vars.len() <= 2);
        }
        assert!(keys(prove_env(&argv(&["node", "a.test.js"]), "a.test.js")).is_empty());
        assert!(keys(prove_env(&argv(&["sh", "t/a.sh"]), "t/a.sh")).is_empty());
        assert!(keys(prove_env(&[], "x")).is_empty());
    }

    #[test]
    fn a_distributions_include_folders() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path();
        for d in ["lib", "blib/arch", "t/lib"] {
            std::fs::create_dir_all(root.join(d)).expect("mkdir");
        }
        assert!(perl_dist_libs(root).is_empty(), "not a distribution");
        std::fs::write(root.join("Makefile.PL"), "").expect("write");
        assert_eq!(
            perl_dist_libs(root),
            [root.join("lib"), root.join("blib/arch"), root.join("t/lib")]
        );
        assert_eq!(
            notes(root, Some("bats runs files one at a time")),
            [
                "a Perl distribution: lib, blib/arch, t/lib on @INC (PERL5LIB), as prove -l and make test; -I DIR and [run] lib come first",
                "-j1: bats runs files one at a time; -j N to change",
            ]
        );
    }
}
