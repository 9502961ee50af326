//! Which shard this machine is, as the engine running it says (`--partition auto`): tapline's
//! own variable, GitLab, CircleCI, Buildkite, Kubernetes Indexed Jobs and Bazel. GitHub Actions
//! sets none: its matrix passes `--partition time:${{ matrix.shard }}/N` instead.
use super::partition::PartitionError;

/// This machine's shard: `index` 1-based of `total`, and who said so.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    pub index: usize,
    pub total: usize,
    pub engine: &'static str,
}

/// One engine's pair of variables, and whether its index counts from 0.
struct Engine {
    name: &'static str,
    index: &'static str,
    total: &'static str,
    zero_based: bool,
}

/// Checked in this order; the first engine whose index variable is set decides.
const ENGINES: [Engine; 5] = [
    // Bazel's test-sharding protocol (tapline as the program of a `sh_test`).
    Engine {
        name: "Bazel",
        index: "TEST_SHARD_INDEX",
        total: "TEST_TOTAL_SHARDS",
        zero_based: true,
    },
    Engine {
        name: "GitLab",
        index: "CI_NODE_INDEX",
        total: "CI_NODE_TOTAL",
        zero_based: false,
    },
    Engine {
        name: "CircleCI",
        index: "CIRCLE_NODE_INDEX",
        total: "CIRCLE_NODE_TOTAL",
        zero_based: true,
    },
    Engine {
        name: "Buildkite",
        index: "BUILDKITE_PARALLEL_JOB",
        total: "BUILDKITE_PARALLEL_JOB_COUNT",
        zero_based: true,
    },
    Engine {
        name: "Kubernetes",
        index: "JOB_COMPLETION_INDEX",
        total: "TAPLINE_PARTITION_TOTAL",
        zero_based: true,
    },
];

/// The shard the environment names, if any. `TAPLINE_PARTITION=M/N` wins over every engine.
pub fn detect(env: &dyn Fn(&str) -> Option<String>) -> Result<Option<Shard>, PartitionError> {
    if let Some(text) = env("TAPLINE_PARTITION").filter(|t| !t.is_empty()) {
        let (m, n) = text
            .split_once('/')
            .ok_or_else(|| PartitionError::EngineValue("TAPLINE_PARTITION".into(), text.clone()))?;
        let number = |s: &str| {
            s.trim()
                .parse::<usize>()
                .map_err(|_| PartitionError::EngineValue("TAPLINE_PARTITION".into(), text.clone()))
        };
        let (index, total) = (number(m)?, number(n)?);
        if index == 0 || index > total {
            return Err(PartitionError::OutOfRange(text, index, total));
        }
        return Ok(Some(Shard {
            index,
            total,
            engine: "TAPLINE_PARTITION",
        }));
    }
    for e in &ENGINES {
        if let Some(shard) = engine_shard(e, env)? {
            return Ok(Some(shard));
        }
    }
    Ok(None)
}

fn engine_shard(
    e: &Engine,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Option<Shard>, PartitionError> {
    let get = |var: &'static str| env(var).filter(|v| !v.trim().is_empty());
    let (index, total) = match (get(e.index), get(e.total)) {
        (None, None) => return Ok(None),
        // Bazel sets the index only when sharding; an index without its total is a mistake.
        (Some(_), None) => return Err(PartitionError::EngineHalf(e.index, e.total)),
        (None, Some(_)) if e.name == "Bazel" || e.name == "Kubernetes" => return Ok(None),
        (None, Some(_)) => return Err(PartitionError::EngineHalf(e.total, e.index)),
        (Some(i), Some(t)) => (i, t),
    };
    let number = |var: &str, v: &str| {
        v.trim()
            .parse::<usize>()
            .map_err(|_| PartitionError::EngineValue(var.to_owned(), v.to_owned()))
    };
    let (raw, total) = (number(e.index, &index)?, number(e.total, &total)?);
    let index = if e.zero_based { raw + 1 } else { raw };
    if total == 0 || index == 0 || index > total {
        return Err(PartitionError::EngineRange {
            index_var: e.index,
            index: raw,
            total_var: e.total,
            total,
        });
    }
    Ok(Some(Shard {
        index,
        total,
        engine: e.name,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with(vars: &[(&str, &str)]) -> Result<Option<Shard>, PartitionError> {
        let vars: Vec<(String, String)> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        detect(&move |k: &str| vars.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone()))
    }

    fn shard(index: usize, total: usize, engine: &'static str) -> Option<Shard> {
        Some(Shard {
            index,
            total,
            engine,
        })
    }

    #[test]
    fn each_engine_counts_from_where_it_counts() {
        let cases: [(&[(&str, &str)], Option<Shard>); 7] = [
            (&[], None),
            (
                &[("TAPLINE_PARTITION", "2/4")],
                shard(2, 4, "TAPLINE_PARTITION"),
            ),
            (
                &[("CI_NODE_INDEX", "1"), ("CI_NODE_TOTAL", "4")],
                shard(1, 4, "GitLab"),
            ),
            (
                &[("CIRCLE_NODE_INDEX", "0"), ("CIRCLE_NODE_TOTAL", "4")],
                shard(1, 4, "CircleCI"),
            ),
            (
                &[
                    ("BUILDKITE_PARALLEL_JOB", "3"),
                    ("BUILDKITE_PARALLEL_JOB_COUNT", "4"),
                ],
                shard(4, 4, "Buildkite"),
            ),
            (
                &[
                    ("JOB_COMPLETION_INDEX", "2"),
                    ("TAPLINE_PARTITION_TOTAL", "3"),
                ],
                shard(3, 3, "Kubernetes"),
            ),
            (
                &[("TEST_SHARD_INDEX", "0"), ("TEST_TOTAL_SHARDS", "4")],
                shard(1, 4, "Bazel"),
            ),
        ];
        for (vars, want) in cases {
            assert_eq!(with(vars), Ok(want), "{vars:?}");
        }
        // tapline's own variable wins over the engine's.
        let both = [
            ("TAPLINE_PARTITION", "1/2"),
            ("CI_NODE_INDEX", "3"),
            ("CI_NODE_TOTAL", "4"),
        ];
        assert_eq!(with(&both), Ok(shard(1, 2, "TAPLINE_PARTITION")));
    }

    #[test]
    fn a_wrong_or_half_set_engine_says_which_variable() {
        for (vars, says) in [
            (
                &[("CI_NODE_INDEX", "5"), ("CI_NODE_TOTAL", "4")][..],
                "CI_NODE_INDEX=5",
            ),
            (
                &[("CI_NODE_INDEX", "0"), ("CI_NODE_TOTAL", "4")],
                "CI_NODE_INDEX=0",
            ),
            (
                &[("CIRCLE_NODE_INDEX", "4"), ("CIRCLE_NODE_TOTAL", "4")],
                "CIRCLE_NODE_INDEX=4",
            ),
            (&[("JOB_COMPLETION_INDEX", "1")], "TAPLINE_PARTITION_TOTAL"),
            (&[("CI_NODE_TOTAL", "x"), ("CI_NODE_INDEX", "1")], "`x`"),
            (&[("TAPLINE_PARTITION", "5/4")], "5/4"),
        ] {
            let msg = with(vars).err().map(|e| e.to_string()).unwrap_or_default();
            assert!(msg.contains(says), "{vars:?}: {msg}");
        }
        // A Kubernetes Job that is not indexed, or Bazel without sharding: not a shard.
        assert_eq!(with(&[("TAPLINE_PARTITION_TOTAL", "3")]), Ok(None));
        assert_eq!(with(&[("TEST_TOTAL_SHARDS", "1")]), Ok(None));
    }
}
