//! A folder of `*.t` tests, read as prove reads it: its `*.t` files are the tests, and what lies
//! beside them (`t/lib.sh`, `t/aggregate-results.sh`, `t/test-terminal.perl`, a sharness
//! library) is the suite's own machinery, which prove never runs. A Perl distribution's `t/`
//! is one; so is any walked folder whose own files hold a `*.t` and no test of another harness
//! (a `*.bats`, or a Python, JavaScript or TypeScript file named as a test), as a sharness or
//! Test::More project's `t/` is.
use super::naming::{self, TsName};
use super::{Finder, PassedOverWhy, RuleKind};
use crate::util::paths::{normalize, relative};
use crate::util::which::is_executable_file;
use std::ffi::OsStr;
use std::fs;
use std::path::{Path, PathBuf};

/// A folder a walk reads as prove does.
#[derive(Debug, Clone)]
pub(super) struct ProveFolder {
    /// The folder walked, absolute and normalized.
    dir: PathBuf,
    /// Its own `*.t` only, not its subfolders', as `prove` without `-r` runs `t/*.t`.
    flat: bool,
}

/// The folder `dir` (as walked, from `cwd`) read as prove reads it, if it is one. `flat`: a
/// run with no PATH follows prove, which takes `t/*.t` without `-r`; a Perl distribution's
/// walk goes down (its `make test` runs what its `Makefile.PL` lists, and Dist::Zilla's lists
/// every folder of `*.t`), and so does a folder the user names (a directory means its files,
/// recursively).
pub(super) fn of(cwd: &Path, dir: &Path, perl_dist: bool, flat: bool) -> Option<ProveFolder> {
    let abs = normalize(&cwd.join(dir));
    let holds_prove_tests = perl_dist || holds_dot_t_only(&abs);
    holds_prove_tests.then_some(ProveFolder {
        dir: abs,
        flat: flat && !perl_dist,
    })
}

/// Whether the folder's own files hold a `*.t` and no test of another harness.
pub(super) fn holds_dot_t_only(dir: &Path) -> bool {
    let Ok(entries) = fs::read_dir(dir) else {
        return false;
    };
    let mut dot_t = false;
    for entry in entries.flatten() {
        if !entry.path().is_file() {
            continue;
        }
        let name = entry.file_name();
        let Some(name) = name.to_str() else {
            continue;
        };
        if name.starts_with('.') {
            continue;
        }
        if name.ends_with(".t") {
            dot_t = true;
        } else if names_another_harness_test(name) {
            return false;
        }
    }
    dot_t
}

/// Whether `name` is a test of a harness other than prove, by its name alone.
fn names_another_harness_test(name: &str) -> bool {
    let python = name.ends_with(".py") && (name.starts_with("test") || name.ends_with("_test.py"));
    name.ends_with(".bats")
        || python
        || naming::is_js_test(Path::new(name), false)
        || naming::ts_name(name) == TsName::Test
}

impl Finder<'_> {
    /// Whether the prove folder being walked, if any, takes `path`: a `*.t` (of its own top
    /// level when flat), or what the user's `[[runner]]` globs match.
    pub(super) fn prove_takes(&self, path: &Path, rel: &str) -> bool {
        let Some(prove) = &self.prove else {
            return true;
        };
        if self.users_rule_matches(rel) {
            return true;
        }
        let abs = normalize(&self.cwd.join(path));
        rel.ends_with(".t") && (!prove.flat || abs.parent() == Some(prove.dir.as_path()))
    }

    fn users_rule_matches(&self, rel: &str) -> bool {
        matches!(
            self.rules.iter().find(|r| r.rule.matches(rel)),
            Some(super::Rule {
                kind: RuleKind::User,
                ..
            })
        )
    }

    /// Why a walk passed `path` over: said in `--list`, most of all for a file that would run
    /// but for the prove folder's rule, or an executable.
    pub(super) fn why_passed_over(&self, path: &Path) -> PassedOverWhy {
        let abs = normalize(&self.cwd.join(path));
        let rel = relative(&abs, &self.root);
        let executable = fs::metadata(&abs).is_ok_and(|meta| is_executable_file(&meta));
        if let Some(prove) = &self.prove {
            if rel.ends_with(".t") && prove.flat && abs.parent() != Some(prove.dir.as_path()) {
                return PassedOverWhy::ProveSubfolder;
            }
            if executable || self.language_names_test(path, &rel) {
                return PassedOverWhy::ProveHelper;
            }
        }
        if executable {
            PassedOverWhy::Executable
        } else {
            PassedOverWhy::NotATest
        }
    }

    /// Whether a built-in rule's naming would take `path` in a walk, were it not for the
    /// folder it is in.
    fn language_names_test(&self, path: &Path, rel: &str) -> bool {
        let name = path.file_name().and_then(OsStr::to_str).unwrap_or_default();
        match self.rules.iter().find(|r| r.rule.matches(rel)) {
            Some(super::Rule {
                kind: RuleKind::Builtin { walk, family },
                ..
            }) => self.named_test(path, name, walk.as_ref(), *family),
            _ => false,
        }
    }

    /// Reads the folder about to be walked: a prove folder, or not.
    pub(super) fn enter(&mut self, dir: &Path) {
        self.prove = of(self.cwd, dir, self.perl_dist, self.bare);
        self.followed_prove |= self.bare && self.prove.is_some();
    }

    /// Records `path` as passed over, with why.
    pub(super) fn pass_over_walked(&mut self, path: &Path) {
        let why = self.why_passed_over(path);
        self.pass_over(path, why);
    }

    /// Records `path` as passed over because of `why`.
    pub(super) fn pass_over(&mut self, path: &Path, why: PassedOverWhy) {
        let rel = relative(&normalize(&self.cwd.join(path)), &self.root);
        self.passed_over.push(super::PassedOver { rel, why });
    }
}
