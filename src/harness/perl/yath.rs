//! yath (Test2::Harness), where a project uses it: its files are `t/` and `t2/`'s `*.t` and
//! `*.t2`, found recursively as yath finds them, each run by perl as yath runs it (`perl`,
//! the `#!` line's switches, `.yath.rc`'s `-I`/`--include`, `--switch`, `--preload`, `--load`
//! and `--load-import` as switches), with what a test sees under yath in its environment
//! (`HARNESS_ACTIVE`, `TEST2_HARNESS_ACTIVE`, `TEST_ACTIVE`, `TEST2_ACTIVE`,
//! `PERL_USE_UNSAFE_INC=0` unless `--unsafe-inc`, `.yath.rc`'s `--env-var`s), one file at a
//! time unless `.yath.rc` says `-j N`. Test2 prints TAP there (tapline sets no
//! `T2_FORMATTER`: yath's own event stream is yath's business).
//!
//! A project uses yath when its folder holds a `.yath.rc` or `.yath.user.rc` (yath's project
//! configuration), a `t2/` folder (yath's own test folder, which prove never runs), or when
//! its `Makefile.PL`, `dist.ini`, `cpanfile` or a GitHub workflow names `yath` as a word.
//! Settings read from `.yath.rc` and then `.yath.user.rc`: the lines before any section and
//! those of `[test]` (`yath test`'s own), `;` starting a comment, `rel(PATH)` relative to the
//! file's folder; the options no file would see (display, logging, plugins) are left to yath.
use crate::harness::api::{Id, Silent};
use crate::harness::shebang::Shebang;
use crate::harness::Harness;
use std::ffi::OsString;
use std::fs;
use std::path::Path;

pub(crate) struct Yath;
pub(crate) static YATH: Yath = Yath;

/// The folders yath puts on `@INC` unless told not to (`--no-lib`, `--no-blib`).
const DEFAULT_LIBS: &[&str] = &["lib", "blib/lib", "blib/arch"];

/// The folders a yath project's plain run searches, as yath's `--default-search`.
pub(crate) const SEARCH: &[&str] = &["t", "t2"];

impl Harness for Yath {
    fn id(&self) -> Id {
        "yath"
    }

    fn silent(&self, _name: &str) -> Silent {
        Silent::NoSubtests
    }

    fn env(&self, _env: &[(OsString, OsString)]) -> Result<Vec<(OsString, OsString)>, String> {
        // The run starts in the project's folder (a bare run enters it), where yath reads its
        // configuration.
        let rc = std::env::current_dir()
            .map(|dir| Rc::read(&dir))
            .unwrap_or_default();
        Ok(rc.env())
    }

    fn file_env_note(&self, shown: &str) -> String {
        format!("a yath project's files get {shown}, as yath sets them")
    }
}

/// Why the project in `dir` uses yath, if it does.
pub(crate) fn uses_yath(dir: &Path) -> Option<&'static str> {
    if dir.join(".yath.rc").is_file() {
        return Some(".yath.rc");
    }
    if dir.join(".yath.user.rc").is_file() {
        return Some(".yath.user.rc");
    }
    if dir.join("t2").is_dir() {
        return Some("its t2/ folder");
    }
    let names = |file: &Path| fs::read_to_string(file).is_ok_and(|text| names_yath(&text));
    for file in ["Makefile.PL", "dist.ini", "cpanfile"] {
        if names(&dir.join(file)) {
            return Some(file);
        }
    }
    let workflows = fs::read_dir(dir.join(".github/workflows"))
        .into_iter()
        .flatten();
    let mut workflows: Vec<_> = workflows.flatten().map(|e| e.path()).collect();
    workflows.sort();
    workflows
        .iter()
        .any(|w| names(w))
        .then_some("its GitHub workflow")
}

/// Whether `text` says `yath` as a word (a command `yath test`, `App::Yath`), not inside one.
fn names_yath(text: &str) -> bool {
    text.match_indices("yath").any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + 4..].chars().next();
        let word = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_');
        !word(before) && !word(after)
    })
}

/// What `.yath.rc` (and `.yath.user.rc`) say a test file sees.
#[derive(Debug, Default, Clone, PartialEq)]
pub(crate) struct Rc {
    /// `-I`/`--include`, in order.
    pub(crate) includes: Vec<String>,
    /// `-S`/`--switch`: perl switches.
    pub(crate) switches: Vec<String>,
    /// `-P`/`--preload`: loaded before the file, not imported.
    pub(crate) preloads: Vec<String>,
    /// `-m`/`--load`: loaded before the file, not imported.
    pub(crate) loads: Vec<String>,
    /// `-M`/`--load-import`: loaded and imported (`Module` or `Module=arg,arg`).
    pub(crate) imports: Vec<String>,
    /// `-E`/`--env-var`.
    pub(crate) env: Vec<(String, String)>,
    /// `-j`/`--jobs`.
    pub(crate) jobs: Option<u32>,
    /// `--tlib`: `t/lib` on `@INC`.
    pub(crate) tlib: bool,
    /// `--unsafe-inc`: `.` on `@INC`.
    pub(crate) unsafe_inc: bool,
    /// `--no-lib`: no `lib` on `@INC`.
    pub(crate) no_lib: bool,
    /// `--no-blib`: no `blib/lib`, `blib/arch` on `@INC`.
    pub(crate) no_blib: bool,
}

impl Rc {
    /// The configuration of the project in `dir`: nothing when it has none.
    pub(crate) fn read(dir: &Path) -> Rc {
        let mut rc = Rc::default();
        for name in [".yath.rc", ".yath.user.rc"] {
            if let Ok(text) = fs::read_to_string(dir.join(name)) {
                rc.add(&text, dir);
            }
        }
        rc
    }

    /// The options of one file's lines that apply to `yath test`.
    fn add(&mut self, text: &str, dir: &Path) {
        let mut section = String::new();
        let mut words: Vec<(String, Option<String>)> = Vec::new();
        for line in text.lines() {
            let line = line.trim_end();
            if let Some(name) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
                section = name.to_owned();
                continue;
            }
            let line = line.split(';').next().unwrap_or("").trim();
            if line.is_empty() || !(section.is_empty() || section == "test") {
                continue;
            }
            words.push(option(line, dir));
        }
        for (key, value) in words {
            self.take(&key, value);
        }
    }

    /// One option, as yath reads it from the command line.
    fn take(&mut self, key: &str, value: Option<String>) {
        let value = value.unwrap_or_default();
        match key {
            "-I" | "--include" => self.includes.push(value),
            "-S" | "--switch" => self.switches.push(value),
            "-P" | "--preload" => self.preloads.push(value),
            "-m" | "--load" | "--load-module" => self.loads.push(value),
            "-M" | "--load-import" | "--loadim" => self.imports.push(value),
            "-E" | "--env-var" => {
                if let Some((k, v)) = value.split_once('=') {
                    self.env.push((k.to_owned(), v.to_owned()));
                }
            }
            "-j" | "--jobs" | "--job-count" => {
                // `8:2` is eight slots, two per job: the jobs are the first number.
                self.jobs = value.split(':').next().and_then(|n| n.parse().ok());
            }
            "--tlib" => self.tlib = true,
            "--no-tlib" => self.tlib = false,
            "--no-lib" => self.no_lib = true,
            "-l" | "--lib" => self.no_lib = false,
            "--no-blib" => self.no_blib = true,
            "-b" | "--blib" => self.no_blib = false,
            "--unsafe-inc" => self.unsafe_inc = true,
            "--no-unsafe-inc" => self.unsafe_inc = false,
            _ => {}
        }
    }

    /// Whether yath runs the files one at a time (`-j1`, its default).
    pub(crate) fn one_at_a_time(&self) -> bool {
        self.jobs.is_none_or(|j| j <= 1)
    }

    /// The variables a test sees under yath (and those `.yath.rc` sets).
    pub(crate) fn env(&self) -> Vec<(OsString, OsString)> {
        let mut vars: Vec<(OsString, OsString)> = [
            ("HARNESS_ACTIVE", "1"),
            ("TEST2_HARNESS_ACTIVE", "1"),
            ("TEST_ACTIVE", "1"),
            ("TEST2_ACTIVE", "1"),
            ("T2_HARNESS_JOB_IS_TRY", "0"),
        ]
        .iter()
        .map(|(k, v)| ((*k).into(), (*v).into()))
        .collect();
        let unsafe_inc = if self.unsafe_inc { "1" } else { "0" };
        vars.push(("PERL_USE_UNSAFE_INC".into(), unsafe_inc.into()));
        vars.extend(self.env.iter().map(|(k, v)| (k.into(), v.into())));
        vars
    }

    /// The command that runs `file` (from the project's folder `dir`) as yath runs it.
    pub(crate) fn command(&self, dir: &Path, file: &Path) -> Vec<OsString> {
        let mut argv: Vec<OsString> = vec!["perl".into()];
        if let Some(line) = Shebang::read(&dir.join(file)) {
            if super::is_perl(line.name()) {
                argv.extend(
                    super::perl_switches(&line.args)
                        .into_iter()
                        .map(OsString::from),
                );
            }
        }
        argv.extend(self.switches.iter().map(OsString::from));
        let mut includes: Vec<&str> = self.includes.iter().map(String::as_str).collect();
        if self.tlib {
            includes.push("t/lib");
        }
        // yath's `--lib` and `--blib`, on by default: a project with no Makefile.PL (whose
        // folders no PERL5LIB names) still sees them.
        includes.extend(
            DEFAULT_LIBS
                .iter()
                .copied()
                .filter(|lib| {
                    if *lib == "lib" {
                        !self.no_lib
                    } else {
                        !self.no_blib
                    }
                })
                .filter(|lib| dir.join(lib).is_dir()),
        );
        for dir in includes {
            argv.push(format!("-I{dir}").into());
        }
        // A file whose header says `# HARNESS-NO-PRELOAD` runs without yath's preloads.
        let preloads = if directives(&dir.join(file))
            .iter()
            .any(|d| d == "NO-PRELOAD")
        {
            &[][..]
        } else {
            &self.preloads[..]
        };
        for module in preloads.iter().chain(&self.loads) {
            argv.push(format!("-m{module}").into());
        }
        for module in &self.imports {
            argv.push(format!("-M{module}").into());
        }
        argv.push(file.into());
        argv
    }
}

/// Most lines of a file's header read for yath's directives.
const HEADER_LINES: usize = 200;

/// The `# HARNESS-…` directives of a test file's header (`NO-PRELOAD`, `CAT-LONG`), read as
/// yath reads them: from the top, past blank lines, comments and `use`/`require`/`BEGIN`/
/// `package` lines, up to the first other line.
fn directives(path: &Path) -> Vec<String> {
    let Ok(text) = fs::read_to_string(path) else {
        return Vec::new();
    };
    let mut found = Vec::new();
    for line in text.lines().take(HEADER_LINES) {
        let line = line.trim();
        if let Some(rest) = line.strip_prefix('#') {
            if let Some(directive) = rest.trim_start().strip_prefix("HARNESS-") {
                found.push(directive.trim().to_owned());
            }
            continue;
        }
        let header = line.is_empty()
            || ["use ", "use\t", "require ", "BEGIN", "package "]
                .iter()
                .any(|w| line.starts_with(w));
        if !header {
            break;
        }
    }
    found
}

/// A line of `.yath.rc` as an option and its value: `-I lib`, `--include=lib`, `-Ilib`,
/// `-j4`, `--tlib`; `rel(PATH)` is PATH from the file's folder.
fn option(line: &str, dir: &Path) -> (String, Option<String>) {
    let (key, value) = if let Some(long) = line.strip_prefix("--") {
        match long.split_once(['=', ' ', '\t']) {
            Some((k, v)) => (format!("--{k}"), Some(v.trim().to_owned())),
            None => (line.to_owned(), None),
        }
    } else if line.starts_with('-') && line.len() > 2 {
        let (k, v) = line.split_at(2);
        (
            k.to_owned(),
            Some(v.trim_start_matches('=').trim().to_owned()),
        )
    } else {
        (line.to_owned(), None)
    };
    let value = value.map(
        |v| match v.strip_prefix("rel(").and_then(|r| r.strip_suffix(')')) {
            Some(path) => dir.join(path.trim()).to_string_lossy().into_owned(),
            None => v,
        },
    );
    (key, value.filter(|v| !v.is_empty()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(words: &[&str]) -> Vec<OsString> {
        words.iter().map(OsString::from).collect()
    }

    #[test]
    fn yath_rc_options_a_test_sees() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path();
        fs::write(
            root.join(".yath.rc"),
            "-I early\n[test]\n-I lib\n--include=t/lib ; helpers\n-Irel(inc)\n-j4\n-P My::Preload\n--load Carp\n-M Data::Dumper\n-E FOO=bar\n--env-var BAZ=1=2\n-S -w\n[run]\n-I not/this\n[start]\n-P Not::This\n",
        )
        .expect("write");
        fs::write(root.join(".yath.user.rc"), "[test]\n--tlib\n").expect("write");
        let mut no_blib = Rc::read(root);
        no_blib.take("--no-blib", None);
        assert!(no_blib.no_blib && !no_blib.no_lib);
        let rc = Rc::read(root);
        let inc = root.join("inc").to_string_lossy().into_owned();
        assert_eq!(rc.includes, ["early", "lib", "t/lib", inc.as_str()]);
        assert_eq!(rc.jobs, Some(4));
        assert!(!rc.one_at_a_time());
        assert!(rc.tlib);
        assert_eq!(
            rc.env,
            [
                ("FOO".to_owned(), "bar".to_owned()),
                ("BAZ".to_owned(), "1=2".to_owned())
            ]
        );
        fs::create_dir(root.join("t")).expect("mkdir");
        for lib in ["lib", "blib/lib"] {
            fs::create_dir_all(root.join(lib)).expect("mkdir");
        }
        fs::write(root.join("t/a.t"), "#!perl -T\nuse Test2::V0;\n").expect("write");
        let mut want = argv(&["perl", "-T", "-w", "-Iearly", "-Ilib", "-It/lib"]);
        want.push(format!("-I{inc}").into());
        want.extend(argv(&[
            "-It/lib",
            "-Ilib",
            "-Iblib/lib",
            "-mMy::Preload",
            "-mCarp",
            "-MData::Dumper",
            "t/a.t",
        ]));
        assert_eq!(rc.command(root, Path::new("t/a.t")), want);
        let env = rc.env();
        assert!(env.contains(&("TEST2_HARNESS_ACTIVE".into(), "1".into())));
        assert!(env.contains(&("PERL_USE_UNSAFE_INC".into(), "0".into())));
        assert!(env.contains(&("FOO".into(), "bar".into())));
    }

    #[test]
    fn a_file_that_says_no_preload_runs_without_them() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path();
        fs::write(
            root.join("a.t"),
            "#!perl\n# HARNESS-NO-PRELOAD\nuse strict;\n\n# HARNESS-CAT-LONG\nok();\n# HARNESS-LATE\n",
        )
        .expect("write");
        assert_eq!(directives(&root.join("a.t")), ["NO-PRELOAD", "CAT-LONG"]);
        let rc = Rc {
            preloads: vec!["Big::App".to_owned()],
            loads: vec!["Carp".to_owned()],
            ..Rc::default()
        };
        assert_eq!(
            rc.command(root, Path::new("a.t")),
            argv(&["perl", "-mCarp", "a.t"])
        );
        fs::write(
            root.join("b.t"),
            "use strict;\nok();\n# HARNESS-NO-PRELOAD\n",
        )
        .expect("write");
        assert_eq!(
            rc.command(root, Path::new("b.t")),
            argv(&["perl", "-mBig::App", "-mCarp", "b.t"])
        );
    }

    #[test]
    fn a_project_uses_yath_where_it_says_so() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path();
        assert_eq!(uses_yath(root), None);
        fs::write(
            root.join("Makefile.PL"),
            "use ExtUtils::MakeMaker; # not App::Yathish\n",
        )
        .expect("write");
        assert_eq!(uses_yath(root), None);
        fs::write(
            root.join("dist.ini"),
            "[TestRelease]\n; tested with yath test\n",
        )
        .expect("write");
        assert_eq!(uses_yath(root), Some("dist.ini"));
        fs::create_dir(root.join("t2")).expect("mkdir");
        assert_eq!(uses_yath(root), Some("its t2/ folder"));
        fs::write(root.join(".yath.rc"), "").expect("write");
        assert_eq!(uses_yath(root), Some(".yath.rc"));
        assert_eq!(Rc::read(root), Rc::default());
        assert!(Rc::default().one_at_a_time());
    }
}
