//! Where discovery looks: the folders a run with no PATH walks (the project's declaration,
//! `tapline.toml`'s `test_dirs`, else `test/`, `tests/` and `t/`), folders and globs named on
//! the command line, and the walks themselves.
use super::naming;
use super::project::{self, Only, Place};
use super::{DiscoverError, Finder, Origin, PassedOverWhy};
use crate::harness::node::naming::{self as js_naming, TsName};
use crate::harness::registry;
use crate::harness::Harness;
use crate::util::paths::normalize;
use globset::GlobBuilder;
use ignore::WalkBuilder;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};

/// The folders a run with no PATH walks when neither `tapline.toml` nor the project says:
/// whichever exist.
pub(super) const DEFAULT_TEST_DIRS: &[&str] = &["test", "tests", "t"];

/// How a walk goes.
#[derive(Clone, Copy)]
pub(super) struct Walk {
    /// Into subfolders.
    pub recursive: bool,
    /// Past fixture folders, build output and installed packages ([`naming::NOT_TEST_FOLDERS`]):
    /// a directory walk does, a glob does not (the glob is the user's or the project's pick).
    pub skip_not_test_folders: bool,
}

/// What walking a folder for tests found.
pub(super) struct DirCount {
    pub tests: usize,
    /// Files seen at all (an empty folder says so).
    pub files: usize,
}

impl Finder<'_> {
    /// A run with no PATH: `tapline.toml`'s `test_dirs`, else what the project declares, else
    /// the default folders that exist.
    pub(super) fn add_defaults(
        &mut self,
        test_dirs: Option<&[PathBuf]>,
    ) -> Result<(), DiscoverError> {
        if let Some(dirs) = test_dirs {
            let shown: Vec<String> = dirs.iter().map(|d| format!("`{}`", d.display())).collect();
            return self.add_folders(dirs, true, &shown.join(", "));
        }
        if let Some(declared) = project::declared(self.cwd) {
            // Its files run beside each other as the harness it follows runs them.
            self.lane = declared.lane;
            for place in &declared.places {
                self.add_place(place)?;
            }
            for excludes in declared.excludes {
                self.drop_excluded(excludes);
            }
            if !self.found.is_empty() {
                self.declared = Some(declared.source);
                self.declared_one_at_a_time = declared.one_at_a_time;
                return Ok(());
            }
            if !self.has_user_rules() {
                return Err(DiscoverError::NoDeclaredTests(declared.source));
            }
        }
        // A script naming a harness tapline does not follow is never guessed at (its files
        // under plain node fail for want of its globals): it is named, unless the user's own
        // rules say how to run its files.
        if let Some(unfollowed) = project::unfollowed(self.cwd) {
            if !self.has_user_rules() {
                return Err(DiscoverError::Unfollowed(unfollowed.message()));
            }
        }
        // A harness's own configuration naming the files (`Harness::configures_files`).
        let root = self.root.clone();
        let configured = registry::HARNESSES
            .iter()
            .filter(|h| h.configures_files(self.cwd))
            .find_map(|h| Some((h.project_files(self.cwd, &root)?, h.no_project_files())));
        if let Some((files, none)) = configured {
            return self.add_project_files(files, none);
        }
        let dirs: Vec<PathBuf> = if let Some(owner) = self.owner {
            owner.owned_dirs().iter().map(PathBuf::from).collect()
        } else {
            DEFAULT_TEST_DIRS.iter().map(PathBuf::from).collect()
        };
        // A harness's project with no test folder: where the harness looks with no argument.
        if !dirs.iter().any(|d| self.cwd.join(d).is_dir()) {
            let root = self.root.clone();
            let found = registry::HARNESSES
                .iter()
                .find_map(|h| Some((h.project_files(self.cwd, &root)?, h.no_project_files())));
            if let Some((files, none)) = found {
                return self.add_project_files(files, none);
            }
        }
        let looked: Vec<String> = dirs.iter().map(|d| format!("`{}/`", d.display())).collect();
        // Inside a folder of `*.t` tests (`cd t && make`, as shell test libraries run theirs),
        // that folder is the one to walk.
        let here = [PathBuf::new()];
        let dirs: &[PathBuf] = match dirs.iter().any(|d| self.cwd.join(d).is_dir()) {
            false if registry::holds_own_only(self.cwd) => &here,
            _ => &dirs,
        };
        // Followed as its harness runs it (a folder's own files only, as a harness without
        // its recursive switch).
        self.bare = true;
        let added = self.add_folders(dirs, false, &looked.join(", "));
        self.bare = false;
        added
    }

    /// Whether `tapline.toml` has `[[runner]]` rules of the user's.
    pub(super) fn has_user_rules(&self) -> bool {
        self.rules
            .iter()
            .any(|r| matches!(r.kind, super::RuleKind::User))
    }

    /// Adds a harness's project files (`none`: why there are none, when so).
    fn add_project_files(
        &mut self,
        files: Result<Vec<PathBuf>, ignore::Error>,
        none: &'static str,
    ) -> Result<(), DiscoverError> {
        let files = files.map_err(|source| DiscoverError::Walk {
            path: PathBuf::from("."),
            source,
        })?;
        for path in files {
            self.add(path, Origin::Named);
        }
        if self.found.is_empty() {
            return Err(DiscoverError::NoProjectFiles(none));
        }
        Ok(())
    }

    /// Walks those of `dirs` that exist; none, or no test in any, is an error naming them.
    fn add_folders(
        &mut self,
        dirs: &[PathBuf],
        test_folder: bool,
        looked: &str,
    ) -> Result<(), DiscoverError> {
        let existing: Vec<&PathBuf> = dirs.iter().filter(|d| self.cwd.join(d).is_dir()).collect();
        if existing.is_empty() {
            return Err(DiscoverError::NoTestFolder(looked.to_owned()));
        }
        let mut files = 0;
        for dir in &existing {
            files += self.add_dir(dir, test_folder)?.files;
        }
        if self.found.is_empty() {
            let places: Vec<String> = existing
                .iter()
                .map(|d| format!("`{}`", d.display()))
                .collect();
            let places = places.join(", ");
            return Err(if files == 0 {
                DiscoverError::EmptyFolder(places)
            } else {
                self.no_tests(places)
            });
        }
        Ok(())
    }

    /// Adds the tests under `dir`, recursively. `test_folder`: the user or the project named
    /// it as holding tests, so every JavaScript file in it is one (as in a `test/` folder).
    pub(super) fn add_dir(
        &mut self,
        dir: &Path,
        test_folder: bool,
    ) -> Result<DirCount, DiscoverError> {
        let walk = Walk {
            recursive: true,
            skip_not_test_folders: true,
        };
        let files = self.walk(dir, walk)?;
        let count = files.len();
        self.test_folder = test_folder;
        self.enter(dir);
        let mut tests = 0;
        for path in files {
            if self.add(path.clone(), Origin::Walk) {
                tests += 1;
            } else {
                self.pass_over_walked(&path);
            }
        }
        self.test_folder = false;
        self.folder = None;
        Ok(DirCount {
            tests,
            files: count,
        })
    }

    /// Drops the files a followed harness's own configuration excludes: it never runs them.
    pub(super) fn drop_excluded(&mut self, excludes: project::Excludes) {
        let Some(excluded) = excludes(self.cwd) else {
            return;
        };
        let cwd = normalize(self.cwd);
        let dropped: Vec<PathBuf> = self
            .found
            .iter()
            .filter(|(_, file)| {
                let abs = normalize(&self.cwd.join(&file.path));
                abs.strip_prefix(&cwd)
                    .is_ok_and(|inside| excluded.is_match(inside))
            })
            .map(|(key, _)| key.clone())
            .collect();
        for abs in dropped {
            if let Some(file) = self.found.remove(&abs) {
                self.pass_over(&file.path, PassedOverWhy::TapExcluded);
            }
        }
    }

    /// Adds the files a place of the project's test command runs.
    pub(super) fn add_place(&mut self, place: &Place) -> Result<(), DiscoverError> {
        if let Only::Through(through) = &place.only {
            return self.add_through(through);
        }
        let abs = self.cwd.join(&place.path);
        if abs.is_file() {
            self.add(place.path.clone(), Origin::Named);
            return Ok(());
        }
        if !abs.is_dir() {
            return Ok(());
        }
        if let Only::Glob(pattern) = &place.only {
            self.add_glob(pattern)?;
            return Ok(());
        }
        let walk = Walk {
            recursive: place.recursive,
            skip_not_test_folders: true,
        };
        for path in self.walk(&place.path, walk)? {
            let name = path.file_name().and_then(OsStr::to_str).unwrap_or_default();
            let ext = name.rsplit_once('.').map_or("", |(_, ext)| ext);
            let takes = match &place.only {
                Only::Names(globs) => globs.iter().any(|g| glob_matches(g, name)),
                Only::Js { ts } => {
                    (matches!(ext, "js" | "mjs" | "cjs") && js_naming::is_js_test(&path, false)
                        || *ts && ext == "ts" && js_naming::is_tap_ts_test(&path))
                        && !crate::harness::node::init_module::is_init_name(name)
                }
                Only::Ts => js_naming::ts_name(name) == TsName::Test,
                Only::Glob(_) | Only::Through(_) => false,
            };
            if !(takes && self.add(path.clone(), Origin::Named)) {
                self.pass_over_walked(&path);
            }
        }
        Ok(())
    }

    /// Adds the files a harness that runs its own files lists for a followed command, each
    /// run through it.
    fn add_through(&mut self, through: &project::Through) -> Result<(), DiscoverError> {
        let Some((harness, files)) = self.listing(through)? else {
            // The harness cannot list here: its files are where the fallback places say.
            let before: std::collections::BTreeSet<PathBuf> = self.found.keys().cloned().collect();
            for place in &through.fallback {
                self.add_place(place)?;
            }
            // Still its files: counted as it counts them, and started as its older runner
            // starts them.
            let Some(harness) = registry::harness(through.harness) else {
                return Ok(());
            };
            // What it runs around the files is no test of its own.
            let scripts: Vec<PathBuf> = (self.around.iter())
                .flat_map(|a| [&a.before, &a.after])
                .flatten()
                .map(|s| normalize(&self.cwd.join(&s.file)))
                .collect();
            self.found
                .retain(|abs, _| before.contains(abs) || !scripts.contains(abs));
            for (abs, file) in &mut self.found {
                if before.contains(abs) {
                    continue;
                }
                file.input.counting = harness.counts();
                let walked = file.command.as_deref().unwrap_or_default();
                let made = harness.fallback_command(&through.words, &file.path, walked, self.cwd);
                if let Some(command) = made {
                    file.command = Ok(command);
                }
            }
            return Ok(());
        };
        for path in files {
            let abs = normalize(&self.cwd.join(&path));
            if !self.found.contains_key(&abs) && abs.is_file() {
                self.add_one_listed(harness, &through.words, path, abs);
            }
        }
        Ok(())
    }

    /// Adds the file at `path` (`abs`) `harness` listed for the followed command `words`, run
    /// through it; a `[[runner]]` of the user's that maps it, or `--exec`, says how it runs
    /// instead.
    fn add_one_listed(
        &mut self,
        harness: &'static dyn Harness,
        words: &[String],
        path: PathBuf,
        abs: PathBuf,
    ) {
        if self.exec.is_some() || self.user_rule_maps(&abs) {
            // `add` leaves a file a user's rule maps to that rule.
            self.add(path, Origin::Named);
            return;
        }
        let file = self.through_file(harness, words, path, &abs);
        self.found.insert(abs, file);
    }

    /// Adds the tests matching `pattern`; returns how many match.
    pub(super) fn add_glob(&mut self, pattern: &str) -> Result<usize, DiscoverError> {
        let matcher = GlobBuilder::new(pattern)
            .literal_separator(true)
            .build()
            .map_err(|e| DiscoverError::Glob {
                pattern: pattern.to_owned(),
                kind: e.kind().clone(),
            })?
            .compile_matcher();
        // Walk only the literal directories the pattern starts with: cheaper, and it lets
        // `../other/*.t` or an absolute pattern match at all.
        let first_meta = pattern.find(['*', '?', '[', '{']).unwrap_or(pattern.len());
        let base = Path::new(
            pattern[..first_meta]
                .rfind('/')
                .map_or("", |slash| &pattern[..=slash]),
        );
        if !self.cwd.join(base).is_dir() {
            return Ok(0);
        }
        let walk = Walk {
            recursive: true,
            skip_not_test_folders: false,
        };
        let files = self.walk(base, walk)?;
        Ok(files
            .into_iter()
            .filter(|path| matcher.is_match(path) && self.add(path.clone(), Origin::Named))
            .count())
    }

    /// Every non-directory under `dir`, as `dir` joined with its path inside.
    pub(super) fn walk(&self, dir: &Path, how: Walk) -> Result<Vec<PathBuf>, DiscoverError> {
        let start = self.cwd.join(dir);
        let walker = WalkBuilder::new(&start)
            // A fresh project's .gitignore counts before `git init` too.
            .require_git(false)
            .max_depth((!how.recursive).then_some(1))
            .filter_entry(move |entry| {
                let name = entry.file_name();
                let dependency = registry::dependency_folders().any(|d| name == d);
                let not_tests = how.skip_not_test_folders
                    && entry.depth() > 0
                    && entry.file_type().is_some_and(|t| t.is_dir())
                    && naming::is_not_test_folder(name);
                !(dependency || not_tests)
            })
            .build();
        let mut files = Vec::new();
        for entry in walker {
            let entry = entry.map_err(|source| DiscoverError::Walk {
                path: dir.to_path_buf(),
                source,
            })?;
            if entry.file_type().is_some_and(|kind| !kind.is_dir()) {
                if let Ok(inside) = entry.path().strip_prefix(&start) {
                    files.push(dir.join(inside));
                }
            }
        }
        Ok(files)
    }
}

/// Whether a file name matches a built-in name glob (`*.t`, `test*.ts`).
fn glob_matches(glob: &str, name: &str) -> bool {
    GlobBuilder::new(glob)
        .literal_separator(true)
        .build()
        .is_ok_and(|g| g.compile_matcher().is_match(name))
}
