//! `tapline run --coverage`: each test file's line coverage, measured by each runtime's own
//! engine (a [`CoverageEngine`] of the registry's [`COVERAGE_ENGINES`]; docs/coverage.md
//! names them) and reached through the same variables as the dependency traces
//! ([`super::trace`]), so that a test's subprocesses are measured too. An engine whose output
//! is V8's JSON is read here ([`v8`], its source maps by [`remap`]): a browser page's coverage
//! has the same form.
//!
//! Only files under the project root count, never a dependency's (a folder a language installs
//! packages in, [`dependency`]), and not the run's test files unless `[coverage]
//! tests = true` (or the project's own config of an engine chooses them). A runtime
//! without its engine, or a source an engine cannot analyse, is said once in the summary;
//! nothing here can fail a test, add to its output or count against its timeout.
pub mod remap;
pub mod v8;

use super::trace::{self, Kind, Roots, ScratchDir};
use crate::coverage::{Lang, SourceLines, TestCoverage};
use crate::harness::api::Id;
use crate::harness::registry::COVERAGE_ENGINES;
use crate::harness::trace::CoverageEngine;
use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::Arc;

pub(crate) use crate::harness::trace::Measured;

/// `[coverage]` of `tapline.toml`, read where the configuration is read.
pub use super::config::coverage::Config;

/// The run's engines and where each test file's figures are written.
#[derive(Debug)]
pub struct Collector {
    root: PathBuf,
    /// tapline's own coverage hooks (beside the trace hooks, in a folder of their own: a
    /// coverage hook may have a trace hook's name).
    hooks: PathBuf,
    scratch: ScratchDir,
    /// The run's test files (project-relative): not measured unless `tests`.
    test_files: HashSet<String>,
    tests: bool,
    /// The languages whose engines measure in this run (each asked once).
    active: Vec<Id>,
    /// The languages of the planned files ([`Kind::Language`]).
    languages: BTreeSet<Id>,
}

/// What the run measures, from its files.
pub struct Setup<'a> {
    pub root: &'a Path,
    /// Every planned test file, project-relative.
    pub test_files: Vec<String>,
    /// The languages the planned files run ([`Kind::Language`]): an engine may measure only
    /// when some file runs its language.
    pub languages: BTreeSet<Id>,
    /// `[coverage] tests = true`: the test files are measured too.
    pub tests: bool,
}

impl Collector {
    /// Writes the hooks and makes the run's scratch folder.
    ///
    /// # Errors
    ///
    /// The hooks' folder cannot be made or written.
    pub fn new(setup: Setup<'_>) -> std::io::Result<Arc<Collector>> {
        let all: Vec<(&str, &str)> = (COVERAGE_ENGINES.iter())
            .flat_map(|engine| engine.hooks().iter().copied())
            .collect();
        let hooks = trace::versioned_hooks("coverage", &all)?;
        let scratch = ScratchDir::create(&hooks)?;
        let active = (COVERAGE_ENGINES.iter().copied())
            .filter(|engine| engine.available(setup.languages.contains(engine.id())))
            .map(|engine| engine.id())
            .collect();
        Ok(Arc::new(Collector {
            root: setup.root.to_path_buf(),
            active,
            languages: setup.languages,
            hooks,
            scratch,
            test_files: setup.test_files.into_iter().collect(),
            tests: setup.tests,
        }))
    }

    /// The variables every child gets so that its engine starts, set over `vars` (the
    /// child's environment as configured; `inherited` reads tapline's own).
    pub fn add_env(
        &self,
        vars: &mut Vec<(OsString, OsString)>,
        inherited: impl Fn(&str) -> Option<OsString>,
    ) {
        let get = |vars: &Vec<(OsString, OsString)>, key: &str| -> Option<OsString> {
            vars.iter()
                .find(|(k, _)| k == key)
                .map(|(_, v)| v.clone())
                .or_else(|| inherited(key))
        };
        let edits =
            (self.active_engines()).flat_map(|engine| engine.run_env(&self.hooks, &self.root));
        for (key, edit) in edits {
            let value = trace::edited(get(vars, key), edit);
            trace::set(vars, key, value);
        }
    }

    /// The engines that measure in this run, in the registry's order.
    fn active_engines(&self) -> impl Iterator<Item = &'static dyn CoverageEngine> + '_ {
        (COVERAGE_ENGINES.iter().copied()).filter(|engine| self.active.contains(&engine.id()))
    }

    /// One planned file's measurement (none for a file that does not run).
    pub fn for_planned(self: &Arc<Collector>, p: &super::Planned) -> Option<FileCoverage> {
        let argv = p.command.as_ref().ok()?;
        if p.input.skip.is_some() {
            return None;
        }
        let kind = match p.input.host {
            super::discover::Host::Page => Some(Kind::Page),
            _ => Kind::of(argv, p.input.suite),
        };
        let base = self.scratch.0.join(p.info.index.to_string());
        let cwd = p.input.cwd.clone();
        Some(FileCoverage {
            collector: Arc::clone(self),
            kind,
            rel: p.info.rel.clone(),
            base,
            cwd,
        })
    }

    /// `path` as a measured source: project-relative, not a dependency, not a test file
    /// (unless `tests`: the test files are measured too).
    fn source(&self, roots: &Roots, path: &Path, tests: bool) -> Option<String> {
        let rel = roots.rel(path)?;
        let test = !tests && self.test_files.contains(&rel);
        (!test && !dependency(&self.root, &rel)).then_some(rel)
    }
}

/// Whether `path` is of a language some engine measures, by its extension (a changed README
/// or YAML file is no code).
pub fn is_measured_language(path: &str) -> bool {
    path.rsplit_once('.').is_some_and(|(_, ext)| {
        (COVERAGE_ENGINES.iter()).any(|engine| engine.extensions().contains(&ext))
    })
}

/// `rel` (under `root`) is someone else's code: in a folder a language installs packages
/// in, or in a folder holding a language's mark of an environment of installed packages
/// ([`CoverageEngine::dependency_dirs`], [`CoverageEngine::dependency_mark`]).
fn dependency(root: &Path, rel: &str) -> bool {
    let parts: Vec<&str> = rel.split('/').collect();
    let dirs = COVERAGE_ENGINES.iter().flat_map(|e| e.dependency_dirs());
    let named = dirs.clone().any(|dir| parts.contains(dir));
    let marks: Vec<&str> = COVERAGE_ENGINES
        .iter()
        .filter_map(|e| e.dependency_mark())
        .collect();
    let mut folder = root.to_path_buf();
    let in_env = parts.iter().take(parts.len().saturating_sub(1)).any(|p| {
        folder.push(p);
        marks.iter().any(|mark| folder.join(mark).is_file())
    });
    named || in_env
}

/// One test file's measurement in the making.
#[derive(Debug)]
pub struct FileCoverage {
    collector: Arc<Collector>,
    kind: Option<Kind>,
    rel: String,
    /// `<scratch>/<index>`: the engines' outputs are this with an extension.
    base: PathBuf,
    /// The file's own folder when it has one (a suite's `dir`); else the run's.
    cwd: Option<PathBuf>,
}

impl FileCoverage {
    /// The engines measuring this file: every one measuring every child, and the file's own
    /// language's.
    fn engines(&self) -> impl Iterator<Item = &'static dyn CoverageEngine> + '_ {
        self.collector.active_engines().filter(|engine| {
            !engine.own_files_only() || self.kind == Some(Kind::Language(engine.id()))
        })
    }

    fn out(&self, ext: &str) -> PathBuf {
        let mut name = self.base.clone().into_os_string();
        name.push(ext);
        name.into()
    }

    /// What the file's child gets beyond the run's variables: every engine's output place,
    /// whatever language the test is (a test of one language may start another's).
    pub fn env(&self) -> Vec<(OsString, OsString)> {
        (self.engines())
            .flat_map(|engine| engine.file_env(&self.out(engine.ext())))
            .collect()
    }

    /// Where a file run as a page writes its coverage (`None` for any other file): the
    /// folder V8 writes to for a process, in the same form (the page host writes it).
    pub fn page_out(&self) -> Option<PathBuf> {
        (self.kind == Some(Kind::Page)).then(|| self.out(".v8"))
    }

    /// The command as it must be to be measured (a suite that writes a profile).
    pub fn adapt(&self, argv: Vec<OsString>) -> Vec<OsString> {
        (self.engines()).fold(argv, |argv, engine| {
            engine.adapt(argv, &self.out(engine.ext()))
        })
    }

    /// Reads what the engines wrote, once the file's processes have all ended, and removes
    /// it; `None` for a cancelled file (stopped half-way, it says little).
    pub async fn finish(self, record: bool, run_cwd: PathBuf) -> Option<TestCoverage> {
        let mut outputs: Vec<PathBuf> = (COVERAGE_ENGINES.iter())
            .map(|engine| self.out(engine.ext()))
            .collect();
        for engine in COVERAGE_ENGINES {
            outputs.extend(engine.outputs(&self.out(engine.ext())));
        }
        if !record {
            remove(&outputs);
            return None;
        }
        let done = tokio::task::spawn_blocking(move || {
            let measured = self.read(&run_cwd);
            remove(&outputs);
            measured
        })
        .await;
        done.ok()
    }

    fn read(&self, run_cwd: &Path) -> TestCoverage {
        let collector = &self.collector;
        let cwd = self.cwd.as_deref().unwrap_or(run_cwd);
        let roots = Roots::of(&collector.root);
        let mut found: Vec<Measured> = Vec::new();
        let mut missing = Vec::new();
        // The languages whose files the project's own config of their engine chose, test
        // files included.
        let mut own_config: Vec<Lang> = Vec::new();
        for engine in COVERAGE_ENGINES {
            let out = self.out(engine.ext());
            if !self.engines().any(|e| e.id() == engine.id()) {
                let ran = self.kind == Some(Kind::Language(engine.id()))
                    && collector.languages.contains(engine.id());
                missing.extend(engine.missing().filter(|_| ran).map(str::to_owned));
                continue;
            }
            if engine.writes_v8() {
                found.extend(v8::read(&out, &engine.lang()));
                continue;
            }
            match engine.read(&collector.hooks, &out, cwd, &collector.root) {
                Ok(read) => {
                    found.extend(read.measured);
                    missing.extend(read.notes);
                    if read.own_config {
                        own_config.push(engine.lang());
                    }
                }
                Err(note) => missing.push(note),
            }
        }
        if self.kind == Some(Kind::Page) {
            missing.extend(crate::harness::registry::page_coverage_note(
                &self.out(".v8"),
            ));
        }
        let mut sources: BTreeMap<String, SourceLines> = BTreeMap::new();
        for (path, lang, lines) in found {
            let full = if path.is_absolute() {
                path
            } else {
                cwd.join(path)
            };
            let tests = collector.tests || own_config.contains(&lang);
            let Some(rel) = collector.source(&roots, &full, tests) else {
                continue;
            };
            let entry = sources.entry(rel.clone()).or_insert_with(|| SourceLines {
                path: rel,
                lang,
                lines: Vec::new(),
            });
            entry.lines = sum_lines(&entry.lines, &lines);
        }
        TestCoverage {
            test: self.rel.clone(),
            sources: sources.into_values().collect(),
            missing,
            root: Some(collector.root.to_string_lossy().into_owned()),
        }
    }
}

/// `a` and `b` summed line by line (two processes of one test loaded the same file).
fn sum_lines(a: &[(u32, u64)], b: &BTreeMap<u32, u64>) -> Vec<(u32, u64)> {
    let mut all: BTreeMap<u32, u64> = a.iter().copied().collect();
    for (&line, &hits) in b {
        *all.entry(line).or_insert(0) += hits;
    }
    all.into_iter().collect()
}

fn remove(outputs: &[PathBuf]) {
    for path in outputs {
        if path.is_dir() {
            let _ = std::fs::remove_dir_all(path);
        } else {
            let _ = std::fs::remove_file(path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::trace::EnvEdit;

    /// A run with no file of any language: every child gets the edits of the engines that
    /// measure without their files, in the registry's order, each after what the child has;
    /// an engine that waits for its language's files adds nothing (which engine does what:
    /// `src/harness/coverage_engines_tests.rs`).
    #[test]
    fn every_child_gets_the_engines_that_measure_in_the_run() {
        let root = tempfile::tempdir().expect("temp dir");
        let collector = Collector::new(Setup {
            root: root.path(),
            test_files: vec![],
            languages: BTreeSet::new(),
            tests: false,
        })
        .expect("collector");
        let edits: Vec<(&str, EnvEdit)> = (COVERAGE_ENGINES.iter())
            .filter(|engine| engine.available(false))
            .flat_map(|engine| engine.run_env(&collector.hooks, root.path()))
            .collect();
        assert!(
            !edits.is_empty(),
            "some engine measures every child (the test needs one)"
        );
        let mut vars: Vec<(OsString, OsString)> = Vec::new();
        for (key, _) in &edits {
            if !vars.iter().any(|(k, _)| k == key) {
                vars.push(((*key).into(), OsString::from("/mine")));
            }
        }
        collector.add_env(&mut vars, |_| None);
        let mut expected: Vec<(OsString, OsString)> = Vec::new();
        for (key, edit) in edits {
            let before = (expected.iter().find(|(k, _)| k == key))
                .map_or_else(|| OsString::from("/mine"), |(_, v)| v.clone());
            let value = match edit {
                EnvEdit::AppendWords(words) => format!("{} {words}", before.to_string_lossy()),
                EnvEdit::PrependPath(first) => {
                    format!("{}:{}", first.display(), before.to_string_lossy())
                }
                EnvEdit::Set(value) => value.to_string_lossy().into_owned(),
            };
            match expected.iter_mut().find(|(k, _)| k == key) {
                Some((_, v)) => *v = value.into(),
                None => expected.push((key.into(), value.into())),
            }
        }
        assert_eq!(vars, expected);
    }

    /// A file is measured by the extension of some engine's sources.
    #[test]
    fn a_file_is_measured_by_some_engines_extension() {
        for engine in COVERAGE_ENGINES {
            for ext in engine.extensions() {
                assert!(is_measured_language(&format!("src/a.{ext}")), "{ext}");
            }
        }
        assert!(!is_measured_language("README.md"));
        assert!(!is_measured_language("t/a.t"));
        assert!(!is_measured_language("Makefile"));
    }

    /// Each engine's dependency folders, at any depth, and a folder holding its mark of an
    /// environment of installed packages, are never the project's code.
    #[test]
    fn an_engines_dependency_folders_are_never_the_projects_code() {
        let root = tempfile::tempdir().expect("temp dir");
        for dir in COVERAGE_ENGINES.iter().flat_map(|e| e.dependency_dirs()) {
            assert!(
                dependency(root.path(), &format!("vendor/{dir}/pkg.x")),
                "{dir}"
            );
            assert!(
                dependency(root.path(), &format!("web/{dir}/x/index.x")),
                "{dir}"
            );
        }
        let marks: Vec<&str> = (COVERAGE_ENGINES.iter())
            .filter_map(|e| e.dependency_mark())
            .collect();
        for (i, mark) in marks.iter().enumerate() {
            let env = format!("env{i}");
            std::fs::create_dir_all(root.path().join(&env).join("lib")).expect("mkdir");
            std::fs::write(root.path().join(&env).join(mark), "").expect("write");
            assert!(
                dependency(root.path(), &format!("{env}/lib/pkg/mod.x")),
                "{mark}"
            );
            // A file named like the mark is not an environment's.
            assert!(
                !dependency(root.path(), &format!("other{i}/{mark}")),
                "{mark}"
            );
        }
        assert!(!dependency(root.path(), "src/pkg/mod.x"));
    }
}
