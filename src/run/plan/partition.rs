//! Splits a run's selection into N shards, so that N machines (CI matrix jobs, Kubernetes
//! Indexed Jobs, Bazel shards) each run one part and every file runs exactly once.
//!
//! Pure: the same units, strategy and N give the same assignment on every machine, which is what
//! lets shards be planned without talking to each other. Strategies:
//! - `slice`: round-robin over the units in declared order (nextest's `count`).
//! - `hash`: a stable hash of the path (FNV-1a, fixed across versions and platforms), so a file
//!   keeps its shard when others come and go (nextest's `hash`).
//! - `time`: longest processing time first over each unit's duration from history: units
//!   heaviest first (ties by path) each go to the least loaded shard (ties to the lowest). Units
//!   history does not know weigh the median of the known ones (or `--time-default`). LPT is
//!   within 4/3 of the optimal makespan in theory and much closer on real suites.
use std::time::Duration;

/// The shard types a `--partition` or `[run] partition` value reads as: read and checked where
/// the configuration is read (it needs nothing of the runner), named here too for the planner.
pub use crate::run::config::{Partition, PartitionArg, PartitionError, Strategy};

/// One thing that runs as a whole on one shard: a test file, or a `[[suite]]`.
#[derive(Debug, Clone)]
pub struct Unit<'a> {
    /// Its path relative to the project root (a suite's name): what `hash` hashes.
    pub key: &'a str,
    /// Its duration from history (the median of its last runs), when known.
    pub known: Option<Duration>,
}

/// The weights `time` deals by, and the selection's fingerprint, for `--list` and the shard's
/// header.
#[derive(Debug, Clone, PartialEq)]
pub struct Assignment {
    /// The shard (0-based) of each unit, in the units' order.
    pub shard_of: Vec<usize>,
    /// The weight each unit was dealt with (`time`; the others weigh what history says, for
    /// display, or the default).
    pub weights: Vec<Duration>,
    /// FNV-1a over the strategy, N and every unit with its weight, in order: shards of one
    /// run agree on it; a different selection or history snapshot does not.
    pub fingerprint: String,
}

/// Deals `units` (in declared order) to `total` shards.
pub fn assign(
    units: &[Unit<'_>],
    strategy: Strategy,
    total: usize,
    time_default: Option<Duration>,
) -> Assignment {
    let total = total.max(1);
    let weights = weights(units, time_default);
    let shard_of = match strategy {
        Strategy::Slice => (0..units.len()).map(|i| i % total).collect(),
        Strategy::Hash => units
            .iter()
            .map(|u| (fnv1a(u.key.as_bytes()) % total as u64) as usize)
            .collect(),
        Strategy::Time => longest_first(units, &weights, total),
    };
    let fingerprint = fingerprint(units, &weights, strategy, total);
    Assignment {
        shard_of,
        weights,
        fingerprint,
    }
}

/// A known unit's own duration; an unknown one the median of the known (or the default, or
/// one second when nothing is known at all).
fn weights(units: &[Unit<'_>], time_default: Option<Duration>) -> Vec<Duration> {
    let mut known: Vec<Duration> = units.iter().filter_map(|u| u.known).collect();
    known.sort_unstable();
    let median = match known.len() {
        0 => None,
        n if n % 2 == 1 => Some(known[n / 2]),
        n => Some((known[n / 2 - 1] + known[n / 2]) / 2),
    };
    let fallback = time_default.or(median).unwrap_or(Duration::from_secs(1));
    units.iter().map(|u| u.known.unwrap_or(fallback)).collect()
}

fn longest_first(units: &[Unit<'_>], weights: &[Duration], total: usize) -> Vec<usize> {
    let mut order: Vec<usize> = (0..units.len()).collect();
    order.sort_by(|&a, &b| {
        weights[b]
            .cmp(&weights[a])
            .then_with(|| units[a].key.cmp(units[b].key))
    });
    let mut load = vec![Duration::ZERO; total];
    let mut shard_of = vec![0; units.len()];
    for i in order {
        let (lightest, _) = load
            .iter()
            .enumerate()
            .min_by_key(|&(shard, l)| (*l, shard))
            .unwrap_or((0, &Duration::ZERO));
        shard_of[i] = lightest;
        load[lightest] += weights[i];
    }
    shard_of
}

fn fingerprint(
    units: &[Unit<'_>],
    weights: &[Duration],
    strategy: Strategy,
    total: usize,
) -> String {
    let mut text = format!("{}\n{total}\n", strategy.name());
    for (u, w) in units.iter().zip(weights) {
        // Only `time` deals by weight; for the others the selection alone decides.
        let ms = if strategy == Strategy::Time {
            w.as_millis()
        } else {
            0
        };
        text.push_str(&format!("{}\t{ms}\n", u.key));
    }
    format!("{:016x}", fnv1a(text.as_bytes()))
}

pub use crate::util::fnv1a;

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::{prop_assert, prop_assert_eq, proptest};

    fn units<'a>(keys: &'a [String], ms: &[Option<u64>]) -> Vec<Unit<'a>> {
        keys.iter()
            .zip(ms)
            .map(|(key, ms)| Unit {
                key,
                known: ms.map(Duration::from_millis),
            })
            .collect()
    }

    #[test]
    fn slice_deals_round_robin_and_hash_keeps_a_file_where_it_was() {
        let keys: Vec<String> = (0..10).map(|i| format!("t/{i}.t")).collect();
        let none = vec![None; 10];
        let slice = assign(&units(&keys, &none), Strategy::Slice, 3, None);
        assert_eq!(slice.shard_of, [0, 1, 2, 0, 1, 2, 0, 1, 2, 0]);
        let all = assign(&units(&keys, &none), Strategy::Hash, 3, None);
        // Without t/4.t, everyone else stays put.
        let fewer: Vec<String> = keys.iter().filter(|k| *k != "t/4.t").cloned().collect();
        let some = assign(&units(&fewer, &none[1..]), Strategy::Hash, 3, None);
        for (k, shard) in fewer.iter().zip(&some.shard_of) {
            let i = keys.iter().position(|x| x == k).unwrap_or(0);
            assert_eq!(all.shard_of[i], *shard, "{k}");
        }
    }

    #[test]
    fn time_puts_the_longest_files_apart_and_unknown_ones_at_the_median() {
        let keys: Vec<String> = ["a", "b", "c", "d", "e"].map(String::from).to_vec();
        let ms = [Some(10_000), Some(9_000), Some(1_000), Some(1_000), None];
        let a = assign(&units(&keys, &ms), Strategy::Time, 2, None);
        assert_ne!(
            a.shard_of[0], a.shard_of[1],
            "the two long files share a shard"
        );
        // The median of 1, 1, 9 and 10 seconds.
        assert_eq!(
            a.weights[4],
            Duration::from_millis(5_000),
            "median of the known"
        );
        let with_default = assign(
            &units(&keys, &ms),
            Strategy::Time,
            2,
            Some(Duration::from_secs(7)),
        );
        assert_eq!(with_default.weights[4], Duration::from_secs(7));
        assert_ne!(
            a.fingerprint, with_default.fingerprint,
            "another history, another plan"
        );
    }

    proptest! {
        #[test]
        fn every_strategy_assigns_each_unit_to_exactly_one_shard(
            ms in proptest::collection::vec(proptest::option::of(0u64..100_000), 0..60),
            total in 1usize..12,
        ) {
            let keys: Vec<String> = (0..ms.len()).map(|i| format!("test/{i:03}.t")).collect();
            let us = units(&keys, &ms);
            for strategy in [Strategy::Slice, Strategy::Hash, Strategy::Time] {
                let a = assign(&us, strategy, total, None);
                prop_assert_eq!(a.shard_of.len(), us.len());
                prop_assert!(a.shard_of.iter().all(|&s| s < total));
                // The same inputs give the same plan: shards need not talk to agree.
                prop_assert_eq!(&a, &assign(&us, strategy, total, None));
            }
        }

        #[test]
        fn time_exceeds_the_mean_by_at_most_one_unit(
            ms in proptest::collection::vec(1u64..100_000, 1..60),
            total in 1usize..8,
        ) {
            let keys: Vec<String> = (0..ms.len()).map(|i| format!("t/{i}")).collect();
            let known: Vec<Option<u64>> = ms.iter().copied().map(Some).collect();
            let a = assign(&units(&keys, &known), Strategy::Time, total, None);
            let mut load = vec![0u64; total];
            for (i, s) in a.shard_of.iter().enumerate() {
                load[*s] += ms[i];
            }
            let sum: u64 = ms.iter().sum();
            let longest = ms.iter().copied().max().unwrap_or(0);
            let worst = load.iter().copied().max().unwrap_or(0);
            // The unit that ends last went to the least loaded shard, then at most the mean:
            // no shard exceeds the mean by more than one unit (list scheduling's bound).
            prop_assert!(worst <= sum.div_ceil(total as u64) + longest, "{worst}");
        }
    }
}
