//! The order files start in (`--order`): reports still list them in declared order.
//!
//! - `slowest-first` (the default once history knows any selected file): longest processing
//!   time first by each file's median duration in history, files history does not know first
//!   (they might be slow, and nothing else can be learnt about them sooner). With `-j N` this
//!   keeps a slow file from starting last and running alone at the end.
//! - `failed-first`: files whose last run in history failed, then the others, each group in
//!   declared order (watch mode's order).
//! - `declared`: discovery order (sorted paths, or the order PATH arguments were given).
//! - `random[:SEED]`: a shuffle; the seed is printed and the same seed gives the same order.
use super::Planned;
use crate::state::history::Index;

/// The order's names, read and checked where the configuration is read (it needs nothing of
/// the runner); what each does is below.
pub use super::config::Order;

/// An order's meaning needs the planned files and history, which the configuration knows
/// nothing of, so it lives here rather than beside the enum.
impl Order {
    /// The order to use when none was asked for: slowest-first once history knows a file.
    pub fn default_for(files: &[Planned], history: &Index) -> Order {
        if files
            .iter()
            .any(|p| history.files.contains_key(&p.info.rel))
        {
            Order::SlowestFirst
        } else {
            Order::Declared
        }
    }

    /// A random order's seed fixed (from the clock when none was given), so it can be printed
    /// and replayed.
    pub fn resolved(self) -> Order {
        match self {
            Order::Random(None) => {
                let now = std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .unwrap_or_default();
                let seed = splitmix(now.as_nanos() as u64 ^ u64::from(std::process::id()));
                Order::Random(Some(seed % 1_000_000))
            }
            other => other,
        }
    }
}

/// Puts `files` in the order they should start. Stable: ties keep declared order.
pub fn arrange(files: &mut [Planned], order: Order, history: &Index) {
    files.sort_by_key(|p| p.info.index);
    // Unknown files first, then the slowest (by median duration).
    let weight = |p: &Planned| -> (bool, std::cmp::Reverse<u64>) {
        match history.files.get(&p.info.rel) {
            None => (false, std::cmp::Reverse(u64::MAX)),
            Some(f) => (true, std::cmp::Reverse(f.p50_ms as u64)),
        }
    };
    match order {
        Order::Declared => {}
        Order::SlowestFirst => files.sort_by_key(weight),
        Order::FailedFirst => files.sort_by_key(|p| {
            let failed = history
                .files
                .get(&p.info.rel)
                .is_some_and(|f| f.last_failed);
            !failed
        }),
        Order::Random(seed) => {
            // Fisher–Yates with splitmix64: the same seed gives the same order everywhere.
            let mut state = seed.unwrap_or(0);
            for i in (1..files.len()).rev() {
                state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
                let j = (splitmix(state) % (i as u64 + 1)) as usize;
                files.swap(i, j);
            }
        }
    }
}

fn splitmix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::run::FileInfo;
    use crate::state::history::FileFacts;

    fn planned(names: &[&str]) -> Vec<Planned> {
        names
            .iter()
            .enumerate()
            .map(|(index, rel)| Planned {
                info: FileInfo {
                    index,
                    rel: (*rel).into(),
                    command: String::new(),
                    log: None,
                    attempt: 1,
                    leaves: false,
                },
                command: Ok(Vec::new()),
                log_name: format!("{rel}.log"),
                cached: None,
                input: Default::default(),
            })
            .collect()
    }

    fn index(facts: &[(&str, f64, bool)]) -> Index {
        Index {
            files: facts
                .iter()
                .map(|&(rel, p50_ms, last_failed)| {
                    let f = FileFacts {
                        p50_ms,
                        last_failed,
                        runs: 1,
                    };
                    (rel.to_owned(), f)
                })
                .collect(),
        }
    }

    fn names(files: &[Planned]) -> Vec<&str> {
        files.iter().map(|p| p.info.rel.as_str()).collect()
    }

    #[test]
    fn slowest_first_puts_unknown_files_first_then_longest_median() {
        let h = index(&[
            ("a", 300.0, false),
            ("b", 1500.0, false),
            ("d", 300.0, true),
        ]);
        let mut files = planned(&["a", "b", "c", "d"]);
        arrange(&mut files, Order::SlowestFirst, &h);
        assert_eq!(names(&files), ["c", "b", "a", "d"]);
        arrange(&mut files, Order::FailedFirst, &h);
        assert_eq!(names(&files), ["d", "a", "b", "c"]);
        arrange(&mut files, Order::Declared, &h);
        assert_eq!(names(&files), ["a", "b", "c", "d"]);
        assert_eq!(Order::default_for(&files, &h), Order::SlowestFirst);
        assert_eq!(
            Order::default_for(&files, &Index::default()),
            Order::Declared
        );
    }

    #[test]
    fn random_is_reproducible_by_seed() {
        let all: Vec<String> = (0..20).map(|n| format!("t{n}")).collect();
        let refs: Vec<&str> = all.iter().map(String::as_str).collect();
        let shuffled = |seed| {
            let mut files = planned(&refs);
            arrange(&mut files, Order::Random(Some(seed)), &Index::default());
            names(&files)
                .iter()
                .map(|s| s.to_string())
                .collect::<Vec<_>>()
        };
        assert_eq!(shuffled(7), shuffled(7));
        assert_ne!(shuffled(7), shuffled(8));
        assert_ne!(shuffled(7), all);
        let mut sorted = shuffled(7);
        sorted.sort_by_key(|s| s[1..].parse::<u32>().unwrap());
        assert_eq!(sorted, all);
    }
}
