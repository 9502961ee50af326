//! `tapline run --watch`: run once, then re-run on every change to the project.
//!
//! The shape is watchexec's: a notify debouncer feeds a channel; the session owns one run at a
//! time and linearises everything else (changes, keys, signals) against it in one `select!`.
//!
//! - **What is watched**: the project root and every folder under it that [`filter`] does not
//!   ignore, each with its own non-recursive watch, so ignored trees (`target/`, installed
//!   dependencies, gitignored build output) cost no inotify watches. Folders created later
//!   are added as they appear; a `.gitignore` change re-reads the ignore rules.
//! - **What a change runs**: the debouncer hands over a batch once a change is `--debounce` old.
//!   The dependency traces of earlier runs pick the files it can affect
//!   ([`crate::run::trace::select`]; a page file's bundle inputs, [`crate::harness::registry::PageInputs`],
//!   count as its trace): a changed test file, the test files that loaded a changed file, the
//!   files with no trace; what shapes every run (`tapline.toml`, lockfiles…) re-runs
//!   everything. The header names why each file runs. Files are discovered afresh for every
//!   run (new test files count), and the files that failed last time run first.
//! - **A change during a run** cancels it (process groups terminated with the grace period,
//!   children reaped, as a first Ctrl-C does) and starts the next run, which covers what the
//!   cancelled run was running as well as what changed. The cancelled files read as cancelled
//!   (`⊘`, "N cancelled", `files_cancelled`), not as failures, and keep their last verdict in
//!   `verdicts.json` and history. A change the run in progress already sees (made before it
//!   started, to a file it runs) does not restart it.
//! - **Tests that write into the project** (a counter, a snapshot, coverage data) cannot make
//!   the session re-run itself for ever: see [`feedback`]. Two runs in a row may be started
//!   only by what the run before wrote; the change that would start a third starts nothing,
//!   and its paths are named once with the remedy (`--watch-ignore GLOB`, `.gitignore`).
//!   From then on the tests' writes to them during a run start nothing; a change anywhere
//!   else, or to them between runs, still starts a run.
//! - **Output**: each run starts under a separator line naming what triggered it
//!   (`── run 3 · triggered by test/a.t ──`), or on a cleared screen with `--clear`; a key
//!   help line follows each summary. `--format jsonl` keeps streaming on stdout, every event
//!   tagged with its run number; `--format summary` prints one document per run.
//! - **Input**: see [`input`]: keys on a terminal (Enter/`a` all, `f` failing files, `F`
//!   failing tests, `p` file pattern, `t` test-name pattern, `q` quit), line commands on a
//!   pipe (EOF quits).
//! - **Tests by name** ([`by_test`]): `t` (or `-t` with `--watch`) keeps a test-name pattern
//!   for every run until `t` clears it; `F` runs only the tests that failed last time. Both
//!   go through each framework's filter, as `tapline run -t` and `--only-failed` do.
//! - **Ending**: `q`, Ctrl-D or the end of piped input quit with 0; Ctrl-C, SIGTERM or SIGHUP
//!   with 130. Either way the running run is cancelled first and its children are gone when
//!   tapline exits.
mod by_test;
mod clock;
mod feedback;
pub mod filter;
mod fingerprint;
pub mod input;
mod session;
mod want;

use crate::run::trace::store::{Store as TraceStore, Traces};
use clock::{ctime, EndStamp, FileClock};
use feedback::{paused_message, Change, Covers, Feedback, Sorted};
use fingerprint::*;
use session::*;
use want::{covers, why_lines, with_inputs};
pub use want::{select, Inputs, Picked, Want};

use crate::report::outlets::{reported, Outlets, Reported};
use crate::report::style::{self, Style};
use crate::run::discover::TestFile;
use crate::run::{execute, Planned, Settings, EXIT_INTERRUPTED};
use crate::supervise::Cancel;
use filter::Filter;
use globset::GlobBuilder;
use input::{Input, Key, Mode};
use notify::event::{EventKind, ModifyKind};
use notify::{RecommendedWatcher, RecursiveMode};
use notify_debouncer_full::{new_debouncer, DebounceEventResult, Debouncer, RecommendedCache};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::io::{self, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};
use tokio::signal::unix::{signal, Signal, SignalKind};
use tokio::sync::{mpsc, watch};

/// How long a change must be old before it is acted on.
pub const DEFAULT_DEBOUNCE: Duration = Duration::from_millis(300);
/// Shorter debounce values are raised to this (the debouncer polls at a fraction of it).
pub const MIN_DEBOUNCE: Duration = Duration::from_millis(5);
/// Paths named in a run's header before "and N more".
const SHOWN_TRIGGERS: usize = 3;
/// How much longer than a debounce a cut loop's note waits for the rest of its paths.
const NOTE_MARGIN: Duration = Duration::from_millis(50);

pub struct WatchOptions {
    /// The project root: watched, and what test paths are relative to.
    pub root: PathBuf,
    pub debounce: Duration,
    /// `--watch-ignore` globs.
    pub ignore: Vec<String>,
    /// Never watched: tapline writes there (logs, history, cache).
    pub log_dir: Option<PathBuf>,
    /// Read for the first run's failed-first order (`None` with `--no-history`).
    pub history: Option<crate::state::history::Store>,
    pub clear: bool,
    /// Pick files by the stored dependency traces (off with `--no-trace`: any change to no
    /// test file runs every file).
    pub traces: bool,
    /// Each run's terminal report, machine output and `-o` reports (rewritten after each run:
    /// their paths belong in `ignore`).
    pub outlets: Outlets,
    /// `-t`: the test-name patterns the session starts with (`t` changes them).
    pub tests: Vec<String>,
}

/// Prepares each run: discovers the test files, lets `select` pick and order them, then (when
/// any is left) rotates the log folder and builds the commands. `Ok(None)`: `select` left
/// nothing, and nothing was touched.
pub trait Planner {
    fn plan(
        &mut self,
        select: &mut dyn FnMut(Vec<TestFile>) -> Vec<TestFile>,
    ) -> Result<Option<(Vec<Planned>, Settings)>, String>;
}

/// How a session ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ended {
    /// `q`, Ctrl-D, or the end of piped input.
    Quit,
    /// Ctrl-C, SIGTERM or SIGHUP.
    Interrupted,
    /// stdout was closed (`| head`).
    OutputClosed,
}

impl Ended {
    pub fn exit_code(self) -> u8 {
        match self {
            Ended::Quit | Ended::OutputClosed => 0,
            Ended::Interrupted => EXIT_INTERRUPTED,
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum WatchError {
    /// Bad options, or the first run could not be prepared.
    #[error("{0}")]
    Usage(String),
    #[error("{0}")]
    Internal(String),
}

/// Runs a watch session until the user quits.
pub fn watch(opts: WatchOptions, planner: &mut dyn Planner) -> Result<Ended, WatchError> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| WatchError::Internal(format!("failed to start the async runtime: {e}")))?;
    let ended = runtime.block_on(async {
        let mut session = Session::start(opts, planner)?;
        let ended = session.run().await;
        session.spares.shutdown().await;
        ended
    });
    runtime.shutdown_timeout(Duration::from_secs(1));
    ended
}

/// A relative path with `/` separators.
fn rel_string(rel: &Path) -> String {
    rel.components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files(rels: &[&str]) -> Vec<TestFile> {
        rels.iter()
            .map(|rel| TestFile {
                path: rel.into(),
                rel: (*rel).to_owned(),
                command: Ok(vec!["sh".into(), (*rel).into()]),
                input: Default::default(),
            })
            .collect()
    }

    fn picked(want: &Want, verdicts: &[(&str, bool)]) -> Vec<String> {
        picked_with(want, verdicts, &Traces::default()).0
    }

    fn picked_with(
        want: &Want,
        verdicts: &[(&str, bool)],
        traces: &Traces,
    ) -> (Vec<String>, Picked) {
        let verdicts = verdicts.iter().map(|&(r, ok)| (r.to_owned(), ok)).collect();
        let mut picked = Picked::default();
        let files = select(
            want,
            &verdicts,
            traces,
            files(&["t/a.t", "t/b.t", "t/c.t", "t/sub/d.t"]),
            &mut picked,
        )
        .into_iter()
        .map(|f| f.rel)
        .collect();
        (files, picked)
    }

    /// t/a.t and t/b.t loaded lib/x.pm; t/c.t loaded lib/y.pm; t/sub/d.t has no trace.
    fn traces() -> Traces {
        let list: [(&str, &[&str]); 3] = [
            ("t/a.t", &["lib/x.pm", "lib/common.pm"]),
            ("t/b.t", &["lib/x.pm"]),
            ("t/c.t", &["lib/y.pm", "lib/common.pm"]),
        ];
        Traces {
            by_test: list
                .iter()
                .map(|(t, f)| (t.to_string(), f.iter().map(|f| f.to_string()).collect()))
                .collect(),
        }
    }

    fn changed(paths: &[&str]) -> Want {
        let set: BTreeSet<String> = paths.iter().map(|p| (*p).to_owned()).collect();
        Want {
            changed: set.clone(),
            triggers: set,
            ..Want::default()
        }
    }

    #[test]
    fn a_changed_test_file_runs_alone_once_every_file_has_a_trace() {
        let traced = |want: &Want| picked_with(want, &[], &traces()).0;
        assert_eq!(traced(&changed(&["t/b.t"])), ["t/b.t"]);
        assert_eq!(traced(&changed(&["t/c.t", "t/a.t"])), ["t/a.t", "t/c.t"]);
        // Another test file is no dependency, even of a file with no trace.
        assert_eq!(picked(&changed(&["t/b.t"]), &[]), ["t/b.t"]);
    }

    #[test]
    fn a_changed_library_runs_the_files_that_loaded_it() {
        let (files, picked) = picked_with(&changed(&["lib/x.pm"]), &[("t/b.t", false)], &traces());
        assert_eq!(files, ["t/b.t", "t/a.t", "t/sub/d.t"]);
        assert!(!picked.all);
        assert_eq!(
            why_lines(&picked),
            [
                "t/b.t  loaded lib/x.pm",
                "t/a.t  loaded lib/x.pm",
                "t/sub/d.t  no trace (lib/x.pm changed)"
            ]
        );
        assert_eq!(
            covers(&changed(&["lib/x.pm"]), &picked, &files, &traces()),
            Covers::Files(
                ["t/a.t", "t/b.t", "t/sub/d.t", "lib/x.pm", "lib/common.pm"]
                    .map(String::from)
                    .into()
            )
        );
        let (files, picked) = picked_with(&changed(&["tapline.toml"]), &[], &traces());
        assert_eq!(files.len(), 4);
        assert_eq!(
            why_lines(&picked),
            ["every file: tapline.toml shapes every run"]
        );
        // `a` runs everything, whatever the traces say.
        assert_eq!(picked_with(&Want::all("a"), &[], &traces()).0.len(), 4);
    }

    #[test]
    fn any_other_change_runs_all_failing_first() {
        let verdicts = [("t/c.t", false), ("t/a.t", true), ("t/sub/d.t", false)];
        assert_eq!(
            picked(&changed(&["lib/x.pm"]), &verdicts),
            ["t/c.t", "t/sub/d.t", "t/a.t", "t/b.t"]
        );
        assert_eq!(
            picked(&changed(&["t/a.t", "t/gone.t"]), &[]),
            ["t/a.t", "t/b.t", "t/c.t", "t/sub/d.t"],
            "a deleted test file is another change"
        );
    }

    #[test]
    fn keys_select() {
        let verdicts = [("t/c.t", false), ("t/a.t", true)];
        let failing = Want {
            failing: true,
            ..Want::default()
        };
        assert_eq!(picked(&failing, &verdicts), ["t/c.t"]);
        let pattern = |p: &str| Want {
            patterns: vec![p.into()],
            ..Want::default()
        };
        assert_eq!(picked(&pattern("sub"), &[]), ["t/sub/d.t"]);
        assert_eq!(picked(&pattern("[ab].t"), &[]), ["t/a.t", "t/b.t"]);
        assert_eq!(
            picked(&pattern("t/*.t"), &[]),
            ["t/a.t", "t/b.t", "t/c.t", "t/sub/d.t"]
        );
        assert!(picked(&pattern("nothing"), &[]).is_empty());
    }

    #[test]
    fn what_a_run_covers() {
        let rels =
            |names: &[&str]| -> Vec<String> { names.iter().map(|n| (*n).to_owned()).collect() };
        let some = Picked::default();
        let all = Picked {
            all: true,
            why: Vec::new(),
        };
        let none = Traces::default();
        assert_eq!(
            covers(&changed(&["t/a.t"]), &some, &rels(&["t/a.t"]), &none),
            Covers::Files(["t/a.t".to_owned()].into())
        );
        assert_eq!(
            covers(
                &changed(&["lib/x.pm"]),
                &all,
                &rels(&["t/a.t", "t/b.t"]),
                &none
            ),
            Covers::All,
            "a change that picked every file ran them all"
        );
        assert_eq!(
            covers(&Want::all("a"), &some, &rels(&["t/a.t"]), &none),
            Covers::All
        );
        // A change to what a run's file loaded: that run saw it, and the file's other inputs.
        let loaded = with_inputs(
            Traces::default(),
            &inputs(&[
                ("t/a.t", &["lib/x.js", "lib/y.js"]),
                ("t/b.t", &["lib/z.js"]),
            ]),
        );
        assert_eq!(
            covers(
                &changed(&["lib/x.js"]),
                &some,
                &rels(&["t/a.t", "t/c.t"]),
                &loaded
            ),
            Covers::Files(
                rels(&["lib/x.js", "lib/y.js", "t/a.t", "t/c.t"])
                    .into_iter()
                    .collect()
            )
        );
        assert_eq!(
            covers(
                &changed(&["lib/x.js", "lib/other.js"]),
                &all,
                &rels(&["t/a.t"]),
                &loaded
            ),
            Covers::All,
            "a change no file is known to load ran them all"
        );
    }

    fn inputs(records: &[(&str, &[&str])]) -> Inputs {
        records
            .iter()
            .map(|(rel, loaded)| {
                (
                    (*rel).to_owned(),
                    loaded.iter().map(|p| (*p).to_owned()).collect(),
                )
            })
            .collect()
    }

    #[test]
    fn a_change_to_what_files_loaded_runs_those_and_the_files_nobody_traced() {
        let loaded = with_inputs(
            Traces::default(),
            &inputs(&[
                ("t/a.t", &["t/a.t", "lib/x.js"]),
                ("t/b.t", &["t/b.t", "lib/y.js"]),
                ("t/sub/d.t", &["t/sub/d.t", "lib/x.js", "lib/y.js"]),
            ]),
        );
        let pick = |want: &Want, verdicts: &[(&str, bool)]| -> Vec<String> {
            let verdicts = verdicts.iter().map(|&(r, ok)| (r.to_owned(), ok)).collect();
            select(
                want,
                &verdicts,
                &loaded,
                files(&["t/a.t", "t/b.t", "t/c.t", "t/sub/d.t"]),
                &mut Picked::default(),
            )
            .into_iter()
            .map(|f| f.rel)
            .collect()
        };
        // t/c.t has no record: it may load lib/x.js too.
        assert_eq!(
            pick(&changed(&["lib/x.js"]), &[]),
            ["t/a.t", "t/c.t", "t/sub/d.t"]
        );
        assert_eq!(
            pick(&changed(&["lib/y.js"]), &[("t/sub/d.t", false)]),
            ["t/sub/d.t", "t/b.t", "t/c.t"]
        );
        assert_eq!(
            pick(&changed(&["lib/x.js", "t/b.t"]), &[]),
            ["t/a.t", "t/b.t", "t/c.t", "t/sub/d.t"]
        );
        assert_eq!(
            pick(&changed(&["lib/x.js", "README.md"]), &[]),
            ["t/a.t", "t/b.t", "t/c.t", "t/sub/d.t"],
            "a change no record names runs everything"
        );
        assert_eq!(
            pick(&changed(&["t/b.t"]), &[]),
            ["t/b.t"],
            "a test file alone, as ever"
        );
    }

    #[test]
    fn merging_and_labels() {
        let mut want = changed(&["t/a.t"]);
        want.merge(changed(&["lib/x.pm", "lib/y.pm", "lib/z.pm"]));
        assert_eq!(
            want.label(),
            "triggered by lib/x.pm, lib/y.pm, lib/z.pm and 1 more"
        );
        let mut next = changed(&["t/b.t"]);
        next.restart_of(3, Want::all("all files (a)"));
        assert!(next.all);
        assert_eq!(next.label(), "triggered by t/b.t · restarts run 3");
        assert_eq!(Want::default().label(), "");
        let mut keys = Want::all("all files (a)");
        keys.merge(Want::all("all files (a)"));
        assert_eq!(keys.label(), "all files (a)");
    }
}
