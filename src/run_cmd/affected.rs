//! `--affected-by PATH…` and `--changed [REV]`: the test files a change can affect, by the
//! traces of earlier runs ([`tapline::run::trace::select`]); and the run's tracer itself.
use crate::cli::RunArgs;
use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use tapline::run::discover::TestFile;
use tapline::run::options::{Options, Project};
use tapline::run::trace::{self, select::Why, store::Store, Tracer};
use tapline::state::history;

/// The run's tracer, unless `--no-trace`, `[run] trace = false` or the sandbox (which hides
/// tapline's temp folder from the test, and a missing hook would fail it) say otherwise, or
/// none of `files` can leave a trace (then nothing is written to the temp folder). One that
/// cannot be set up is no tracer, with a warning: tracing never stops a run.
pub(super) fn tracer(
    options: &Options,
    project: &Project,
    sandboxed: bool,
    files: &[TestFile],
) -> Option<Arc<Tracer>> {
    if !options.trace || sandboxed {
        return None;
    }
    let root = &project.root;
    let hooked = files.iter().any(|f| {
        f.command
            .as_ref()
            .is_ok_and(|argv| trace::Kind::of(argv, f.input.suite).is_some())
    });
    if !hooked {
        // A page file's trace needs no hook: what its page loaded is the run's record.
        let pages = files
            .iter()
            .any(|f| f.input.host == tapline::harness::api::Host::Page);
        return pages.then(|| Tracer::without_hooks(root, &options.history_dir));
    }
    Tracer::new(root, &options.history_dir)
        .map_err(|e| tapline::say!("tapline: warning: failed to set up dependency traces: {e}"))
        .ok()
}

/// What `--affected-by`/`--changed` select from.
pub(super) struct Affected {
    /// Changed paths, relative to the project root.
    changed: BTreeSet<String>,
    /// How the changes were named, for the note.
    source: String,
    traces: trace::store::Traces,
    failing: HashSet<String>,
    /// `--changed`: the revision the changes are counted from (for patch coverage).
    pub(super) base: Option<String>,
}

impl Affected {
    /// `None` when neither flag is given.
    pub(super) fn from_args(args: &RunArgs) -> Result<Option<Affected>, String> {
        if args.affected_by.is_empty() && args.changed.is_none() {
            return Ok(None);
        }
        let project = Project::current().map_err(|e| e.to_string())?;
        let (cwd, root) = (&project.cwd, &project.root);
        let (changed, source, base) = match &args.changed {
            Some(rev) => {
                let (changed, (base, shown)) = git_changes(&root, rev)?;
                (changed, format!("changes since {shown}"), Some(base))
            }
            None => (
                given_paths(&args.affected_by, &cwd, &root),
                args.affected_by.join(", "),
                None,
            ),
        };
        let dir = project.log_dir(args.log_dir.as_deref());
        let failing = history::Store::in_dir(&dir)
            .load()
            .map(|loaded| history::Index::of(&loaded.records))
            .map(|index| {
                index
                    .files
                    .into_iter()
                    .filter(|(_, facts)| facts.last_failed)
                    .map(|(rel, _)| rel)
                    .collect()
            })
            .unwrap_or_default();
        Ok(Some(Affected {
            changed,
            source,
            traces: Store::in_dir(&dir).load(),
            failing,
            base,
        }))
    }

    /// The files of `files` the changes affect, in their order, and why each; says which and
    /// why on stderr.
    pub(super) fn select(&self, files: Vec<TestFile>) -> (Vec<TestFile>, BTreeMap<String, Why>) {
        let rels: Vec<&str> = files.iter().map(|f| f.rel.as_str()).collect();
        let why = trace::select::affected(&self.changed, &rels, &self.traces, &|t| {
            self.failing.contains(t)
        });
        let total = files.len();
        let picked: Vec<TestFile> = files
            .into_iter()
            .filter(|f| why.contains_key(&f.rel))
            .collect();
        tapline::say_text!("{}", note(&self.source, &why, picked.len(), total));
        (picked, why)
    }
}

/// `tapline: 3 of 63 test files affected by lib/A.pm:` and a line per file saying why.
fn note(source: &str, why: &BTreeMap<String, Why>, picked: usize, total: usize) -> String {
    let mut text = format!(
        "tapline: {picked} of {total} test file{} affected by {source}{}\n",
        if total == 1 { "" } else { "s" },
        if picked == 0 { "" } else { ":" }
    );
    for (rel, why) in why {
        text.push_str(&format!("  {rel}  {why}\n"));
    }
    text
}

/// `--affected-by`'s paths (relative to the cwd) relative to the project root; one outside
/// it cannot affect the project's files, but is kept as named so that it runs everything.
fn given_paths(paths: &[String], cwd: &Path, root: &Path) -> BTreeSet<String> {
    paths
        .iter()
        .map(|p| {
            let full = cwd.join(p);
            trace::project_rel(&full, root).unwrap_or_else(|| p.clone())
        })
        .collect()
}

/// The files changed since `rev` (empty: the merge base with the default branch), in the
/// working tree and untracked, relative to the project root; and the base it compared with.
fn git_changes(root: &Path, rev: &str) -> Result<(BTreeSet<String>, (String, String)), String> {
    let top = PathBuf::from(git(root, &["rev-parse", "--show-toplevel"])?.trim());
    let base = if rev.is_empty() {
        let branch = default_branch(&top)?;
        let base = git(&top, &["merge-base", "HEAD", &branch])
            .map_err(|e| format!("failed to find the merge base with {branch}: {e}"))?;
        let short = base.trim().chars().take(12).collect::<String>();
        (base.trim().to_owned(), format!("{branch} ({short})"))
    } else {
        git(
            &top,
            &[
                "rev-parse",
                "--verify",
                "--quiet",
                &format!("{rev}^{{commit}}"),
            ],
        )
        .map_err(|_| format!("failed to read --changed {rev}: no such git revision"))?;
        (rev.to_owned(), rev.to_owned())
    };
    let diff = git(
        &top,
        &["diff", "--name-only", "-z", "--no-renames", &base.0, "--"],
    )?;
    let untracked = git(&top, &["ls-files", "--others", "--exclude-standard", "-z"])?;
    let changed = diff
        .split('\0')
        .chain(untracked.split('\0'))
        .filter(|p| !p.is_empty())
        .filter_map(|p| trace::project_rel(&top.join(p), root))
        .collect();
    Ok((changed, base))
}

/// `origin/HEAD`'s branch, else the first of main, master (local or origin's) that exists.
fn default_branch(top: &Path) -> Result<String, String> {
    if let Ok(head) = git(
        top,
        &[
            "symbolic-ref",
            "--quiet",
            "--short",
            "refs/remotes/origin/HEAD",
        ],
    ) {
        return Ok(head.trim().to_owned());
    }
    ["main", "master", "origin/main", "origin/master"]
        .into_iter()
        .find(|b| git(top, &["rev-parse", "--verify", "--quiet", &format!("{b}^{{commit}}")]).is_ok())
        .map(str::to_owned)
        .ok_or_else(|| {
            "failed to find the default branch (no origin/HEAD, main or master): name one, --changed REV".to_owned()
        })
}

/// `git ARGS` in `dir`: its stdout, or why it failed.
pub(super) fn git(dir: &Path, args: &[&str]) -> Result<String, String> {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("failed to run git: {e}"))?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        return Err(format!(
            "`git {}` failed: {}",
            args.join(" "),
            err.lines().next().unwrap_or("").trim()
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}
