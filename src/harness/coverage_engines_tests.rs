//! Which coverage engine does what, as `run::coverage`'s registry-driven tests used to
//! check by name (issue 39 moved the names here): every child gets coverage.py's hook and the
//! root, Devel::Cover waits for a run of Perl files, and each language's dependency folders.
use super::registry::COVERAGE_ENGINES;
use super::trace::{CoverageEngine, EnvEdit};
use std::path::Path;

fn engine(id: &str) -> &'static dyn CoverageEngine {
    (COVERAGE_ENGINES.iter().copied())
        .find(|e| e.id() == id)
        .unwrap_or_else(|| panic!("no coverage engine {id}"))
}

#[test]
fn every_child_gets_coverage_py_hook_and_the_root_and_devel_cover_waits_for_perl_files() {
    let (hooks, root) = (Path::new("/h"), Path::new("/p"));
    let python = engine("python");
    assert!(python.available(false), "coverage.py measures every child");
    assert_eq!(
        python.run_env(hooks, root),
        [
            ("PYTHONPATH", EnvEdit::PrependPath(hooks.into())),
            (
                "TAPLINE_COVERAGE_ROOT",
                EnvEdit::Set(root.as_os_str().into())
            ),
        ]
    );
    let perl = engine("perl");
    assert!(
        !perl.available(false),
        "Devel::Cover only in a run of Perl files"
    );
    let node = engine("node");
    assert!(
        node.available(false),
        "node's V8 coverage is asked of no tool"
    );
    assert!(node.run_env(hooks, root).is_empty(), "set per file");
}

#[test]
fn each_language_measures_its_sources() {
    assert!(engine("perl").extensions().contains(&"pm"));
    assert!(engine("node").extensions().contains(&"tsx"));
    assert!(engine("python").extensions().contains(&"py"));
}

#[test]
fn a_virtualenv_site_packages_or_node_modules_is_never_the_projects_code() {
    let python = engine("python");
    assert!(python.dependency_dirs().contains(&"site-packages"));
    assert_eq!(python.dependency_mark(), Some("pyvenv.cfg"));
    assert!(engine("node").dependency_dirs().contains(&"node_modules"));
}
