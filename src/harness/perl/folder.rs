//! A folder of `*.t` tests, read as prove reads it: its `*.t` files are the tests, and what lies
//! beside them (`t/lib.sh`, `t/aggregate-results.sh`, `t/test-terminal.perl`, a sharness
//! library) is the suite's own machinery, which prove never runs. A Perl distribution's `t/`
//! is one; so is any walked folder whose own files hold a `*.t` and no test of another harness
//! (a `*.bats`, or a Python, JavaScript or TypeScript file named as a test), as a sharness or
//! Test::More project's `t/` is.
use crate::harness::folder::Folder;
use crate::util::paths::normalize;
use globset::{GlobBuilder, GlobSet, GlobSetBuilder};
use std::fs;
use std::path::{Path, PathBuf};

/// A folder a walk reads as prove does.
#[derive(Debug, Clone)]
pub(crate) struct ProveFolder {
    /// The folder walked, absolute and normalized.
    dir: PathBuf,
    /// Which of its `*.t` the harness runs.
    depth: Depth,
    /// The project uses yath, which runs `*.t2` too.
    yath: bool,
    /// Its harness runs the files side by side (yath with `-j N`, N > 1, in `.yath.rc`).
    side_by_side: bool,
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

/// The folder `dir` (as walked, from `cwd`) read as prove reads it, if it is one. `perl_dist`:
/// the cwd holds a Perl distribution. `bare`: a run with no PATH follows the harness: outside
/// a Perl distribution that is `prove`, which takes `t/*.t` without `-r`; in one, its `make
/// test` ([`dist_depth`]). A folder the user names is walked down (a directory means its
/// files, recursively). `another_test`: whether a name is a test of some harness.
pub(crate) fn of(
    cwd: &Path,
    dir: &Path,
    perl_dist: bool,
    bare: bool,
    another_test: &dyn Fn(&str) -> bool,
) -> Option<ProveFolder> {
    let abs = normalize(&cwd.join(dir));
    if !(perl_dist || holds_dot_t_only(&abs, another_test)) {
        return None;
    }
    let yath = super::yath::uses_yath(cwd).is_some();
    let depth = match (bare, perl_dist) {
        (false, _) => Depth::Deep,
        // yath searches its folders recursively.
        (true, _) if yath => Depth::Deep,
        (true, false) => Depth::Flat,
        (true, true) => dist_depth(cwd),
    };
    let side_by_side = yath && !super::yath::Rc::read(cwd).one_at_a_time();
    Some(ProveFolder {
        dir: abs,
        depth,
        yath,
        side_by_side,
    })
}

impl Folder for ProveFolder {
    fn is_own(&self, rel: &str) -> bool {
        rel.ends_with(".t") || (self.yath && rel.ends_with(".t2"))
    }

    fn runs(&self, cwd: &Path, path: &Path) -> bool {
        match &self.depth {
            Depth::Deep => true,
            Depth::Flat => normalize(&cwd.join(path)).parent() == Some(self.dir.as_path()),
            Depth::Globs(globs) => globs.is_match(path.strip_prefix("./").unwrap_or(path)),
        }
    }

    fn one_at_a_time(&self) -> Option<&'static str> {
        (!self.side_by_side).then_some("prove runs a folder of *.t tests one file at a time")
    }

    fn helper(&self) -> &'static str {
        "a helper beside *.t tests (prove runs *.t only)"
    }

    fn unrun(&self) -> &'static str {
        "a *.t the harness does not run (prove without -r runs t/*.t; a Makefile.PL its TESTS, else t/*.t); name it or its folder to run it"
    }
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

/// Whether the folder's own files hold a `*.t` and no test of another harness (by
/// `another_test`, its name alone).
pub(crate) fn holds_dot_t_only(dir: &Path, another_test: &dyn Fn(&str) -> bool) -> bool {
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
        } else if another_test(name) {
            return false;
        }
    }
    dot_t
}
