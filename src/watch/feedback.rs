//! The tests' own writes: telling a change a run made from one the user made, so a test that
//! writes into the project (a counter, a snapshot, a database file, coverage data) cannot make
//! watch mode re-run itself for ever.
//!
//! Who wrote a file can't be known, so timing decides. A path whose ctime (set by the kernel as
//! it was written, and never set back by a tool, as `cp -p` and `mv` keep an old mtime) falls
//! within a run was written *during* that run. A run's start and end are read off the same
//! clock, from a stamp file written then ([`Moment`]): the end's as the run ends, before any
//! report tells of it, so a script editing as soon as it sees the end is not taken for the
//! tests. (The kernel stamps with a coarse clock; since Linux 6.13 a write after the stamp is
//! never stamped before it, and one before it never as late. A write stamped the same as the
//! end is the run's if its event arrived by the end.) A removal has no ctime: its event's
//! arrival is weighed instead.
//!
//! A run started only by paths written during the run before it is *self-fed*. [`ALLOWED`]
//! self-fed runs may follow each other (the first may well be the user saving while the tests
//! ran); the change that would start one more starts nothing: its paths are *paused* and named
//! once, with the remedy (`--watch-ignore GLOB`, `.gitignore`).
//!
//! A change made before the latest run started, to a file it ran (or to anything, when it ran
//! every file), was seen by that run and starts nothing: the rest of a batch a run's writes
//! ripened into does not cancel and restart the run the first part started.
//!
//! A change to a paused path made during a run starts nothing, and neither does a file created
//! during a run in a folder where a paused path was created (tests that write a new file each
//! run: `coverage.<pid>`, `out-<time>.txt`). Changed between runs — by the user, surely — a
//! paused path starts a run as any change does. A change made outside any run (to any path)
//! starts a run and ends the chain; so does a key.
use std::collections::{BTreeSet, VecDeque};
use std::time::SystemTime;

/// Self-fed runs allowed in a row: the next one is not started.
pub(super) const ALLOWED: u32 = 2;
/// Runs whose time windows are remembered: a change is delivered one debounce after it was
/// made, by when another run may have started.
const WINDOWS: usize = 3;

/// A moment read off two clocks: the one files are stamped with (the ctime a write got then)
/// and the system's (which events' arrivals are told in).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Moment {
    pub(super) file: SystemTime,
    pub(super) at: SystemTime,
}

/// One changed path of a debounced batch.
#[derive(Debug, Clone)]
pub(super) struct Change {
    /// Relative to the project root, `/`-separated.
    pub(super) rel: String,
    /// When it was last written (`None`: it is gone).
    pub(super) ctime: Option<SystemTime>,
    /// When its (first) event arrived: after the write, by the watcher thread's delay.
    pub(super) arrived: SystemTime,
    /// It appeared (created, or renamed into place).
    pub(super) created: bool,
}

/// What a run ran.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Covers {
    /// Every test file: it saw every change made before it started.
    All,
    /// These test files only.
    Files(BTreeSet<String>),
}

#[derive(Debug)]
struct Window {
    run: u64,
    covers: Covers,
    started: Moment,
    /// `None` while the run is going.
    ended: Option<Moment>,
    /// Self-fed runs in a row up to this one (0: the user or a key started it).
    fed: u32,
}

/// What a batch of changes comes to.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Sorted {
    /// Nothing to act on (paused paths only).
    Nothing,
    /// A run for `rels`. `fed`: 0 when the user may have made one of the changes, else the
    /// self-fed runs in a row this one makes.
    Run { rels: BTreeSet<String>, fed: u32 },
    /// The chain is cut: `rels`, written during run `run`, are paused from now on.
    Paused { rels: BTreeSet<String>, run: u64 },
}

#[derive(Debug, Default)]
pub(super) struct Feedback {
    /// The last runs, newest last.
    windows: VecDeque<Window>,
    /// Paths the tests were caught writing.
    paused: BTreeSet<String>,
    /// Folders where the tests were caught creating files (`""` is the root).
    paused_dirs: BTreeSet<String>,
    /// Runs whose writes cut a chain: what else they wrote arrives in later batches (each path
    /// ripens on its own), and is paused with the rest.
    cut: BTreeSet<u64>,
}

impl Feedback {
    pub(super) fn run_started(&mut self, run: u64, fed: u32, covers: Covers, now: Moment) {
        if self.windows.len() == WINDOWS {
            self.windows.pop_front();
        }
        self.windows.push_back(Window {
            run,
            covers,
            started: now,
            ended: None,
            fed,
        });
    }

    pub(super) fn run_ended(&mut self, now: Moment) {
        if let Some(w) = self.windows.back_mut() {
            w.ended.get_or_insert(now);
        }
    }

    /// The newest run `change` was made during.
    fn window_of(&self, change: &Change) -> Option<&Window> {
        self.windows.iter().rev().find(|w| match change.ctime {
            Some(ctime) => {
                w.started.file <= ctime
                    && w.ended.is_none_or(|end| {
                        ctime < end.file || (ctime == end.file && change.arrived <= end.at)
                    })
            }
            None => {
                w.started.at <= change.arrived && w.ended.is_none_or(|end| change.arrived <= end.at)
            }
        })
    }

    /// Whether the latest run saw `change`: it was made before the run started, to what the
    /// run ran.
    fn seen(&self, change: &Change) -> bool {
        let Some(latest) = self.windows.back() else {
            return false;
        };
        let before = match change.ctime {
            Some(ctime) => ctime < latest.started.file,
            None => change.arrived < latest.started.at,
        };
        before
            && match &latest.covers {
                Covers::All => true,
                Covers::Files(files) => files.contains(&change.rel),
            }
    }

    /// What `changes` ask for, given the runs they were made during; pauses the paths of a
    /// self-fed run past [`ALLOWED`].
    pub(super) fn sort(&mut self, changes: Vec<Change>) -> Sorted {
        let mut by_user = BTreeSet::new();
        let mut by_run = Vec::new();
        let mut fed = 0;
        let mut newest = 0;
        for change in changes {
            if self.seen(&change) {
                continue;
            }
            let Some(window) = self.window_of(&change) else {
                by_user.insert(change.rel);
                continue;
            };
            let (run, window_fed) = (window.run, window.fed);
            if self.paused.contains(&change.rel) {
                continue;
            }
            if self.cut.contains(&run) {
                fed = fed.max(ALLOWED + 1);
                newest = newest.max(run);
                by_run.push(change);
                continue;
            }
            if change.created && self.paused_dirs.contains(parent(&change.rel)) {
                // Another of the files the tests create anew each run.
                self.paused.insert(change.rel);
                continue;
            }
            fed = fed.max(window_fed + 1);
            newest = newest.max(run);
            by_run.push(change);
        }
        if !by_user.is_empty() {
            by_user.extend(by_run.into_iter().map(|c| c.rel));
            return Sorted::Run {
                rels: by_user,
                fed: 0,
            };
        }
        if by_run.is_empty() {
            return Sorted::Nothing;
        }
        if fed <= ALLOWED {
            return Sorted::Run {
                rels: by_run.into_iter().map(|c| c.rel).collect(),
                fed,
            };
        }
        self.cut.insert(newest);
        let mut rels = BTreeSet::new();
        for change in by_run {
            if change.created {
                self.paused_dirs.insert(parent(&change.rel).to_owned());
            }
            self.paused.insert(change.rel.clone());
            rels.insert(change.rel);
        }
        Sorted::Paused { rels, run: newest }
    }
}

/// `a/b/c.txt` → `a/b`; `c.txt` → `` (the root).
fn parent(rel: &str) -> &str {
    rel.rsplit_once('/').map_or("", |(dir, _)| dir)
}

/// The one message a cut chain gets: what was written, why it starts nothing, what to do.
pub(super) fn paused_message(rels: &BTreeSet<String>, run: u64) -> String {
    const SHOWN: usize = 5;
    let mut named: Vec<&str> = rels.iter().take(SHOWN).map(String::as_str).collect();
    let more = rels.len().saturating_sub(SHOWN);
    let list = if more > 0 {
        format!("{} and {more} more", named.join(", "))
    } else if named.len() > 1 {
        let last = named.pop().unwrap_or_default();
        format!("{} and {last}", named.join(", "))
    } else {
        named.join("")
    };
    let first = run.saturating_sub(u64::from(ALLOWED)) + 1;
    let runs = match run - first {
        0 => format!("run {run} was"),
        1 => format!("runs {first} and {run} were"),
        _ => format!("runs {first} to {run} were"),
    };
    let example: Vec<&str> = rels.iter().take(SHOWN).map(String::as_str).collect();
    format!(
        "tapline: not re-running: {list} changed during run {run}, and {runs} started only by \
         changes made during the run before: the tests seem to write into the project.\n  \
         To stop watching {them}: --watch-ignore GLOB (say `--watch-ignore '{globs}'`) or a \
         .gitignore entry. Until then, a change to {them} made during a run starts nothing; a \
         change anywhere else, or to {them} between runs, still does.\n",
        them = if rels.len() == 1 { "it" } else { "them" },
        globs = example.join(","),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn at(ms: u64) -> SystemTime {
        SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000) + Duration::from_millis(ms)
    }

    fn change(rel: &str, ms: u64, created: bool) -> Change {
        Change {
            rel: rel.into(),
            ctime: Some(at(ms)),
            arrived: at(ms + 1),
            created,
        }
    }

    fn rels(names: &[&str]) -> BTreeSet<String> {
        names.iter().map(|n| (*n).to_owned()).collect()
    }

    /// The same moment on both clocks.
    fn moment(ms: u64) -> Moment {
        Moment {
            file: at(ms),
            at: at(ms),
        }
    }

    /// A run from `from` to `to` (ms), with the given self-fed count.
    fn ran(f: &mut Feedback, run: u64, fed: u32, from: u64, to: u64) {
        f.run_started(run, fed, Covers::All, moment(from));
        f.run_ended(moment(to));
    }

    #[test]
    fn a_test_writing_a_file_each_run_stops_after_two_self_fed_runs() {
        let mut f = Feedback::default();
        ran(&mut f, 1, 0, 0, 100);
        // Written during run 1, delivered after it.
        let first = f.sort(vec![change("counter.txt", 50, false)]);
        assert_eq!(
            first,
            Sorted::Run {
                rels: rels(&["counter.txt"]),
                fed: 1
            }
        );
        ran(&mut f, 2, 1, 400, 500);
        let second = f.sort(vec![change("counter.txt", 450, false)]);
        assert_eq!(
            second,
            Sorted::Run {
                rels: rels(&["counter.txt"]),
                fed: 2
            }
        );
        ran(&mut f, 3, 2, 800, 900);
        let third = f.sort(vec![
            change("counter.txt", 850, false),
            change("out-3.txt", 860, true),
        ]);
        assert_eq!(
            third,
            Sorted::Paused {
                rels: rels(&["counter.txt", "out-3.txt"]),
                run: 3
            }
        );

        // The rest of what run 3 wrote ripens in a later batch: paused with the rest.
        let later = f.sort(vec![change("other.txt", 880, false)]);
        assert_eq!(
            later,
            Sorted::Paused {
                rels: rels(&["other.txt"]),
                run: 3
            }
        );

        // A user's edit between runs starts a run, which writes the same files again (and a
        // new one beside the one the tests create anew): nothing follows.
        let edit = f.sort(vec![change("lib/x.pm", 5000, false)]);
        assert_eq!(
            edit,
            Sorted::Run {
                rels: rels(&["lib/x.pm"]),
                fed: 0
            }
        );
        ran(&mut f, 4, 0, 5300, 5400);
        let written = f.sort(vec![
            change("counter.txt", 5350, false),
            change("out-4.txt", 5360, true),
        ]);
        assert_eq!(written, Sorted::Nothing);

        // The paused path, changed between runs, is the user's: it runs.
        let by_hand = f.sort(vec![change("counter.txt", 9000, false)]);
        assert_eq!(
            by_hand,
            Sorted::Run {
                rels: rels(&["counter.txt"]),
                fed: 0
            }
        );
    }

    #[test]
    fn a_change_outside_every_run_ends_the_chain() {
        let mut f = Feedback::default();
        ran(&mut f, 1, 0, 0, 100);
        ran(&mut f, 2, 2, 400, 500);
        // One path written during run 2, one between runs: the user's hand is in it.
        let mixed = f.sort(vec![
            change("a.txt", 450, false),
            change("b.txt", 700, false),
        ]);
        assert_eq!(
            mixed,
            Sorted::Run {
                rels: rels(&["a.txt", "b.txt"]),
                fed: 0
            }
        );
    }

    #[test]
    fn a_change_during_a_run_in_progress_counts_against_it() {
        let mut f = Feedback::default();
        ran(&mut f, 1, 0, 0, 100);
        f.run_started(2, ALLOWED, Covers::All, moment(400));
        // The run is still going: a change now is one made during it, and is not let cancel
        // and restart it.
        let during = f.sort(vec![change("snap/a.snap", 450, true)]);
        assert_eq!(
            during,
            Sorted::Paused {
                rels: rels(&["snap/a.snap"]),
                run: 2
            }
        );
        // Anything else run 2 wrote is named with it.
        let rest = f.sort(vec![change("snap/b.snap", 460, true)]);
        assert_eq!(
            rest,
            Sorted::Paused {
                rels: rels(&["snap/b.snap"]),
                run: 2
            }
        );
        f.run_ended(moment(700));
        // In a later run the user started, a new file in that folder is the tests' again:
        // silently nothing; one elsewhere is weighed as any change.
        f.run_started(3, 0, Covers::All, moment(2000));
        let next = f.sort(vec![
            change("snap/c.snap", 2010, true),
            change("src/new.rs", 2020, true),
        ]);
        assert_eq!(
            next,
            Sorted::Run {
                rels: rels(&["src/new.rs"]),
                fed: 1
            }
        );
    }

    /// Regression: what run 2 wrote ripened in two batches; the second, arriving during run 3
    /// (which the first started), cancelled and restarted it for a change it had seen.
    #[test]
    fn a_change_the_latest_run_saw_starts_nothing() {
        let mut f = Feedback::default();
        ran(&mut f, 1, 0, 0, 100);
        f.run_started(2, 1, Covers::All, moment(400));
        assert_eq!(
            f.sort(vec![change("fresh-1.txt", 90, true)]),
            Sorted::Nothing,
            "made during run 1, before run 2 of every file started"
        );
        f.run_ended(moment(500));
        f.run_started(3, 0, Covers::Files(rels(&["t/a.t"])), moment(1000));
        assert_eq!(
            f.sort(vec![change("t/a.t", 900, false)]),
            Sorted::Nothing,
            "run 3 runs t/a.t"
        );
        assert_eq!(
            f.sort(vec![change("t/b.t", 900, false)]),
            Sorted::Run {
                rels: rels(&["t/b.t"]),
                fed: 0
            },
            "run 3 does not run t/b.t"
        );
        assert_eq!(
            f.sort(vec![change("t/a.t", 1000, false)]),
            Sorted::Run {
                rels: rels(&["t/a.t"]),
                fed: 1
            },
            "stamped as run 3 started: maybe after its file did (and so made during it)"
        );
    }

    /// Regression: a script editing as soon as a run's end was reported was taken for the
    /// tests: the kernel's coarse clock stamped its write no later than the end read off the
    /// system clock. The end is read off the file clock, and a tie goes by the event's arrival.
    #[test]
    fn at_the_end_the_file_clock_and_then_the_arrival_decide() {
        let mut f = Feedback::default();
        f.run_started(1, 0, Covers::Files(BTreeSet::new()), moment(0));
        f.run_ended(Moment {
            file: at(96),
            at: at(100),
        });
        let tied_after = Change {
            arrived: at(101),
            ..change("t/a.t", 96, false)
        };
        assert_eq!(
            f.sort(vec![tied_after]),
            Sorted::Run {
                rels: rels(&["t/a.t"]),
                fed: 0
            }
        );
        let tied_before = Change {
            arrived: at(99),
            ..change("t/b.t", 96, false)
        };
        assert!(matches!(
            f.sort(vec![tied_before]),
            Sorted::Run { fed: 1, .. }
        ));
        let late_news = Change {
            arrived: at(150),
            ..change("t/c.t", 95, false)
        };
        assert!(
            matches!(f.sort(vec![late_news]), Sorted::Run { fed: 1, .. }),
            "stamped before the end, however late its event"
        );
        let gone = Change {
            ctime: None,
            arrived: at(150),
            ..change("t/d.t", 0, false)
        };
        assert!(
            matches!(f.sort(vec![gone]), Sorted::Run { fed: 0, .. }),
            "a removal goes by its arrival"
        );
    }

    #[test]
    fn the_message_names_the_paths_and_the_remedy() {
        let msg = paused_message(&rels(&["counter.txt", "out-3.txt"]), 3);
        assert!(
            msg.starts_with(
                "tapline: not re-running: counter.txt and out-3.txt changed during run 3, and \
                 runs 2 and 3 were started only by changes made during the run before"
            ),
            "{msg}"
        );
        assert!(
            msg.contains("`--watch-ignore 'counter.txt,out-3.txt'`"),
            "{msg}"
        );
        assert!(msg.contains(".gitignore"), "{msg}");
        let many: Vec<String> = (0..7).map(|i| format!("f{i}")).collect();
        let msg = paused_message(&many.iter().cloned().collect(), 9);
        assert!(
            msg.contains("f0, f1, f2, f3, f4 and 2 more changed"),
            "{msg}"
        );
    }
}
