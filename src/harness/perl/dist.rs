//! What a run takes from the Perl harness it mirrors beyond which files run: a Perl
//! distribution (the file that makes one, its include folders on `@INC` as `prove -l`,
//! `make test` and yath put them, and its harness running files one at a time), the variables
//! prove sets for a Perl test file (`HARNESS_ACTIVE`, `HARNESS_VERSION`), and the `-I`
//! switches a taint-mode perl needs instead of `PERL5LIB`.
use super::{is_perl, perl_taint};
use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The files that make a folder a Perl distribution.
const PERL_DIST: &[&str] = &["Makefile.PL", "Build.PL", "dist.ini"];

/// The file that makes `dir` a Perl distribution (its harness follows from it).
pub(crate) fn dist_marker(dir: &Path) -> Option<&'static str> {
    PERL_DIST.iter().copied().find(|f| dir.join(f).is_file())
}

/// The folders a Perl distribution's tests see on `@INC`, in order, those that exist: the
/// checkout's `lib/` (`prove -l`), the built `blib/lib` and `blib/arch` (`make test`, `prove
/// -b`: XS modules live there once built), and `t/lib`, the helpers' usual home.
const PERL_DIST_LIBS: &[&str] = &["lib", "blib/lib", "blib/arch", "t/lib"];

/// The include folders of the Perl distribution in `dir` (absolute), none when it is not one.
pub(crate) fn dist_libs(dir: &Path) -> Vec<PathBuf> {
    if dist_marker(dir).is_none() {
        return Vec::new();
    }
    PERL_DIST_LIBS
        .iter()
        .map(|lib| dir.join(lib))
        .filter(|lib| lib.is_dir())
        .collect()
}

/// Why a Perl distribution's files run one at a time: its harness (by the file that makes
/// it one) runs one file after another.
pub(crate) fn one_at_a_time(cwd: &Path) -> Option<String> {
    let harness = match dist_marker(cwd)? {
        "Build.PL" => "`./Build test`",
        "dist.ini" => "`dzil test`",
        _ => "`make test`",
    };
    Some(format!(
        "a Perl distribution's {harness} runs files one at a time"
    ))
}

/// `--list`'s note on a Perl distribution's include folders.
pub(crate) fn notes(cwd: &Path) -> Vec<String> {
    let libs: Vec<String> = dist_libs(cwd)
        .iter()
        .map(|lib| crate::util::paths::relative(lib, cwd))
        .collect();
    if libs.is_empty() {
        return Vec::new();
    }
    vec![format!(
        "a Perl distribution: {} on @INC (PERL5LIB), as prove -l and make test; -I DIR and [run] lib come first",
        libs.join(", ")
    )]
}

/// The variables prove (TAP::Harness) sets for every file it runs, which a file run under
/// perl's rules gets too: `HARNESS_ACTIVE=1`, and `HARNESS_VERSION`, TAP::Harness's version
/// where perl has it. Test2 leaves out its `# Seeded srand` note under a harness, and shell
/// test libraries (sharness, git's test-lib) write their result files only without one.
/// A file is perl's when its command's program is perl (`*.t`, `*.pl`, a perl `[[runner]]`)
/// or its name is `*.t` (what prove runs, whatever runs it). `--env` and `[run] env` win.
pub(crate) fn prove_env(command: &[OsString], rel: &str) -> Vec<(OsString, OsString)> {
    let program = command
        .first()
        .and_then(|p| Path::new(p).file_name())
        .map(OsStr::to_string_lossy)
        .unwrap_or_default();
    if !(is_perl(&program) || rel.ends_with(".t")) {
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
            let out = crate::util::quiet::stdout_of(std::process::Command::new("perl").args([
                "-MTAP::Harness",
                "-e",
                "print $TAP::Harness::VERSION",
            ]))?;
            let version = String::from_utf8(out).ok()?;
            let version = version.trim();
            let plausible = !version.is_empty()
                && version
                    .chars()
                    .all(|c| c.is_ascii_digit() || c == '.' || c == '_');
            plausible.then(|| version.to_owned())
        })
        .as_deref()
}

/// `argv` as it must be to see the include folders: a perl in taint mode gets `PERL5LIB`'s
/// folders as `-I` switches and `PERL5OPT`'s words, which it would otherwise ignore (as
/// Test::Harness does). `get` reads a variable as the child sees it.
pub(crate) fn adapt(
    mut argv: Vec<OsString>,
    get: &dyn Fn(&str) -> Option<OsString>,
) -> Vec<OsString> {
    let Some(program) = argv.first() else {
        return argv;
    };
    let name = Path::new(program)
        .file_name()
        .map(OsStr::to_string_lossy)
        .unwrap_or_default();
    let switches: Vec<String> = argv[1..]
        .iter()
        .map(|w| w.to_string_lossy().into_owned())
        .take_while(|w| w.starts_with('-') && w != "--" && w != "-")
        .collect();
    if !is_perl(&name) || !perl_taint(&switches) {
        return argv;
    }
    let mut extra: Vec<OsString> = Vec::new();
    if let Some(lib) = get("PERL5LIB") {
        for dir in std::env::split_paths(&lib).filter(|d| !d.as_os_str().is_empty()) {
            let mut switch = OsString::from("-I");
            switch.push(dir);
            extra.push(switch);
        }
    }
    if let Some(opt) = get("PERL5OPT") {
        extra.extend(opt.to_string_lossy().split_whitespace().map(OsString::from));
    }
    argv.splice(1..1, extra);
    argv
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn taint_perl_gets_the_libs_as_switches() {
        let argv = |words: &[&str]| -> Vec<OsString> { words.iter().map(OsString::from).collect() };
        let get = |key: &str| match key {
            "PERL5OPT" => Some(OsString::from("-MCarp -w")),
            _ => Some(OsString::from("/p/lib:/inh")),
        };
        assert_eq!(
            adapt(argv(&["perl", "-T", "t/a.t"]), &get),
            argv(&["perl", "-I/p/lib", "-I/inh", "-MCarp", "-w", "-T", "t/a.t"])
        );
        let libs_only = |key: &str| (key == "PERL5LIB").then(|| OsString::from("/p/lib:/inh"));
        assert_eq!(
            adapt(argv(&["/usr/bin/perl", "-wt", "t/a.t"]), &libs_only),
            argv(&["/usr/bin/perl", "-I/p/lib", "-I/inh", "-wt", "t/a.t"])
        );
        for unchanged in [
            &["perl", "t/a.t"][..],
            &["perl", "-w", "t/a.t", "-T"],
            &["python3", "-T", "x.py"],
            &[],
        ] {
            assert_eq!(adapt(argv(unchanged), &get), argv(unchanged));
        }
        assert_eq!(
            adapt(argv(&["perl", "-T", "a.t"]), &|_| None),
            argv(&["perl", "-T", "a.t"])
        );
    }

    #[test]
    fn a_distributions_include_folders() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path();
        for d in ["lib", "blib/arch", "t/lib"] {
            std::fs::create_dir_all(root.join(d)).expect("mkdir");
        }
        assert!(dist_libs(root).is_empty(), "not a distribution");
        assert_eq!(one_at_a_time(root), None);
        std::fs::write(root.join("Makefile.PL"), "").expect("write");
        assert_eq!(
            dist_libs(root),
            [root.join("lib"), root.join("blib/arch"), root.join("t/lib")]
        );
        assert_eq!(
            notes(root),
            [
                "a Perl distribution: lib, blib/arch, t/lib on @INC (PERL5LIB), as prove -l and make test; -I DIR and [run] lib come first",
            ]
        );
        assert_eq!(
            one_at_a_time(root).as_deref(),
            Some("a Perl distribution's `make test` runs files one at a time")
        );
    }
}
