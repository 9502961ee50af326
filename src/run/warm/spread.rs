//! Whether another warm worker pays for its start: a new worker costs a node start and the
//! harness's `require` ([`WORKER_START_MS`]), which the files left could instead wait for in
//! the worker already up. With one worker busy and `W` ms of work left, a second worker ends
//! the key's files at about `(W + S) / 2` instead of `W`, a gain only when `W > S`; history
//! knows `W` (each file's median), else the count of files left stands in for it.

/// What a worker's start costs, in ms: `node` (about 50 ms) and `require('tape')` (about
/// 50 ms) on an idle core of the 2-core machines of benches/README.md ("Warm workers"),
/// rounded up for the load a second worker starts under.
pub(crate) const WORKER_START_MS: u64 = 150;

/// Files of a key left below which no further worker starts when history does not know
/// them: one or two files in a worker already up cost less than a node start (deep-equal's
/// two files, tape's one process).
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

#[cfg(test)]
mod tests {
    use super::*;

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
