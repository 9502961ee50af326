//! Whether another warm worker pays for its start: a new worker costs a node start and the
//! harness's `require` ([`WORKER_START_MS`]), which the files left could instead wait for in
//! the worker already up. With one worker busy and `W` ms of work left, a second worker ends
//! the key's files at about `(W + S) / 2` instead of `W`, a gain only when `W > S`; history
//! knows `W` (each file's median), else the count of files left stands in for it. And it
//! needs a core: on a machine whose load already fills its cores ([`core_to_spare`]) the
//! second worker's start and its second compile of the modules slow the run down.

/// What a worker's start costs, in ms: the interpreter's (about 50 ms for the warm worker of
/// benches/README.md) and its harness's load (about 50 ms) on an idle core of the 2-core machines of benches/README.md ("Warm workers"),
/// rounded up for the load a second worker starts under.
pub(crate) const WORKER_START_MS: u64 = 150;

/// Files of a key left below which no further worker starts when history does not know
/// them: one or two files in a worker already up cost less than an interpreter's start
/// (deep-equal's two files, its harness's one process).
pub(crate) const FILES_PER_WORKER: usize = 2;

/// What is known of the files of a key still to start, this one among them: each file's
/// history median (`None`: history does not know it).
pub(crate) fn another_worker_pays(left: impl IntoIterator<Item = Option<u64>>) -> bool {
    let (mut files, mut known_ms, mut all_known) = (0usize, 0u64, true);
    for median in left {
        files += 1;
        match median {
            Some(ms) => known_ms = known_ms.saturating_add(ms),
            None => all_known = false,
        }
        // Enough is known once the work passes a start, or, with an unknown file, once the
        // count does (the iterator is not walked to its end).
        if all_known && known_ms > WORKER_START_MS {
            return true;
        }
        if !all_known && files >= FILES_PER_WORKER {
            return true;
        }
    }
    false
}

/// The 1-minute load average per core from which no further worker starts: its start and the
/// modules it compiles again (fast-uri: about 0.5 s of CPU) are paid on a core other processes
/// hold, and what it runs beside the first worker waits for a core anyway. Measured on the
/// 2-core machine of benches/README.md ("Warm workers, fourth pass"): at load 1 to 3.6 `-j2`
/// beat `-j1` on fast-uri by a fifth, at load 9 to 14 `-j1` beat `-j2` by a third; the line
/// lies between.
pub(crate) const BUSY_LOAD_PER_CORE: f64 = 2.5;

/// Whether the machine has a core for another worker: `load` is the 1-minute load average
/// (`None`: unknown, taken as free), `cores` what this process may use.
pub(crate) fn core_to_spare(load: Option<f64>, cores: usize) -> bool {
    load.is_none_or(|l| l < BUSY_LOAD_PER_CORE * cores.max(1) as f64)
}

/// The 1-minute load average, where the system tells it (`/proc/loadavg`).
pub(crate) fn machine_load() -> Option<f64> {
    let text = std::fs::read_to_string("/proc/loadavg").ok()?;
    text.split_whitespace().next()?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn issue26_a_busy_machine_gets_no_further_worker() {
        assert!(core_to_spare(Some(1.0), 2));
        assert!(core_to_spare(Some(4.9), 2));
        assert!(!core_to_spare(Some(5.0), 2));
        assert!(!core_to_spare(Some(12.0), 2));
        assert!(core_to_spare(Some(12.0), 8));
        assert!(core_to_spare(None, 2));
        assert!(!core_to_spare(Some(3.0), 0), "no cores counts as one");
    }

    #[test]
    fn known_files_worth_less_than_a_start_wait_for_the_worker_up() {
        assert!(!another_worker_pays([Some(40), Some(40), Some(40)]));
        assert!(!another_worker_pays([Some(WORKER_START_MS)]));
    }

    #[test]
    fn known_files_worth_more_than_a_start_get_another_worker() {
        assert!(another_worker_pays([Some(100), Some(60)]));
        assert!(another_worker_pays([Some(WORKER_START_MS + 1)]));
    }

    #[test]
    fn without_history_the_count_decides() {
        assert!(!another_worker_pays([None]));
        assert!(another_worker_pays([None, None]));
        assert!(another_worker_pays([Some(1), None]));
        assert!(!another_worker_pays(std::iter::empty()));
    }

    #[test]
    fn the_walk_stops_once_the_answer_is_known() {
        let mut walked = 0;
        let left = std::iter::repeat_with(|| {
            walked += 1;
            Some(100)
        })
        .take(1000);
        assert!(another_worker_pays(left));
        assert_eq!(walked, 2);
    }
}
