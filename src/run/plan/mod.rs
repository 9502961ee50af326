//! Planning a run without processes, as a pipeline ([`pipeline`]: discover → partition →
//! select → history, cache → order) fed by the run's options ([`crate::run::options`]):
//! which of the discovered files this machine runs ([`partition`]) and where a CI engine says
//! this machine's shard is ([`engine`]).
pub mod engine;
pub mod partition;
pub mod pipeline;

pub use pipeline::{
    adapt, discover, partition as partition_files, plan, Partitioned, Plan, PlanError,
};

use crate::event::run::{ShardHeader, ShardUnit, SHARD_FORMAT};
use partition::{Partition, PartitionArg, PartitionError, Strategy, Unit};
use std::time::Duration;

/// What `--partition` comes to on this machine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Resolved {
    /// Run this shard.
    Shard(Partition),
    /// `auto`, and no engine says which shard: everything runs (the note says so).
    Everything { note: String },
}

/// The shard `arg` names, reading the engine's variables for `auto`. `history_knows`: history
/// has a duration for some selected file (`auto` then deals by `time`, else by `slice`).
pub fn resolve(
    arg: PartitionArg,
    env: &dyn Fn(&str) -> Option<String>,
    history_knows: bool,
) -> Result<Resolved, PartitionError> {
    let strategy = match arg {
        PartitionArg::Fixed(p) => return Ok(Resolved::Shard(p)),
        PartitionArg::Auto(s) => s,
    };
    let Some(shard) = engine::detect(env)? else {
        return Ok(Resolved::Everything {
            note: "--partition auto: no CI engine names a shard (TAPLINE_PARTITION, \
                   CI_NODE_INDEX, CIRCLE_NODE_INDEX, BUILDKITE_PARALLEL_JOB, \
                   JOB_COMPLETION_INDEX, TEST_SHARD_INDEX), so every file runs"
                .to_owned(),
        });
    };
    let strategy = strategy.unwrap_or(if history_knows {
        Strategy::Time
    } else {
        Strategy::Slice
    });
    Ok(Resolved::Shard(Partition {
        strategy,
        index: shard.index,
        total: shard.total,
    }))
}

/// This shard's items (in declared order) with their weights, and the header that records the
/// whole plan for `tapline report merge`.
pub struct Sharded<T> {
    pub mine: Vec<(T, Duration)>,
    pub header: ShardHeader,
}

/// Deals `items` (declared order; `key` is each one's path, `known` its duration from
/// history) and keeps shard `p.index`'s.
pub fn shard<T>(
    items: Vec<T>,
    key: impl Fn(&T) -> &str,
    known: impl Fn(&T) -> Option<Duration>,
    p: Partition,
    time_default: Option<Duration>,
) -> Sharded<T> {
    let units: Vec<Unit<'_>> = items
        .iter()
        .map(|t| Unit {
            key: key(t),
            known: known(t),
        })
        .collect();
    let a = partition::assign(&units, p.strategy, p.total, time_default);
    let selection = units
        .iter()
        .zip(a.shard_of.iter().zip(&a.weights))
        .map(|(u, (shard, weight))| ShardUnit {
            path: u.key.to_owned(),
            shard: shard + 1,
            weight_ms: weight.as_millis() as u64,
        })
        .collect();
    let header = ShardHeader {
        format: SHARD_FORMAT,
        tapline: env!("CARGO_PKG_VERSION").to_owned(),
        strategy: p.strategy.name().to_owned(),
        index: p.index,
        total: p.total,
        fingerprint: a.fingerprint,
        selection,
    };
    let mine = items
        .into_iter()
        .zip(a.shard_of.iter().zip(&a.weights))
        .filter(|(_, (shard, _))| **shard + 1 == p.index)
        .map(|(t, (_, w))| (t, *w))
        .collect();
    Sharded { mine, header }
}
