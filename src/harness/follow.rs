//! What a harness takes from one command of a project's test script it follows
//! ([`super::Harness::follows`]): the places it runs files from, whether it runs them one at a
//! time, and what its own configuration excludes; and the operand reading the rooms share.
//! Also the `[[suite]]` a project implies by itself ([`Implied`]).
//! Splitting a script into commands, skipping wrappers and following `npm run NAME` stay
//! generic (the discovery's `project`).
use super::api::Lane;
use globset::GlobSet;
use std::path::{Path, PathBuf};

/// A place a project's test command runs files from.
#[derive(Debug, Clone, PartialEq)]
pub struct Place {
    /// A folder, or a file, from the cwd (for a glob: the folder it starts in).
    pub path: PathBuf,
    /// Into subfolders (bats and prove without `-r` do not go).
    pub recursive: bool,
    pub only: Only,
}

/// Which files of a place run.
#[derive(Debug, Clone, PartialEq)]
pub enum Only {
    /// Files whose name matches one of these globs (`*.t` for prove, `*.bats` for bats).
    Names(&'static [&'static str]),
    /// JavaScript as node's runner and node-tap name tests, and TypeScript too when `ts`
    /// (node-tap 18 and later, which names both alike).
    Js { ts: bool },
    /// TypeScript as tstest names its tests.
    Ts,
    /// Every file the glob (from the cwd) matches.
    Glob(String),
    /// The files the harness itself lists for the command, each run through it
    /// ([`Through`]).
    Through(Through),
}

/// A followed command whose harness runs its own files: it lists them itself
/// ([`super::Harness::list_through`]) and each runs through it, with the command's own flags
/// and the project's configuration ([`super::Harness::command_through`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Through {
    /// The harness that lists and runs the files.
    pub harness: super::api::Id,
    /// The command as the script wrote it, program first.
    pub words: Vec<String>,
    /// Where the command's files are when the harness cannot list them here (an older
    /// version without a listing, or none installed): walked by tapline's own naming.
    pub fallback: Vec<Place>,
}

impl Through {
    /// The place of a command whose harness runs its own files.
    pub fn place(harness: super::api::Id, words: &[String]) -> Place {
        Place {
            path: PathBuf::new(),
            recursive: true,
            only: Only::Through(Through {
                harness,
                words: words.to_vec(),
                fallback: Vec::new(),
            }),
        }
    }

    /// The place of a command whose harness runs its own files where it can list them, and
    /// whose files are the `fallback` places' where it cannot.
    pub fn place_or(harness: super::api::Id, words: &[String], fallback: Vec<Place>) -> Place {
        let mut place = Self::place(harness, words);
        if let Only::Through(through) = &mut place.only {
            through.fallback = fallback;
        }
        place
    }
}

/// The files a harness's own configuration in the cwd excludes (`None`: none).
pub type Excludes = fn(&Path) -> Option<GlobSet>;

/// Why a command (its words) runs its files one at a time by the harness's own configuration
/// in the cwd (`None`: side by side, or it cannot tell).
pub type ByConfig = fn(&[String], &Path) -> Option<&'static str>;

/// What a harness takes from one command it follows.
#[derive(Debug, Default)]
pub struct Follows {
    pub places: Vec<Place>,
    /// Why the command runs its files one at a time, if it does.
    pub one_at_a_time: Option<&'static str>,
    /// Why it does by the harness's own configuration in the cwd, given the command's words,
    /// asked when the words do not say (vitest's `fileParallelism: false`, ava's `serial`).
    pub one_at_a_time_by_config: Option<ByConfig>,
    /// What the harness's own configuration excludes, when it reads one.
    pub excludes: Option<Excludes>,
    /// How each file may run beside others, by its name, when the harness says (tstest:
    /// alone, or with its `*.para__N.*` group).
    pub lane: Option<fn(&str) -> Lane>,
}

/// One of the `[[suite]]`s a project implies when its configuration names none
/// ([`super::Harness::implied_suite`]): run from the cwd, not optional. A bare run runs them
/// all; a PATH naming its `folder` (or a folder above it) selects it.
#[derive(Debug, Clone, PartialEq)]
pub struct Implied {
    /// Its name in reports: its folder relative to the cwd, as a file's would be.
    pub name: String,
    /// The folder it tests, relative to the cwd (empty: the cwd itself).
    pub folder: String,
    /// The folder its command runs in, relative to the cwd (a `go.work`'s module's).
    pub run_in: String,
    pub command: Vec<String>,
    pub format: crate::protocol::InputFormat,
}

impl Implied {
    /// Whether a PATH argument `path` (relative to the cwd) names this suite: its folder, a
    /// folder above it, or the cwd.
    pub fn selected_by(&self, path: &str) -> bool {
        let path = path.trim_start_matches("./").trim_end_matches('/');
        let path = if path == "." { "" } else { path };
        path.is_empty()
            || self.folder == path
            || (self.folder.strip_prefix(path)).is_some_and(|rest| rest.starts_with('/'))
    }
}

/// A monorepo's packages, as its package manager declares them
/// ([`super::Harness::workspace`]): each runs its own test script from its own folder.
#[derive(Debug, Clone, PartialEq)]
pub struct Workspace {
    /// Where they are declared, for `--list` and errors (`package.json workspaces`).
    pub source: String,
    /// The package folders, relative to the workspace's root, in the declared order.
    pub packages: Vec<PathBuf>,
    /// Why the root's own run of the packages' tests goes one package at a time, when it says
    /// so (a concurrency of 1: the packages share a port or a database).
    pub one_at_a_time: Option<&'static str>,
}

/// The base name of `words`' program and the rest.
pub(crate) fn program(words: &[String]) -> Option<(&str, &[String])> {
    let (program, args) = words.split_first()?;
    Some((program.rsplit('/').next().unwrap_or(program), args))
}

/// Whether `args` ask for parallel jobs: `-j N`, `-j4`, `--jobs`, or a bundle of short
/// switches with `j` in it (`-lrj4`), not `-Ilib/j`.
pub(crate) fn jobs_given(args: &[String]) -> bool {
    args.iter().any(|a| {
        a == "--jobs"
            || a.starts_with("--jobs=")
            || (a.starts_with('-')
                && !a.starts_with("--")
                && !a[1..].starts_with(['I', 'M', 'P'])
                && a.contains('j'))
    })
}

/// The operands of a command: words that are not options, nor the value of an option in
/// `with_value`.
pub(crate) fn operands<'a>(args: &'a [String], with_value: &[&str]) -> Vec<&'a str> {
    let mut out = Vec::new();
    let mut skip = false;
    for arg in args {
        if skip {
            skip = false;
        } else if with_value.contains(&arg.as_str()) {
            skip = true;
        } else if !arg.starts_with('-') {
            out.push(arg.as_str());
        }
    }
    out
}

/// The operands as places, or the runner's own default: a walk of the cwd by its naming.
pub(crate) fn or_default(operands: Vec<&str>, only: Only) -> Vec<Place> {
    if operands.is_empty() {
        return vec![Place {
            path: PathBuf::new(),
            recursive: true,
            only,
        }];
    }
    operands
        .into_iter()
        .map(|a| path_or_glob(a, only.clone()))
        .collect()
}

/// An operand: a glob (every file it matches runs) or a path (a folder walked recursively by
/// `only`'s naming, or a file).
pub(crate) fn path_or_glob(operand: &str, only: Only) -> Place {
    if operand.contains(['*', '?', '[', '{']) {
        let first_meta = operand.find(['*', '?', '[', '{']).unwrap_or(operand.len());
        let base = operand[..first_meta]
            .rfind('/')
            .map_or("", |slash| &operand[..=slash]);
        let pattern = operand.strip_prefix("./").unwrap_or(operand);
        return Place {
            path: PathBuf::from(base.strip_prefix("./").unwrap_or(base)),
            recursive: true,
            only: Only::Glob(pattern.to_owned()),
        };
    }
    Place {
        path: PathBuf::from(operand),
        recursive: true,
        only,
    }
}

/// Folders and files a runner names (`default` when none is), taking the files whose name
/// matches `names`.
pub(crate) fn folders_or_files(
    args: &[String],
    with_value: &[&str],
    default: &str,
    recursive: bool,
    names: &'static [&'static str],
) -> Vec<Place> {
    let mut paths = operands(args, with_value);
    if paths.is_empty() {
        paths.push(default);
    }
    paths
        .into_iter()
        .map(|p| Place {
            path: PathBuf::from(p),
            recursive,
            only: Only::Names(names),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_selects_the_implied_suites_at_or_below_it() {
        let at = |folder: &str| Implied {
            name: folder.to_owned(),
            folder: folder.to_owned(),
            run_in: String::new(),
            command: Vec::new(),
            format: crate::protocol::InputFormat::GoJson,
        };
        assert!(at("a/x").selected_by("./a"));
        assert!(at("a/x").selected_by("a/x/"));
        assert!(at("a/x").selected_by("."));
        assert!(at("").selected_by("./"));
        assert!(!at("a/xy").selected_by("a/x"));
        assert!(!at("a/x").selected_by("b"));
        assert!(!at("").selected_by("a"));
    }
}
