//! Browser tests: `*.browser.*` and `*.chromium.*` files (and the Chromium half of `*.both.*`
//! and `*.all.*`) run as ES modules in one real headless Chromium per run, and their console
//! reaches the same parser, log, reports and diffs as a child's output.
//!
//! The rooms:
//! - [`cdp`]: a small DevTools client over `--remote-debugging-pipe` (why not a crate: there);
//! - [`chromium`]: finding, starting and ending Chromium (process group, `PR_SET_PDEATHSIG`,
//!   the per-run profile, throttling off, `--no-sandbox` only as root);
//! - [`server`]: the loopback HTTP server on port 0 serving each file's folder and harness;
//! - [`prepare`]: the seam with bundling (what is served for a file, and what it loads);
//! - [`bundle`]: esbuild's bundle of a file, its inputs and its source map;
//! - [`imports`]: without esbuild, whether a file can be served as a native module;
//! - [`crate::util::source_map`]: a stack's bundle frames mapped back to the sources;
//! - [`page`]: one file's page, from its navigation to its verdict's reasons;
//! - [`pages`]: the pages kept from file to file (one per file running at once), each rested
//!   between files so that nothing of one file reaches the next;
//! - [`console`]: console arguments joined as Node prints them;
//! - [`coverage`]: a page's precise coverage, for `--coverage`.
//!
//! [`Shared`] is the run's browser: nothing starts until the first browser file is due, then
//! one Chromium and one server serve every browser file of the run, up to `-j` pages at once
//! (the run's scheduler decides how many files run; each browser file is one page). A page
//! that will not close within the grace (a renderer stuck in a busy loop) retires its
//! Chromium: the files left get a new one, and the old one is killed once its last page is
//! done. A Chromium that cannot start fails every browser file with the reason (other files
//! run), and is not tried again within the run.
//!
//! What `--sandbox` and the rlimits do not do for Chromium (`--max-output` holds), and why:
//! one browser serves every browser file of a run, so per-file rlimits have nothing to hold, and
//! bubblewrap around Chromium would fight its own sandbox. A page's code is confined by
//! Chromium's renderer sandbox instead (off only when tapline runs as root, where Chromium
//! refuses it): it can reach nothing of the disk but what the loopback server serves.
pub(crate) mod adapter;
pub(crate) mod bundle;
pub(crate) mod cdp;
pub mod chromium;
pub(crate) mod console;
pub(crate) mod coverage;
#[cfg(test)]
pub(crate) mod discovery_cases;
pub(crate) mod imports;
pub mod inputs;
pub(crate) mod page;
pub(crate) mod pages;
pub(crate) mod prepare;
pub(crate) mod server;

use crate::supervise::{Cancel, Chunk};
use chromium::Chromium;
use server::Server;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{mpsc, watch};

/// The run's browser, started on first use. Cheap to clone.
#[derive(Clone, Default)]
pub(crate) struct Shared(Arc<tokio::sync::Mutex<State>>);

#[derive(Default)]
struct State {
    /// What each file's page loads is recorded here (watch mode re-runs by it).
    inputs: crate::harness::browser::inputs::LoadedInputs,
    chromium: Option<Arc<Chromium>>,
    /// Chromiums replaced after a page would not close; killed when their pages are done.
    retired: Vec<Arc<Chromium>>,
    server: Option<Arc<Server>>,
    /// Why Chromium could not start: every later browser file fails with it.
    failed: Option<String>,
    /// The run's scratch folder (profiles, prepared files), made on first use.
    scratch: Option<PathBuf>,
    /// Files prepared so far (each gets a scratch folder of its own).
    files: u64,
    chromiums: u64,
}

/// Runs that made a scratch folder in this process (watch mode runs many).
static RUNS: AtomicU64 = AtomicU64::new(0);

/// One browser file to run.
pub(crate) struct BrowserJob {
    /// The Chromium binary (from discovery: `$TAPLINE_CHROMIUM`, `[run] browser`, PATH).
    pub binary: PathBuf,
    /// As given (relative to `cwd`).
    pub file: PathBuf,
    pub cwd: PathBuf,
    /// The project's root (its `tapline.toml` or `.git`), which the page's server serves.
    pub root: PathBuf,
    pub timeout: Option<Duration>,
    pub grace: Duration,
    /// `--max-output`.
    pub max_output: Option<u64>,
    /// `--coverage`: the folder the page's precise coverage is written into.
    pub coverage: Option<PathBuf>,
}

pub use crate::harness::api::file_rel;

/// How a browser file ended: what the runner's file task judges.
#[derive(Debug, Default)]
pub(crate) struct BrowserEnd {
    pub reasons: Vec<String>,
    pub timed_out: bool,
    pub cancelled: bool,
    /// Its console wrote more than `--max-output` (the page was closed).
    pub output_exceeded: bool,
}

impl BrowserEnd {
    fn failed(reason: String) -> BrowserEnd {
        BrowserEnd {
            reasons: vec![reason],
            ..BrowserEnd::default()
        }
    }
}

impl Shared {
    /// A run's browser that records what each file loaded into `inputs`.
    pub(crate) fn recording(inputs: crate::harness::browser::inputs::LoadedInputs) -> Shared {
        Shared(Arc::new(tokio::sync::Mutex::new(State {
            inputs,
            ..State::default()
        })))
    }

    /// Runs one browser file: prepares it, opens its page, sends its console as chunks.
    /// A file that cannot be prepared fails before any Chromium is started for it.
    pub(crate) async fn run(
        &self,
        job: BrowserJob,
        chunks: mpsc::Sender<Chunk>,
        cancel: watch::Receiver<Option<Cancel>>,
    ) -> BrowserEnd {
        let root = job.root.clone();
        let (scratch, inputs) = {
            let mut state = self.0.lock().await;
            match state.file_scratch() {
                Ok(dir) => (dir, state.inputs.clone()),
                Err(why) => return BrowserEnd::failed(why),
            }
        };
        let file = job.cwd.join(&job.file);
        // esbuild takes from milliseconds to seconds: off the async threads.
        let prepared = {
            let (file, root, scratch) = (file.clone(), root.clone(), scratch.clone());
            let measured = job.coverage.is_some();
            tokio::task::spawn_blocking(move || prepare::prepare(&file, &root, &scratch, measured))
                .await
        };
        let end = match prepared {
            Ok(Ok(prepared)) => {
                inputs.record(&bundle::rel_of(&file, &root), &root, &prepared.inputs);
                self.in_page(&job, prepared, chunks, cancel).await
            }
            Ok(Err(e)) => {
                if let Some(details) = e.details() {
                    let _ = chunks
                        .send(Chunk::Stderr(format!("{details}\n").into_bytes()))
                        .await;
                }
                BrowserEnd::failed(e.to_string())
            }
            Err(e) => BrowserEnd::failed(format!("failed to prepare {}: {e}", job.file.display())),
        };
        let _ = std::fs::remove_dir_all(&scratch);
        end
    }

    /// The prepared file in a page of the run's Chromium (started if need be).
    async fn in_page(
        &self,
        job: &BrowserJob,
        prepared: prepare::Prepared,
        chunks: mpsc::Sender<Chunk>,
        cancel: watch::Receiver<Option<Cancel>>,
    ) -> BrowserEnd {
        let (chromium, server) = match self.browser(&job.binary, cancel.clone()).await {
            Ok(pair) => pair,
            Err(end) => return end,
        };
        let spec = page::PageSpec {
            cdp: &chromium.cdp,
            server: &server,
            idle: &chromium.idle,
            prepared,
            shown: job.file.display().to_string(),
            timeout: job.timeout,
            grace: job.grace,
            max_output: job.max_output,
            coverage: job.coverage.clone(),
        };
        let mut end = page::drive(spec, chunks, cancel).await;
        if end.browser_gone && !end.cancelled {
            let how = chromium.exit_status().await;
            let binary = chromium.binary.display();
            let reason = format!("Chromium exited while the page ran ({how}): {binary}");
            end.reasons.insert(0, reason);
        }
        let mut state = self.0.lock().await;
        if end.hung || end.browser_gone {
            state.retire(&chromium);
        }
        drop(chromium);
        state.reap().await;
        BrowserEnd {
            reasons: end.reasons,
            timed_out: end.timed_out,
            cancelled: end.cancelled,
            output_exceeded: end.output_exceeded,
        }
    }

    /// The run's Chromium and server, started if none runs. A Ctrl-C while Chromium starts
    /// (seconds, on a loaded machine) stops the wait: the half-started Chromium is dropped,
    /// which kills it.
    async fn browser(
        &self,
        binary: &Path,
        mut stop: watch::Receiver<Option<Cancel>>,
    ) -> Result<(Arc<Chromium>, Arc<Server>), BrowserEnd> {
        let starting = async { self.0.lock().await.browser(binary).await };
        tokio::select! {
            got = starting => got.map_err(BrowserEnd::failed),
            () = cancelled(&mut stop) => Err(BrowserEnd {
                reasons: vec!["interrupted".to_owned()],
                cancelled: true,
                ..BrowserEnd::default()
            }),
        }
    }

    /// The project files the browser file `rel` loaded this run (its bundle's inputs), if it
    /// got as far as being prepared; a `.both` file's entry is looked up by its path.
    pub(crate) async fn loaded(&self, rel: &str) -> Option<Vec<String>> {
        let inputs = self.0.lock().await.inputs.clone();
        let loaded = inputs.get(file_rel(rel))?;
        Some(loaded.into_iter().collect())
    }

    /// Ends every Chromium of the run and removes its scratch folder.
    pub(crate) async fn shutdown(&self) {
        let mut state = self.0.lock().await;
        if let Some(c) = state.chromium.take() {
            c.end().await;
        }
        for c in state.retired.drain(..) {
            c.end().await;
        }
        state.server = None;
        if let Some(dir) = state.scratch.take() {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}

/// Resolves once the run asks its files to stop.
async fn cancelled(cancel: &mut watch::Receiver<Option<Cancel>>) {
    loop {
        if cancel.borrow_and_update().is_some() {
            return;
        }
        if cancel.changed().await.is_err() {
            return std::future::pending().await;
        }
    }
}

impl State {
    /// A new scratch folder for one file, under the run's.
    fn file_scratch(&mut self) -> Result<PathBuf, String> {
        let run = match &self.scratch {
            Some(dir) => dir.clone(),
            None => {
                let n = RUNS.fetch_add(1, Ordering::Relaxed);
                let dir = std::env::temp_dir().join(format!("tapline-{}-{n}", std::process::id()));
                self.scratch = Some(dir.clone());
                dir
            }
        };
        self.files += 1;
        let dir = run.join(format!("file-{}", self.files));
        std::fs::create_dir_all(&dir)
            .map_err(|e| format!("failed to create {}: {e}", dir.display()))?;
        Ok(dir)
    }

    /// The running Chromium and server, started if none is.
    async fn browser(&mut self, binary: &Path) -> Result<(Arc<Chromium>, Arc<Server>), String> {
        if let Some(why) = &self.failed {
            return Err(why.clone());
        }
        let server = match &self.server {
            Some(s) => s.clone(),
            None => {
                let s = Arc::new(Server::default());
                self.server = Some(s.clone());
                s
            }
        };
        if let Some(c) = self.chromium.as_ref().filter(|c| !c.cdp.is_closed()) {
            return Ok((c.clone(), server));
        }
        if let Some(old) = self.chromium.take() {
            self.retired.push(old);
        }
        self.chromiums += 1;
        let run = self.scratch.clone().unwrap_or_else(std::env::temp_dir);
        let profile = run.join(format!("profile-{}", self.chromiums));
        match Chromium::start(binary, profile, &run.join("t")).await {
            Ok(c) => {
                self.chromium = Some(c.clone());
                Ok((c, server))
            }
            Err(why) => {
                self.failed = Some(why.clone());
                Err(why)
            }
        }
    }

    /// Sets `chromium` aside: the files left get a new one.
    fn retire(&mut self, chromium: &Arc<Chromium>) {
        if self
            .chromium
            .as_ref()
            .is_some_and(|c| Arc::ptr_eq(c, chromium))
        {
            if let Some(c) = self.chromium.take() {
                self.retired.push(c);
            }
        }
    }

    /// Ends the retired Chromiums no page uses any more.
    async fn reap(&mut self) {
        let mut kept = Vec::new();
        for c in self.retired.drain(..) {
            if Arc::strong_count(&c) == 1 {
                c.end().await;
            } else {
                kept.push(c);
            }
        }
        self.retired = kept;
    }
}

/// A project of `files` (path, text) in a temporary folder, for this room's tests.
#[cfg(test)]
pub(crate) fn test_project(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    for (path, text) in files {
        let path = dir.path().join(path);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("mkdir");
        }
        std::fs::write(path, text).expect("write");
    }
    dir
}
