//! The result of `--runs N` stability analysis, as every report renders it (the analysis itself
//! is `run::stability`). Rates are percentages (0–100), durations milliseconds.
use serde::{Deserialize, Serialize};

/// `"stability"` in the summary document.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Stability {
    /// Runs completed (N, or fewer when an interrupt ended the series).
    pub runs: u64,
    /// Every file, least stable first.
    pub files: Vec<Subject>,
    /// Every test (file + full name path), least stable first.
    pub tests: Vec<Subject>,
}

impl Stability {
    /// Every test and file stable and passing (`--runs N` exits 0 only then).
    pub fn all_stable(&self) -> bool {
        self.runs > 0
            && self
                .files
                .iter()
                .chain(&self.tests)
                .all(|s| s.class == Class::Stable)
    }
}

/// One file, or one test of a file, over the runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Subject {
    pub file: String,
    /// The test's full name path (`parent > child`); absent for a file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The test's stable ID (`file > parent > child`); absent for a file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// Passed in every run that judged it, failed in every one, or both: a test (or file) to
    /// trust, one that is broken, one that is flaky.
    #[serde(default)]
    pub kind: Kind,
    /// Runs that judged it (a test missing from a run its file passed is not judged there).
    pub runs: u64,
    pub passed: u64,
    pub failed: u64,
    pub pass_rate: f64,
    /// Share of runs agreeing with the majority verdict (50–100).
    pub consistency: f64,
    pub class: Class,
    /// `None` for a test whose stream never said how long it took.
    pub duration_ms: Option<DurationStats>,
    /// Its verdict in each run of the series, in order (the chart's data).
    pub verdicts: Vec<RunVerdict>,
}

/// What a subject's runs say of it, whatever its pass rate.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// Passed in every run that judged it.
    #[default]
    StablePass,
    /// Failed in every run that judged it.
    StableFail,
    /// Passed in some runs and failed in others.
    Flaky,
}

impl Kind {
    pub fn of(passed: u64, failed: u64) -> Kind {
        match (passed, failed) {
            (_, 0) => Kind::StablePass,
            (0, _) => Kind::StableFail,
            _ => Kind::Flaky,
        }
    }
}

/// Pass-rate classes: 100 `stable`, 80–99.9 `mostly_stable`, 50–79.9 `unstable`, below 50
/// `highly_unstable`; a subject that failed in every run that judged it is none of these but
/// `fails_every_run` (broken, not unstable: its runs agree).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Class {
    FailsEveryRun,
    HighlyUnstable,
    Unstable,
    MostlyStable,
    Stable,
}

impl Class {
    /// The class of a subject that passed and failed so many times.
    pub fn of_runs(passed: u64, failed: u64, pass_rate: f64) -> Class {
        match Kind::of(passed, failed) {
            Kind::StableFail => Class::FailsEveryRun,
            _ => Class::of(pass_rate),
        }
    }

    /// The class of a pass rate, for a subject whose runs do not all fail.
    pub fn of(pass_rate: f64) -> Class {
        if pass_rate >= 100.0 {
            Class::Stable
        } else if pass_rate >= 80.0 {
            Class::MostlyStable
        } else if pass_rate >= 50.0 {
            Class::Unstable
        } else {
            Class::HighlyUnstable
        }
    }

    /// The class as a sentence says it (the terminal's and Markdown's table): `fails every run`.
    pub fn words(self) -> &'static str {
        match self {
            Class::Stable => "stable",
            Class::MostlyStable => "mostly stable",
            Class::Unstable => "unstable",
            Class::HighlyUnstable => "highly unstable",
            Class::FailsEveryRun => "fails every run",
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Class::Stable => "stable",
            Class::MostlyStable => "mostly_stable",
            Class::Unstable => "unstable",
            Class::HighlyUnstable => "highly_unstable",
            Class::FailsEveryRun => "fails_every_run",
        }
    }
}

/// A subject's verdict in one run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RunVerdict {
    Pass,
    Fail,
    /// Not judged in that run (the test did not appear, or the file was not run).
    Missing,
}

/// Duration statistics in milliseconds (`p50`/`p95` by nearest rank; `stddev` of the
/// population).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct DurationStats {
    pub min: f64,
    pub mean: f64,
    pub p50: f64,
    pub p95: f64,
    pub max: f64,
    pub stddev: f64,
}

impl DurationStats {
    /// `None` for no samples. Values are rounded to 0.1 ms.
    pub fn of(samples: &[f64]) -> Option<DurationStats> {
        if samples.is_empty() {
            return None;
        }
        let mut sorted = samples.to_vec();
        sorted.sort_by(f64::total_cmp);
        let n = sorted.len() as f64;
        let mean = sorted.iter().sum::<f64>() / n;
        let variance = sorted.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n;
        let round = |x: f64| (x * 10.0).round() / 10.0;
        Some(DurationStats {
            min: round(sorted[0]),
            mean: round(mean),
            p50: round(percentile(&sorted, 50.0)),
            p95: round(percentile(&sorted, 95.0)),
            max: round(sorted[sorted.len() - 1]),
            stddev: round(variance.sqrt()),
        })
    }
}

/// Nearest-rank percentile of sorted, non-empty `sorted`.
pub fn percentile(sorted: &[f64], p: f64) -> f64 {
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes_follow_the_pass_rate() {
        assert_eq!(Class::of(100.0), Class::Stable);
        assert_eq!(Class::of(99.9), Class::MostlyStable);
        assert_eq!(Class::of(80.0), Class::MostlyStable);
        assert_eq!(Class::of(79.9), Class::Unstable);
        assert_eq!(Class::of(50.0), Class::Unstable);
        assert_eq!(Class::of(49.9), Class::HighlyUnstable);
        assert_eq!(Class::of(0.0), Class::HighlyUnstable);
    }

    #[test]
    fn duration_stats() {
        assert_eq!(DurationStats::of(&[]), None);
        let s = DurationStats::of(&[4.0, 1.0, 3.0, 2.0]).expect("stats");
        assert_eq!(
            (s.min, s.max, s.mean, s.p50, s.p95),
            (1.0, 4.0, 2.5, 2.0, 4.0)
        );
        assert_eq!(s.stddev, 1.1);
        let one = DurationStats::of(&[7.0]).expect("stats");
        assert_eq!((one.p50, one.p95, one.stddev), (7.0, 7.0, 0.0));
    }
}
