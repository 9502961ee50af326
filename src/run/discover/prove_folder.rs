//! A folder of `*.t` tests, read as prove reads it: its `*.t` files are the tests, and what lies
//! beside them (`t/lib.sh`, `t/aggregate-results.sh`, `t/test-terminal.perl`, a sharness
//! library) is the suite's own machinery, which prove never runs. A Perl distribution's `t/`
//! is one; so is any walked folder whose own files hold a `*.t` and no test of another harness
//! (a `*.bats`, or a Python, JavaScript or TypeScript file named as a test), as a sharness or
//! Test::More project's `t/` is.
use super::{Finder, PassedOverWhy, RuleKind};
use crate::util::paths::{normalize, relative};
use crate::util::which::is_executable_file;
use globset::{GlobBuilder, GlobSet, GlobSetBuilder};
use std::ffi::OsStr;
use std::fs;
use std::path::{Path, PathBuf};

/// A folder a walk reads as prove does.
#[derive(Debug, Clone)]
pub(super) struct ProveFolder {
    /// The folder walked, absolute and normalized.
    dir: PathBuf,
    /// Which of its `*.t` the harness runs.
    depth: Depth,
}

/// Which `*.t` of a folder of them the harness runs.
#[derive(Debug, Clone)]
enum Depth {
    /// Its own, not its subfolders', as `prove` without `-r` runs `t/*.t`, and
    /// MakeMaker's `make test` with no `TESTS`.
    Flat,
    /// Every `*.t` below it (`prove -r`, Dist::Zilla, Module::Build::Tiny).
    Deep,
    /// Those a `Makefile.PL`'s literal `TESTS` globs match (`'t/*.t t/*/*.t'`), from the cwd.
    Globs(GlobSet),
}

/// The folder `dir` (as walked, from `cwd`) read as prove reads it, if it is one. `bare`: a
/// run with no PATH follows the harness: outside a Perl distribution that is `prove`, which
/// takes `t/*.t` without `-r`; in one, its `make test` ([`dist_depth`]). A folder the user
/// names is walked down (a directory means its files, recursively).
pub(super) fn of(cwd: &Path, dir: &Path, perl_dist: bool, bare: bool) -> Option<ProveFolder> {
    let abs = normalize(&cwd.join(dir));
    if !(perl_dist || holds_dot_t_only(&abs)) {
        return None;
    }
    let depth = match (bare, perl_dist) {
        (false, _) => Depth::Deep,
        (true, false) => Depth::Flat,
        (true, true) => dist_depth(cwd),
    };
    Some(ProveFolder { dir: abs, depth })
}

/// Which `*.t` a Perl distribution's own `make test` (or `./Build test`, `dzil test`) runs:
/// Dist::Zilla lists every folder holding one; a `Makefile.PL` its `TESTS` (literal globs
/// followed as written, any other value read as every `*.t`) or, with
/// `RECURSIVE_TEST_FILES`, every `*.t`, else `t/*.t`; a `Build.PL` every `*.t` with
/// Module::Build::Tiny, `recursive_test_files` or `test_files`, else `t/*.t`.
fn dist_depth(cwd: &Path) -> Depth {
    if cwd.join("dist.ini").is_file() {
        return Depth::Deep;
    }
    if let Ok(text) = fs::read_to_string(cwd.join("Makefile.PL")) {
        if text.contains("RECURSIVE_TEST_FILES") {
            return Depth::Deep;
        }
        return match text.find("TESTS") {
            Some(at) => {
                literal_globs(&text[at + "TESTS".len()..]).map_or(Depth::Deep, Depth::Globs)
            }
            None => Depth::Flat,
        };
    }
    if let Ok(text) = fs::read_to_string(cwd.join("Build.PL")) {
        let deep = ["Module::Build::Tiny", "recursive_test_files", "test_files"]
            .iter()
            .any(|word| text.contains(word));
        return if deep { Depth::Deep } else { Depth::Flat };
    }
    Depth::Deep
}

/// The globs of a `TESTS => 't/*.t t/*/*.t'` value, `after` starting past `TESTS`: `None`
/// when the value is no literal string (computed, interpolated).
fn literal_globs(after: &str) -> Option<GlobSet> {
    let rest = after.trim_start();
    let rest = rest
        .strip_prefix("=>")
        .or_else(|| rest.strip_prefix(','))?
        .trim_start();
    let quote = rest.chars().next().filter(|c| *c == '\'' || *c == '"')?;
    let value = &rest[1..rest[1..].find(quote)? + 1];
    if value.contains(['$', '@']) {
        return None;
    }
    let mut set = GlobSetBuilder::new();
    for word in value.split_whitespace() {
        set.add(
            GlobBuilder::new(word)
                .literal_separator(true)
                .build()
                .ok()?,
        );
    }
    set.build().ok()
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

/// Whether `name` (not a `*.t`) is a test of another harness, by its name alone.
fn names_another_harness_test(name: &str) -> bool {
    crate::harness::registry::HARNESSES
        .iter()
        .any(|h| h.is_test_name(name))
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
        rel.ends_with(".t") && self.harness_runs(prove, path)
    }

    /// Whether the harness of the prove folder runs the `*.t` at `path` (as walked).
    fn harness_runs(&self, prove: &ProveFolder, path: &Path) -> bool {
        match &prove.depth {
            Depth::Deep => true,
            Depth::Flat => normalize(&self.cwd.join(path)).parent() == Some(prove.dir.as_path()),
            Depth::Globs(globs) => globs.is_match(path.strip_prefix("./").unwrap_or(path)),
        }
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
            if rel.ends_with(".t") && !self.harness_runs(prove, path) {
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
                kind: RuleKind::Builtin { walk, harness },
                ..
            }) => self.named_test(path, name, walk.as_ref(), *harness),
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
