//! The values of the keys that are flags too (`order`, `partition`): their names, read and
//! checked here so that reading `tapline.toml` and the command line needs nothing of the
//! runner. What an order does is `order`'s; how a partition deals files is `plan`'s.
use std::fmt;
use std::str::FromStr;

/// The order files start in (`--order`, `[run] order`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Order {
    SlowestFirst,
    FailedFirst,
    Declared,
    /// `None`: pick a seed from the clock.
    Random(Option<u64>),
}

impl FromStr for Order {
    type Err = String;
    fn from_str(s: &str) -> Result<Order, String> {
        match s {
            "slowest-first" => Ok(Order::SlowestFirst),
            "failed-first" => Ok(Order::FailedFirst),
            "declared" => Ok(Order::Declared),
            "random" => Ok(Order::Random(None)),
            _ => match s.strip_prefix("random:") {
                Some(seed) => seed.parse().map(|n| Order::Random(Some(n))).map_err(|_| {
                    format!("`{s}`: the seed of random:SEED is a whole number up to 2^64-1")
                }),
                None => Err(format!(
                    "`{s}`: expected slowest-first, failed-first, declared, random or random:SEED"
                )),
            },
        }
    }
}

impl fmt::Display for Order {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Order::SlowestFirst => f.write_str("slowest-first"),
            Order::FailedFirst => f.write_str("failed-first"),
            Order::Declared => f.write_str("declared"),
            Order::Random(None) => f.write_str("random"),
            Order::Random(Some(seed)) => write!(f, "random:{seed}"),
        }
    }
}

/// How units are dealt to shards.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Strategy {
    Slice,
    Hash,
    Time,
}

impl Strategy {
    pub fn name(self) -> &'static str {
        match self {
            Strategy::Slice => "slice",
            Strategy::Hash => "hash",
            Strategy::Time => "time",
        }
    }
}

/// Shard `index` (1-based, as nextest writes it) of `total`, dealt by `strategy`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Partition {
    pub strategy: Strategy,
    pub index: usize,
    pub total: usize,
}

impl fmt::Display for Partition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}/{}", self.strategy.name(), self.index, self.total)
    }
}

/// What `--partition` says: a fixed shard, or `auto` (read from the CI engine's variables).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PartitionArg {
    Fixed(Partition),
    /// `auto` or `auto:STRATEGY`; without a strategy, `time` when history knows the files, else
    /// `slice`.
    Auto(Option<Strategy>),
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PartitionError {
    #[error("failed to read the partition `{0}`: expected STRATEGY:M/N (slice, hash or time; M from 1 to N), `auto` or `auto:STRATEGY`")]
    Syntax(String),
    #[error("failed to read the partition `{0}`: shard {1} is not between 1 and {2}")]
    OutOfRange(String, usize, usize),
    #[error("failed to read the shard from {0}: `{1}` is not a number")]
    EngineValue(String, String),
    #[error("failed to read the shard from {index_var}={index} and {total_var}={total}: the index must be below (0-based) or within (1-based) the total")]
    EngineRange {
        index_var: &'static str,
        index: usize,
        total_var: &'static str,
        total: usize,
    },
    #[error("{0} is set but {1} is not: set both to run one shard of a sharded run")]
    EngineHalf(&'static str, &'static str),
}

impl FromStr for Strategy {
    type Err = ();
    fn from_str(s: &str) -> Result<Self, ()> {
        match s {
            "slice" | "count" => Ok(Strategy::Slice),
            "hash" => Ok(Strategy::Hash),
            "time" => Ok(Strategy::Time),
            _ => Err(()),
        }
    }
}

impl FromStr for PartitionArg {
    type Err = PartitionError;
    fn from_str(text: &str) -> Result<Self, PartitionError> {
        let syntax = || PartitionError::Syntax(text.to_owned());
        if text == "auto" {
            return Ok(PartitionArg::Auto(None));
        }
        if let Some(s) = text.strip_prefix("auto:") {
            return s
                .parse()
                .map(|s| PartitionArg::Auto(Some(s)))
                .map_err(|()| syntax());
        }
        let (strategy, shard) = text.split_once(':').ok_or_else(syntax)?;
        let strategy: Strategy = strategy.parse().map_err(|()| syntax())?;
        let (m, n) = shard.split_once('/').ok_or_else(syntax)?;
        let index: usize = m.trim().parse().map_err(|_| syntax())?;
        let total: usize = n.trim().parse().map_err(|_| syntax())?;
        if total == 0 || index == 0 || index > total {
            return Err(PartitionError::OutOfRange(text.to_owned(), index, total));
        }
        Ok(PartitionArg::Fixed(Partition {
            strategy,
            index,
            total,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_prints() {
        for text in [
            "slowest-first",
            "failed-first",
            "declared",
            "random",
            "random:42",
        ] {
            assert_eq!(text.parse::<Order>().expect(text).to_string(), text);
        }
        assert!("random:x".parse::<Order>().is_err());
        assert!("fastest".parse::<Order>().is_err());
    }

    #[test]
    fn reads_what_nextest_and_the_engines_write() {
        let p = |s: &str| s.parse::<PartitionArg>();
        assert_eq!(
            p("time:2/4"),
            Ok(PartitionArg::Fixed(Partition {
                strategy: Strategy::Time,
                index: 2,
                total: 4
            }))
        );
        assert_eq!(p("count:1/1").map(|_| ()), Ok(()));
        assert_eq!(p("auto"), Ok(PartitionArg::Auto(None)));
        assert_eq!(p("auto:hash"), Ok(PartitionArg::Auto(Some(Strategy::Hash))));
        for bad in [
            "", "time", "time:2", "time:0/4", "time:5/4", "time:1/0", "x:1/2", "auto:x",
        ] {
            assert!(p(bad).is_err(), "{bad}");
        }
        let msg = p("time:5/4")
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(
            msg.starts_with("failed to read the partition `time:5/4`"),
            "{msg}"
        );
    }
}
