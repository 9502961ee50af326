//! The planning pipeline, from [`Options`] to the files the scheduler runs, in steps:
//! [`discover()`] (the files and `[[suite]]`s the paths name, with their commands) →
//! [`partition()`] (this shard's part, weighed by history) → the caller's selection (watch mode's
//! subsets, Bazel's filter; `--list` stops before it) → [`plan`]: history read, the result
//! cache consulted, then the order. No step starts a process; each is tested on its own and
//! through `tapline run`'s integration tests.
use super::partition::PartitionArg;
use super::{resolve, shard, Resolved};
use crate::event::run::{FileInfo, ShardHeader};
use crate::run::child_env::ChildEnv;
use crate::run::discover::{self, DiscoverError, Found, TestFile};
use crate::run::options::{CacheUse, Options, OptionsError, Project};
use crate::run::order::{self, Order};
use crate::run::Planned;
use crate::state::cache::Cache;
use crate::state::history::{self, Index};
use crate::state::keep::CacheKeys;
use crate::state::logs::{LogDir, LogNames};
use crate::util::which;
use std::collections::HashMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Why nothing can be planned: a usage error, one line.
#[derive(Debug, thiserror::Error)]
pub enum PlanError {
    #[error(transparent)]
    Options(#[from] OptionsError),
    #[error(transparent)]
    Discover(#[from] DiscoverError),
    #[error("{0}")]
    Other(String),
}

/// The files and `[[suite]]`s `paths` name (every suite beside the files found, with none),
/// each with its command adapted to the children's environment.
pub fn discover(
    project: &Project,
    paths: &[String],
    exec: Option<&str>,
) -> Result<Found, PlanError> {
    let (cwd, root, cfg) = (&project.cwd, &project.root, &project.config);
    let (suites, implied) = suites_of(cfg, cwd);
    // A PATH argument naming a `[[suite]]` (and no file) selects that suite; one naming the
    // folder of a suite the project implies (a go package), or a folder above it, selects it.
    let mut selected: Vec<String> = Vec::new();
    let mut file_args: Vec<String> = Vec::new();
    for p in paths {
        let by_name = suites.iter().any(|s| s.name == *p) && !cwd.join(p).exists();
        let by_folder: Vec<String> = (implied.iter())
            .filter(|i| i.selected_by(p))
            .map(|i| i.name.clone())
            .collect();
        if by_name {
            selected.push(p.clone());
        } else if !by_folder.is_empty() {
            selected.extend(by_folder);
        } else {
            file_args.push(p.clone());
        }
    }
    let suite_args = selected;
    let mut found = if file_args.is_empty() && !suite_args.is_empty() {
        Found::default()
    } else {
        match discover::find(&file_args, cwd, root, cfg, exec) {
            Ok(found) => found,
            // A project of suites alone has no test folder to walk.
            Err(
                DiscoverError::NoTests(_)
                | DiscoverError::NoTestFolder(_)
                | DiscoverError::EmptyFolder(_)
                | DiscoverError::NoDeclaredTests(_)
                | DiscoverError::Unfollowed(_)
                | DiscoverError::NoProjectFiles(_),
            ) if file_args.is_empty() && !suites.is_empty() => Found::default(),
            Err(e) => return Err(e.into()),
        }
    };
    if paths.is_empty() {
        found
            .files
            .extend(crate::run::suite::entries(&suites, cwd, root, None));
    } else if !suite_args.is_empty() {
        let selected = Some(suite_args.as_slice());
        found
            .files
            .extend(crate::run::suite::entries(&suites, cwd, root, selected));
    }
    Ok(found)
}

/// The run's `[[suite]]`s: `tapline.toml`'s, and, unless one of them runs from here, the ones
/// the project's own harness implies from here ([`crate::harness::Harness::implied_suite`]), with what
/// implied them (empty for `tapline.toml`'s). A run with PATHs asks too: a PATH may name an
/// implied suite's folder. Written down in docs/discovery.md.
fn suites_of<'c>(
    cfg: &'c crate::run::config::Config,
    cwd: &Path,
) -> (
    std::borrow::Cow<'c, [crate::run::config::Suite]>,
    Vec<crate::harness::follow::Implied>,
) {
    // A `[[suite]]` of the project's own run from here replaces what the harness implies.
    let replaced = cfg.suites.iter().any(|s| s.dir == cwd);
    let implied = (!replaced)
        .then(|| crate::harness::registry::implied_suite(cwd))
        .flatten()
        .unwrap_or_default();
    if implied.is_empty() {
        return (std::borrow::Cow::Borrowed(&cfg.suites), implied);
    }
    let mut suites = cfg.suites.clone();
    suites.extend(implied.iter().map(|i| crate::run::config::Suite {
        name: i.name.clone(),
        dir: cwd.join(&i.run_in),
        command: i.command.clone(),
        format: i.format,
        report: None,
        optional: false,
    }));
    (std::borrow::Cow::Owned(suites), implied)
}

/// Each file's command as the environment its child gets needs it (an interpreter that ignores
/// its variables in some mode takes them on its command line:
/// [`crate::harness::Harness::adapt`]); `inherited` reads the variables tapline has.
pub fn adapt(files: &mut [TestFile], env: &ChildEnv, inherited: &dyn Fn(&str) -> Option<OsString>) {
    for f in files {
        if let Ok(argv) = &mut f.command {
            *argv = env.adapt(std::mem::take(argv), inherited);
        }
    }
}

/// This shard's files (`--partition`, `[run] partition`), each with the weight it was dealt
/// with (for `--list`), and the shard's header; every file and no header without one.
pub struct Partitioned {
    pub files: Vec<TestFile>,
    pub weights: Vec<Option<Duration>>,
    pub header: Option<ShardHeader>,
    /// What to tell the user: the shard dealt, or why everything runs.
    pub note: Option<String>,
}

/// Deals the files into shards as `options.partition` says (history's durations as
/// weights) and keeps this machine's; `env` reads the CI engine's variables.
pub fn partition(
    files: Vec<TestFile>,
    options: &Options,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Partitioned, PlanError> {
    let everything = |files: Vec<TestFile>, note| {
        let n = files.len();
        Partitioned {
            files,
            weights: vec![None; n],
            header: None,
            note,
        }
    };
    let Some(arg): Option<PartitionArg> = options.partition else {
        return Ok(everything(files, None));
    };
    let index = if options.history {
        let store = history::Store::in_dir(&options.history_dir);
        let wanted: Vec<&str> = files.iter().map(|f| f.rel.as_str()).collect();
        Index::of(&store.recent(&wanted).unwrap_or_default().records)
    } else {
        Index::default()
    };
    let known = |f: &TestFile| {
        index
            .files
            .get(&f.rel)
            .map(|facts| Duration::from_millis(facts.p50_ms as u64))
    };
    let history_knows = files.iter().any(|f| known(f).is_some());
    let p = match resolve(arg, env, history_knows).map_err(OptionsError::from)? {
        Resolved::Shard(p) => p,
        Resolved::Everything { note } => return Ok(everything(files, Some(note))),
    };
    let total = files.len();
    let sharded = shard(files, |f| f.rel.as_str(), known, p, options.time_default);
    let mine = sharded.mine.len();
    let note = format!(
        "shard {} of {} ({}): {mine} of {total} files{}",
        p.index,
        p.total,
        p.strategy.name(),
        if mine == 0 {
            " (nothing to run here: this shard passes)"
        } else {
            ""
        }
    );
    let (files, weights): (Vec<_>, Vec<_>) =
        sharded.mine.into_iter().map(|(f, w)| (f, Some(w))).unzip();
    Ok(Partitioned {
        files,
        weights,
        header: Some(sharded.header),
        note: Some(note),
    })
}

/// The selected files, planned: what the scheduler runs, in order, and what the run keeps
/// beside them.
pub struct Plan {
    pub files: Vec<Planned>,
    /// The result cache and each planned file's key (by index), when the run uses it.
    pub cache: Option<CacheKeys>,
    /// History's facts on the selected files.
    pub index: Index,
    /// The order the files were put in.
    pub order: Order,
    /// Warnings for the user (history that could not be read).
    pub warnings: Vec<String>,
}

/// Plans the selected `files`: each one's log, command and index; history read; the result
/// cache's passes taken in; the order. `isolation` tells a sandboxed or limited run's cache
/// keys apart.
pub fn plan(
    files: Vec<TestFile>,
    options: &Options,
    project: &Project,
    log_dir: Option<&LogDir>,
    isolation: &str,
) -> Result<Plan, PlanError> {
    let mut warnings = Vec::new();
    let index = read_history(&files, options, &mut warnings);
    let mut planned = planned(files, log_dir, &project.cwd);
    let cache = consult_cache(&mut planned, options, project, isolation)?;
    let order = options
        .order
        .unwrap_or_else(|| Order::default_for(&planned, &index))
        .resolved();
    order::arrange(&mut planned, order, &index);
    Ok(Plan {
        files: planned,
        cache,
        index,
        order,
        warnings,
    })
}

/// History's facts on `files` (none with history off); what could not be read is warned of.
fn read_history(files: &[TestFile], options: &Options, warnings: &mut Vec<String>) -> Index {
    if !options.history {
        return Index::default();
    }
    let store = history::Store::in_dir(&options.history_dir);
    let wanted: Vec<&str> = files.iter().map(|f| f.rel.as_str()).collect();
    let loaded = store.recent(&wanted).unwrap_or_else(|e| {
        warnings.push(format!(
            "warning: failed to read {}: {e}",
            store.path().display()
        ));
        history::Loaded::default()
    });
    warnings.extend(loaded.warnings.iter().map(|w| format!("warning: {w}")));
    Index::of(&loaded.records)
}

/// Each file with its index, log name, shown command and resolved program; `cwd` is where a
/// file runs that names no folder of its own.
fn planned(files: Vec<TestFile>, log_dir: Option<&LogDir>, cwd: &Path) -> Vec<Planned> {
    let mut log_names = LogNames::default();
    let mut programs = ProgramCache::new(std::env::var_os("PATH"));
    files
        .into_iter()
        .enumerate()
        .map(|(index, f)| {
            let log_name = log_names.claim(&f.rel);
            let command = match &f.input.cannot_run {
                Some(why) => Err(why.clone()),
                None => f.command.map_err(|e| e.to_string()),
            };
            let shown = match &command {
                Ok(argv) => argv
                    .iter()
                    .map(|a| a.to_string_lossy())
                    .collect::<Vec<_>>()
                    .join(" "),
                Err(e) => e.clone(),
            };
            let log = log_dir.map(|d| d.path().join(&log_name));
            let mut input = f.input;
            let runs_in = input.cwd.as_deref().unwrap_or(cwd);
            let command = command.map(|argv| programs.resolve(argv, runs_in));
            if let Some(r) = &mut input.refilter {
                r.resolve(|argv| programs.resolve(argv, runs_in));
            }
            Planned {
                info: FileInfo {
                    index,
                    rel: f.rel,
                    command: shown,
                    log,
                    attempt: 1,
                    leaves: input.format != crate::protocol::InputFormat::Tap
                        || input.report.is_some(),
                },
                command,
                log_name,
                cached: None,
                input,
            }
        })
        .collect()
}

/// Opens the result cache when the run uses it, keys every file, and (`CacheUse::On`) takes
/// in the last pass of each unchanged one.
fn consult_cache(
    planned: &mut [Planned],
    options: &Options,
    project: &Project,
    isolation: &str,
) -> Result<Option<CacheKeys>, PlanError> {
    if options.cache == CacheUse::Off {
        return Ok(None);
    }
    let root = &project.root;
    let inputs = &project.config.cache_inputs;
    let cache = Cache::open(&options.history_dir, root, inputs)
        .map_err(|e| PlanError::Other(e.to_string()))?;
    let keys: Vec<Option<String>> = planned
        .iter()
        // A suite is no file whose content tells whether it changed: it always runs. A pass
        // without the sandbox or limits says nothing of a run with them.
        .map(|p| {
            // One stream or two is part of how the file is read (a stderr line parsed or not).
            let streams = crate::run::runners::streams(options.merge, &p.input, &p.command);
            let mut command = format!("{}{}{isolation}", p.info.command, streams.key());
            // The folder's init module runs in the file's process: its content is an input.
            if let Some(init) = &p.input.init {
                command.push_str(&crate::harness::registry::init_cache_word(init));
            }
            (!p.input.suite)
                .then(|| cache.key(root, &p.info.rel, &command))
                .flatten()
        })
        .collect();
    if options.cache == CacheUse::On {
        for (p, key) in planned.iter_mut().zip(&keys) {
            p.cached = key.as_deref().and_then(|k| cache.lookup(&p.info.rel, k));
        }
    }
    Ok(Some(CacheKeys { cache, keys }))
}

/// Interpreters resolved to absolute paths once per run and folder, so that spawning each file
/// does not search PATH again (an exec attempt per PATH entry, per file). The folder is part of
/// the key: a relative PATH entry is taken from the folder the file runs in, as the spawn's
/// own search would ([`which`]).
struct ProgramCache {
    /// PATH, read once for the run.
    path: Option<OsString>,
    found: HashMap<(PathBuf, OsString), OsString>,
}

impl ProgramCache {
    fn new(path: Option<OsString>) -> ProgramCache {
        ProgramCache {
            path,
            found: HashMap::new(),
        }
    }

    fn resolve(&mut self, mut argv: Vec<OsString>, cwd: &Path) -> Vec<OsString> {
        if let Some(program) = argv.first_mut() {
            if !program.as_encoded_bytes().contains(&b'/') {
                let path = self.path.as_deref();
                let found = self
                    .found
                    .entry((cwd.to_owned(), program.clone()))
                    .or_insert_with(|| {
                        // Not found, the name stays for the spawn to report.
                        which::find_in(program, path, cwd).map_or(program.clone(), OsString::from)
                    });
                *program = found.clone();
            }
        }
        argv
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::options::{Env, Flags};
    use std::fs;

    /// A project of `files` (path, text), every `.t` executable, with `toml` as its
    /// `tapline.toml`.
    fn project(files: &[(&str, &str)], toml: &str) -> (tempfile::TempDir, Project) {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().expect("tempdir");
        fs::write(dir.path().join("tapline.toml"), toml).expect("write");
        fs::create_dir(dir.path().join(".git")).expect("a repository");
        for (path, text) in files {
            let path = dir.path().join(path);
            fs::create_dir_all(path.parent().expect("a folder")).expect("mkdir");
            fs::write(&path, text).expect("write");
            fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).expect("chmod");
        }
        let project = Project::open(dir.path().to_owned()).expect("opens");
        (dir, project)
    }

    fn options(flags: &Flags, project: &Project) -> Options {
        let none = |_: &str| None;
        let env = Env {
            var: &none,
            cores: 2,
            stderr_terminal: false,
        };
        Options::resolve(flags, project, &env).expect("resolves")
    }

    fn rels(files: &[TestFile]) -> Vec<&str> {
        files.iter().map(|f| f.rel.as_str()).collect()
    }

    const SUITE: &str = "[[suite]]\nname = \"unit\"\ncommand = [\"sh\", \"-c\", \"echo 1..0\"]\n";

    #[test]
    fn discovery_finds_the_files_and_every_suite_beside_them() {
        let (_dir, p) = project(&[("t/a.t", "#!/bin/sh\n"), ("t/b.t", "#!/bin/sh\n")], SUITE);
        let found = discover(&p, &[], None).expect("found");
        assert_eq!(rels(&found.files), ["t/a.t", "t/b.t", "unit"]);
        let named = discover(&p, &["unit".into()], None).expect("the suite");
        assert_eq!(
            rels(&named.files),
            ["unit"],
            "a suite's name selects it alone"
        );
        let (_dir, p) = project(&[], SUITE);
        let found = discover(&p, &[], None).expect("a project of suites alone");
        assert_eq!(rels(&found.files), ["unit"]);
    }

    #[test]
    fn a_shard_keeps_its_part_and_says_so() {
        let files: Vec<(String, &str)> = (0..5)
            .map(|i| (format!("t/{i}.t"), "#!/bin/sh\n"))
            .collect();
        let files: Vec<(&str, &str)> = files.iter().map(|(p, t)| (p.as_str(), *t)).collect();
        let (_dir, p) = project(&files, "");
        let no_engine = |_: &str| None::<String>;
        let mut flags = Flags::default();
        let found = discover(&p, &[], None).expect("found");
        let plain = partition(found.files.clone(), &options(&flags, &p), &no_engine).expect("all");
        assert_eq!(plain.files.len(), 5);
        assert!(plain.header.is_none() && plain.note.is_none());
        flags.partition = Some("slice:2/2".into());
        let part = partition(found.files.clone(), &options(&flags, &p), &no_engine).expect("dealt");
        assert_eq!(rels(&part.files), ["t/1.t", "t/3.t"]);
        assert_eq!(
            part.note.as_deref(),
            Some("shard 2 of 2 (slice): 2 of 5 files")
        );
        assert_eq!(part.header.expect("a header").selection.len(), 5);
        flags.partition = Some("auto".into());
        let auto = partition(found.files, &options(&flags, &p), &no_engine).expect("everything");
        assert_eq!(auto.files.len(), 5);
        assert!(auto.note.expect("a note").contains("so every file runs"));
    }

    #[test]
    fn the_plan_orders_and_takes_cached_passes_in() {
        let (_dir, p) = project(&[("t/a.t", "#!/bin/sh\n"), ("t/b.t", "#!/bin/sh\n")], "");
        let flags = Flags {
            order: Some("declared".into()),
            cache: true,
            ..Flags::default()
        };
        let o = options(&flags, &p);
        let found = discover(&p, &[], None).expect("found");
        let plan = plan(found.files, &o, &p, None, "").expect("planned");
        assert_eq!(plan.order, Order::Declared);
        let got: Vec<(usize, &str, &str)> = plan
            .files
            .iter()
            .map(|f| (f.info.index, f.info.rel.as_str(), f.log_name.as_str()))
            .collect();
        assert_eq!(got, [(0, "t/a.t", "t__a.log"), (1, "t/b.t", "t__b.log")]);
        let keys = plan.cache.expect("the cache is open").keys;
        assert!(keys.iter().all(Option::is_some), "each file is keyed");
        assert!(
            plan.files.iter().all(|f| f.cached.is_none()),
            "nothing passed yet"
        );
    }

    /// A program is resolved once per folder it runs in: a relative PATH entry names another
    /// file in each (it was skipped, and a later absolute entry won, where the spawn's own
    /// search runs the earlier relative one).
    #[test]
    fn programs_resolve_per_folder_relative_entries_in_place() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().expect("tempdir");
        for tool in ["a/bin/tool", "b/bin/tool", "usr/tool"] {
            let tool = dir.path().join(tool);
            fs::create_dir_all(tool.parent().expect("a folder")).expect("mkdir");
            fs::write(&tool, "#!/bin/sh\n").expect("write");
            fs::set_permissions(&tool, fs::Permissions::from_mode(0o755)).expect("chmod");
        }
        let path = std::env::join_paths([Path::new("bin"), &dir.path().join("usr")]).expect("PATH");
        let mut programs = ProgramCache::new(Some(path));
        let argv = || vec![OsString::from("tool"), OsString::from("t/x.t")];
        let (a, b, c) = (
            dir.path().join("a"),
            dir.path().join("b"),
            dir.path().join("c"),
        );
        for _ in 0..2 {
            assert_eq!(programs.resolve(argv(), &a)[0], a.join("bin/tool"));
            assert_eq!(programs.resolve(argv(), &b)[0], b.join("bin/tool"));
            assert_eq!(programs.resolve(argv(), &c)[0], dir.path().join("usr/tool"));
        }
        assert_eq!(programs.found.len(), 3, "one search per folder");
        assert_eq!(programs.resolve(vec!["absent".into()], &a), ["absent"]);
        assert_eq!(
            programs.resolve(vec!["./tool".into()], &a),
            ["./tool"],
            "a path is the spawn's to resolve"
        );
    }
}
