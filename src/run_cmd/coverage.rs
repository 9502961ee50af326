//! `--coverage`: the run's collector (set up before the commands are adapted, as the
//! tracer is), and after the run the record `tapline coverage who` reads and the gate of
//! `--coverage-min`/`[coverage] min`.
use crate::cli::RunArgs;
use std::path::PathBuf;
use std::sync::Arc;
use tapline::coverage::summary::{parse_min, Gate};
use tapline::coverage::who::Who;
use tapline::coverage::RunCoverage;
use tapline::run::coverage::{Collector, Setup};
use tapline::run::discover::TestFile;
use tapline::run::options::Project;

/// What the end of a run with coverage does.
pub(super) struct After {
    /// Where `coverage.json` is kept.
    pub log_dir: PathBuf,
    /// `None` for a shard: the merge is checked instead.
    pub gate: Option<Gate>,
    /// `--changed REV`: the changed lines and how to name the base, for patch coverage.
    pub patch: Option<(tapline::coverage::patch::Changed, String)>,
}

/// Whether the run measures coverage, and its gate; a bad `--coverage-min` is a usage error.
pub(super) fn wanted(args: &RunArgs, project: &Project) -> Result<Option<Option<Gate>>, String> {
    let config = &project.config.coverage;
    let on = args.coverage || config.enabled == Some(true) || args.coverage_min.is_some();
    if !on {
        return Ok(None);
    }
    let min = match &args.coverage_min {
        Some(text) => Some(parse_min(text).map_err(|e| format!("invalid --coverage-min: {e}"))?),
        None => config.min,
    };
    if let Some(min) = config.min.filter(|m| !(0.0..=100.0).contains(m)) {
        return Err(format!(
            "invalid [coverage] min: a percentage is 0 to 100, got {min}"
        ));
    }
    Ok(Some(min.map(|min| Gate { min })))
}

/// The run's collector for `files`; none (with a warning) under the sandbox, which hides
/// tapline's temp folder, or when it cannot be set up: coverage never stops a run.
pub(super) fn collector(
    project: &Project,
    files: &[TestFile],
    sandboxed: bool,
) -> Option<Arc<Collector>> {
    if sandboxed {
        tapline::say!("tapline: warning: --coverage is not measured under --sandbox");
        return None;
    }
    use tapline::run::trace::Kind;
    let languages = (files.iter())
        .filter_map(
            |f| match Kind::of(f.command.as_ref().ok()?, f.input.suite) {
                Some(Kind::Language(id)) => Some(id),
                _ => None,
            },
        )
        .collect();
    let setup = Setup {
        root: &project.root,
        // A file run in two hosts runs as `FILE (HOST)` twice: the file is FILE.
        test_files: (files.iter())
            .map(|f| tapline::harness::api::file_rel(&f.rel).to_owned())
            .collect(),
        languages,
        tests: project.config.coverage.tests == Some(true),
    };
    Collector::new(setup)
        .map_err(|e| tapline::say!("tapline: warning: failed to set up coverage: {e}"))
        .ok()
}

/// After the run: keeps what `coverage who` reads, and fails a run (`code` 0 becomes 1)
/// below the gate, saying by how much and where.
pub(super) fn after(after: &After, coverage: &RunCoverage, code: u8) -> u8 {
    if !coverage.collected {
        return code;
    }
    if let Err(e) = Who::of(coverage).save(&after.log_dir) {
        tapline::say!("tapline: warning: failed to keep the coverage for `coverage who`: {e}");
    }
    if let Some((changed, since)) = &after.patch {
        let patch = tapline::coverage::patch::of(coverage, changed, is_measured_language);
        tapline::say!("tapline: {}", patch.text(since));
    }
    gate(after.gate, coverage, code)
}

/// `code` with the gate applied: below it, the run fails (an interrupted run stays so).
pub(crate) fn gate(gate: Option<Gate>, coverage: &RunCoverage, code: u8) -> u8 {
    let Some(why) = gate.and_then(|g| g.check(coverage)) else {
        return code;
    };
    tapline::say!("tapline: {why}");
    if code == 0 {
        1
    } else {
        code
    }
}

/// `report merge`: the merged run's coverage kept for `coverage who` (in the project's log
/// folder, when run inside one) and checked against `--coverage-min` or `[coverage] min`:
/// the one place a sharded run's coverage is judged.
pub(crate) fn after_merge(
    args: &crate::cli::MergeArgs,
    coverage: &RunCoverage,
    code: u8,
) -> Result<u8, String> {
    let project = Project::current().ok();
    let min = match &args.coverage_min {
        Some(text) => Some(parse_min(text).map_err(|e| format!("invalid --coverage-min: {e}"))?),
        None => project.as_ref().and_then(|p| p.config.coverage.min),
    };
    if !coverage.collected {
        if min.is_some() {
            tapline::say!("tapline: the shards hold no coverage (run them with --coverage): --coverage-min not checked");
        }
        return Ok(code);
    }
    if let Some(p) = &project {
        let dir = p.log_dir(args.log_dir.as_deref());
        if let Err(e) = Who::of(coverage).save(&dir) {
            tapline::say!("tapline: warning: failed to keep the coverage for `coverage who`: {e}");
        }
    }
    Ok(gate(min.map(|min| Gate { min }), coverage, code))
}

/// A path of a language some engine measures (a changed README or YAML file is no code).
fn is_measured_language(path: &str) -> bool {
    tapline::run::coverage::is_measured_language(path)
}

/// The lines changed since `base` (`git diff -U0`), and every line of each untracked file,
/// per project file; `None` (with a warning) when git cannot say.
pub(super) fn changed_lines(
    root: &std::path::Path,
    base: &str,
) -> Option<tapline::coverage::patch::Changed> {
    use super::affected::git;
    let top = match git(root, &["rev-parse", "--show-toplevel"]) {
        Ok(top) => PathBuf::from(top.trim()),
        Err(e) => {
            tapline::say!("tapline: warning: no patch coverage: {e}");
            return None;
        }
    };
    let rel = |p: &str| tapline::run::trace::project_rel(&top.join(p), root);
    let diff = git(
        &top,
        &[
            "diff",
            "-U0",
            "--no-color",
            "--no-renames",
            "--no-ext-diff",
            base,
            "--",
        ],
    )
    .map_err(|e| tapline::say!("tapline: warning: no patch coverage: {e}"))
    .ok()?;
    let mut changed = tapline::coverage::patch::parse_diff(&diff, rel);
    let untracked =
        git(&top, &["ls-files", "--others", "--exclude-standard", "-z"]).unwrap_or_default();
    for path in untracked.split('\0').filter(|p| !p.is_empty()) {
        let (Some(r), Ok(text)) = (rel(path), std::fs::read_to_string(top.join(path))) else {
            continue;
        };
        let count = text.lines().count() as u32;
        changed.entry(r).or_default().extend(1..=count);
    }
    Some(changed)
}
