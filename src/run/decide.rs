//! The run's rules as a pure function: what a file's finished attempt means for the run (run
//! it again, call it flaky, stop the run on its bail out or on the `--max-fail`th failed
//! file), decided from the run's state and that attempt alone, so that every rule is tested
//! without a process. The dispatcher ([`super::execute`]) only carries the decisions out.
use crate::event::run::{BailedOut, FailureReason, FileResult};

/// The rules a run was given (`--retries`, `--flaky-fails`, `--keep-going`, `--max-fail`,
/// `--stop-running`).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Rules {
    /// A failed file is run again up to this many more times.
    pub retries: u32,
    pub flaky_fails: bool,
    pub keep_going: bool,
    pub max_fail: Option<usize>,
    pub stop_running: bool,
}

/// What the run has seen so far that the rules depend on.
#[derive(Debug, Default)]
pub(crate) struct State {
    pub rules: Rules,
    /// Ctrl-C, SIGTERM, an outside stop or a failed sink: nothing starts, nothing is retried.
    pub stopping: bool,
    /// The file whose bail out stopped the run.
    pub bailed: Option<BailedOut>,
    /// Files that failed (not cancelled), toward `--max-fail`.
    pub failed_files: usize,
    /// Set once `--max-fail` is reached: no new file starts.
    pub max_fail_reached: Option<usize>,
}

/// What becomes of a file's finished attempt.
#[derive(Debug, PartialEq)]
pub(crate) enum Decision {
    /// It failed and may be tried again: told as `AttemptFailed`, then run as attempt + 1.
    Retry { of: u32 },
    /// It is the file's last attempt: told as `FileFinished`, amended as [`Finish`] says.
    Finish(Finish),
}

/// A file's last attempt: how its result is amended, and what it does to the run.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct Finish {
    /// Attempts made.
    pub attempts: u32,
    /// It passed on a retry.
    pub flaky: bool,
    /// ... and `--flaky-fails` makes that a failure, for this reason.
    pub flaky_failure: Option<FailureReason>,
    /// It was stopped because this file bailed out (its `interrupted` says so).
    pub stopped_by: Option<String>,
    /// Its bail out stops the run.
    pub bails: Option<BailedOut>,
    /// It counts toward `--max-fail`.
    pub failed: bool,
    /// It is the `--max-fail`th failed file: no new file starts.
    pub reaches_max_fail: bool,
    /// The files still running are stopped (a bail out, or `--max-fail` with `--stop-running`).
    pub stop_running: bool,
}

/// What `attempt` of the file `rel`, ended as `result`, means for the run.
pub(crate) fn decide(state: &State, rel: &str, attempt: u32, result: &FileResult) -> Decision {
    let rules = state.rules;
    let of = rules.retries.saturating_add(1);
    // A bail out asks for the run to stop, not for another try.
    let bails = result.verdict.bailout.is_some() && !result.cancelled && !rules.keep_going;
    let retry = !result.ok
        && !result.cancelled
        && !bails
        && !state.stopping
        && state.bailed.is_none()
        && attempt < of;
    if retry {
        return Decision::Retry { of };
    }
    let flaky = attempt > 1 && result.ok;
    let flaky_failure =
        (flaky && rules.flaky_fails).then_some(FailureReason::FlakyFails { attempt, of });
    let ok = result.ok && flaky_failure.is_none();
    let failed = !ok && !result.cancelled;
    let reaches_max_fail = failed
        && state.max_fail_reached.is_none()
        && rules.max_fail.is_some_and(|n| state.failed_files + 1 >= n);
    let bails = (bails && state.bailed.is_none()).then(|| BailedOut {
        file: rel.to_owned(),
        reason: result
            .verdict
            .bailout
            .as_deref()
            .unwrap_or_default()
            .to_owned(),
    });
    Decision::Finish(Finish {
        attempts: attempt,
        flaky,
        flaky_failure,
        stopped_by: state
            .bailed
            .as_ref()
            .filter(|_| result.cancelled)
            .map(|by| by.file.clone()),
        stop_running: bails.is_some() || (reaches_max_fail && rules.stop_running),
        bails,
        failed,
        reaches_max_fail,
    })
}

impl State {
    /// The run after `decision`.
    pub(crate) fn apply(&mut self, decision: &Decision) {
        let Decision::Finish(f) = decision else {
            return;
        };
        if f.failed {
            self.failed_files += 1;
        }
        if f.reaches_max_fail {
            self.max_fail_reached = self.rules.max_fail;
        }
        if let Some(b) = &f.bails {
            self.bailed = Some(b.clone());
        }
    }

    /// Whether another file may start.
    pub(crate) fn may_start(&self) -> bool {
        !self.stopping && self.max_fail_reached.is_none() && self.bailed.is_none()
    }
}

impl Finish {
    /// The file's result as the run reports it.
    pub(crate) fn amend(&self, result: &mut FileResult) {
        result.attempts = self.attempts;
        result.flaky |= self.flaky;
        if let Some(reason) = &self.flaky_failure {
            result.ok = false;
            result.reasons.push(reason.clone());
        }
        if let Some(by) = &self.stopped_by {
            // Stopped because another file bailed out, not by Ctrl-C.
            for reason in result.reasons.iter_mut() {
                if *reason == FailureReason::Interrupted {
                    *reason = FailureReason::StoppedByBailOut { file: by.clone() };
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn passed() -> FileResult {
        FileResult {
            ok: true,
            reasons: Vec::new(),
            ..FileResult::failed(Vec::new(), Duration::ZERO)
        }
    }

    fn failed() -> FileResult {
        FileResult::failed(vec!["exited with code 1".into()], Duration::ZERO)
    }

    fn bailed_out() -> FileResult {
        let mut r = failed();
        r.verdict.bailout = Some("no database".into());
        r
    }

    fn cancelled() -> FileResult {
        let mut r = FileResult::failed(vec!["interrupted".into()], Duration::ZERO);
        r.cancelled = true;
        r
    }

    fn state(rules: Rules) -> State {
        State {
            rules,
            ..State::default()
        }
    }

    fn finish(d: Decision) -> Finish {
        match d {
            Decision::Finish(f) => f,
            Decision::Retry { of } => panic!("retried (of {of})"),
        }
    }

    #[test]
    fn a_pass_finishes_the_file() {
        let f = finish(decide(&State::default(), "a.t", 1, &passed()));
        assert_eq!(
            f,
            Finish {
                attempts: 1,
                ..Finish::default()
            }
        );
    }

    #[test]
    fn a_failure_is_retried_until_the_last_attempt() {
        let s = state(Rules {
            retries: 2,
            ..Rules::default()
        });
        assert_eq!(decide(&s, "a.t", 1, &failed()), Decision::Retry { of: 3 });
        assert_eq!(decide(&s, "a.t", 2, &failed()), Decision::Retry { of: 3 });
        let f = finish(decide(&s, "a.t", 3, &failed()));
        assert!(f.failed && f.attempts == 3 && !f.flaky);
    }

    #[test]
    fn nothing_is_retried_once_the_run_stops() {
        let rules = Rules {
            retries: 1,
            ..Rules::default()
        };
        let mut s = state(rules);
        s.stopping = true;
        assert!(matches!(
            decide(&s, "a.t", 1, &failed()),
            Decision::Finish(_)
        ));
        let mut s = state(rules);
        s.bailed = Some(BailedOut {
            file: "b.t".into(),
            reason: String::new(),
        });
        assert!(matches!(
            decide(&s, "a.t", 1, &failed()),
            Decision::Finish(_)
        ));
        let s = state(rules);
        assert!(
            matches!(decide(&s, "a.t", 1, &cancelled()), Decision::Finish(_)),
            "a stopped file is not tried again"
        );
        assert!(
            matches!(decide(&s, "a.t", 1, &bailed_out()), Decision::Finish(_)),
            "a bail out stops the run instead"
        );
    }

    #[test]
    fn a_pass_on_a_retry_is_flaky_and_fails_with_flaky_fails() {
        let mut rules = Rules {
            retries: 2,
            ..Rules::default()
        };
        let f = finish(decide(&state(rules), "a.t", 2, &passed()));
        assert!(f.flaky && !f.failed && f.flaky_failure.is_none());
        rules.flaky_fails = true;
        let f = finish(decide(&state(rules), "a.t", 2, &passed()));
        assert!(f.flaky && f.failed);
        let mut r = passed();
        f.amend(&mut r);
        assert!(!r.ok && r.flaky && r.attempts == 2);
        assert_eq!(
            r.reasons,
            ["flaky: passed on attempt 2 of 3 (--flaky-fails)"]
        );
    }

    #[test]
    fn a_bail_out_stops_the_run_once_unless_keep_going() {
        let mut s = State::default();
        let d = decide(&s, "a.t", 1, &bailed_out());
        let f = finish(decide(&s, "a.t", 1, &bailed_out()));
        assert_eq!(
            f.bails,
            Some(BailedOut {
                file: "a.t".into(),
                reason: "no database".into()
            })
        );
        assert!(f.stop_running && f.failed);
        s.apply(&d);
        assert!(!s.may_start());
        let again = finish(decide(&s, "b.t", 1, &bailed_out()));
        assert!(again.bails.is_none(), "the first bail out is the run's");
        let stopped = finish(decide(&s, "c.t", 1, &cancelled()));
        assert_eq!(stopped.stopped_by.as_deref(), Some("a.t"));
        let mut r = cancelled();
        stopped.amend(&mut r);
        assert_eq!(r.reasons, ["stopped: a.t bailed out"]);
        assert!(!stopped.failed, "a stopped file did not fail");
        let s = state(Rules {
            keep_going: true,
            ..Rules::default()
        });
        let f = finish(decide(&s, "a.t", 1, &bailed_out()));
        assert!(f.bails.is_none() && !f.stop_running && f.failed);
    }

    #[test]
    fn max_fail_is_reached_once_and_stops_running_files_only_when_asked() {
        let mut s = state(Rules {
            max_fail: Some(2),
            ..Rules::default()
        });
        let d = decide(&s, "a.t", 1, &failed());
        assert!(!finish(decide(&s, "a.t", 1, &failed())).reaches_max_fail);
        s.apply(&d);
        assert!(s.may_start());
        let d = decide(&s, "b.t", 1, &failed());
        let f = finish(decide(&s, "b.t", 1, &failed()));
        assert!(f.reaches_max_fail && !f.stop_running);
        s.apply(&d);
        assert_eq!(s.max_fail_reached, Some(2));
        assert!(!s.may_start());
        assert!(!finish(decide(&s, "c.t", 1, &failed())).reaches_max_fail);
        let s = state(Rules {
            max_fail: Some(1),
            stop_running: true,
            ..Rules::default()
        });
        assert!(finish(decide(&s, "a.t", 1, &failed())).stop_running);
        assert!(
            !finish(decide(&s, "a.t", 1, &cancelled())).reaches_max_fail,
            "a stopped file does not count"
        );
    }
}
