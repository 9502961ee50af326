//! Perl's harness, prove: the files it runs (`*.t`; a `*.pl` beside them runs when named),
//! how a `#!` line shapes perl's command (the switches perl insists on seeing there too), and
//! how a silent file is judged (`No subtests run`).
use super::api::{insert_after_program, Builtin, Candidate, Cx, Id, Made, Silent};
use super::follow::{self, Follows};
use super::Harness;
use crate::harness::shebang::Shebang;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

#[cfg(test)]
pub(crate) mod discovery_cases;
pub(crate) mod dist;
// dsc2: a folder of `*.t`, as prove walks it.
mod folder;

mod scan;
// #40 item 3: yath (Test2::Harness) where a project uses it.
pub(crate) mod yath;

// trace and coverage (h39-trace): the trace hook and Devel::Cover.
pub(crate) mod coverage;
pub(crate) mod trace;

pub(crate) struct Prove;

pub(crate) static PROVE: Prove = Prove;

impl Harness for Prove {
    fn id(&self) -> Id {
        "prove"
    }

    // A distribution's root: where `prove -l` finds `lib/` and `t/`.
    fn project_markers(&self) -> &'static [&'static str] {
        &[
            "Makefile.PL",
            "Build.PL",
            "dist.ini",
            "cpanfile",
            "META.json",
            "META.yml",
            // yath looks for its configuration from the cwd up, as its project's root.
            ".yath.rc",
        ]
    }

    // --- inventory (h39-inv) ---
    fn scanner(&self, path: &str) -> Option<crate::harness::scan::Scanner> {
        scan::reads(path).then_some(scan::scan as crate::harness::scan::Scanner)
    }

    fn rules(&self) -> &'static [Builtin] {
        // prove runs `*.t`; a `.pl` beside them is a helper script (run when named); yath
        // runs `*.t2` too, where a project uses it (`takes`).
        &[
            Builtin {
                glob: "*.{t,pl}",
                walk: &["*.t"],
                command: &["perl", "{}"],
            },
            Builtin {
                glob: "*.t2",
                walk: &[],
                command: &["perl", "{}"],
            },
        ]
    }

    fn takes(&self, file: &Candidate<'_>) -> bool {
        !file.name.ends_with(".t2") || yath::uses_yath(file.cwd).is_some()
    }

    fn command(&self, path: &Path, _abs: &Path, cx: &mut Cx<'_>) -> Option<Made> {
        // In a yath project its test files run as yath runs them.
        let name = path.to_string_lossy();
        if !(name.ends_with(".t") || name.ends_with(".t2")) {
            return None;
        }
        let cwd = cx.cwd.to_path_buf();
        let uses = cx
            .memo
            .get_or_insert_with(("prove", "yath"), || yath::uses_yath(&cwd).is_some());
        if !uses {
            return None;
        }
        let rc = cx
            .memo
            .get_or_insert_with(("prove", "yath.rc"), || yath::Rc::read(&cwd));
        Some(Made {
            command: Ok(rc.command(&cwd, path)),
            harness: yath::YATH.id(),
            cwd: None,
        })
    }

    fn by_line(&self, mut command: Vec<OsString>, line: &Shebang) -> Vec<OsString> {
        // perl reads its `#!` line itself, but refuses a `-T`/`-t` found only there.
        if is_perl(line.name()) {
            insert_after_program(&mut command, perl_switches(&line.args));
        }
        command
    }

    fn silent(&self, name: &str) -> Silent {
        if name.ends_with(".t") {
            Silent::NoSubtests
        } else {
            Silent::Fails
        }
    }

    fn user_command(&self, mut command: Vec<OsString>, line: &Shebang) -> Vec<OsString> {
        let program = command.first().map(|p| p.to_string_lossy().into_owned());
        if program.is_some_and(|p| is_perl(p.rsplit('/').next().unwrap_or(&p))) {
            insert_after_program(&mut command, perl_switches(&line.args));
        }
        command
    }

    fn flushes_each_line(&self, program: &str) -> bool {
        is_perl(program)
    }

    // --- disc: a Perl distribution, prove's variables, taint (#39 §2 A) ---

    fn file_env(&self, command: &[OsString], rel: &str) -> Vec<(OsString, OsString)> {
        dist::prove_env(command, rel)
    }

    fn file_env_note(&self, shown: &str) -> String {
        format!("perl's files (and *.t) get {shown}, as prove sets them")
    }

    fn one_at_a_time(&self, cwd: &Path, _programs: &[Option<String>]) -> Option<String> {
        if let Some(why) = yath::uses_yath(cwd) {
            return yath::Rc::read(cwd).one_at_a_time().then(|| {
                format!("a yath project ({why}): yath runs files one at a time unless -j N")
            });
        }
        dist::one_at_a_time(cwd)
    }

    fn notes(&self, cwd: &Path) -> Vec<String> {
        let mut notes = dist::notes(cwd);
        if let Some(why) = yath::uses_yath(cwd) {
            notes.push(format!(
                "a yath project ({why}): t/ and t2/ searched for *.t and *.t2 as yath searches them, each run by perl with .yath.rc's [test] options"
            ));
        }
        notes
    }

    fn lib_var(&self) -> Option<&'static str> {
        Some("PERL5LIB")
    }

    fn dist_libs(&self, dir: &Path) -> Vec<PathBuf> {
        dist::dist_libs(dir)
    }

    fn adapt(&self, argv: Vec<OsString>, get: &dyn Fn(&str) -> Option<OsString>) -> Vec<OsString> {
        dist::adapt(argv, get)
    }

    fn follows(&self, words: &[String]) -> Option<Follows> {
        let ("prove", args) = follow::program(words)? else {
            return None;
        };
        // `-r`, or a bundle of short switches with `r` in it (`-lr`), not `-Ilib/r`.
        let recursive = args.iter().any(|a| {
            a == "--recurse"
                || (a.starts_with('-')
                    && !a.starts_with("--")
                    && !a[1..].starts_with(['I', 'M', 'P'])
                    && a[1..].chars().all(|c| c.is_ascii_alphabetic())
                    && a.contains('r'))
        });
        let with_value = ["-I", "-M", "-P", "-j", "--jobs", "-e", "--exec"];
        Some(Follows {
            places: follow::folders_or_files(args, &with_value, "t", recursive, &["*.t"]),
            one_at_a_time: (!follow::jobs_given(args)).then_some("prove runs files one at a time"),
            ..Follows::default()
        })
    }

    // --- dsc2: a Perl distribution's walk, a folder of `*.t` ---

    fn owns_project(&self, cwd: &Path) -> bool {
        dist::dist_marker(cwd).is_some() || yath::uses_yath(cwd).is_some()
    }

    fn owned_dirs(&self) -> &'static [&'static str] {
        // `t2/` is yath's: a folder a project has only where it uses yath.
        yath::SEARCH
    }

    fn holds_own_only(&self, dir: &Path, another_test: &dyn Fn(&str) -> bool) -> bool {
        folder::holds_dot_t_only(dir, another_test)
    }

    fn folder(
        &self,
        cwd: &Path,
        dir: &Path,
        owned: bool,
        bare: bool,
        another_test: &dyn Fn(&str) -> bool,
    ) -> Option<Box<dyn crate::harness::folder::Folder>> {
        let folder = folder::of(cwd, dir, owned, bare, another_test)?;
        Some(Box::new(folder))
    }

    // --- dsc2: `tapline init` ---

    fn init_owned_note(&self) -> Option<&'static str> {
        Some("# A Perl distribution: a plain run walks t/ for *.t with lib/ on @INC, one file at a time, as prove -l.\n")
    }
}

/// Whether an interpreter name is perl's (`perl`, `perl5.36.0`), as Test::Harness decides.
pub(crate) fn is_perl(name: &str) -> bool {
    name.starts_with("perl")
}

/// The switches of a perl `#!` line that must (or may harmlessly) be given on perl's command
/// line too, one per word: `-T` and `-t`, which perl refuses to see only on the `#!` line
/// ("-T" is on the #! line, it must also be used on the command line), and the warning
/// switches `-w`, `-W`, `-X`. Perl reads the other switches from the line itself; some of
/// them (`-l`, `-0`) must not be given twice.
pub(crate) fn perl_switches(args: &[String]) -> Vec<String> {
    let mut found = Vec::new();
    for word in args {
        let Some(cluster) = word.strip_prefix('-') else {
            // Perl stops reading switches at the first word that is not one.
            break;
        };
        if cluster.is_empty() || cluster.starts_with('-') {
            break;
        }
        let mut chars = cluster.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                'T' | 't' | 'w' | 'W' | 'X' => {
                    let switch = format!("-{c}");
                    if !found.contains(&switch) {
                        found.push(switch);
                    }
                }
                // An optional number (octal, or hex after `x` for -0); more switches may follow.
                'l' => while chars.next_if(|d| d.is_digit(8)).is_some() {},
                '0' => {
                    let hex = chars.next_if(|&x| x == 'x' || x == 'X').is_some();
                    let radix = if hex { 16 } else { 8 };
                    while chars.next_if(|d| d.is_digit(radix)).is_some() {}
                }
                // The rest of the word is this switch's argument (`-MTest::More`, `-Ilib`).
                'C' | 'd' | 'D' | 'e' | 'E' | 'F' | 'i' | 'I' | 'm' | 'M' | 'x' => break,
                _ => {}
            }
        }
    }
    found
}

/// Whether perl's `args` (switches before the script) turn on taint mode, in which perl
/// ignores `PERL5LIB` and `PERL5OPT`.
pub(crate) fn perl_taint(args: &[String]) -> bool {
    perl_switches(args)
        .iter()
        .any(|switch| switch == "-T" || switch == "-t")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 23 (run/runners' `streams`): perl writes each line as it goes, so a perl file's
    /// two streams are one pipe by default; the program is read by its base name (the
    /// runner strips the folder).
    #[test]
    fn perl_writes_each_line_as_it_goes() {
        let flushes = crate::harness::registry::flushes_each_line;
        assert!(flushes("perl"));
        assert!(flushes("perl5.36.0"));
        assert!(!flushes("python3"));
        assert!(!flushes("env"), "`/usr/bin/env perl`: env's own");
        assert!(!flushes("node"));
    }

    fn words(words: &[&str]) -> Vec<String> {
        words.iter().map(|&w| w.to_owned()).collect()
    }

    #[test]
    fn perl_switches_for_the_command_line() {
        let switches = |line: &[&str]| perl_switches(&words(line));
        assert_eq!(switches(&["-T"]), ["-T"]);
        assert_eq!(switches(&["-t"]), ["-t"]);
        assert_eq!(switches(&["-wT"]), ["-w", "-T"]);
        assert_eq!(switches(&["-Tw"]), ["-T", "-w"]);
        assert_eq!(switches(&["-w", "-T"]), ["-w", "-T"]);
        assert_eq!(switches(&["-W"]), ["-W"]);
        assert_eq!(switches(&["-X"]), ["-X"]);
        assert_eq!(switches(&["-T", "-T", "-wTw"]), ["-T", "-w"]);
        assert_eq!(switches(&["-l012w"]), ["-w"], "-l takes octal digits");
        assert_eq!(switches(&["-lw"]), ["-w"]);
        assert_eq!(switches(&["-0777T"]), ["-T"]);
        assert_eq!(switches(&["-Ilib", "-w"]), ["-w"]);
        assert_eq!(
            switches(&["-MTest::More", "-w"]),
            ["-w"],
            "a module name, not -T"
        );
        assert_eq!(switches(&["-CSDT"]), Vec::<String>::new(), "-C's flags");
        assert_eq!(switches(&["-x/tmp/T"]), Vec::<String>::new());
        assert_eq!(switches(&["-s", "-T"]), ["-T"]);
        assert_eq!(switches(&["--", "-T"]), Vec::<String>::new());
        assert_eq!(switches(&["foo", "-T"]), Vec::<String>::new());
        assert_eq!(switches(&[]), Vec::<String>::new());
        assert!(perl_taint(&words(&["-wT"])));
        assert!(perl_taint(&words(&["-t"])));
        assert!(!perl_taint(&words(&["-w", "-MTaint"])));
    }
}
