//! The per-interpreter plugs of the dependency traces and of `--coverage`: a language's trace
//! hook ([`TraceHook`]) and its coverage engine ([`CoverageEngine`]). They are per interpreter,
//! not per harness: a Perl test may start node, so every child gets every language's variables.
//! The runner (`run::trace`, `run::coverage`) loops over the registry's lists of them
//! ([`super::registry::TRACE_HOOKS`], [`super::registry::COVERAGE_ENGINES`]) and never names a
//! language.
use super::api::Id;
use crate::coverage::Lang;
use crate::util::paths::normalize;
use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// A source file an engine measured: its path (absolute, or relative to the test's folder),
/// its language and each line's hits.
pub type Measured = (PathBuf, Lang, BTreeMap<u32, u64>);

/// How a variable every child gets is changed so that a hook or an engine loads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum EnvEdit {
    /// Space-separated options after what the variable held (`PERL5OPT`, `NODE_OPTIONS`).
    AppendWords(String),
    /// A folder first in a `:` list (`PYTHONPATH`).
    PrependPath(PathBuf),
    /// The value, whatever the variable held.
    Set(OsString),
}

/// A language's dependency trace: which commands it traces, the hook files every child of the
/// run can load, and the files whose change the selection treats as its own.
pub(crate) trait TraceHook: Sync {
    /// The language's name (`"perl"`, `"node"`): a trace's kind.
    fn id(&self) -> Id;

    /// Whether `program` (a command's program, its base name) is this language's interpreter,
    /// whose hook then traces the file.
    fn is_program(&self, _program: &str) -> bool {
        false
    }

    /// Whether a `[[suite]]`'s command is traced by this language (`go test`).
    fn is_suite(&self, _argv: &[OsString]) -> bool {
        false
    }

    /// The hook files (name, text), written into the run's hooks folder.
    fn hooks(&self) -> &'static [(&'static str, &'static str)] {
        &[]
    }

    /// The variable every child gets so that the hook in `dir` loads, and how; `None` when
    /// the variable cannot carry `dir` (white space, a `:`).
    fn env(&self, _dir: &Path) -> Option<(&'static str, EnvEdit)> {
        None
    }

    /// The trace of a file asked of a tool once it has run (`go list`) rather than read from
    /// the hook's output: `None` when the hook's output is the trace, else the project files
    /// or why the tool could not say (in the words of the run's note).
    fn by_command(
        &self,
        _argv: &[OsString],
        _cwd: &Path,
        _root: &Path,
    ) -> Option<Result<Vec<String>, &'static str>> {
        None
    }

    /// File names (at any depth) whose change alters every run of this language's tests
    /// (its manifests and lockfiles).
    fn shapes_every_run(&self) -> &'static [&'static str] {
        &[]
    }

    /// Whether a file name not in [`TraceHook::shapes_every_run`] does too, by its form
    /// (`requirements-dev.txt`).
    fn shapes_every_run_like(&self, _name: &str) -> bool {
        false
    }

    /// Extensions of the files its hook records when loaded (its modules).
    fn module_exts(&self) -> &'static [&'static str] {
        &[]
    }
}

/// What an engine read of one test file's measurement.
#[derive(Debug, Default)]
pub(crate) struct Reading {
    pub(crate) measured: Vec<Measured>,
    /// A source left out, or an analysis that failed, said once in the summary.
    pub(crate) notes: Vec<String>,
    /// The project's own configuration of the engine chose its files (test files included).
    pub(crate) own_config: bool,
}

/// A language's line coverage: how its engine starts in every child, and how its figures are
/// read back once the test file has ended.
pub(crate) trait CoverageEngine: Sync {
    /// The language's name, as its [`TraceHook`]'s.
    fn id(&self) -> Id;

    /// The language its figures are counted as.
    fn lang(&self) -> Lang;

    /// The extension of the test file's output (`<scratch>/<index><ext>`).
    fn ext(&self) -> &'static str;

    /// The extensions of the sources it measures.
    fn extensions(&self) -> &'static [&'static str] {
        &[]
    }

    /// Folders (by name, at any depth) its language installs other people's packages in:
    /// never measured.
    fn dependency_dirs(&self) -> &'static [&'static str] {
        &[]
    }

    /// A file whose folder is an environment of installed packages (a virtualenv's
    /// `pyvenv.cfg`): nothing below that folder is measured.
    fn dependency_mark(&self) -> Option<&'static str> {
        None
    }

    /// Its files (name, text), written into the coverage hooks' folder.
    fn hooks(&self) -> &'static [(&'static str, &'static str)] {
        &[]
    }

    /// Whether it measures in this run, asked once; `has_files`: some planned file runs
    /// this language.
    fn available(&self, _has_files: bool) -> bool {
        true
    }

    /// It measures only the files its language runs (a suite's own flag), not every child.
    fn own_files_only(&self) -> bool {
        false
    }

    /// The variables every child gets (given the hooks' folder and the project root).
    fn run_env(&self, _hooks: &Path, _root: &Path) -> Vec<(&'static str, EnvEdit)> {
        Vec::new()
    }

    /// What one test file's child gets, `out` being its output.
    fn file_env(&self, _out: &Path) -> Vec<(OsString, OsString)> {
        Vec::new()
    }

    /// The command as it must be to be measured, `out` being its output.
    fn adapt(&self, argv: Vec<OsString>, _out: &Path) -> Vec<OsString> {
        argv
    }

    /// Files beside `out` that its processes wrote too, removed with it.
    fn outputs(&self, _out: &Path) -> Vec<PathBuf> {
        Vec::new()
    }

    /// Its output is a folder of V8's JSON, which the runner reads (the format the page's
    /// coverage shares), rather than [`CoverageEngine::read`].
    fn writes_v8(&self) -> bool {
        false
    }

    /// The figures in `out` (`Err`: why none, said once in the summary); `cwd` is the test's
    /// folder, which relative paths are relative to.
    fn read(
        &self,
        _hooks: &Path,
        _out: &Path,
        _cwd: &Path,
        _root: &Path,
    ) -> Result<Reading, String> {
        Ok(Reading::default())
    }

    /// What the summary says once when a file of its language ran and it did not measure.
    fn missing(&self) -> Option<&'static str> {
        None
    }
}

/// The project root as paths name it: as given and as its real path. Paths are matched by
/// name only: the thousands a run's hooks report (most outside the project) are never
/// resolved one by one.
pub(crate) struct Roots(Vec<PathBuf>);

impl Roots {
    pub(crate) fn of(root: &Path) -> Roots {
        let mut roots = vec![normalize(root)];
        if let Ok(real) = std::fs::canonicalize(root) {
            if real != roots[0] {
                roots.push(real);
            }
        }
        Roots(roots)
    }

    pub(crate) fn rel(&self, path: &Path) -> Option<String> {
        let lexical = normalize(path);
        let rel = self.0.iter().find_map(|r| lexical.strip_prefix(r).ok())?;
        let text: Vec<String> = rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        (!text.is_empty()).then(|| text.join("/"))
    }
}

#[cfg(test)]
mod tests {
    use super::super::registry::{traced_by, COVERAGE_ENGINES, TRACE_HOOKS};
    use std::ffi::OsString;

    /// The hooks' folder is named by a hash of their texts in this order: the languages'
    /// hooks moved to their rooms (issue #39) keep it, and with it the folder a taint-mode
    /// perl's command line names (which the result cache keys on). The coverage hooks' too.
    #[test]
    fn the_hooks_are_hashed_in_the_order_they_always_were() {
        let names = |hooks: &mut dyn Iterator<Item = &'static (&'static str, &'static str)>| {
            hooks.map(|(name, _)| *name).collect::<Vec<_>>()
        };
        assert_eq!(
            names(&mut TRACE_HOOKS.iter().flat_map(|h| h.hooks().iter())),
            [
                "TaplineTrace.pm",
                "tapline-trace.cjs",
                "tapline-compiled.cjs",
                "sitecustomize.py"
            ]
        );
        assert_eq!(
            names(&mut COVERAGE_ENGINES.iter().flat_map(|e| e.hooks().iter())),
            ["sitecustomize.py", "tapline-cover-db.pl"]
        );
    }

    #[test]
    fn a_command_is_traced_by_its_programs_language() {
        let traced = |words: &[&str], suite: bool| {
            let argv: Vec<OsString> = words.iter().map(OsString::from).collect();
            traced_by(&argv, suite).map(|hook| hook.id())
        };
        assert_eq!(traced(&["/usr/bin/perl5.36", "t/a.t"], false), Some("perl"));
        assert_eq!(traced(&["nodejs", "a.js"], false), Some("node"));
        assert_eq!(traced(&["tsx", "a.ts"], false), Some("node"));
        assert_eq!(traced(&["go", "test", "-json"], true), Some("go"));
        assert_eq!(traced(&["go", "test", "-json"], false), None);
        assert_eq!(traced(&["node", "a.js"], true), None);
        assert_eq!(traced(&["bash", "t/a.sh"], false), None);
        assert_eq!(traced(&[], false), None);
    }

    /// The rows the languages give are the ones `run::trace::select` held before they moved
    /// to their rooms (issue #39), in the same order.
    #[test]
    fn every_languages_manifests_and_modules_are_its_own() {
        let rows: Vec<&str> = (TRACE_HOOKS.iter())
            .flat_map(|h| h.shapes_every_run().iter().copied())
            .collect();
        assert_eq!(
            rows,
            [
                "Makefile.PL",
                "Build.PL",
                "cpanfile",
                "cpanfile.snapshot",
                "dist.ini",
                "META.json",
                "META.yml",
                "package.json",
                "package-lock.json",
                "npm-shrinkwrap.json",
                "yarn.lock",
                "pnpm-lock.yaml",
                "bun.lock",
                "bun.lockb",
                ".npmrc",
                "tsconfig.json",
                "pyproject.toml",
                "setup.py",
                "setup.cfg",
                "requirements.txt",
                "Pipfile",
                "Pipfile.lock",
                "poetry.lock",
                "uv.lock",
                "tox.ini",
                "pytest.ini",
                "conftest.py",
                "go.mod",
                "go.sum",
                "go.work",
                "go.work.sum",
            ]
        );
        let like = |name: &str| TRACE_HOOKS.iter().any(|h| h.shapes_every_run_like(name));
        assert!(like("requirements-dev.txt"));
        assert!(!like("requirements.in"));
        let mut exts: Vec<&str> = (TRACE_HOOKS.iter())
            .flat_map(|h| h.module_exts().iter().copied())
            .collect();
        exts.sort_unstable();
        let mut before = [
            "pm", "pmc", "pl", "t", "js", "mjs", "cjs", "jsx", "ts", "mts", "cts", "tsx", "py",
            "go",
        ];
        before.sort_unstable();
        assert_eq!(exts, before);
        let mut measured: Vec<&str> = (COVERAGE_ENGINES.iter())
            .flat_map(|e| e.extensions().iter().copied())
            .collect();
        measured.sort_unstable();
        let mut before = [
            "js", "mjs", "cjs", "jsx", "ts", "mts", "cts", "tsx", "py", "pm", "pl", "go",
        ];
        before.sort_unstable();
        assert_eq!(measured, before);
    }
}
