//! Warm workers: the files a harness's worker may run ([`crate::harness::worker::Worker`], and
//! a `[[runner]]`'s with `warm = true` whose program a worker runs) run one after another
//! in one process that stays up, as the harness's own runner runs them, instead of an
//! interpreter's start and a harness's load per file. Everything after the split is what an
//! isolated file gets: its own log, live events, verdict, history, trace, retries,
//! `--partition`. What the driver does inside the worker is its harness's (the node room's
//! docs); the pool, the split and the judging are this room's, and name no harness.
//!
//! The shape:
//! - a [`Worker`] is one supervised child ([`crate::supervise::run`], its own process group,
//!   no timeout of its own): `INTERPRETER [the file's flags] DRIVER`, the harness's driver
//!   (written beside the trace hooks, [`super::trace::versioned_hooks`]). Its stdin is a pipe of
//!   commands, one JSON line per file; its stdout and stderr come as the chunks any child's do.
//! - the dispatcher owns the [`Pool`]: a file whose [`key_of`] says it may run warm takes an
//!   idle worker of its key (same harness, interpreter flags, folder and pipes) or a new one,
//!   and its file task ([`run_file`]) hands the worker back when the file is done. Workers and
//!   isolated children together stay within `-j`. The order and the share come from the
//!   planner as for any file: the next file goes to the next free job. A busy worker is sent
//!   its next file's command ahead ([`Pool::send_ahead`]), so it starts that file the moment
//!   its own ends; the last `-j` files of a key are not, and go to whichever worker frees
//!   first.
//! - the driver ends each file as the file's own process would end, and writes an end marker,
//!   `⟦tapline-warm NONCE end CODE MICROS⟧` and a newline, on stdout and on stderr (once when
//!   they are one pipe). [`Splitter`] cuts each stream there; the nonce is new for each
//!   worker, so a test cannot print it. MICROS, the driver's time for the file, is its
//!   duration: the worker's start is no file's, so the file a new worker happens to serve
//!   first is not charged with it (in history it would start first, and weigh more in
//!   `--partition time`, on every later run).
//! - isolation: a file that ends or crashes the process ends the worker; it is judged by the
//!   worker's end as it would be by its own (exit 3 is exit 3), and the next file gets a fresh
//!   worker. A file that never lets the worker go on or outlives `--timeout` is timed out and
//!   its worker killed, as its own process would be.
//!
//! Not warm (one process per file, as before): `--isolate` or `[run] isolate = true`, a
//! `[[runner]]` with `warm = false`, `--sandbox`, a resource limit (they are per process), a
//! command whose program no harness's worker runs, a file its harness's worker refuses
//! ([`crate::harness::worker::Worker::key_extra`]). Each watch cycle runs its files in new
//! processes: a changed module must be loaded afresh; the worker ready for the next cycle
//! ([`Spares`]) loaded only its harness.
use super::discover::Host;
use super::file_task::{self, Feed, FileJob};
use super::runners::Streams;
use super::{Planned, Settings};
use crate::event::run::{FailureReason, FileResult, RunEvent};
use crate::harness::api::Id;
use crate::harness::registry;
use crate::protocol::InputFormat;
use crate::supervise::{self, Cancel, Chunk, Exit, Outcome, SpawnError, Spec, StdinFeed};
use std::ffi::OsString;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use tokio::sync::{mpsc, watch};
use tokio::task::JoinHandle;

mod spares;
mod split;
mod spread;
pub(crate) use spares::Spares;
use split::End;
pub(crate) use split::Splitter;

/// What makes two files able to share a worker: the same harness, interpreter and flags,
/// folder and pipes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Key {
    /// The harness whose worker runs the file ([`crate::harness::registry::worker_for`]).
    harness: Id,
    /// The file's command less the file: the interpreter and its flags.
    argv: Vec<OsString>,
    cwd: PathBuf,
    merged: bool,
    /// The worker loads its harness before its first file comes (the harness's
    /// [`key_extra`](crate::harness::worker::Worker::key_extra)): files that would not have it
    /// loaded get a worker of their own.
    preload: bool,
}

/// The worker key of a planned file, when it may run warm (see the module docs).
pub(crate) fn key_of(p: &Planned, settings: &Settings, streams: Streams) -> Option<Key> {
    let input = &p.input;
    let plain = input.host == Host::Process
        && input.format == InputFormat::Tap
        && input.report.is_none()
        && !input.suite
        && input.skip.is_none()
        && p.cached.is_none();
    if settings.isolate
        || input.warm == Some(false)
        || !plain
        || settings.sandbox.is_some()
        || settings.limits != crate::supervise::limits::Limits::default()
        // A folder's 00init and per-file coverage go on the file's own command line and
        // environment, which a shared worker cannot give each file.
        || input.init.is_some()
        || settings.coverage.is_some()
    {
        return None;
    }
    let argv = p.command.as_ref().ok()?;
    let (file, head) = argv.split_last()?;
    let program = head.first()?.to_string_lossy();
    let program = program.rsplit('/').next()?;
    // The harness that made the file's command runs it in its own worker (a driver of its
    // own under the interpreter); else the worker of the command's program, if any.
    let own = input
        .harness
        .and_then(|id| Some((id, registry::worker(id)?)))
        .filter(|(_, w)| w.runs(program));
    let (harness, worker) = own.or_else(|| registry::worker_for(program))?;
    let name = p.info.rel.rsplit('/').next().unwrap_or(&p.info.rel);
    if Path::new(file).file_name().and_then(|n| n.to_str()) != Some(name) {
        // The file is not the command's last word: the driver could not be put in its place.
        return None;
    }
    let cwd = input.cwd.clone().unwrap_or_else(|| settings.cwd.clone());
    let preload = worker.key_extra(&cwd.join(file), input.warm == Some(true))?;
    Some(Key {
        harness,
        argv: head.to_vec(),
        cwd,
        merged: streams == Streams::OnePipe,
        preload,
    })
}

/// One warm process, between files or serving one.
pub(crate) struct Worker {
    key: Key,
    /// Tells this worker from another of its key.
    id: u64,
    /// The file (index, attempt) whose command it was sent while it served the one before
    /// ([`Pool::send_ahead`]): it runs that file next, whatever tapline does meanwhile.
    ahead: Option<(usize, u32)>,
    commands: mpsc::Sender<Vec<u8>>,
    chunks: mpsc::Receiver<Chunk>,
    supervisor: JoinHandle<Result<Outcome, SpawnError>>,
    cancel: watch::Sender<Option<Cancel>>,
    out: Splitter,
    err: Splitter,
}

impl Worker {
    /// Starts `node [flags] tapline-warm.cjs` for `key` (the arguments as its harness's worker
    /// says, [`crate::harness::worker::Worker::start_args`]), with the run's environment.
    fn spawn(key: Key, driver: &Path, settings: &Settings) -> Worker {
        let nonce = nonce();
        let (commands, rx) = mpsc::channel::<Vec<u8>>(4);
        let (chunk_tx, chunks) = mpsc::channel::<Chunk>(64);
        let (cancel, cancel_rx) = watch::channel(None::<Cancel>);
        let args = match registry::worker(key.harness) {
            Some(worker) => worker.start_args(&key.argv, driver),
            None => {
                let mut args: Vec<OsString> = key.argv[1..].to_vec();
                args.push(driver.as_os_str().to_owned());
                args
            }
        };
        let env = std::iter::once(("TAPLINE".into(), "1".into()))
            .chain(settings.env.iter().cloned())
            .chain([
                ("TAPLINE_WARM_NONCE".into(), nonce.clone().into()),
                (
                    "TAPLINE_WARM_MERGED".into(),
                    if key.merged { "1" } else { "0" }.into(),
                ),
                (
                    "TAPLINE_WARM_TRACE".into(),
                    if settings.trace.is_some() { "1" } else { "0" }.into(),
                ),
            ])
            .chain(
                key.preload
                    .then(|| ("TAPLINE_WARM_PRELOAD".into(), key.cwd.clone().into())),
            )
            .chain(std::iter::once((
                "TAPLINE_WARM_MEMO".into(),
                memo_path(driver, &key.cwd).into(),
            )))
            .chain(start_env(driver, &key, &settings.env))
            .collect();
        let spec = Spec {
            program: key.argv[0].clone(),
            args,
            cwd: key.cwd.clone(),
            env,
            timeout: None,
            grace: settings.grace,
            leak_wait: supervise::DEFAULT_LEAK_WAIT,
            rlimits: Vec::new(),
            max_output: None,
            merged: key.merged,
            stdin: Some(StdinFeed::new(rx)),
        };
        let supervisor = tokio::spawn(supervise::run(spec, chunk_tx, cancel_rx));
        Worker {
            key,
            id: next_worker_id(),
            ahead: None,
            commands,
            chunks,
            supervisor,
            cancel,
            out: Splitter::new(&nonce),
            err: Splitter::new(&nonce),
        }
    }

    /// Ends an idle worker at once: it is between files (each of its files' output came up to
    /// its end marker, its trace was written before it), so nothing of a file is lost, and a
    /// kill spares the wait for node to tear its heap down (up to 0.3 s under load) at the
    /// run's end. Its group goes with it, as a leaked subprocess of a file would with its own
    /// process.
    async fn retire(self) {
        let Worker {
            commands,
            chunks,
            supervisor,
            cancel,
            ..
        } = self;
        let _ = cancel.send(Some(Cancel::Immediate));
        drop(commands);
        drop(chunks);
        let _ = supervisor.await;
    }
}

/// Writes the files of `harness`'s worker to the workers' hooks folder: the driver's path.
fn write_driver(harness: Id) -> Result<PathBuf, String> {
    let files = registry::worker(harness)
        .ok_or_else(|| format!("failed to find the worker of {harness}"))?
        .files();
    let (name, _) = files
        .first()
        .ok_or_else(|| format!("failed to find the driver of {harness}'s worker"))?;
    let dir = super::trace::versioned_hooks("warm", files).map_err(|e| e.to_string())?;
    Ok(dir.join(name))
}

/// The variables the harness starts a worker of `key` with, after the run's `env`
/// ([`crate::harness::worker::Worker::start_env`]).
fn start_env(driver: &Path, key: &Key, env: &[(OsString, OsString)]) -> Vec<(OsString, OsString)> {
    let (Some(dir), Some(worker)) = (driver.parent(), registry::worker(key.harness)) else {
        return Vec::new();
    };
    let get = |name: &str| super::child_env::seen_by_child(env, name, |k| std::env::var_os(k));
    worker.start_env(dir, &key.argv, &key.cwd, &get)
}

/// The file where the driver keeps what installed packages resolve to for the project at
/// `cwd`, beside the driver (a new driver starts a new memo): see the driver's `openMemo`.
fn memo_path(driver: &Path, cwd: &Path) -> PathBuf {
    use std::os::unix::ffi::OsStrExt;
    let name = format!(
        "memo-{:016x}.json",
        crate::util::fnv1a(cwd.as_os_str().as_bytes())
    );
    driver.with_file_name(name)
}

/// A worker's id, new in the process.
fn next_worker_id() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

/// A new marker nonce: not a secret, only unlikely to be printed by a test.
fn nonce() -> String {
    use std::hash::{BuildHasher, Hasher};
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u64(NEXT.fetch_add(1, Ordering::Relaxed));
    h.write_u32(std::process::id());
    format!("{:016x}", h.finish())
}

/// What a warm file task hands back: its worker when it can serve another file.
pub(crate) struct Lease {
    id: u64,
    worker: Option<Worker>,
}

/// A worker serving a file: what the pool keeps of it while its file task holds it.
struct Busy {
    id: u64,
    key: Key,
    /// Its stdin's queue, for the next file's command ([`Pool::send_ahead`]).
    commands: mpsc::Sender<Vec<u8>>,
    /// The file whose command it was sent ahead.
    ahead: Option<(usize, u32)>,
}

/// The run's warm workers: the idle ones, and the ones serving a file.
pub(crate) struct Pool {
    /// Each harness's driver path, written on first use (an error keeps its files isolated).
    drivers: Vec<(Id, Result<PathBuf, String>)>,
    idle: Vec<Worker>,
    busy: Vec<Busy>,
    /// Every key a worker served this run: with spares kept, each gets one at the end.
    served: Vec<Key>,
    /// The machine's load when a second worker was first weighed (`Some(None)`: unknown).
    load: Option<Option<f64>>,
    retiring: Vec<JoinHandle<()>>,
}

impl Pool {
    pub(crate) fn new() -> Pool {
        Pool {
            drivers: Vec::new(),
            idle: Vec::new(),
            busy: Vec::new(),
            served: Vec::new(),
            load: None,
            retiring: Vec::new(),
        }
    }

    /// The driver of `harness`'s workers, written with the files it reads beside it on first
    /// use ([`crate::harness::worker::Worker::files`]).
    fn driver(&mut self, harness: Id) -> Option<PathBuf> {
        if let Some((_, written)) = self.drivers.iter().find(|(id, _)| *id == harness) {
            return written.as_ref().ok().cloned();
        }
        let written = write_driver(harness);
        let path = written.as_ref().ok().cloned();
        self.drivers.push((harness, written));
        path
    }

    /// A worker for `file` (its index and attempt) of `key`: the idle one that was sent it
    /// ahead, an idle one that holds no file, a spare kept from the last run
    /// ([`Settings::warm_spares`]), else a new one (an idle worker of another key is retired
    /// first when `jobs` are all taken). `None` when the driver cannot be written.
    pub(crate) fn take(
        &mut self,
        key: Key,
        file: (usize, u32),
        settings: &Settings,
    ) -> Option<Worker> {
        let spare = || settings.warm_spares.as_ref().and_then(|s| s.take(&key));
        let held = self.idle.iter().position(|w| w.ahead == Some(file));
        let free = || {
            self.idle
                .iter()
                .position(|w| w.key == key && w.ahead.is_none())
        };
        let worker = match held.or_else(free) {
            Some(at) => self.idle.remove(at),
            None => match spare() {
                Some(worker) => worker,
                None => {
                    let driver = self.driver(key.harness)?;
                    while self.idle.len() + self.busy.len() >= settings.jobs.max(1) {
                        // One that runs a file sent ahead is busy, whatever tapline thinks.
                        let Some(at) = self.idle.iter().position(|w| w.ahead.is_none()) else {
                            break;
                        };
                        let old = self.idle.remove(at);
                        self.retiring.push(tokio::spawn(old.retire()));
                    }
                    Worker::spawn(key, &driver, settings)
                }
            },
        };
        if !self.served.contains(&worker.key) {
            self.served.push(worker.key.clone());
        }
        self.busy.push(Busy {
            id: worker.id,
            key: worker.key.clone(),
            commands: worker.commands.clone(),
            ahead: None,
        });
        Some(worker)
    }

    /// Whether a file of `key` should wait for a worker of its key to come back rather than
    /// start another: one is busy, none is idle, and the files of the key left (`left`: each
    /// one's history median, this one among them) do not pay for a start
    /// ([`spread::another_worker_pays`]), or the machine has no core for it
    /// ([`spread::core_to_spare`], the load read once a run).
    pub(crate) fn should_wait<I>(&mut self, key: &Key, left: impl FnOnce() -> I) -> bool
    where
        I: IntoIterator<Item = Option<u64>>,
    {
        let idle = self.idle.iter().any(|w| w.key == *key && w.ahead.is_none());
        if idle || !self.busy.iter().any(|b| b.key == *key) {
            return false;
        }
        let load = *self.load.get_or_insert_with(spread::machine_load);
        let cores = std::thread::available_parallelism().map_or(1, usize::from);
        !spread::core_to_spare(load, cores) || !spread::another_worker_pays(left())
    }

    /// The busy workers that hold no next file yet, by id and key, in the order they took
    /// their file.
    pub(crate) fn without_ahead(&self) -> Vec<(u64, Key)> {
        (self.busy.iter())
            .filter(|b| b.ahead.is_none())
            .map(|b| (b.id, b.key.clone()))
            .collect()
    }

    /// Whether a worker was sent `file` ahead: it is that worker's to run.
    pub(crate) fn holds(&self, file: (usize, u32)) -> bool {
        self.busy.iter().any(|b| b.ahead == Some(file))
            || self.idle.iter().any(|w| w.ahead == Some(file))
    }

    /// A file an idle worker was sent ahead: it runs it already, so it starts before any other.
    pub(crate) fn ready_ahead(&self) -> Option<(usize, u32)> {
        self.idle.iter().find_map(|w| w.ahead)
    }

    /// Queues `line`, the command of `file`, behind the one busy worker `id` serves, so that
    /// the driver reads it the moment that file ends instead of waiting for tapline to see the
    /// end and answer (a millisecond or more a file under load). The file is then that
    /// worker's: [`Pool::take`] gives it no other, and should it die first the file was never
    /// run and is started as any other. Whether it was queued.
    pub(crate) fn send_ahead(&mut self, id: u64, file: (usize, u32), line: Vec<u8>) -> bool {
        let Some(busy) = self
            .busy
            .iter_mut()
            .find(|b| b.id == id && b.ahead.is_none())
        else {
            return false;
        };
        let sent = busy.commands.try_send(line).is_ok();
        if sent {
            busy.ahead = Some(file);
        }
        sent
    }

    /// A warm file task ended: its worker is idle again (holding the file it was sent ahead),
    /// unless it is gone or the run is stopping (a file it runs ahead then ends with it, not
    /// started as far as the run is concerned).
    pub(crate) fn give_back(&mut self, lease: Lease, stopping: bool) {
        let ahead = match self.busy.iter().position(|b| b.id == lease.id) {
            Some(at) => self.busy.swap_remove(at).ahead,
            None => None,
        };
        match lease.worker {
            Some(mut worker) if !stopping => {
                worker.ahead = ahead;
                self.idle.push(worker);
            }
            Some(worker) => self.retiring.push(tokio::spawn(worker.retire())),
            None => {}
        }
    }

    /// Ends every worker, at the run's end; with spares kept (watch mode), starts a fresh one
    /// for each key served first, so the next run's file finds its harness loaded.
    pub(crate) async fn shutdown(&mut self, settings: &Settings) {
        if let Some(spares) = &settings.warm_spares {
            for key in std::mem::take(&mut self.served) {
                let kept = registry::worker(key.harness).is_none_or(|w| w.spares());
                if !kept || spares.holds(&key) {
                    continue;
                }
                if let Some(driver) = self.driver(key.harness) {
                    spares.keep(Worker::spawn(key, &driver, settings));
                }
            }
        }
        let idle = std::mem::take(&mut self.idle);
        self.retiring
            .extend(idle.into_iter().map(|w| tokio::spawn(w.retire())));
        for task in std::mem::take(&mut self.retiring) {
            let _ = task.await;
        }
    }
}

impl Worker {
    /// Queues the command of `file` unless the worker was sent it ahead; what the file task
    /// is still to send (the queue full, which a worker between files never has, or gone).
    pub(crate) fn hand(
        &mut self,
        file: (usize, u32),
        line: impl FnOnce() -> Vec<u8>,
    ) -> Option<Vec<u8>> {
        if self.ahead.take() == Some(file) {
            return None;
        }
        self.commands.try_send(line()).err().map(|e| match e {
            mpsc::error::TrySendError::Full(line) | mpsc::error::TrySendError::Closed(line) => line,
        })
    }
}

/// The command line the driver reads for a planned file not started yet ([`Pool::send_ahead`]):
/// what [`job_command`] gives its job once started.
pub(crate) fn command_of(p: &Planned, settings: &Settings) -> Vec<u8> {
    let cwd = p.input.cwd.as_deref().unwrap_or(&settings.cwd);
    let trace = (settings.trace.as_ref()).and_then(|t| t.for_planned(p, &settings.cwd));
    command_line(cwd, &p.command, trace.as_ref())
}

/// The command line the driver reads for a started file.
pub(crate) fn job_command(job: &FileJob) -> Vec<u8> {
    command_line(&job.cwd, &job.command, job.trace.as_ref())
}

/// The file's path (its command's last word, from `cwd`) and its trace's variables, as the
/// driver's JSON line.
fn command_line(
    cwd: &Path,
    command: &Result<Vec<OsString>, String>,
    trace: Option<&super::trace::FileTrace>,
) -> Vec<u8> {
    let file = (command.as_ref().ok())
        .and_then(|argv| argv.last())
        .map(|f| cwd.join(f).to_string_lossy().into_owned())
        .unwrap_or_default();
    let vars: Vec<(OsString, OsString)> = trace.map(|t| t.env()).unwrap_or_default();
    let trace = vars
        .iter()
        .find(|(k, _)| k == super::trace::OUT_VAR)
        .map(|(_, v)| v.to_string_lossy().into_owned());
    let env: serde_json::Map<String, serde_json::Value> = vars
        .iter()
        .map(|(k, v)| {
            let v = v.to_string_lossy().into_owned();
            (k.to_string_lossy().into_owned(), v.into())
        })
        .collect();
    let doc = serde_json::json!({ "file": file, "env": env, "trace": trace });
    let mut line = doc.to_string().into_bytes();
    line.push(b'\n');
    line
}

/// Where a file's bytes go: its log first, then its parser.
struct Output<'a> {
    feed: Feed<'a>,
    log: Option<std::fs::File>,
    log_error: Option<String>,
}

impl Output<'_> {
    async fn give(&mut self, chunk: Chunk) {
        if chunk.bytes().is_empty() {
            return;
        }
        if let Some(f) = self.log.as_mut() {
            // Unbuffered on purpose: the log must hold what arrived even if tapline dies.
            if let Err(e) = f.write_all(chunk.bytes()) {
                self.log_error = Some(format!("failed to write the log: {e}"));
                self.log = None;
            }
        }
        self.feed.chunk(&chunk).await;
    }
}

/// How a file's turn in a worker ended.
struct Turn {
    /// What the driver's marker on stdout said; `None`: the worker ended during the file.
    end: Option<End>,
    timed_out: bool,
    cancelled: bool,
}

/// Runs one file in `worker`, as [`file_task::run_file`] runs it in a process of its own.
pub(crate) async fn run_file(
    mut job: FileJob,
    mut worker: Worker,
    unsent: Option<Vec<u8>>,
    tx: mpsc::Sender<Vec<RunEvent>>,
    cancel: watch::Receiver<Option<Cancel>>,
) -> (FileResult, Lease) {
    let (run, file) = (job.run, job.info.index);
    let started = Instant::now();
    let mut output = Output {
        feed: Feed::new(
            run,
            file,
            &tx,
            job.streams,
            file_task::parser_of(&job.input),
        ),
        log: job.log.take(),
        log_error: None,
    };
    // A dead worker's channel is closed: its chunks then end at once, and its end is judged.
    if let Some(line) = unsent {
        let _ = worker.commands.send(line).await;
    }
    let turn = serve(&mut worker, &mut output, job.timeout, cancel).await;
    // The driver's time, when it told it: a new worker's start is no file's.
    let outcome = match turn.end {
        Some(end) => Ok(Outcome::ended(
            Exit::Code(end.code),
            end.took.unwrap_or_else(|| started.elapsed()),
        )),
        None => {
            // The rest of what it wrote is this file's.
            let (out, err) = (worker.out.rest(), worker.err.rest());
            output.give(Chunk::Stdout(out)).await;
            output.give(Chunk::Stderr(err)).await;
            match (&mut worker.supervisor).await {
                Ok(Ok(o)) => Ok(Outcome {
                    timed_out: turn.timed_out,
                    cancelled: turn.cancelled && !turn.timed_out,
                    duration: started.elapsed(),
                    ..o
                }),
                Ok(Err(e)) => Err(e.to_string()),
                Err(e) => Err(format!("failed to supervise the warm worker: {e}")),
            }
        }
    };
    let lease = match turn.end {
        Some(_) if !turn.cancelled && !turn.timed_out => Lease {
            id: worker.id,
            worker: Some(worker),
        },
        _ => {
            let _ = worker.cancel.send(Some(Cancel::Immediate));
            Lease {
                id: worker.id,
                worker: None,
            }
        }
    };
    let log_error = output.log_error.take();
    let (parser, late) = output.feed.finish().await;
    let mut collected = parser.finish();
    let mut events: Vec<RunEvent> = (collected.events.drain(..))
        .map(|event| RunEvent::Tap { run, file, event })
        .collect();
    events.extend(late);
    if !events.is_empty() {
        let _ = tx.send(events).await;
    }
    let mut result = file_task::judge(&mut collected, outcome, job.timeout, started, Vec::new());
    file_task::judge_silent(&mut result, job.input.silent);
    if let Some(e) = log_error {
        result.reasons.push(FailureReason::Other(e));
    }
    if let Some(trace) = job.trace {
        let later = job.trace_later.as_ref();
        trace.finish_or_later(!result.cancelled, later).await;
    }
    (result, lease)
}

/// Hands the worker's output to the file until both of its streams reach the end marker, or
/// the worker ends; times the file out and passes the run's stop on meanwhile.
async fn serve(
    worker: &mut Worker,
    output: &mut Output<'_>,
    timeout: Option<Duration>,
    mut cancel: watch::Receiver<Option<Cancel>>,
) -> Turn {
    let mut turn = Turn {
        end: None,
        timed_out: false,
        cancelled: false,
    };
    // What came after the last file's marker is this file's.
    let (out_end, err_end) = (worker.out.take(), worker.err.take());
    output.give(Chunk::Stdout(out_end.0)).await;
    output.give(Chunk::Stderr(err_end.0)).await;
    let mut ends = Ends {
        out: out_end.1,
        err: err_end.1.is_some(),
        merged: worker.key.merged,
    };
    let deadline = timeout.and_then(|t| tokio::time::Instant::now().checked_add(t));
    let mut cancel_open = true;
    loop {
        if let Some(end) = ends.done() {
            turn.end = Some(end);
            break;
        }
        if let Some(level) = *cancel.borrow_and_update() {
            turn.cancelled = true;
            let _ = worker.cancel.send(Some(level));
        }
        tokio::select! {
            chunk = worker.chunks.recv() => {
                let Some(chunk) = chunk else { break };
                if let Some(mine) = ends.route(&mut worker.out, &mut worker.err, &chunk) {
                    output.give(mine).await;
                }
            }
            () = until(deadline), if !turn.timed_out => {
                turn.timed_out = true;
                let _ = worker.cancel.send(Some(Cancel::Graceful));
            }
            changed = cancel.changed(), if cancel_open => {
                cancel_open = changed.is_ok();
            }
        }
    }
    turn
}

/// Where a file's turn stands on the worker's two streams.
struct Ends {
    /// Stdout's marker: how the file ended.
    out: Option<End>,
    /// Whether stderr's marker came (it says only that the file ended).
    err: bool,
    /// Both streams are one pipe: stdout's marker is the only one.
    merged: bool,
}

impl Ends {
    /// How the file ended, once each of its streams reached its marker.
    fn done(&self) -> Option<End> {
        self.out.filter(|_| self.err || self.merged)
    }

    /// The file's part of one chunk of the worker's output, if any. A stream already past
    /// this file's marker carries the next file's output (its command was sent ahead, and
    /// the worker started it while this file's other stream was still on its way): that is
    /// held for the next file, never given to this one, and its marker not taken for ours.
    fn route(&mut self, out: &mut Splitter, err: &mut Splitter, chunk: &Chunk) -> Option<Chunk> {
        match chunk {
            Chunk::Stdout(b) if self.out.is_some() => {
                out.hold(b);
                None
            }
            Chunk::Stderr(b) if self.err => {
                err.hold(b);
                None
            }
            Chunk::Stdout(b) => {
                let (piece, end) = out.feed(b);
                self.out = end;
                Some(Chunk::Stdout(piece))
            }
            Chunk::Stderr(b) => {
                let (piece, end) = err.feed(b);
                self.err = end.is_some();
                Some(Chunk::Stderr(piece))
            }
        }
    }
}

/// Sleeps until `deadline`, or forever when there is none.
async fn until(deadline: Option<tokio::time::Instant>) {
    match deadline {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key() -> Key {
        Key {
            harness: "some",
            argv: vec!["interpreter".into()],
            cwd: PathBuf::from("/project"),
            merged: false,
            preload: true,
        }
    }

    /// A worker with no process behind it: its stdin's queue is `rx`.
    fn fake() -> (Worker, mpsc::Receiver<Vec<u8>>) {
        let (commands, rx) = mpsc::channel(4);
        let (_, chunks) = mpsc::channel(1);
        let (cancel, _) = watch::channel(None);
        let ended = Outcome::ended(Exit::Code(0), Duration::ZERO);
        let worker = Worker {
            key: key(),
            id: next_worker_id(),
            ahead: None,
            commands,
            chunks,
            supervisor: tokio::spawn(async move { Ok(ended) }),
            cancel,
            out: Splitter::new("n"),
            err: Splitter::new("n"),
        };
        (worker, rx)
    }

    /// A file's bytes of one chunk as `route` gives them.
    fn given(ends: &mut Ends, out: &mut Splitter, err: &mut Splitter, chunk: Chunk) -> String {
        let mine = ends.route(out, err, &chunk);
        String::from_utf8(mine.map(|c| c.bytes().to_vec()).unwrap_or_default()).expect("UTF-8")
    }

    #[test]
    fn the_next_files_output_that_comes_before_this_files_stderr_marker_is_the_next_files() {
        let marker = |code: i32| format!("\u{27e6}tapline-warm n end {code} 5\u{27e7}\n");
        let (mut out, mut err) = (Splitter::new("n"), Splitter::new("n"));
        let mut a = Ends {
            out: None,
            err: false,
            merged: false,
        };
        let stdout = |t: String| Chunk::Stdout(t.into_bytes());
        let got = given(
            &mut a,
            &mut out,
            &mut err,
            stdout(format!("ok 1\n{}", marker(1))),
        );
        assert_eq!((got.as_str(), a.done()), ("ok 1\n", None));
        // B was sent ahead: its whole stream comes while A's stderr marker is on its way.
        let got = given(
            &mut a,
            &mut out,
            &mut err,
            stdout(format!("1..0\n{}", marker(0))),
        );
        assert_eq!(got, "", "B's output is not A's");
        let got = given(
            &mut a,
            &mut out,
            &mut err,
            Chunk::Stderr(marker(1).into_bytes()),
        );
        assert_eq!((got.as_str(), a.done().map(|e| e.code)), ("", Some(1)));
        // B's turn starts with what was held: its stream and its marker.
        let (mine, end) = out.take();
        assert_eq!(
            (mine.as_slice(), end.map(|e| e.code)),
            (&b"1..0\n"[..], Some(0))
        );
        // One pipe: stdout's marker ends the file.
        let mut one = Ends {
            out: None,
            err: false,
            merged: true,
        };
        given(&mut one, &mut out, &mut err, stdout(marker(3)));
        assert_eq!(one.done().map(|e| e.code), Some(3));
    }

    #[tokio::test]
    async fn issue26_a_file_sent_ahead_follows_its_workers_file_and_is_that_workers_alone() {
        let settings = super::super::tests::settings(2);
        let mut pool = Pool::new();
        let (idle, mut rx) = fake();
        pool.idle.push(idle);
        let mut w = pool
            .take(key(), (0, 1), &settings)
            .expect("the idle worker");
        assert_eq!(
            w.hand((0, 1), || b"zero\n".to_vec()),
            None,
            "queued at once"
        );
        let [(id, _)] = pool.without_ahead()[..] else {
            panic!("one busy worker");
        };
        assert!(pool.send_ahead(id, (1, 1), b"one\n".to_vec()));
        assert!(
            !pool.send_ahead(id, (2, 1), b"two\n".to_vec()),
            "one file ahead"
        );
        assert!(pool.holds((1, 1)) && !pool.holds((2, 1)));
        assert!(pool.without_ahead().is_empty());
        // The driver reads them in that order.
        assert_eq!(rx.recv().await.as_deref(), Some(&b"zero\n"[..]));
        assert_eq!(rx.recv().await.as_deref(), Some(&b"one\n"[..]));

        // File 0 ends: its worker comes back holding file 1, which it runs already.
        pool.give_back(
            Lease {
                id,
                worker: Some(w),
            },
            false,
        );
        assert_eq!(pool.ready_ahead(), Some((1, 1)));
        // Another file of the key gets another worker.
        let (other, _other_rx) = fake();
        let other_id = other.id;
        pool.idle.push(other);
        let w5 = pool
            .take(key(), (5, 1), &settings)
            .expect("the other idle worker");
        assert_eq!(w5.id, other_id);
        pool.give_back(
            Lease {
                id: other_id,
                worker: Some(w5),
            },
            false,
        );
        assert!(
            !pool.should_wait(&key(), Vec::new),
            "no worker of the key is busy: another file starts its own"
        );
        pool.idle.reverse();
        let mut w = pool.take(key(), (1, 1), &settings).expect("its worker");
        assert_eq!(w.id, id, "the worker running it, wherever it waits");
        assert_eq!(w.hand((1, 1), || panic!("sent already")), None);
        assert!(!pool.holds((1, 1)) && pool.ready_ahead().is_none());

        // A worker that dies with a file ahead never ran it: the file is free again.
        assert!(pool.send_ahead(id, (2, 1), b"two\n".to_vec()));
        pool.give_back(Lease { id, worker: None }, false);
        drop(w);
        assert!(!pool.holds((2, 1)) && pool.ready_ahead().is_none());

        // A stopping run ends a worker running a file ahead instead of keeping it idle.
        let (idle, _rx) = fake();
        pool.idle.push(idle);
        let w = pool
            .take(key(), (3, 1), &settings)
            .expect("the idle worker");
        assert!(pool.send_ahead(w.id, (4, 1), b"four\n".to_vec()));
        pool.give_back(
            Lease {
                id: w.id,
                worker: Some(w),
            },
            true,
        );
        assert_eq!(pool.idle.len(), 1, "retired, not kept");
        assert!(!pool.holds((4, 1)));
        pool.shutdown(&settings).await;
    }
}
