//! Which test files a set of changed paths can affect, from the stored traces, and why each
//! runs. The rules (docs/traces.md says the same):
//!
//! 1. a change to what shapes every run ([`shapes_every_run`]: `tapline.toml`, `Makefile`,
//!    each language's manifests and lockfiles) runs everything;
//! 2. a changed test file runs;
//! 3. a changed file a trace holds runs the test files that loaded it;
//! 4. a test file with no trace runs on any change but one to another test file: it may
//!    depend on anything (a test file is an entry point, which other tests do not load);
//! 5. a changed module no trace holds (by a language's module extensions; a new file) runs
//!    the files that failed last time as well (the module they missed may be this one);
//! 6. any other changed file no trace holds (data, templates, fixtures: a test may read them
//!    without loading them, which no trace sees) runs everything.
//!
//! The selection may run too much, never too little.
use super::store::Traces;
use crate::harness::registry::TRACE_HOOKS;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt;
use std::sync::LazyLock;

/// Why a test file runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Why {
    /// The test file itself changed.
    Changed,
    /// It loaded this changed file.
    Loaded(String),
    /// It has no trace, and this changed.
    Untraced(String),
    /// It failed last time, and this module, which no trace holds, changed.
    Failing(String),
    /// This changed, and it shapes every run.
    Everything(String),
    /// This changed, no trace holds it, and a test may read it.
    Unknown(String),
}

impl fmt::Display for Why {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Why::Changed => write!(f, "changed"),
            Why::Loaded(path) => write!(f, "loaded {path}"),
            Why::Untraced(path) => write!(f, "no trace ({path} changed)"),
            Why::Failing(path) => write!(f, "failed last time ({path} is in no trace)"),
            Why::Everything(path) => write!(f, "{path} shapes every run"),
            Why::Unknown(path) => write!(f, "{path} is in no trace (a test may read it)"),
        }
    }
}

/// Files whose change alters every run, whatever loaded them (matched by name, at any depth):
/// tapline's own and the project's build, then every language's manifests and lockfiles
/// ([`crate::harness::trace::TraceHook::shapes_every_run`]).
pub static SHAPES_EVERY_RUN: LazyLock<Vec<&'static str>> = LazyLock::new(|| {
    let languages = TRACE_HOOKS.iter().flat_map(|hook| hook.shapes_every_run());
    let mut names: Vec<&'static str> = vec!["tapline.toml"];
    names.extend(languages.copied());
    names.push("Makefile");
    names
});

/// Whether a change to `path` alters every run.
pub fn shapes_every_run(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    SHAPES_EVERY_RUN.contains(&name) || TRACE_HOOKS.iter().any(|h| h.shapes_every_run_like(name))
}

/// Whether `path` is a module: a file a trace records when loaded (a change to one no trace
/// holds is a module no test loaded), by its extension.
fn is_module(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    name.rsplit_once('.')
        .is_some_and(|(_, ext)| TRACE_HOOKS.iter().any(|h| h.module_exts().contains(&ext)))
}

/// The test files among `tests` that `changed` can affect, each with its first reason;
/// `failing` tells which failed last time. An empty `changed` selects nothing.
pub fn affected(
    changed: &BTreeSet<String>,
    tests: &[&str],
    traces: &Traces,
    failing: &dyn Fn(&str) -> bool,
) -> BTreeMap<String, Why> {
    let mut picked: BTreeMap<String, Why> = BTreeMap::new();
    let mut pick = |test: &str, why: &dyn Fn() -> Why| {
        picked.entry(test.to_owned()).or_insert_with(why);
    };
    let test_set: BTreeSet<&str> = tests.iter().copied().collect();
    // Who loaded each file, built once.
    let mut loaders: HashMap<&str, Vec<&str>> = HashMap::new();
    for (test, files) in &traces.by_test {
        for f in files {
            loaders.entry(f.as_str()).or_default().push(test.as_str());
        }
    }
    for c in changed {
        if shapes_every_run(c) {
            for t in tests {
                pick(t, &|| Why::Everything(c.clone()));
            }
            continue;
        }
        if test_set.contains(c.as_str()) {
            pick(c, &|| Why::Changed);
        }
        let known = loaders.get(c.as_str());
        for t in known.into_iter().flatten() {
            if test_set.contains(t) {
                pick(t, &|| Why::Loaded(c.clone()));
            }
        }
        if known.is_none() && !test_set.contains(c.as_str()) {
            let module = is_module(c);
            for t in tests {
                if !module {
                    pick(t, &|| Why::Unknown(c.clone()));
                } else if failing(t) {
                    pick(t, &|| Why::Failing(c.clone()));
                }
            }
        }
        if test_set.contains(c.as_str()) {
            // A test file is an entry point, not something other tests load.
            continue;
        }
        for t in tests {
            if !traces.by_test.contains_key(*t) {
                pick(t, &|| Why::Untraced(c.clone()));
            }
        }
    }
    picked
}

#[cfg(test)]
mod tests {
    use super::*;

    fn traces(list: &[(&str, &[&str])]) -> Traces {
        Traces {
            by_test: list
                .iter()
                .map(|(t, files)| (t.to_string(), files.iter().map(|f| f.to_string()).collect()))
                .collect(),
        }
    }

    fn run(changed: &[&str], failing: &[&str]) -> Vec<(String, String)> {
        let tests = ["t/a.t", "t/b.t", "t/c.sh", "t/d.t"];
        let traces = traces(&[
            ("t/a.t", &["lib/A.pm", "lib/Common.pm"]),
            ("t/b.t", &["lib/B.pm", "lib/Common.pm"]),
            ("t/d.t", &["t/lib/Helper.pm"]),
        ]);
        let changed = changed.iter().map(|c| c.to_string()).collect();
        affected(&changed, &tests, &traces, &|t| failing.contains(&t))
            .into_iter()
            .map(|(t, why)| (t, why.to_string()))
            .collect()
    }

    fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect()
    }

    /// tapline's own rows, then every language's (`src/harness/trace.rs` pins them).
    #[test]
    fn every_languages_rows_shape_every_run() {
        assert_eq!(SHAPES_EVERY_RUN.first(), Some(&"tapline.toml"));
        assert_eq!(SHAPES_EVERY_RUN.last(), Some(&"Makefile"));
        for hook in TRACE_HOOKS {
            for name in hook.shapes_every_run() {
                assert!(shapes_every_run(&format!("sub/{name}")), "{name}");
            }
            for ext in hook.module_exts() {
                assert!(is_module(&format!("lib/a.{ext}")), "{ext}");
            }
        }
        assert!(!is_module("t/data/a.json"));
        assert!(!is_module("README"));
    }

    #[test]
    fn a_traced_module_runs_its_loaders_and_the_untraced() {
        assert_eq!(
            run(&["lib/A.pm"], &[]),
            pairs(&[
                ("t/a.t", "loaded lib/A.pm"),
                ("t/c.sh", "no trace (lib/A.pm changed)")
            ])
        );
        assert_eq!(
            run(&["lib/Common.pm"], &[]),
            pairs(&[
                ("t/a.t", "loaded lib/Common.pm"),
                ("t/b.t", "loaded lib/Common.pm"),
                ("t/c.sh", "no trace (lib/Common.pm changed)"),
            ])
        );
        assert_eq!(run(&[], &[]), vec![]);
    }

    #[test]
    fn a_changed_test_file_runs_itself() {
        assert_eq!(run(&["t/d.t"], &[]), pairs(&[("t/d.t", "changed")]));
        assert_eq!(run(&["t/c.sh"], &[]), pairs(&[("t/c.sh", "changed")]));
    }

    #[test]
    fn a_module_no_trace_holds_runs_the_untraced_and_the_failing() {
        assert_eq!(
            run(&["lib/New.pm"], &["t/b.t"]),
            pairs(&[
                ("t/b.t", "failed last time (lib/New.pm is in no trace)"),
                ("t/c.sh", "no trace (lib/New.pm changed)"),
            ])
        );
    }

    #[test]
    fn data_no_trace_holds_and_what_shapes_every_run_run_everything() {
        for (changed, why) in [
            (
                "t/data/input.json",
                "t/data/input.json is in no trace (a test may read it)",
            ),
            ("cpanfile", "cpanfile shapes every run"),
            ("sub/package.json", "sub/package.json shapes every run"),
            (
                "requirements-dev.txt",
                "requirements-dev.txt shapes every run",
            ),
        ] {
            let got = run(&[changed], &[]);
            assert_eq!(got.len(), 4, "{changed}: {got:?}");
            assert!(got.iter().all(|(_, w)| w == why), "{changed}: {got:?}");
        }
    }
}
