//! The child's pipes: one reader task per pipe streaming chunks on, the phases the supervisor
//! tells them (running, exited, draining after a leak), the output budget, and how long each
//! may still wait for its pipe to close.
use std::io;
use std::time::Duration;

use rustix::process::{Pid, Signal};
use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::sync::{mpsc, watch};
use tokio::time::Instant;

use super::{output, signal_group, until, Chunk, CHUNK_SIZE, DRAIN_WAIT};

/// A reader of one of the child's pipes, and the state it reports of it.
pub(super) struct Reader {
    pub(super) task: tokio::task::JoinHandle<()>,
    state: watch::Receiver<PipeState>,
}

/// The child's pipe readers: stdout's and stderr's, or the one of a shared pipe.
pub(super) struct Readers(pub(super) Vec<Reader>);

impl Readers {
    /// Phase 2, the child having exited (a zombie, its group id still reserved): gives its
    /// pipes `leak_wait` to close, then the final sweep kills whatever is left of the group;
    /// whether a descendant held the pipes (a leak).
    pub(super) async fn settle_and_sweep(
        &mut self,
        pgid: Pid,
        phase: &watch::Sender<Phase>,
        leak_wait: Duration,
    ) -> bool {
        phase.send_replace(Phase::Exited(Window {
            start: Instant::now(),
            wait: leak_wait,
        }));
        let mut leaked = false;
        for reader in &mut self.0 {
            leaked |= settled(&mut reader.state).await;
        }
        // Final sweep, on every path: kills leakers and also descendants that
        // closed their pipes and would otherwise outlive the run unnoticed.
        let _ = signal_group(pgid, Signal::KILL);
        if leaked {
            // Whatever the killed processes wrote is still in the pipes; read it
            // out, but only for a bounded time (see DRAIN_WAIT).
            phase.send_replace(Phase::Drain(Window {
                start: Instant::now(),
                wait: DRAIN_WAIT,
            }));
        }
        leaked
    }

    /// Separate tasks so one stream's back-pressure or silence never delays the other, nor
    /// the timeout and cancellation handling.
    pub(super) fn spawn(
        pipes: Vec<output::Pipe>,
        chunks: mpsc::Sender<Chunk>,
        phase: watch::Receiver<Phase>,
        budget: &Option<std::sync::Arc<OutputBudget>>,
    ) -> Readers {
        let readers = pipes.into_iter().map(|pipe| {
            let (state_tx, state) = watch::channel(PipeState::Open);
            let task = tokio::spawn(pump(
                pipe.reader,
                pipe.wrap,
                chunks.clone(),
                phase.clone(),
                state_tx,
                budget.clone(),
            ));
            Reader { task, state }
        });
        Readers(readers.collect())
    }
}

impl OutputBudget {
    pub(super) fn new(max: u64) -> std::sync::Arc<OutputBudget> {
        std::sync::Arc::new(OutputBudget {
            max,
            used: std::sync::atomic::AtomicU64::new(0),
            exceeded: tokio::sync::Notify::new(),
        })
    }
}

/// `--max-output`, shared by the readers of one child.
pub(super) struct OutputBudget {
    max: u64,
    used: std::sync::atomic::AtomicU64,
    /// Woken once when `used` passes `max`.
    exceeded: tokio::sync::Notify,
}

impl OutputBudget {
    pub(super) fn spend(&self, n: usize) {
        use std::sync::atomic::Ordering;
        let n = n as u64;
        let before = self.used.fetch_add(n, Ordering::Relaxed);
        if before <= self.max && before + n > self.max {
            // notify_one keeps a permit when the supervisor is not waiting yet.
            self.exceeded.notify_one();
        }
    }
}

/// Resolves when the output budget is spent; never without one.
pub(super) async fn exceeded(budget: Option<&OutputBudget>) {
    match budget {
        Some(b) => b.exceeded.notified().await,
        None => std::future::pending().await,
    }
}

/// What the supervisor tells the readers about the child.
#[derive(Clone, Copy, Debug)]
pub(super) enum Phase {
    Running,
    /// The child exited: report `Held` if the pipe is still open after the
    /// window.
    Exited(Window),
    /// The group was killed after a leak: give up after the window.
    Drain(Window),
}

/// A time budget that starts at `start`. Time a reader spends waiting for
/// channel capacity is added on top, so a slow consumer is never mistaken
/// for a leak and never makes us drop output.
#[derive(Clone, Copy, Debug)]
pub(super) struct Window {
    start: Instant,
    wait: Duration,
}

impl Window {
    /// `None` when the sum overflows, i.e. never.
    pub(super) fn deadline(self, paused: Duration) -> Option<Instant> {
        self.start.checked_add(self.wait)?.checked_add(paused)
    }
}

/// What a reader tells the supervisor about its pipe.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum PipeState {
    Open,
    /// Still open after the child exited plus `leak_wait`.
    Held,
    /// EOF, read error, or drain deadline: the reader is done. `held` keeps
    /// an earlier `Held`, because a watch only shows the latest value and
    /// the pipe may close before the supervisor looks.
    Closed {
        held: bool,
    },
}

/// Waits until the reader has decided, and returns whether the pipe was held.
pub(super) async fn settled(state: &mut watch::Receiver<PipeState>) -> bool {
    match state.wait_for(|s| *s != PipeState::Open).await {
        Ok(s) => matches!(*s, PipeState::Held | PipeState::Closed { held: true }),
        // The reader is gone (aborted or panicked): nothing left to wait for.
        Err(_) => false,
    }
}

/// Copies one pipe into the channel until EOF, following `phase` for when to
/// report a leak and when to give up.
pub(super) async fn pump<R: AsyncRead + Unpin>(
    mut pipe: R,
    wrap: fn(Vec<u8>) -> Chunk,
    chunks: mpsc::Sender<Chunk>,
    mut phase: watch::Receiver<Phase>,
    state: watch::Sender<PipeState>,
    budget: Option<std::sync::Arc<OutputBudget>>,
) {
    let mut chunks = Some(chunks);
    let mut buf = vec![0u8; CHUNK_SIZE];
    let mut current = *phase.borrow_and_update();
    let mut phase_open = true;
    // Time spent blocked on the channel within the current window.
    let mut paused = Duration::ZERO;
    // The latest send, to credit the part of it that overlapped a window
    // which began while it was blocked.
    let mut last_send: Option<(Instant, Instant)> = None;
    // Set when `changed()` fired in the select below; that call already
    // marked the new value as seen, so `has_changed()` would miss it.
    let mut woken = false;
    loop {
        let changed = std::mem::take(&mut woken) || phase.has_changed().unwrap_or(false);
        if changed {
            current = *phase.borrow_and_update();
            paused = match (current, last_send) {
                (Phase::Exited(w) | Phase::Drain(w), Some((began, ended))) => {
                    ended.saturating_duration_since(began.max(w.start))
                }
                _ => Duration::ZERO,
            };
        }
        let deadline = read_deadline(current, *state.borrow(), paused);
        // Checked before reading, not only while a read waits: a descendant
        // that writes nonstop would otherwise never look idle.
        if deadline.is_some_and(|d| Instant::now() >= d) {
            if let Phase::Drain(_) = current {
                break;
            }
            state.send_replace(PipeState::Held);
            continue;
        }
        let read = tokio::select! {
            biased;
            changed = phase.changed(), if phase_open => {
                // Err: the supervisor is gone (run() was dropped); the
                // reader is being aborted anyway.
                phase_open = changed.is_ok();
                woken = phase_open;
                continue;
            }
            read = pipe.read(&mut buf) => read,
            () = until(deadline) => continue,
        };
        match read {
            Ok(0) => break,
            Ok(n) => {
                if let Some(b) = &budget {
                    b.spend(n);
                }
                let began = Instant::now();
                if let Some(tx) = &chunks {
                    if tx.send(wrap(buf[..n].to_vec())).await.is_err() {
                        // Receiver gone: keep draining so the child never
                        // blocks on a full pipe, but stop sending.
                        chunks = None;
                    }
                }
                let ended = Instant::now();
                last_send = Some((began, ended));
                if !matches!(current, Phase::Running) {
                    paused += ended - began;
                }
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(_) => break,
        }
    }
    let held = *state.borrow() == PipeState::Held;
    state.send_replace(PipeState::Closed { held });
}

/// When a reader in `phase` stops waiting for its pipe (`paused`: time blocked on the channel
/// in the current window, not counted against it).
pub(super) fn read_deadline(phase: Phase, state: PipeState, paused: Duration) -> Option<Instant> {
    match phase {
        Phase::Running => None,
        // Already reported; keep reading until the supervisor decides.
        Phase::Exited(_) if state == PipeState::Held => None,
        Phase::Exited(w) | Phase::Drain(w) => w.deadline(paused),
    }
}
