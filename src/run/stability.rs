//! `--runs N` stability analysis: a pure fold over each run's file results into the per-file
//! and per-test figures of [`Stability`]. Reports only render what this computes.
//!
//! A test is its file plus its full name path; a name repeated within one file is told apart
//! by occurrence (`name #2`). In a run where a known test does not appear, it counts as failed
//! when its file failed (a crash or bail-out kept it from passing) and is not judged when its
//! file passed; a file that did not run (an interrupt) is not judged at all.
use crate::event::run::FileResult;
use crate::event::stability::{Class, DurationStats, Kind, RunVerdict, Stability, Subject};
use std::collections::{BTreeMap, HashMap};

/// The series so far; [`Analysis::add_run`] once per run, then [`Analysis::finish`].
#[derive(Debug, Default)]
pub struct Analysis {
    runs: u64,
    files: BTreeMap<String, Track>,
    /// (file, name) → its track.
    tests: BTreeMap<(String, String), Track>,
}

#[derive(Debug, Default)]
struct Track {
    verdicts: Vec<RunVerdict>,
    durations: Vec<f64>,
}

impl Track {
    /// Brings the track to `runs` runs, the missing ones unjudged.
    fn pad(&mut self, runs: usize) {
        self.verdicts.resize(runs, RunVerdict::Missing);
    }
}

impl Analysis {
    /// One whole run: each file's path and final result (`None`: not run).
    pub fn add_run<'a>(
        &mut self,
        files: impl IntoIterator<Item = (&'a str, Option<&'a FileResult>)>,
    ) {
        self.runs += 1;
        let before = (self.runs - 1) as usize;
        for (rel, result) in files {
            let file = self.files.entry(rel.to_owned()).or_default();
            file.pad(before);
            let Some(r) = result.filter(|r| !r.cancelled) else {
                continue;
            };
            file.verdicts.push(if r.ok {
                RunVerdict::Pass
            } else {
                RunVerdict::Fail
            });
            file.durations.push(r.duration.as_secs_f64() * 1000.0);
            let mut seen: HashMap<&str, u32> = HashMap::new();
            // A suite point (a group such as a `describe`, whose tests are reported as its
            // subtests) is no test: its tests are measured.
            for t in r.tests.iter().filter(|t| !t.suite) {
                let n = seen.entry(&t.name).or_default();
                *n += 1;
                let name = if *n == 1 {
                    t.name.clone()
                } else {
                    format!("{} #{n}", t.name)
                };
                let track = self.tests.entry((rel.to_owned(), name)).or_default();
                track.pad(before);
                track.verdicts.push(if t.ok {
                    RunVerdict::Pass
                } else {
                    RunVerdict::Fail
                });
                if let Some(ms) = t.duration_ms {
                    track.durations.push(ms);
                }
            }
            // Known tests that did not appear: failed with their file, else not judged.
            let absent = if r.ok {
                RunVerdict::Missing
            } else {
                RunVerdict::Fail
            };
            for ((file, _), track) in self.tests.range_mut((rel.to_owned(), String::new())..) {
                if file != rel {
                    break;
                }
                if track.verdicts.len() == before {
                    track.verdicts.push(absent);
                }
            }
        }
    }

    pub fn finish(mut self) -> Stability {
        let runs = self.runs as usize;
        let mut files: Vec<Subject> = std::mem::take(&mut self.files)
            .into_iter()
            .filter_map(|(file, mut track)| {
                track.pad(runs);
                subject(file, None, track)
            })
            .collect();
        let mut tests: Vec<Subject> = std::mem::take(&mut self.tests)
            .into_iter()
            .filter_map(|((file, name), mut track)| {
                track.pad(runs);
                subject(file, Some(name), track)
            })
            .collect();
        let least_stable_first = |a: &Subject, b: &Subject| {
            a.class
                .cmp(&b.class)
                .then(a.pass_rate.total_cmp(&b.pass_rate))
                .then_with(|| a.file.cmp(&b.file))
                .then_with(|| a.name.cmp(&b.name))
        };
        files.sort_by(least_stable_first);
        tests.sort_by(least_stable_first);
        Stability {
            runs: self.runs,
            files,
            tests,
        }
    }
}

fn subject(file: String, name: Option<String>, track: Track) -> Option<Subject> {
    let passed = track
        .verdicts
        .iter()
        .filter(|v| **v == RunVerdict::Pass)
        .count() as u64;
    let failed = track
        .verdicts
        .iter()
        .filter(|v| **v == RunVerdict::Fail)
        .count() as u64;
    let runs = passed + failed;
    if runs == 0 {
        return None;
    }
    let rate = |n: u64| (n as f64 * 1000.0 / runs as f64).round() / 10.0;
    let pass_rate = rate(passed);
    Some(Subject {
        id: name
            .as_deref()
            .map(|n| crate::explain::names::id_of(&file, n)),
        kind: Kind::of(passed, failed),
        file,
        name,
        runs,
        passed,
        failed,
        pass_rate,
        consistency: rate(passed.max(failed)),
        class: Class::of_runs(passed, failed, pass_rate),
        duration_ms: DurationStats::of(&track.durations),
        verdicts: track.verdicts,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::run::{Tally, TestOutcome};
    use std::time::Duration;

    fn result(ok: bool, ms: u64, tests: &[(&str, bool)]) -> FileResult {
        FileResult {
            ok,
            reasons: Vec::new(),
            exit: None,
            timed_out: false,
            cancelled: false,
            leaked: false,
            duration: Duration::from_millis(ms),
            tally: Tally::default(),
            verdict: crate::event::Verdict {
                ok,
                count: 0,
                pass: 0,
                fail: 0,
                todo: 0,
                skip: 0,
                plan: None,
                bailout: None,
                reasons: Vec::new(),
            },
            attempts: 1,
            flaky: false,
            cached: false,
            no_tests: false,
            tests: tests
                .iter()
                .map(|&(name, ok)| TestOutcome::named(name, ok))
                .collect(),
        }
    }

    fn find<'a>(subjects: &'a [Subject], file: &str, name: Option<&str>) -> &'a Subject {
        subjects
            .iter()
            .find(|s| s.file == file && s.name.as_deref() == name)
            .unwrap_or_else(|| panic!("no {file} {name:?} in {subjects:#?}"))
    }

    #[test]
    fn classes_rates_and_order_over_six_runs() {
        let mut a = Analysis::default();
        for n in 0..6 {
            let flip = n % 2 == 0;
            let steady = result(true, 10 + n, &[("one", true), ("two", true)]);
            let flaky = result(flip, 20, &[("coin", flip)]);
            let broken = result(false, 30, &[("never", false)]);
            a.add_run([
                ("steady.t", Some(&steady)),
                ("flaky.t", Some(&flaky)),
                ("broken.t", Some(&broken)),
            ]);
        }
        let s = a.finish();
        assert_eq!(s.runs, 6);
        let coin = find(&s.tests, "flaky.t", Some("coin"));
        assert_eq!((coin.runs, coin.passed, coin.failed), (6, 3, 3));
        assert_eq!(
            (coin.pass_rate, coin.consistency, coin.class),
            (50.0, 50.0, Class::Unstable)
        );
        assert_eq!(find(&s.tests, "steady.t", Some("two")).class, Class::Stable);
        let never = find(&s.tests, "broken.t", Some("never"));
        assert_eq!(
            (never.pass_rate, never.consistency, never.class),
            (0.0, 100.0, Class::FailsEveryRun)
        );
        assert_eq!(s.tests[0].name.as_deref(), Some("never"));
        assert_eq!(
            coin.verdicts,
            [
                RunVerdict::Pass,
                RunVerdict::Fail,
                RunVerdict::Pass,
                RunVerdict::Fail,
                RunVerdict::Pass,
                RunVerdict::Fail
            ]
        );
        let steady = find(&s.files, "steady.t", None);
        let d = steady.duration_ms.expect("durations");
        assert_eq!((d.min, d.max, d.p50), (10.0, 15.0, 12.0));
        assert!(find(&s.tests, "steady.t", Some("one"))
            .duration_ms
            .is_none());
        assert!(!s.all_stable());
    }

    #[test]
    fn absent_tests_fail_with_their_file_and_are_unjudged_otherwise() {
        let mut a = Analysis::default();
        let full = result(true, 1, &[("a", true), ("b", true)]);
        let crashed = result(false, 1, &[("a", true)]);
        let short = result(true, 1, &[("a", true)]);
        a.add_run([("x.t", Some(&full))]);
        a.add_run([("x.t", Some(&crashed))]);
        a.add_run([("x.t", Some(&short))]);
        a.add_run([("x.t", None)]);
        let s = a.finish();
        let b = find(&s.tests, "x.t", Some("b"));
        assert_eq!((b.runs, b.passed, b.failed), (2, 1, 1));
        assert_eq!(
            b.verdicts,
            [
                RunVerdict::Pass,
                RunVerdict::Fail,
                RunVerdict::Missing,
                RunVerdict::Missing
            ]
        );
        assert_eq!(find(&s.files, "x.t", None).runs, 3);
    }

    #[test]
    fn repeated_names_are_told_apart_and_all_stable_needs_every_subject() {
        let mut a = Analysis::default();
        let r = result(true, 1, &[("same", true), ("same", true)]);
        a.add_run([("x.t", Some(&r))]);
        let s = a.finish();
        assert!(s.tests.iter().any(|t| t.name.as_deref() == Some("same #2")));
        assert!(s.all_stable());
        assert!(!Analysis::default().finish().all_stable());
    }
}
