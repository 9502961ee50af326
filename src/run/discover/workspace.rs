//! A monorepo's root: each package of its workspace (as its ecosystem declares them,
//! [`crate::harness::Harness::workspace`]) runs its own test script from its own folder, all
//! in one run. A package's files are the ones a run in its folder finds by following its
//! script; each runs there (`Input::cwd`) and is named from the root (`packages/a/test/x.js`).
//!
//! - The root's own test script runs too, when it is followed (a root that only calls the
//!   packages' scripts gives nothing).
//! - A package whose script runs nothing tapline follows, or that has none, is skipped with a
//!   `--list` note; one whose script names a harness tapline does not follow is one failing
//!   entry named after its folder (its tests did not run: the run is not green), unless a
//!   `[[suite]]` runs from its folder.
//! - A package whose harness runs files one at a time keeps them apart: the run goes one file
//!   at a time when every package says so, else that package's files each run alone.
use super::project;
use super::{DiscoverError, Finder, Input, PassedOver, TestFile};
use crate::harness::api::{Lane, MissingInterpreter, Silent};
use crate::harness::follow::Workspace;
use crate::harness::registry;
use crate::run::config::Config;
use crate::util::paths::{normalize, relative};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// What one package gives the run.
enum Package {
    /// Its test script's files.
    Files {
        found: BTreeMap<PathBuf, TestFile>,
        passed_over: Vec<PassedOver>,
        /// The script followed (`package.json scripts.test (…)`).
        source: String,
        one_at_a_time: Option<&'static str>,
    },
    /// It cannot run: one failing entry, with why.
    Fails(String),
    /// Nothing runs from it, with why.
    Skipped(String),
}

impl Finder<'_> {
    /// A run with no PATH at a workspace's root: every package's tests, in the declared order.
    pub(super) fn add_workspace(
        &mut self,
        workspace: Result<Workspace, String>,
        cfg: &Config,
    ) -> Result<(), DiscoverError> {
        let workspace = workspace.map_err(DiscoverError::Workspace)?;
        let dirs = std::iter::once(PathBuf::new()).chain(workspace.packages.iter().cloned());
        let mut ran = Vec::new();
        let mut serial: Vec<(Vec<PathBuf>, Option<&'static str>)> = Vec::new();
        let mut failing: Vec<(PathBuf, String, String)> = Vec::new();
        for dir in dirs {
            let root_itself = dir.as_os_str().is_empty();
            let (shown, package) = self.package(&dir, cfg);
            match package {
                Package::Skipped(_) if root_itself => {}
                Package::Skipped(why) => self.notes.push(format!("{shown}: skipped, {why}")),
                Package::Fails(why) => {
                    ran.push(shown.clone());
                    failing.push((dir, shown, why));
                }
                Package::Files {
                    found,
                    passed_over,
                    source,
                    one_at_a_time,
                } => {
                    self.notes.push(format!("{shown}: following {source}"));
                    let keys = self.take(&dir, found, passed_over);
                    serial.push((keys, one_at_a_time));
                    ran.push(shown);
                }
            }
        }
        let source = format!("{} ({})", workspace.source, self.declared_dirs(&workspace));
        if serial.is_empty() {
            return Err(self.none_runs(source, &failing));
        }
        for (dir, shown, why) in failing {
            self.notes.push(format!("{shown}: fails, {why}"));
            self.add_failing(&dir, why);
        }
        self.keep_apart(&serial);
        // The root's own run says its packages share something: never two at once.
        if let Some(why) = workspace.one_at_a_time {
            self.declared_one_at_a_time = Some(why);
        }
        self.declared = Some(format!("{source}: {}", ran.join(", ")));
        Ok(())
    }

    /// A folder named on the command line that is a package of the workspace in the cwd: its
    /// test script's files, as the run at the root takes them. `false`: not a package, or one
    /// whose script runs nothing tapline follows (then the folder is walked as any other).
    pub(super) fn add_named_package(
        &mut self,
        path: &Path,
        cfg: &Config,
    ) -> Result<bool, DiscoverError> {
        if self.exec.is_some() || !self.cwd.join(path).is_dir() {
            return Ok(false);
        }
        let Some(workspace) = registry::workspace(self.cwd) else {
            return Ok(false);
        };
        let workspace = workspace.map_err(DiscoverError::Workspace)?;
        let abs = normalize(&self.cwd.join(path));
        let Some(dir) = workspace
            .packages
            .iter()
            .find(|p| normalize(&self.cwd.join(p)) == abs)
        else {
            return Ok(false);
        };
        match self.package(dir, cfg).1 {
            Package::Skipped(_) => return Ok(false),
            Package::Fails(why) => self.add_failing(dir, why),
            Package::Files {
                found,
                passed_over,
                source,
                one_at_a_time,
            } => {
                let keys = self.take(dir, found, passed_over);
                self.keep_apart(&[(keys, one_at_a_time)]);
                self.declared.get_or_insert(source);
            }
        }
        Ok(true)
    }

    /// Why a workspace runs nothing: no package's script gave files. Those that cannot run
    /// (`failing`: a harness tapline does not follow, one that could not list its files) are
    /// named, as a project of one package names its own (exit 2), rather than a run of
    /// failing entries alone.
    fn none_runs(&self, source: String, failing: &[(PathBuf, String, String)]) -> DiscoverError {
        match failing {
            [] => DiscoverError::NoDeclaredTests(source),
            [(dir, _, why)] if dir.as_os_str().is_empty() => match project::unfollowed(self.cwd) {
                Some(unfollowed) => DiscoverError::Unfollowed(unfollowed.message()),
                // Its command's own error (a harness that could not list its files).
                None => DiscoverError::Unfollowed(why.clone()),
            },
            _ => {
                let each: Vec<String> = failing
                    .iter()
                    .map(|(_, shown, why)| format!("{shown}: {why}"))
                    .collect();
                DiscoverError::Unfollowed(format!(
                    "failed to find test files: no package of {source} runs tests tapline can \
                     run:\n{}",
                    each.join("\n")
                ))
            }
        }
    }

    /// The workspace's package folders as declared, shortened past a few.
    fn declared_dirs(&self, workspace: &Workspace) -> String {
        let mut shown: Vec<String> = (workspace.packages.iter().take(4))
            .map(|p| p.display().to_string())
            .collect();
        if workspace.packages.len() > 4 {
            shown.push(format!("… {} packages", workspace.packages.len()));
        }
        if shown.is_empty() {
            return "no package".to_owned();
        }
        shown.join(", ")
    }

    /// What the package at `dir` (from the cwd; empty: the root itself) gives, and its name.
    fn package(&self, dir: &Path, cfg: &Config) -> (String, Package) {
        let abs = normalize(&self.cwd.join(dir));
        let rel = dir_rel(&abs, &self.root);
        let shown = match rel.as_str() {
            "." => "the root".to_owned(),
            _ => rel.clone(),
        };
        // The user's `[[suite]]` running from its folder runs it already.
        if !dir.as_os_str().is_empty() && cfg.suites.iter().any(|s| normalize(&s.dir) == abs) {
            let why = "a [[suite]] of tapline.toml runs from its folder".to_owned();
            return (shown, Package::Skipped(why));
        }
        let Some(declared) = project::declared(&abs) else {
            let why = match (project::unfollowed(&abs), project::test_script(&abs)) {
                (Some(unfollowed), _) => return (shown, fails(unfollowed, &rel)),
                (None, Some(script)) => format!("its {script} runs nothing tapline follows"),
                (None, None) => "its package.json has no scripts.test".to_owned(),
            };
            return (shown, Package::Skipped(why));
        };
        let mut sub = Finder::new(&abs, &self.root, cfg, None);
        sub.lane = declared.lane;
        for place in &declared.places {
            if let Err(e) = sub.add_place(place) {
                return (shown, Package::Fails(e.to_string()));
            }
        }
        for excludes in declared.excludes {
            sub.drop_excluded(excludes);
        }
        if sub.found.is_empty() {
            let why = format!("its {} names no file tapline can run", declared.source);
            return (shown, Package::Skipped(why));
        }
        let package = Package::Files {
            found: sub.found,
            passed_over: sub.passed_over,
            source: declared.source,
            one_at_a_time: declared.one_at_a_time,
        };
        (shown, package)
    }

    /// Takes a package's files in, each run from its folder; returns their keys.
    fn take(
        &mut self,
        dir: &Path,
        found: BTreeMap<PathBuf, TestFile>,
        passed_over: Vec<PassedOver>,
    ) -> Vec<PathBuf> {
        let abs = normalize(&self.cwd.join(dir));
        let elsewhere = abs != normalize(self.cwd);
        if elsewhere && !self.packages.contains(&abs) {
            self.packages.push(abs.clone());
        }
        let mut keys = Vec::new();
        for (key, mut file) in found {
            if elsewhere {
                file.input.cwd = Some(abs.clone());
            }
            keys.push(key.clone());
            self.found.entry(key).or_insert(file);
        }
        self.passed_over.extend(passed_over);
        keys
    }

    /// One failing entry for the package at `dir`, named after its folder.
    fn add_failing(&mut self, dir: &Path, why: String) {
        let abs = normalize(&self.cwd.join(dir));
        let rel = dir_rel(&abs, &self.root);
        if abs != normalize(self.cwd) && !self.packages.contains(&abs) {
            self.packages.push(abs.clone());
        }
        let entry = TestFile {
            path: dir.to_path_buf(),
            rel: rel.clone(),
            command: Err(MissingInterpreter {
                program: String::new(),
                file: PathBuf::from(&rel),
                hint: String::new(),
            }),
            input: Input {
                cwd: Some(abs.clone()),
                suite: true,
                silent: Silent::Fails,
                cannot_run: Some(why),
                ..Input::default()
            },
        };
        self.found.entry(abs).or_insert(entry);
    }

    /// Packages whose harness runs files one at a time: the whole run does when every package
    /// with files does; else each of their files runs alone.
    fn keep_apart(&mut self, serial: &[(Vec<PathBuf>, Option<&'static str>)]) {
        if serial.iter().all(|(_, why)| why.is_some()) {
            self.declared_one_at_a_time = serial.iter().find_map(|(_, why)| *why);
            return;
        }
        for key in serial
            .iter()
            .filter(|(_, why)| why.is_some())
            .flat_map(|(k, _)| k)
        {
            if let Some(file) = self.found.get_mut(key) {
                if file.input.lane == Lane::Free {
                    file.input.lane = Lane::Alone;
                }
            }
        }
    }
}

/// A package whose script names a harness tapline does not follow (`rel`: its folder).
fn fails(unfollowed: project::Unfollowed, rel: &str) -> Package {
    Package::Fails(unfollowed.in_package(rel))
}

/// A folder from the root, `.` for the root itself.
fn dir_rel(abs: &Path, root: &Path) -> String {
    match relative(abs, root) {
        rel if rel.is_empty() => ".".to_owned(),
        rel => rel,
    }
}
