//! `tapline history`'s figures: per file and per test, computed from the store's records.
//!
//! A file's run is judged by its last attempt in that run: `passed`, `failed`, or `flaky`
//! (passed after a failed attempt). The flip rate is the share (0–100) of consecutive runs
//! whose verdict differs. The store keeps failing test names only, so a test's rows cover the
//! tests that failed at least once: its runs are its file's runs that reported test points, a
//! run counting as failed when the last attempt named it, flaky when only an earlier attempt
//! did, passed otherwise. Tests have no durations here (the store times files).
use super::{runs_by_file, Record, RunOutcome};
use crate::event::stability::percentile;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

#[derive(Debug, Clone, Default, Serialize)]
pub struct HistoryReport {
    pub files: Vec<FileRow>,
    pub tests: Vec<TestRow>,
}

#[derive(Debug, Clone, Serialize)]
pub struct FileRow {
    pub path: String,
    #[serde(flatten)]
    pub row: Row,
}

#[derive(Debug, Clone, Serialize)]
pub struct TestRow {
    pub file: String,
    pub name: String,
    #[serde(flatten)]
    pub row: Row,
}

#[derive(Debug, Clone, Serialize)]
pub struct Row {
    pub runs: u64,
    pub passed: u64,
    pub failed: u64,
    pub flaky: u64,
    /// Percentage of consecutive runs whose verdict changed.
    pub flip_rate: f64,
    pub duration_ms: Option<Durations>,
    pub last: RunOutcome,
}

#[derive(Debug, Clone, Copy, Serialize)]
pub struct Durations {
    pub mean: f64,
    pub p95: f64,
}

impl Row {
    fn of(outcomes: &[RunOutcome], durations: &[f64]) -> Option<Row> {
        let last = *outcomes.last()?;
        let count = |o: RunOutcome| outcomes.iter().filter(|x| **x == o).count() as u64;
        let flips = outcomes.windows(2).filter(|w| w[0] != w[1]).count();
        let flip_rate = if outcomes.len() < 2 {
            0.0
        } else {
            (flips as f64 * 1000.0 / (outcomes.len() - 1) as f64).round() / 10.0
        };
        let duration_ms = (!durations.is_empty()).then(|| {
            let mut sorted = durations.to_vec();
            sorted.sort_by(f64::total_cmp);
            let mean = sorted.iter().sum::<f64>() / sorted.len() as f64;
            Durations {
                mean: (mean * 10.0).round() / 10.0,
                p95: percentile(&sorted, 95.0),
            }
        });
        Some(Row {
            runs: outcomes.len() as u64,
            passed: count(RunOutcome::Passed),
            failed: count(RunOutcome::Failed),
            flaky: count(RunOutcome::Flaky),
            flip_rate,
            duration_ms,
            last,
        })
    }

    fn unsteady(&self) -> bool {
        self.flaky > 0 || self.flip_rate > 0.0
    }
}

/// One (file, run): names failing in its last attempt, in any earlier one, and whether the
/// last attempt reported test points.
type RunFailures<'a> = (BTreeSet<&'a str>, BTreeSet<&'a str>, bool);

impl HistoryReport {
    pub fn of(records: &[Record]) -> HistoryReport {
        let by_file = runs_by_file(records);
        let mut files = Vec::new();
        for (path, runs) in &by_file {
            let outcomes: Vec<RunOutcome> = runs.iter().map(|r| r.outcome).collect();
            let durations: Vec<f64> = runs.iter().map(|r| r.duration_ms as f64).collect();
            if let Some(row) = Row::of(&outcomes, &durations) {
                files.push(FileRow {
                    path: (*path).to_owned(),
                    row,
                });
            }
        }
        let mut runs: BTreeMap<(&str, &str), RunFailures<'_>> = BTreeMap::new();
        let mut order: Vec<(&str, &str)> = Vec::new();
        for r in records {
            let key = (r.path.as_str(), r.run.as_str());
            let entry = runs.entry(key).or_insert_with(|| {
                order.push(key);
                Default::default()
            });
            // A later attempt: what the earlier one failed becomes "earlier".
            let last = std::mem::take(&mut entry.0);
            entry.1.extend(last);
            entry.0 = r.failing.iter().map(String::as_str).collect();
            entry.2 = r.tests > 0;
        }
        let ever_failed: BTreeSet<(&str, &str)> = records
            .iter()
            .flat_map(|r| r.failing.iter().map(|n| (r.path.as_str(), n.as_str())))
            .collect();
        let mut tests = Vec::new();
        for (file, name) in ever_failed {
            let outcomes: Vec<RunOutcome> = order
                .iter()
                .filter(|(path, _)| *path == file)
                .filter_map(|key| {
                    let (last, earlier, had_tests) = &runs[key];
                    if last.contains(name) {
                        Some(RunOutcome::Failed)
                    } else if earlier.contains(name) {
                        Some(RunOutcome::Flaky)
                    } else if *had_tests {
                        Some(RunOutcome::Passed)
                    } else {
                        None
                    }
                })
                .collect();
            if let Some(row) = Row::of(&outcomes, &[]) {
                tests.push(TestRow {
                    file: file.to_owned(),
                    name: name.to_owned(),
                    row,
                });
            }
        }
        HistoryReport { files, tests }
    }

    /// `--flaky`: unsteady rows only; `--failing`: rows whose last run failed; `--slow N`: the
    /// N files slowest by p95 (and the tests of those files), slowest first.
    pub fn filter(&mut self, flaky: bool, failing: bool, slow: Option<usize>) {
        let keep =
            |row: &Row| (!flaky || row.unsteady()) && (!failing || row.last == RunOutcome::Failed);
        self.files.retain(|f| keep(&f.row));
        self.tests.retain(|t| keep(&t.row));
        if let Some(n) = slow {
            let p95 = |f: &FileRow| f.row.duration_ms.map_or(0.0, |d| d.p95);
            self.files.sort_by(|a, b| p95(b).total_cmp(&p95(a)));
            self.files.truncate(n);
            let slow_files: BTreeSet<&str> = self.files.iter().map(|f| f.path.as_str()).collect();
            self.tests.retain(|t| slow_files.contains(t.file.as_str()));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::Verdict;
    use super::*;

    fn rec(run: &str, path: &str, attempt: u32, ok: bool, flaky: bool, failing: &[&str]) -> Record {
        Record {
            run: run.into(),
            start: String::new(),
            commit: None,
            path: path.into(),
            attempt,
            verdict: if ok { Verdict::Passed } else { Verdict::Failed },
            reasons: Vec::new(),
            duration_ms: 10 * u64::from(attempt),
            failing: failing.iter().map(|s| s.to_string()).collect(),
            tests: 2,
            flaky,
        }
    }

    #[test]
    fn flip_rate_flaky_runs_and_tests() {
        let records = vec![
            rec("r1", "a.t", 1, true, false, &[]),
            rec("r2", "a.t", 1, false, false, &["x"]),
            rec("r3", "a.t", 1, true, false, &[]),
            rec("r4", "a.t", 1, false, false, &["x"]),
            rec("r4", "a.t", 2, true, true, &[]),
            rec("r5", "a.t", 1, false, false, &["x", "y"]),
        ];
        let mut report = HistoryReport::of(&records);
        let a = &report.files[0].row;
        assert_eq!((a.runs, a.passed, a.failed, a.flaky), (5, 2, 2, 1));
        assert_eq!(a.flip_rate, 100.0);
        assert_eq!(a.last, RunOutcome::Failed);
        let x = &report.tests.iter().find(|t| t.name == "x").expect("x").row;
        assert_eq!((x.runs, x.passed, x.failed, x.flaky), (5, 2, 2, 1));
        let y = &report.tests.iter().find(|t| t.name == "y").expect("y").row;
        assert_eq!((y.passed, y.failed, y.flip_rate), (4, 1, 25.0));
        let json = serde_json::to_value(&report).expect("json");
        assert_eq!(json["files"][0]["path"], "a.t");
        assert_eq!(json["files"][0]["flip_rate"], 100.0);
        assert_eq!(json["files"][0]["last"], "failed");
        assert!(json["files"][0]["duration_ms"]["p95"].is_number());
        report.filter(false, true, None);
        assert_eq!(report.files.len(), 1);
        assert_eq!(report.tests.len(), 2);
    }

    #[test]
    fn filters() {
        let records = vec![
            rec("r1", "steady.t", 1, true, false, &[]),
            rec("r2", "steady.t", 1, true, false, &[]),
            rec("r1", "broken.t", 1, false, false, &["z"]),
            rec("r2", "broken.t", 1, false, false, &["z"]),
        ];
        let mut flaky = HistoryReport::of(&records);
        flaky.filter(true, false, None);
        assert!(flaky.files.is_empty() && flaky.tests.is_empty());
        let mut failing = HistoryReport::of(&records);
        failing.filter(false, true, None);
        assert_eq!(failing.files.len(), 1);
        assert_eq!(failing.files[0].path, "broken.t");
        let mut slow = HistoryReport::of(&records);
        slow.filter(false, false, Some(1));
        assert_eq!(slow.files.len(), 1);
    }
}
