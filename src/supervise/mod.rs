//! Child-process supervision: runs one test file in its own process group, streams its raw stdout/stderr, and enforces timeouts, cancellation and teardown of everything it started.
//!
//! The shape follows nextest: the child leads a fresh process group so that a
//! single `killpg` reaches every descendant it forks; a timeout or a graceful
//! cancellation sends SIGTERM to the group, waits `grace`, then sends SIGKILL;
//! a descendant that outlives the child while holding its pipes is reported as
//! a leak and killed instead of hanging the run.
//!
//! Every `killpg` is sent while the child is exited but not yet reaped. A
//! zombie group leader keeps its pid (and so the group id) reserved, so a
//! signal can never land on an unrelated group that recycled the id. That is
//! why the exit is first observed with `waitid(WNOWAIT)` and reaped only after
//! the final sweep.

use std::ffi::OsString;
use std::fmt;
use std::io;
use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;

use rustix::io::Errno;
use rustix::process::{Pid, Signal, WaitId, WaitIdOptions, WaitIdStatus};
use tokio::process::Command;
use tokio::signal::unix::{signal, SignalKind};
use tokio::sync::{mpsc, watch};
use tokio::task::AbortHandle;
use tokio::time::{sleep, sleep_until, Instant};

use limits::RlimitSetting;

pub mod limits;
mod output;
mod pipes;
use pipes::{exceeded, OutputBudget, Phase, Readers};
pub mod sandbox;
mod spawn_error;
use spawn_error::classify_spawn_error;
pub use spawn_error::SpawnError;

/// Default time between SIGTERM and SIGKILL.
pub const DEFAULT_GRACE: Duration = Duration::from_secs(5);

/// Default time the pipes get to reach EOF after the child exits before the
/// holders are treated as leaked.
pub const DEFAULT_LEAK_WAIT: Duration = Duration::from_millis(100);

/// Largest single read, and so the largest [`Chunk`].
const CHUNK_SIZE: usize = 64 * 1024;

/// After a leak, how long the pipes may stay idle-but-open once the group has
/// been SIGKILLed. Only a process that left the group (setsid/setpgid) can
/// still hold them then, and it cannot be killed by group, so we stop waiting.
const DRAIN_WAIT: Duration = Duration::from_secs(1);

/// Safety net for exit detection: SIGCHLD wakes us normally, but the handler
/// is process-wide state that other code in the process could replace.
const EXIT_POLL: Duration = Duration::from_millis(250);

/// What to run and how to supervise it.
#[derive(Clone, Debug)]
pub struct Spec {
    /// Executable name (looked up in `PATH`) or path (relative to `cwd`).
    pub program: OsString,
    pub args: Vec<OsString>,
    pub cwd: PathBuf,
    /// Added to (or overriding) the inherited environment.
    pub env: Vec<(OsString, OsString)>,
    /// Wall-clock limit from spawn; `None` means no limit.
    pub timeout: Option<Duration>,
    /// Time between SIGTERM and SIGKILL on timeout or graceful cancellation.
    pub grace: Duration,
    /// Time the pipes get to reach EOF after the child exits before whoever
    /// still holds them is considered leaked.
    pub leak_wait: Duration,
    /// Set in the child before it execs (`--max-memory` and the like).
    pub rlimits: Vec<RlimitSetting>,
    /// Bytes of stdout and stderr together after which the group is killed.
    pub max_output: Option<u64>,
    /// stdout and stderr are one pipe, as `2>&1` makes them: its bytes come in the order the
    /// child wrote them, whichever stream it wrote to, all as [`Chunk::Stdout`].
    pub merged: bool,
    /// The child's stdin: `None` is /dev/null; a feed makes it a pipe (a warm worker's
    /// commands).
    pub stdin: Option<StdinFeed>,
}

/// Bytes for a child's stdin, written as they come; the pipe is closed once every sender is
/// gone (or the child stops reading). Taken by the one run it is given to.
#[derive(Clone, Debug)]
pub struct StdinFeed(std::sync::Arc<std::sync::Mutex<Option<mpsc::Receiver<Vec<u8>>>>>);

impl StdinFeed {
    pub fn new(rx: mpsc::Receiver<Vec<u8>>) -> StdinFeed {
        StdinFeed(std::sync::Arc::new(std::sync::Mutex::new(Some(rx))))
    }

    fn take(&self) -> Option<mpsc::Receiver<Vec<u8>>> {
        self.0.lock().ok().and_then(|mut rx| rx.take())
    }
}

/// Copies the feed into the child's stdin until either end is gone.
fn feed_stdin(child: &mut tokio::process::Child, feed: Option<&StdinFeed>) -> Option<AbortHandle> {
    use tokio::io::AsyncWriteExt;
    let mut rx = feed?.take()?;
    let mut stdin = child.stdin.take()?;
    let task = tokio::spawn(async move {
        while let Some(bytes) = rx.recv().await {
            if stdin.write_all(&bytes).await.is_err() || stdin.flush().await.is_err() {
                break;
            }
        }
    });
    Some(task.abort_handle())
}

impl Spec {
    /// A spec with no arguments, no extra environment, no timeout and the
    /// default `grace` and `leak_wait`.
    pub fn new(program: impl Into<OsString>, cwd: impl Into<PathBuf>) -> Self {
        Self {
            program: program.into(),
            args: Vec::new(),
            cwd: cwd.into(),
            env: Vec::new(),
            timeout: None,
            grace: DEFAULT_GRACE,
            leak_wait: DEFAULT_LEAK_WAIT,
            rlimits: Vec::new(),
            max_output: None,
            merged: false,
            stdin: None,
        }
    }
}

/// Raw output, at most 64 KiB per chunk, in the order it was read. Lines are
/// not framed here: a chunk may end mid-line. Read from two pipes, a stdout
/// chunk and a stderr chunk arrive in either order, whatever order the child
/// wrote them in; from one ([`Spec::merged`]) every chunk is `Stdout`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Chunk {
    Stdout(Vec<u8>),
    Stderr(Vec<u8>),
}

impl Chunk {
    pub fn bytes(&self) -> &[u8] {
        match self {
            Chunk::Stdout(b) | Chunk::Stderr(b) => b,
        }
    }
}

/// A cancellation request, sent through a `watch::Sender<Option<Cancel>>`.
///
/// The watch holds state, not events: while it holds `Some`, every `run`
/// given that receiver stops its child, including runs started later. Reset it
/// to `None` before reusing it (e.g. for the next watch-mode cycle).
/// `Immediate` after `Graceful` escalates at once (the second Ctrl-C).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Cancel {
    /// SIGTERM the group, wait `grace`, then SIGKILL it.
    Graceful,
    /// SIGKILL the group now.
    Immediate,
}

/// How the direct child ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Exit {
    Code(i32),
    /// Signal number.
    Signal(i32),
}

impl Exit {
    pub fn success(self) -> bool {
        self == Exit::Code(0)
    }

    /// The conventional name (`"SIGSEGV"`), when the signal is a common one.
    pub fn signal_name(self) -> Option<&'static str> {
        // Matched through rustix's constants because the numbers differ
        // between architectures (e.g. SIGBUS, SIGUSR1 on mips/sparc).
        const NAMES: &[(Signal, &str)] = &[
            (Signal::HUP, "SIGHUP"),
            (Signal::INT, "SIGINT"),
            (Signal::QUIT, "SIGQUIT"),
            (Signal::ILL, "SIGILL"),
            (Signal::TRAP, "SIGTRAP"),
            (Signal::ABORT, "SIGABRT"),
            (Signal::BUS, "SIGBUS"),
            (Signal::FPE, "SIGFPE"),
            (Signal::KILL, "SIGKILL"),
            (Signal::USR1, "SIGUSR1"),
            (Signal::SEGV, "SIGSEGV"),
            (Signal::USR2, "SIGUSR2"),
            (Signal::PIPE, "SIGPIPE"),
            (Signal::ALARM, "SIGALRM"),
            (Signal::TERM, "SIGTERM"),
            (Signal::XCPU, "SIGXCPU"),
            (Signal::XFSZ, "SIGXFSZ"),
            (Signal::VTALARM, "SIGVTALRM"),
            (Signal::PROF, "SIGPROF"),
            (Signal::SYS, "SIGSYS"),
        ];
        let Exit::Signal(signo) = self else {
            return None;
        };
        NAMES
            .iter()
            .find(|(sig, _)| sig.as_raw() == signo)
            .map(|&(_, name)| name)
    }

    fn from_std(status: std::process::ExitStatus) -> Option<Self> {
        use std::os::unix::process::ExitStatusExt;
        status
            .code()
            .map(Exit::Code)
            .or_else(|| status.signal().map(Exit::Signal))
    }

    fn from_waitid(status: &WaitIdStatus) -> Option<Self> {
        status
            .exit_status()
            .map(Exit::Code)
            .or_else(|| status.terminating_signal().map(Exit::Signal))
    }
}

impl fmt::Display for Exit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self, self.signal_name()) {
            (Exit::Code(code), _) => write!(f, "exited with code {code}"),
            (Exit::Signal(_), Some(name)) => write!(f, "killed by {name}"),
            (Exit::Signal(signo), None) => write!(f, "killed by signal {signo}"),
        }
    }
}

/// The result of a supervised run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    pub exit: Exit,
    /// The timeout expired and we stopped the child.
    pub timed_out: bool,
    /// A cancellation was requested while the child ran.
    pub cancelled: bool,
    /// A descendant still held stdout/stderr `leak_wait` after the child
    /// exited; it was SIGKILLed with the rest of the group.
    pub leaked: bool,
    /// From spawn until all output was delivered and the child reaped.
    pub duration: Duration,
    /// The child wrote more than `max_output` and its group was killed.
    pub output_exceeded: bool,
    /// CPU time of the child and its reaped descendants (read only when rlimits were set).
    pub cpu_time: Option<Duration>,
}

impl Outcome {
    /// A child that ended by itself with `exit` after `duration`: not stopped, nothing leaked
    /// or exceeded, its CPU time unread.
    pub fn ended(exit: Exit, duration: Duration) -> Outcome {
        Outcome {
            exit,
            timed_out: false,
            cancelled: false,
            leaked: false,
            duration,
            output_exceeded: false,
            cpu_time: None,
        }
    }
}

/// Runs `spec` to completion, sending its output to `chunks`.
///
/// Returns once the child is reaped, no process of its group is left alive
/// and every byte read from its pipes has been sent (a full channel therefore
/// delays the return: that back-pressure is deliberate). If the receiver is
/// dropped, output is still read, and discarded, so the child never blocks.
///
/// Needs a runtime with IO and time enabled. Dropping the future early
/// SIGKILLs the group.
///
/// # Errors
///
/// [`SpawnError`] when the program cannot be started (not found, its `#!`
/// interpreter not found, permission denied, bad working directory), or in
/// the unlikely case that its exit status cannot be collected.
pub async fn run(
    spec: Spec,
    chunks: mpsc::Sender<Chunk>,
    mut cancel: watch::Receiver<Option<Cancel>>,
) -> Result<Outcome, SpawnError> {
    let program = spec.program.to_string_lossy().into_owned();

    // Registered before spawning so the child's SIGCHLD cannot slip past us.
    let mut sigchld = signal(SignalKind::child()).map_err(|e| SpawnError::Io {
        program: program.clone(),
        error: io::Error::new(e.kind(), format!("cannot watch for child exits: {e}")),
    })?;

    let mut command = command(&spec);
    let shared = output::attach(&mut command, spec.merged, &program)?;
    let output_budget = spec.max_output.map(OutputBudget::new);

    let started = Instant::now();
    let mut child = match command.spawn() {
        Ok(child) => child,
        Err(e) => return Err(classify_spawn_error(&spec, program, e).await),
    };
    // Closes tapline's copies of a shared pipe's write end: the child's are the only ones.
    drop(command);
    let pgid = group_of(&child, &program)?;
    // Declared after `child` so it drops first: the group is killed while the
    // leader is still unreaped (see the module docs).
    let mut teardown = Teardown {
        pgid: Some(pgid),
        readers: Vec::new(),
    };
    let feeder = feed_stdin(&mut child, spec.stdin.as_ref());
    let pipes = output::take(&mut child, shared, &program)?;
    let (phase_tx, phase_rx) = watch::channel(Phase::Running);
    let mut readers = Readers::spawn(pipes, chunks, phase_rx, &output_budget);
    teardown.readers = readers.0.iter().map(|r| r.task.abort_handle()).collect();
    teardown.readers.extend(feeder.clone());

    // Phase 1: wait for the child to exit, enforcing timeout and cancellation.
    let deadline = spec.timeout.and_then(|t| started.checked_add(t));
    let budget = output_budget.as_deref();
    let ended = wait_for_exit(
        pgid,
        &mut cancel,
        &mut sigchld,
        deadline,
        spec.grace,
        budget,
    )
    .await;
    // The zombie's accounting is final and still readable until it is reaped.
    let cpu_time = (!spec.rlimits.is_empty())
        .then(|| self::limits::cpu_time_of(pgid.as_raw_nonzero().get()))
        .flatten();

    let leaked = readers
        .settle_and_sweep(pgid, &phase_tx, spec.leak_wait)
        .await;

    // The child is a zombie, so this returns at once and removes it.
    let reaped = child.wait().await;
    if let Some(feeder) = feeder {
        feeder.abort();
    }
    // Reaped: the group id may be recycled from now on, so never signal it
    // again, not even from `Teardown`.
    teardown.pgid = None;
    // Readers end at EOF or their drain deadline; only a slow channel
    // receiver can hold them up, and that is the caller's back-pressure.
    for reader in readers.0 {
        let _ = reader.task.await;
    }
    let duration = started.elapsed();
    let exit = exit_of(reaped, ended.observed.as_ref(), program)?;
    Ok(Outcome {
        exit,
        timed_out: ended.timed_out,
        cancelled: ended.cancelled,
        leaked,
        duration,
        output_exceeded: ended.output_exceeded,
        cpu_time,
    })
}

/// The started child's process group: its own pid (it leads the group).
fn group_of(child: &tokio::process::Child, program: &str) -> Result<Pid, SpawnError> {
    child
        .id()
        .and_then(|id| i32::try_from(id).ok())
        .and_then(Pid::from_raw)
        .ok_or_else(|| SpawnError::Io {
            program: program.to_owned(),
            error: io::Error::other("the started process has no pid"),
        })
}

/// The child's exit: as reaped, else as observed before; an error when neither says.
fn exit_of(
    reaped: io::Result<std::process::ExitStatus>,
    observed: Option<&WaitIdStatus>,
    program: String,
) -> Result<Exit, SpawnError> {
    let (exit, wait_error) = match reaped {
        Ok(status) => (Exit::from_std(status), None),
        Err(e) => (None, Some(e)),
    };
    exit.or_else(|| observed.and_then(Exit::from_waitid))
        .ok_or_else(|| SpawnError::Wait {
            program,
            error: wait_error
                .unwrap_or_else(|| io::Error::other("the exit status was not available")),
        })
}

/// How the child's exit was awaited (phase 1): its status as observed (left unreaped), and
/// why it was stopped, if it was.
struct Ended {
    observed: Option<WaitIdStatus>,
    timed_out: bool,
    cancelled: bool,
    output_exceeded: bool,
}

/// Phase 1: waits for the leader `pgid` to exit, enforcing the deadline, cancellation
/// requests and the output budget by escalating signals to its group.
async fn wait_for_exit(
    pgid: Pid,
    cancel: &mut watch::Receiver<Option<Cancel>>,
    sigchld: &mut tokio::signal::unix::Signal,
    deadline: Option<Instant>,
    grace: Duration,
    output_budget: Option<&OutputBudget>,
) -> Ended {
    let mut stop = Stop::Running;
    let (mut timed_out, mut cancelled, mut output_exceeded) = (false, false, false);
    let (mut cancel_open, mut sigchld_open) = (true, true);
    let observed = loop {
        // WNOWAIT: observe the exit but leave the zombie in place so the
        // group id stays reserved until the final sweep in `run`.
        match rustix::process::waitid(
            WaitId::Pid(pgid),
            WaitIdOptions::EXITED | WaitIdOptions::NOHANG | WaitIdOptions::NOWAIT,
        ) {
            Ok(Some(status)) => break Some(status),
            Ok(None) => {}
            Err(Errno::INTR) => continue,
            // Only ECHILD is plausible: something else in the process reaped
            // our child (e.g. SIGCHLD set to SIG_IGN). It is gone either way.
            Err(_) => break None,
        }
        // Read every time rather than only on change: a request made before
        // this run started must apply too, and re-applying is idempotent.
        if let Some(level) = *cancel.borrow_and_update() {
            cancelled = true;
            stop = stop.escalate(pgid, level, grace);
        }
        tokio::select! {
            received = sigchld.recv(), if sigchld_open => {
                // None: the signal driver is gone; EXIT_POLL keeps us going.
                sigchld_open = received.is_some();
            }
            () = sleep(EXIT_POLL) => {}
            () = until(deadline), if matches!(stop, Stop::Running) => {
                timed_out = true;
                stop = stop.escalate(pgid, Cancel::Graceful, grace);
            }
            () = until(stop.kill_at()) => {
                stop = stop.escalate(pgid, Cancel::Immediate, grace);
            }
            changed = cancel.changed(), if cancel_open => {
                // Err: the sender is gone, so no request can come any more.
                cancel_open = changed.is_ok();
            }
            () = exceeded(output_budget), if !output_exceeded => {
                output_exceeded = true;
                stop = stop.escalate(pgid, Cancel::Immediate, grace);
            }
        }
    };
    Ended {
        observed,
        timed_out,
        cancelled,
        output_exceeded,
    }
}

/// The child's command: its own process group, no stdin, and its resource limits applied
/// between fork and exec (its output is [`output::attach`]ed).
fn command(spec: &Spec) -> Command {
    let mut command = Command::new(&spec.program);
    command
        .args(&spec.args)
        .current_dir(&spec.cwd)
        .envs(spec.env.iter().map(|(k, v)| (k, v)))
        // A test must not read the runner's terminal or stdin.
        .stdin(if spec.stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        // Own group: one killpg reaches every descendant, and a Ctrl-C at the
        // terminal is handled by us rather than hitting the tests directly.
        .process_group(0)
        .kill_on_drop(true);
    if !spec.rlimits.is_empty() {
        let rlimits = spec.rlimits.clone();
        // SAFETY: runs between fork and exec; `limits::apply` only makes setrlimit system
        // calls on data allocated before the fork (async-signal-safe).
        unsafe {
            command.pre_exec(move || self::limits::apply(&rlimits));
        }
    }
    command
}

/// Sends `sig` to every process in group `pgid`. An empty group (ESRCH) is
/// success: nothing is left to stop.
fn signal_group(pgid: Pid, sig: Signal) -> io::Result<()> {
    match rustix::process::kill_process_group(pgid, sig) {
        Ok(()) | Err(Errno::SRCH) => Ok(()),
        // EPERM: a member changed credentials (setuid). Nothing more can be
        // done from here, so callers carry on with teardown regardless.
        Err(e) => Err(e.into()),
    }
}

/// Where the termination sequence stands.
#[derive(Clone, Copy, Debug)]
enum Stop {
    Running,
    /// SIGTERM sent; SIGKILL due at `kill_at` (`None`: grace too large to
    /// represent, i.e. never).
    Terminating {
        kill_at: Option<Instant>,
    },
    Killed,
}

impl Stop {
    /// Moves at least as far as `level` asks, signalling the group as needed.
    /// Never goes backwards, so repeated requests are harmless.
    fn escalate(self, pgid: Pid, level: Cancel, grace: Duration) -> Stop {
        match (self, level) {
            (Stop::Killed, _) | (Stop::Terminating { .. }, Cancel::Graceful) => self,
            (_, Cancel::Immediate) => {
                let _ = signal_group(pgid, Signal::KILL);
                Stop::Killed
            }
            (Stop::Running, Cancel::Graceful) if grace.is_zero() => {
                let _ = signal_group(pgid, Signal::KILL);
                Stop::Killed
            }
            (Stop::Running, Cancel::Graceful) => {
                let _ = signal_group(pgid, Signal::TERM);
                Stop::Terminating {
                    kill_at: Instant::now().checked_add(grace),
                }
            }
        }
    }

    fn kill_at(self) -> Option<Instant> {
        match self {
            Stop::Terminating { kill_at } => kill_at,
            Stop::Running | Stop::Killed => None,
        }
    }
}

/// Sleeps until `deadline`, or forever when there is none.
async fn until(deadline: Option<Instant>) {
    match deadline {
        Some(deadline) => sleep_until(deadline).await,
        None => std::future::pending().await,
    }
}

/// Kills the group and stops the readers if `run` is dropped before it
/// finishes; disarmed (pgid = None) once the child is reaped.
struct Teardown {
    pgid: Option<Pid>,
    readers: Vec<AbortHandle>,
}

impl Drop for Teardown {
    fn drop(&mut self) {
        if let Some(pgid) = self.pgid {
            let _ = signal_group(pgid, Signal::KILL);
        }
        for reader in &self.readers {
            reader.abort();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Once;

    /// Makes this test process the reaper of orphaned descendants. The
    /// sandbox's PID 1 may not reap, and then killed grandchildren stay
    /// zombies that still count as group members for `kill(-pgid, 0)`.
    fn become_subreaper() {
        static ONCE: Once = Once::new();
        ONCE.call_once(|| {
            rustix::process::set_child_subreaper(Some(rustix::process::getpid()))
                .expect("PR_SET_CHILD_SUBREAPER");
        });
    }

    fn sh(script: &str) -> Spec {
        let mut spec = Spec::new("/bin/sh", std::env::temp_dir());
        spec.args = vec!["-c".into(), script.into()];
        spec
    }

    struct Ran {
        outcome: Outcome,
        chunks: Vec<Chunk>,
    }

    impl Ran {
        fn stdout(&self) -> String {
            collect(&self.chunks, |c| matches!(c, Chunk::Stdout(_)))
        }
        fn stderr(&self) -> String {
            collect(&self.chunks, |c| matches!(c, Chunk::Stderr(_)))
        }
        /// The whitespace-separated numbers the script printed, e.g. `$$`.
        fn numbers(&self) -> Vec<i32> {
            self.stdout()
                .split_whitespace()
                .filter_map(|w| w.parse().ok())
                .collect()
        }
    }

    fn collect(chunks: &[Chunk], keep: impl Fn(&Chunk) -> bool) -> String {
        let bytes: Vec<u8> = chunks
            .iter()
            .filter(|c| keep(c))
            .flat_map(|c| c.bytes().iter().copied())
            .collect();
        String::from_utf8(bytes).expect("utf-8 output")
    }

    /// Runs `spec`, collecting output; `on_first_chunk` may request
    /// cancellation once the child has proved it is running.
    async fn run_with(spec: Spec, on_first_chunk: Option<Vec<Cancel>>) -> Result<Ran, SpawnError> {
        become_subreaper();
        let (tx, mut rx) = mpsc::channel(8);
        let (cancel_tx, cancel_rx) = watch::channel(None);
        let collector = tokio::spawn(async move {
            let mut chunks = Vec::new();
            let mut pending = on_first_chunk;
            while let Some(chunk) = rx.recv().await {
                chunks.push(chunk);
                for level in pending.take().into_iter().flatten() {
                    cancel_tx.send_replace(Some(level));
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
            }
            chunks
        });
        let outcome = run(spec, tx, cancel_rx).await?;
        let chunks = collector.await.expect("collector");
        Ok(Ran { outcome, chunks })
    }

    /// Reaps what we inherited from the group, then checks it is empty.
    async fn assert_group_gone(pgid: i32) {
        let pgid = Pid::from_raw(pgid).expect("pgid");
        let give_up = Instant::now() + Duration::from_secs(5);
        loop {
            while let Ok(Some(_)) = rustix::process::waitid(
                WaitId::Pgid(Some(pgid)),
                WaitIdOptions::EXITED | WaitIdOptions::NOHANG,
            ) {}
            match rustix::process::test_kill_process_group(pgid) {
                Err(Errno::SRCH) => return,
                other => assert!(
                    Instant::now() < give_up,
                    "group {pgid:?} still has members ({other:?}): {:?}",
                    members(pgid.as_raw_pid())
                ),
            }
            sleep(Duration::from_millis(10)).await;
        }
    }

    /// (pid, state) of every process in group `pgid`, from /proc.
    fn members(pgid: i32) -> Vec<(i32, char)> {
        let mut found = Vec::new();
        for entry in std::fs::read_dir("/proc").expect("/proc").flatten() {
            let Ok(pid) = entry.file_name().to_string_lossy().parse::<i32>() else {
                continue;
            };
            if let Some((state, group)) = stat(pid) {
                if group == pgid {
                    found.push((pid, state));
                }
            }
        }
        found
    }

    /// (state, pgrp) from /proc/PID/stat, or None if there is no such process.
    fn stat(pid: i32) -> Option<(char, i32)> {
        let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        // The command name may contain spaces; fields resume after the last ')'.
        let rest = &text[text.rfind(')')? + 2..];
        let mut fields = rest.split(' ');
        let state = fields.next()?.chars().next()?;
        let pgrp = fields.nth(1)?.parse().ok()?;
        Some((state, pgrp))
    }

    async fn assert_dead(pid: i32) {
        let give_up = Instant::now() + Duration::from_secs(5);
        while let Some((state, _)) = stat(pid) {
            if state == 'Z' || state == 'X' {
                return;
            }
            assert!(
                Instant::now() < give_up,
                "pid {pid} still alive in state {state}"
            );
            sleep(Duration::from_millis(10)).await;
        }
    }

    fn unique_dir() -> PathBuf {
        static N: AtomicUsize = AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!(
            "supervise-test-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&dir).expect("temp dir");
        dir
    }

    #[tokio::test]
    async fn normal_exit_code() {
        let ran = run_with(sh("echo $$; exit 3"), None).await.unwrap();
        let o = &ran.outcome;
        assert_eq!(o.exit, Exit::Code(3));
        assert_eq!(o.exit.to_string(), "exited with code 3");
        assert!(!o.timed_out && !o.cancelled && !o.leaked, "{o:?}");
        assert_group_gone(ran.numbers()[0]).await;
    }

    #[tokio::test]
    async fn success_and_env_and_cwd() {
        let dir = unique_dir();
        let mut spec = sh("printf '%s %s' \"$TAPLINE_X\" \"$(pwd)\"");
        spec.cwd = dir.clone();
        spec.env = vec![("TAPLINE_X".into(), "y".into())];
        let ran = run_with(spec, None).await.unwrap();
        assert!(ran.outcome.exit.success());
        let canonical = dir.canonicalize().unwrap();
        assert_eq!(ran.stdout(), format!("y {}", canonical.display()));
        std::fs::remove_dir_all(dir).ok();
    }

    #[tokio::test]
    async fn exit_by_signal() {
        let ran = run_with(sh("echo $$; kill -SEGV $$"), None).await.unwrap();
        assert_eq!(ran.outcome.exit, Exit::Signal(Signal::SEGV.as_raw()));
        assert_eq!(ran.outcome.exit.to_string(), "killed by SIGSEGV");
        assert_group_gone(ran.numbers()[0]).await;
    }

    #[test]
    fn exit_display() {
        assert_eq!(
            Exit::Signal(Signal::KILL.as_raw()).to_string(),
            "killed by SIGKILL"
        );
        assert_eq!(
            Exit::Signal(Signal::ABORT.as_raw()).to_string(),
            "killed by SIGABRT"
        );
        assert_eq!(Exit::Signal(77).to_string(), "killed by signal 77");
        assert_eq!(Exit::Code(0).to_string(), "exited with code 0");
        assert!(Exit::Code(0).success() && !Exit::Code(1).success());
    }

    #[tokio::test]
    async fn timeout_term_ignored_is_killed_after_grace() {
        let mut spec = sh("trap '' TERM; echo $$; sleep 30; echo survived");
        spec.timeout = Some(Duration::from_millis(300));
        spec.grace = Duration::from_millis(400);
        let ran = run_with(spec, None).await.unwrap();
        let o = &ran.outcome;
        assert!(o.timed_out && !o.cancelled, "{o:?}");
        assert_eq!(o.exit, Exit::Signal(Signal::KILL.as_raw()));
        assert!(o.duration >= Duration::from_millis(700), "{o:?}");
        assert!(o.duration < Duration::from_secs(5), "{o:?}");
        assert!(!ran.stdout().contains("survived"));
        assert_group_gone(ran.numbers()[0]).await;
    }

    #[tokio::test]
    async fn timeout_term_honoured_stops_before_grace() {
        let mut spec = sh("echo $$; sleep 30");
        spec.timeout = Some(Duration::from_millis(200));
        spec.grace = Duration::from_secs(20);
        let ran = run_with(spec, None).await.unwrap();
        let o = &ran.outcome;
        assert!(o.timed_out, "{o:?}");
        assert_eq!(o.exit, Exit::Signal(Signal::TERM.as_raw()));
        assert!(o.duration < Duration::from_secs(5), "{o:?}");
        assert_group_gone(ran.numbers()[0]).await;
    }

    #[tokio::test]
    async fn output_after_timeout_is_drained() {
        // Written before the kill, still in the pipe when the child dies.
        let mut spec =
            sh("trap '' TERM; echo $$ >&2; head -c 100000 /dev/zero | tr '\\0' x; sleep 30");
        spec.timeout = Some(Duration::from_millis(200));
        spec.grace = Duration::from_millis(100);
        let ran = run_with(spec, None).await.unwrap();
        assert!(ran.outcome.timed_out);
        assert_eq!(ran.stdout().len(), 100_000);
        assert_group_gone(ran.stderr().trim().parse().unwrap()).await;
    }

    // Multi-threaded, as in the real runner: readers and supervisor run in parallel.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn grandchild_holding_stdout_is_leaked_and_killed() {
        let mut spec = sh("sleep 30 & echo $! $$");
        spec.leak_wait = Duration::from_millis(100);
        let ran = run_with(spec, None).await.unwrap();
        let o = &ran.outcome;
        assert!(o.leaked, "{o:?}");
        assert_eq!(o.exit, Exit::Code(0));
        assert!(o.duration < Duration::from_secs(3), "{o:?}");
        let [sleeper, pgid] = ran.numbers()[..] else {
            panic!("expected two pids, got {:?}", ran.stdout());
        };
        assert_dead(sleeper).await;
        assert_group_gone(pgid).await;
    }

    #[tokio::test]
    async fn background_job_without_pipes_is_not_a_leak_but_is_killed() {
        let ran = run_with(sh("sleep 30 >/dev/null 2>&1 & echo $! $$"), None)
            .await
            .unwrap();
        assert!(!ran.outcome.leaked, "{:?}", ran.outcome);
        let [sleeper, pgid] = ran.numbers()[..] else {
            panic!("expected two pids, got {:?}", ran.stdout());
        };
        assert_dead(sleeper).await;
        assert_group_gone(pgid).await;
    }

    #[tokio::test]
    async fn escapee_from_group_does_not_hang_the_run() {
        // setsid moves the sleeper out of our group, beyond killpg's reach;
        // the drain must give up on its pipe rather than wait 30 s.
        let ran = run_with(sh("setsid sleep 30 & echo $!"), None)
            .await
            .unwrap();
        let o = &ran.outcome;
        assert!(o.leaked, "{o:?}");
        assert!(o.duration < Duration::from_secs(4), "{o:?}");
        if let Some(pid) = ran.numbers().first().copied().and_then(Pid::from_raw) {
            let _ = rustix::process::kill_process(pid, Signal::KILL);
            // It was orphaned to us (the subreaper); reap it so it does not
            // linger as a zombie.
            let _ = rustix::process::waitpid(Some(pid), rustix::process::WaitOptions::empty());
        }
    }

    // Multi-threaded, as in the real runner: readers and supervisor run in parallel.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn twenty_megabytes_fully_delivered() {
        let ran = run_with(sh("head -c 20000000 /dev/zero; echo $$ >&2"), None)
            .await
            .unwrap();
        let total: usize = ran
            .chunks
            .iter()
            .filter(|c| matches!(c, Chunk::Stdout(_)))
            .map(|c| c.bytes().len())
            .sum();
        assert_eq!(total, 20_000_000);
        assert!(ran.chunks.iter().all(|c| c.bytes().len() <= CHUNK_SIZE));
        assert!(!ran.outcome.leaked);
        let pgid: i32 = ran.stderr().trim().parse().unwrap();
        assert_group_gone(pgid).await;
    }

    #[tokio::test]
    async fn slow_consumer_is_not_mistaken_for_a_leak() {
        become_subreaper();
        let mut spec = sh("head -c 2000000 /dev/zero");
        spec.leak_wait = Duration::from_millis(10);
        let (tx, mut rx) = mpsc::channel::<Chunk>(1);
        let (_cancel_tx, cancel_rx) = watch::channel(None);
        let consumer = tokio::spawn(async move {
            let mut total = 0;
            while let Some(chunk) = rx.recv().await {
                total += chunk.bytes().len();
                sleep(Duration::from_millis(40)).await;
            }
            total
        });
        let outcome = run(spec, tx, cancel_rx).await.unwrap();
        assert!(!outcome.leaked, "{outcome:?}");
        assert_eq!(consumer.await.unwrap(), 2_000_000);
    }

    #[tokio::test]
    async fn interleaved_stdout_and_stderr_both_delivered() {
        let ran = run_with(
            sh("i=0; while [ $i -lt 200 ]; do i=$((i+1)); echo out$i; echo err$i >&2; done"),
            None,
        )
        .await
        .unwrap();
        let expect = |p: &str| (1..=200).map(|i| format!("{p}{i}\n")).collect::<String>();
        assert_eq!(ran.stdout(), expect("out"));
        assert_eq!(ran.stderr(), expect("err"));
    }

    /// One pipe for both streams keeps the order the child wrote in, which two pipes cannot:
    /// their readers race.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn merged_streams_keep_the_write_order() {
        let mut spec =
            sh("i=0; while [ $i -lt 300 ]; do i=$((i+1)); echo out$i; echo err$i >&2; done");
        spec.merged = true;
        let ran = run_with(spec, None).await.unwrap();
        let expect: String = (1..=300).map(|i| format!("out{i}\nerr{i}\n")).collect();
        assert_eq!(ran.stdout(), expect);
        assert!(ran.chunks.iter().all(|c| matches!(c, Chunk::Stdout(_))));
        assert!(ran.outcome.exit.success() && !ran.outcome.leaked);
    }

    /// With one pipe, a descendant holding it is still a leak, and still killed.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn merged_streams_held_by_a_grandchild_are_a_leak() {
        let mut spec = sh("sleep 30 & echo $! $$ >&2");
        spec.merged = true;
        spec.leak_wait = Duration::from_millis(100);
        let ran = run_with(spec, None).await.unwrap();
        assert!(ran.outcome.leaked, "{:?}", ran.outcome);
        assert!(ran.outcome.duration < Duration::from_secs(3));
        let [sleeper, pgid] = ran.numbers()[..] else {
            panic!("expected two pids, got {:?}", ran.stdout());
        };
        assert_dead(sleeper).await;
        assert_group_gone(pgid).await;
    }

    #[tokio::test]
    async fn missing_program() {
        let err = run_with(Spec::new("tapline-no-such-program", "/"), None)
            .await
            .err()
            .expect("spawn must fail");
        assert!(matches!(err, SpawnError::NotFound { .. }), "{err:?}");
        assert_eq!(
            err.to_string(),
            "failed to start `tapline-no-such-program`: program not found"
        );
        assert_eq!(err.missing_executable(), Some("tapline-no-such-program"));
    }

    #[tokio::test]
    async fn missing_interpreter_is_named() {
        use std::os::unix::fs::PermissionsExt;
        let dir = unique_dir();
        let script = dir.join("t.py");
        std::fs::write(&script, "#!/nonexistent/interp9 -u\nprint(1)\n").unwrap();
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
        let err = run_with(Spec::new("./t.py", &dir), None)
            .await
            .err()
            .expect("spawn must fail");
        assert_eq!(
            err.to_string(),
            "failed to start `./t.py`: its interpreter `/nonexistent/interp9` (from the #! line) was not found"
        );
        assert_eq!(err.missing_executable(), Some("/nonexistent/interp9"));
        std::fs::remove_dir_all(dir).ok();
    }

    #[tokio::test]
    async fn missing_cwd_is_blamed_not_the_program() {
        let err = run_with(Spec::new("/bin/sh", "/nonexistent-tapline-dir"), None)
            .await
            .err()
            .expect("spawn must fail");
        assert!(matches!(err, SpawnError::Cwd { .. }), "{err:?}");
        assert!(err.to_string().starts_with(
            "failed to start `/bin/sh`: working directory `/nonexistent-tapline-dir` is unusable"
        ));
        assert_eq!(err.missing_executable(), None);
    }

    // Multi-threaded, as in the real runner: readers and supervisor run in parallel.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn cancel_graceful_terms_then_kills() {
        let mut spec = sh("trap '' TERM; echo $$; sleep 30");
        spec.grace = Duration::from_millis(300);
        let ran = run_with(spec, Some(vec![Cancel::Graceful])).await.unwrap();
        let o = &ran.outcome;
        assert!(o.cancelled && !o.timed_out, "{o:?}");
        assert_eq!(o.exit, Exit::Signal(Signal::KILL.as_raw()));
        assert!(o.duration >= Duration::from_millis(300), "{o:?}");
        assert!(o.duration < Duration::from_secs(5), "{o:?}");
        assert_group_gone(ran.numbers()[0]).await;
    }

    #[tokio::test]
    async fn cancel_graceful_child_honours_term() {
        let mut spec = sh("echo $$; sleep 30");
        spec.grace = Duration::from_secs(20);
        let ran = run_with(spec, Some(vec![Cancel::Graceful])).await.unwrap();
        assert!(ran.outcome.cancelled);
        assert_eq!(ran.outcome.exit, Exit::Signal(Signal::TERM.as_raw()));
        assert!(ran.outcome.duration < Duration::from_secs(5));
        assert_group_gone(ran.numbers()[0]).await;
    }

    #[tokio::test]
    async fn cancel_immediate_kills_at_once() {
        let mut spec = sh("trap '' TERM; echo $$; sleep 30");
        spec.grace = Duration::from_secs(30);
        let ran = run_with(spec, Some(vec![Cancel::Immediate])).await.unwrap();
        assert!(ran.outcome.cancelled);
        assert_eq!(ran.outcome.exit, Exit::Signal(Signal::KILL.as_raw()));
        assert!(
            ran.outcome.duration < Duration::from_secs(3),
            "{:?}",
            ran.outcome
        );
        assert_group_gone(ran.numbers()[0]).await;
    }

    #[tokio::test]
    async fn second_cancel_escalates_during_grace() {
        let mut spec = sh("trap '' TERM; echo $$; sleep 30");
        spec.grace = Duration::from_secs(30);
        let ran = run_with(spec, Some(vec![Cancel::Graceful, Cancel::Immediate]))
            .await
            .unwrap();
        assert!(ran.outcome.cancelled);
        assert_eq!(ran.outcome.exit, Exit::Signal(Signal::KILL.as_raw()));
        assert!(
            ran.outcome.duration < Duration::from_secs(3),
            "{:?}",
            ran.outcome
        );
        assert_group_gone(ran.numbers()[0]).await;
    }

    #[tokio::test]
    async fn cancel_requested_before_start_applies() {
        become_subreaper();
        let (tx, mut rx) = mpsc::channel(8);
        let (_cancel_tx, cancel_rx) = watch::channel(Some(Cancel::Immediate));
        let drain = tokio::spawn(async move { while rx.recv().await.is_some() {} });
        let outcome = run(sh("sleep 30"), tx, cancel_rx).await.unwrap();
        drain.await.unwrap();
        assert!(outcome.cancelled);
        assert_eq!(outcome.exit, Exit::Signal(Signal::KILL.as_raw()));
        assert!(outcome.duration < Duration::from_secs(3));
    }

    #[tokio::test]
    async fn dropped_receiver_does_not_block_the_child() {
        become_subreaper();
        let (tx, rx) = mpsc::channel(1);
        drop(rx);
        let (_cancel_tx, cancel_rx) = watch::channel(None);
        let outcome = run(sh("head -c 1000000 /dev/zero; exit 4"), tx, cancel_rx)
            .await
            .unwrap();
        assert_eq!(outcome.exit, Exit::Code(4));
    }

    #[tokio::test]
    async fn dropping_run_kills_the_group() {
        become_subreaper();
        let (tx, mut rx) = mpsc::channel(8);
        let (_cancel_tx, cancel_rx) = watch::channel(None);
        let task = tokio::spawn(run(sh("echo $$; sleep 30"), tx, cancel_rx));
        let first = rx.recv().await.expect("pgid line");
        let pgid: i32 = String::from_utf8_lossy(first.bytes())
            .trim()
            .parse()
            .unwrap();
        task.abort();
        let _ = task.await;
        assert_group_gone(pgid).await;
    }
}
