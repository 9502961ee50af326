//! `tapline history`'s figures: per file and per test, computed from the store's records.
//!
//! A file's run is judged by its last attempt in that run: `passed`, `failed`, or `flaky`
//! (passed after a failed attempt). The flip rate is the share (0–100) of consecutive runs
//! whose verdict differs.
//!
//! Tests come from the per-test records of the log folder's `tests/` ([`crate::state::tests`]:
//! every test of every attempt of each file's last runs), by stable ID: a test's run is
//! `failed` when the run's last attempt failed it, `flaky` when only an earlier attempt did,
//! `passed` otherwise (a SKIP or TODO is no verdict: that run does not count for it); its
//! durations are its own (when its stream timed it), and `errors` counts the distinct first
//! error lines its failures had. A file with no per-test records (history older than them)
//! falls back on the store's failing names: its tests that failed at least once, over its
//! runs that reported test points, without durations.
use super::{runs_by_file, Record, RunOutcome};
use crate::event::stability::percentile;
use crate::state::tests::{FileTests, Status};
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
    /// Its stable ID (`file > names`).
    pub id: String,
    pub file: String,
    pub name: String,
    /// Distinct first error lines of its failures (by hash): 1 is the same failure again.
    pub errors: usize,
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
    pub p50: f64,
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
                p50: percentile(&sorted, 50.0),
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
    /// The report of the store's `records` and each file's per-test records (`attempts`, by
    /// path, oldest first: [`crate::state::tests::load_all`]).
    pub fn of(records: &[Record], attempts: &BTreeMap<String, Vec<FileTests>>) -> HistoryReport {
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
        let mut tests = per_test(attempts);
        let ever_failed: BTreeSet<(&str, &str)> = records
            .iter()
            .filter(|r| !attempts.contains_key(&r.path))
            .flat_map(|r| r.failing.iter().map(|n| (r.path.as_str(), n.as_str())))
            .collect();
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
                    id: crate::explain::names::id_of(file, name),
                    file: file.to_owned(),
                    name: name.to_owned(),
                    errors: 0,
                    row,
                });
            }
        }
        HistoryReport { files, tests }
    }

    /// `--tests`: every test; without it, the tests that failed at least once.
    pub fn only_failed_tests(&mut self) {
        self.tests.retain(|t| t.row.failed > 0 || t.row.flaky > 0);
    }

    /// `--flaky`: unsteady rows only; `--failing`: rows whose last run failed; `--slow N`: the
    /// N files slowest by p95 (and the tests of those files), slowest first.
    /// With `tests`, `--slow N` takes the N tests slowest by p95 (of every file) instead.
    pub fn filter(&mut self, flaky: bool, failing: bool, slow: Option<usize>, tests: bool) {
        let keep =
            |row: &Row| (!flaky || row.unsteady()) && (!failing || row.last == RunOutcome::Failed);
        self.files.retain(|f| keep(&f.row));
        self.tests.retain(|t| keep(&t.row));
        if let Some(n) = slow {
            let p95 = |f: &FileRow| f.row.duration_ms.map_or(0.0, |d| d.p95);
            self.files.sort_by(|a, b| p95(b).total_cmp(&p95(a)));
            self.files.truncate(n);
            if tests {
                let p95 = |t: &TestRow| t.row.duration_ms.map_or(0.0, |d| d.p95);
                self.tests.sort_by(|a, b| p95(b).total_cmp(&p95(a)));
                self.tests.truncate(n);
                return;
            }
            let slow_files: BTreeSet<&str> = self.files.iter().map(|f| f.path.as_str()).collect();
            self.tests.retain(|t| slow_files.contains(t.file.as_str()));
        }
    }
}

/// One test's outcomes and durations over its file's runs, in order.
#[derive(Default)]
struct Seen<'a> {
    file: &'a str,
    name: &'a str,
    outcomes: Vec<RunOutcome>,
    durations: Vec<f64>,
    errors: BTreeSet<&'a str>,
}

/// Every test of the per-test records, by ID: a run is its attempts with one run id (in
/// order), judged by the last. An attempt that had more points than its record keeps lists
/// its failing and slowest ([`FileTests::capped`]): a test of the file it does not list did
/// not fail in it, and passed as far as history can tell.
fn per_test(attempts: &BTreeMap<String, Vec<FileTests>>) -> Vec<TestRow> {
    let mut seen: BTreeMap<&str, Seen<'_>> = BTreeMap::new();
    for (file, list) in attempts {
        let known: BTreeSet<&str> = (list.iter())
            .flat_map(|a| a.tests.iter())
            .filter(|t| !matches!(t.status, Status::Skipped | Status::Todo))
            .map(|t| t.id.as_str())
            .collect();
        // An attempt's run: consecutive attempts of one run id (a record from before run ids
        // were kept has none, and is a run of its own).
        let mut i = 0;
        while i < list.len() {
            let mut j = i + 1;
            while j < list.len() && !list[i].run.is_empty() && list[j].run == list[i].run {
                j += 1;
            }
            let (earlier, last) = list[i..j].split_at(j - i - 1);
            let failed_before: BTreeSet<&str> = earlier
                .iter()
                .flat_map(|a| a.failed().map(|t| t.id.as_str()))
                .collect();
            for t in &last[0].tests {
                let outcome = match t.status {
                    Status::Failed => RunOutcome::Failed,
                    Status::Skipped | Status::Todo => continue,
                    Status::Passed if failed_before.contains(t.id.as_str()) => RunOutcome::Flaky,
                    Status::Passed => RunOutcome::Passed,
                };
                let s = seen.entry(t.id.as_str()).or_insert_with(|| Seen {
                    file: file.as_str(),
                    name: t.id.get(file.len() + 3..).unwrap_or(""),
                    ..Seen::default()
                });
                s.outcomes.push(outcome);
                s.durations.extend(t.duration_ms);
            }
            if last[0].capped.is_some() {
                let listed: BTreeSet<&str> = last[0].tests.iter().map(|t| t.id.as_str()).collect();
                for id in known.iter().filter(|id| !listed.contains(*id)) {
                    let s = seen.entry(id).or_insert_with(|| Seen {
                        file: file.as_str(),
                        name: id.get(file.len() + 3..).unwrap_or(""),
                        ..Seen::default()
                    });
                    s.outcomes.push(match failed_before.contains(id) {
                        true => RunOutcome::Flaky,
                        false => RunOutcome::Passed,
                    });
                }
            }
            for t in list[i..j].iter().flat_map(|a| a.failed()) {
                if let (Some(s), Some(e)) = (seen.get_mut(t.id.as_str()), &t.error) {
                    s.errors.insert(e);
                }
            }
            i = j;
        }
    }
    seen.into_iter()
        .filter_map(|(id, s)| {
            Some(TestRow {
                id: id.to_owned(),
                file: s.file.to_owned(),
                name: s.name.to_owned(),
                errors: s.errors.len(),
                row: Row::of(&s.outcomes, &s.durations)?,
            })
        })
        .collect()
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
        let mut report = HistoryReport::of(&records, &BTreeMap::new());
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
        report.filter(false, true, None, false);
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
        let mut flaky = HistoryReport::of(&records, &BTreeMap::new());
        flaky.filter(true, false, None, false);
        assert!(flaky.files.is_empty() && flaky.tests.is_empty());
        let mut failing = HistoryReport::of(&records, &BTreeMap::new());
        failing.filter(false, true, None, false);
        assert_eq!(failing.files.len(), 1);
        assert_eq!(failing.files[0].path, "broken.t");
        let mut slow = HistoryReport::of(&records, &BTreeMap::new());
        slow.filter(false, false, Some(1), false);
        assert_eq!(slow.files.len(), 1);
    }
}
