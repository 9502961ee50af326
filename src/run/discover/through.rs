//! A run with PATHs in a project whose test command a harness runs through itself
//! ([`project::Through`]): a file that harness lists runs through it wherever a PATH names or
//! walks it, never under a plain runner of its language (a `*.test.ts` of a project whose
//! script runs a harness is that harness's test, not a script for the TypeScript runner); a
//! walked file of the same kind it does not list (a setup file, a helper) is passed over.
use super::project::{self, Only};
use super::{DiscoverError, Finder, Origin, PassedOverWhy, TestFile};
use crate::harness::{registry, Harness};
use crate::util::paths::normalize;
use std::collections::{HashMap, HashSet};
use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// What the harnesses of the project's test command list, by absolute path.
#[derive(Default)]
pub(super) struct Listed {
    files: HashMap<PathBuf, Entry>,
    /// The extensions of the listed files: a walked file with one of them is of the kind the
    /// harness runs.
    kinds: HashSet<OsString>,
}

/// A harness and the files it lists for a followed command.
pub(super) type Listing = (&'static dyn Harness, Vec<PathBuf>);

/// A listed file: the harness and the command words that run it.
struct Entry {
    harness: &'static dyn Harness,
    words: Vec<String>,
}

/// Why a walked file the harness does not list is passed over.
const UNLISTED: &str = "not among the files the project's test command runs through its harness";

impl Finder<'_> {
    /// `through`'s harness and the files it lists (`None`: it does not list here, and its
    /// fallback places say where its files are). A listing that failed is the run's error,
    /// unless `[[runner]]` rules of the user's say how files run: then it lists none, and those
    /// rules run what the walks find.
    pub(super) fn listing(
        &mut self,
        through: &project::Through,
    ) -> Result<Option<Listing>, DiscoverError> {
        let Some(harness) = registry::harness(through.harness) else {
            return Ok(None);
        };
        // What it runs around its files, once however often its command is read.
        let around = harness.around(&through.words, self.cwd);
        let says = around.before.is_some() || around.after.is_some();
        if says && !self.around.contains(&around) {
            self.around.push(around);
        }
        match harness.list_through(&through.words, self.cwd) {
            None => Ok(None),
            Some(Ok(files)) => Ok(Some((harness, files))),
            Some(Err(_)) if self.has_user_rules() => Ok(Some((harness, Vec::new()))),
            Some(Err(why)) => Err(DiscoverError::Listed {
                command: through.words.join(" "),
                why,
            }),
        }
    }

    /// Lists the files of the project's test command whose harness runs them through itself,
    /// when it has such a command (a run with PATHs, which does not follow it otherwise).
    pub(super) fn list_declared_through(&mut self) -> Result<(), DiscoverError> {
        let Some(declared) = project::declared(self.cwd) else {
            return Ok(());
        };
        let mut listed = Listed::default();
        for place in &declared.places {
            let Only::Through(through) = &place.only else {
                continue;
            };
            let Some((harness, files)) = self.listing(through)? else {
                continue;
            };
            for path in files {
                let abs = normalize(&self.cwd.join(&path));
                listed.kinds.extend(abs.extension().map(OsString::from));
                listed.files.entry(abs).or_insert(Entry {
                    harness,
                    words: through.words.clone(),
                });
            }
        }
        self.through = Some(listed).filter(|l| !l.files.is_empty());
        Ok(())
    }

    /// A file at `abs` the listing holds, added with its harness's command (`Some(true)`); a
    /// walked file of the listed kind it does not hold, passed over (`Some(false)`); `None`:
    /// the listing does not decide.
    pub(super) fn add_listed(&mut self, abs: &Path, path: &Path, origin: Origin) -> Option<bool> {
        let listed = self.through.as_ref()?;
        let Some(entry) = listed.files.get(abs) else {
            let kind = abs.extension().is_some_and(|e| listed.kinds.contains(e));
            if origin == Origin::Walk && kind {
                self.pass_over(path, PassedOverWhy::Unrun(UNLISTED));
                return Some(false);
            }
            return None;
        };
        let (harness, words) = (entry.harness, entry.words.clone());
        let file = self.through_file(harness, &words, path.to_path_buf(), abs);
        self.found.insert(abs.to_path_buf(), file);
        Some(true)
    }

    /// The file at `path` (from the cwd; `abs` absolute) as `harness` runs it for the
    /// followed command `words`.
    pub(super) fn through_file(
        &mut self,
        harness: &'static dyn Harness,
        words: &[String],
        path: PathBuf,
        abs: &Path,
    ) -> TestFile {
        let rel = crate::util::paths::relative(abs, &self.root);
        let command = harness.command_through(words, &path, &mut self.cx());
        let input = super::Input {
            harness: Some(harness.id()),
            silent: harness.silent(rel.rsplit('/').next().unwrap_or(&rel)),
            counting: harness.counts(),
            ..super::Input::default()
        };
        TestFile {
            path,
            rel,
            command,
            input,
        }
    }
}
