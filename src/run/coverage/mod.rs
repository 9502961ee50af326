//! `tapline run --coverage`: each test file's line coverage, measured by each runtime's own
//! engine and reached through the same variables as the dependency traces
//! ([`super::trace`]), so that a test's subprocesses are measured too:
//!
//! - node and tsx: V8's precise coverage (`NODE_V8_COVERAGE`, a folder per test file), its
//!   block ranges mapped to lines as node's own `--experimental-test-coverage` maps them
//!   ([`v8`]);
//! - Python: coverage.py, started by a `sitecustomize.py` of tapline's when the python running
//!   has it installed ([`python`]);
//! - Perl: Devel::Cover (`PERL5OPT=-MDevel::Cover`, a database per test file), when installed
//!   ([`perl`]);
//! - a `[[suite]]` running `go test`: `-coverprofile` ([`go`]).
//!
//! Only files under the project root count, never a file of `node_modules`, `site-packages` or a
//! virtualenv (a folder holding `pyvenv.cfg`), and not the run's test files unless `[coverage]
//! tests = true` (or, for Python, the project's coverage.py config chooses them). A runtime
//! without its engine, or a source an engine cannot analyse, is said once in the summary;
//! nothing here can fail a test, add to its output or count against its timeout.
pub mod go;
pub mod perl;
pub mod python;
pub mod remap;
pub mod v8;

use super::trace::{self, Kind, Roots, ScratchDir};
use crate::coverage::{Lang, SourceLines, TestCoverage};
use std::collections::{BTreeMap, HashSet};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A source file an engine measured: its path (absolute, or relative to the test's folder),
/// its language and each line's hits.
pub(crate) type Measured = (PathBuf, Lang, BTreeMap<u32, u64>);

/// `[coverage]` of `tapline.toml`, read where the configuration is read.
pub use super::config::coverage::Config;

/// The run's engines and where each test file's figures are written.
#[derive(Debug)]
pub struct Collector {
    root: PathBuf,
    /// tapline's own coverage hooks (beside the trace hooks, in a folder of their own: the
    /// Python hook has the trace hook's name).
    hooks: PathBuf,
    scratch: ScratchDir,
    /// The run's test files (project-relative): not measured unless `tests`.
    test_files: HashSet<String>,
    tests: bool,
    /// Devel::Cover is installed (asked once, only when the run has Perl files).
    devel_cover: bool,
    has_perl: bool,
}

/// What the run measures, from its files.
pub struct Setup<'a> {
    pub root: &'a Path,
    /// Every planned test file, project-relative.
    pub test_files: Vec<String>,
    /// Some file runs perl.
    pub has_perl: bool,
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
        let all: Vec<(&str, &str)> = python::HOOKS.iter().chain(perl::HOOKS).copied().collect();
        let hooks = trace::versioned_hooks("coverage", &all)?;
        let scratch = ScratchDir::create(&hooks)?;
        Ok(Arc::new(Collector {
            root: setup.root.to_path_buf(),
            devel_cover: setup.has_perl && perl::installed(),
            has_perl: setup.has_perl,
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
        if let Some(entry) = trace::python::path_entry(&self.hooks) {
            let value = trace::prepend_path(get(vars, "PYTHONPATH"), entry);
            trace::set(vars, "PYTHONPATH", value);
        }
        if self.devel_cover {
            let value = trace::append_words(get(vars, "PERL5OPT"), "-MDevel::Cover");
            trace::set(vars, "PERL5OPT", value);
        }
        trace::set(vars, python::ROOT_VAR, self.root.clone().into_os_string());
    }

    /// One planned file's measurement (none for a file that does not run).
    pub fn for_planned(self: &Arc<Collector>, p: &super::Planned) -> Option<FileCoverage> {
        let argv = p.command.as_ref().ok()?;
        if p.input.skip.is_some() {
            return None;
        }
        let kind = match p.input.runtime {
            super::discover::Runtime::Chromium => Some(Kind::Browser),
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

/// `rel` (under `root`) is someone else's code: in `node_modules`, a `site-packages` or
/// `dist-packages`, or a virtualenv (any folder holding `pyvenv.cfg`).
fn dependency(root: &Path, rel: &str) -> bool {
    let parts: Vec<&str> = rel.split('/').collect();
    let named = parts
        .iter()
        .any(|p| matches!(*p, "node_modules" | "site-packages" | "dist-packages"));
    let mut folder = root.to_path_buf();
    let in_venv = parts.iter().take(parts.len().saturating_sub(1)).any(|p| {
        folder.push(p);
        folder.join("pyvenv.cfg").is_file()
    });
    named || in_venv
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
    fn out(&self, ext: &str) -> PathBuf {
        let mut name = self.base.clone().into_os_string();
        name.push(ext);
        name.into()
    }

    /// What the file's child gets beyond the run's variables: every engine's output place,
    /// whatever language the test is (a Perl test may start node).
    pub fn env(&self) -> Vec<(OsString, OsString)> {
        let mut vars = vec![
            (OsString::from(v8::VAR), self.out(".v8").into_os_string()),
            (python::OUT_VAR.into(), self.out(".py").into_os_string()),
        ];
        if self.collector.devel_cover {
            let mut options = OsString::from("-silent,1,-db,");
            options.push(self.out(".perl"));
            vars.push((perl::OPTIONS_VAR.into(), options));
        }
        vars
    }

    /// Where a browser file's page writes its coverage (`None` for any other file): the
    /// folder node's V8 writes to, in the same form ([`crate::browser::coverage`]).
    pub fn browser_out(&self) -> Option<PathBuf> {
        (self.kind == Some(Kind::Browser)).then(|| self.out(".v8"))
    }

    /// The command as it must be to be measured: a go suite writes a profile.
    pub fn adapt(&self, argv: Vec<OsString>) -> Vec<OsString> {
        match self.kind {
            Some(Kind::Go) => go::with_profile(argv, &self.out(".go")),
            _ => argv,
        }
    }

    /// Reads what the engines wrote, once the file's processes have all ended, and removes
    /// it; `None` for a cancelled file (stopped half-way, it says little).
    pub async fn finish(self, record: bool, run_cwd: PathBuf) -> Option<TestCoverage> {
        let mut outputs = [".v8", ".py", ".perl", ".go"]
            .map(|ext| self.out(ext))
            .to_vec();
        outputs.extend(python::data_files(&self.out(".py")));
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
        found.extend(v8::read(&self.out(".v8")));
        // The project's coverage.py config chose its Python files, test files included.
        let mut python_config = false;
        match python::read(&self.out(".py"), &collector.root) {
            Ok(read) => {
                found.extend(read.measured);
                missing.extend(read.notes);
                python_config = read.own_config;
            }
            Err(note) => missing.push(note),
        }
        if collector.devel_cover {
            found.extend(perl::read(&collector.hooks, &self.out(".perl"), cwd));
        } else if collector.has_perl && self.kind == Some(Kind::Perl) {
            missing.push(perl::MISSING.to_owned());
        }
        if self.kind == Some(Kind::Go) {
            found.extend(go::read(&self.out(".go"), cwd));
        }
        if self.kind == Some(Kind::Browser) {
            missing.extend(crate::browser::coverage::read_note(&self.out(".v8")));
        }
        let mut sources: BTreeMap<String, SourceLines> = BTreeMap::new();
        for (path, lang, lines) in found {
            let full = if path.is_absolute() {
                path
            } else {
                cwd.join(path)
            };
            let tests = collector.tests || (python_config && lang == Lang::Python);
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

    #[test]
    fn a_virtualenv_site_packages_or_node_modules_is_never_the_projects_code() {
        let root = tempfile::tempdir().expect("temp dir");
        std::fs::create_dir_all(root.path().join("env/lib")).expect("mkdir");
        std::fs::write(root.path().join("env/pyvenv.cfg"), "home = /usr/bin\n").expect("write");
        assert!(dependency(root.path(), "env/lib/pkg/mod.py"));
        assert!(dependency(root.path(), "vendor/site-packages/pkg.py"));
        assert!(dependency(root.path(), "web/node_modules/x/index.js"));
        assert!(!dependency(root.path(), "src/pkg/mod.py"));
        // A file named like the marker is not a virtualenv's.
        assert!(!dependency(root.path(), "env2/pyvenv.cfg"));
    }
}
