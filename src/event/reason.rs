//! Why a file failed, as a typed value: the run's rules match on what happened (a stopped
//! file's `Interrupted`, a silent file's `NoTapOutput`), never on words. Every report writes its
//! [`Display`](std::fmt::Display), which is the text the reports have always had, and that is
//! also its serialized form (a JSON string), so `reasons` in every format is unchanged.
//!
//! Read back from JSON (a shard's record, a daemon's stream), a reason with a fixed text is its
//! variant again; any other text comes back as [`FailureReason::Other`], written the same.
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// The reason (and warning) given when a descendant kept a file's output pipes open.
pub const LEAK_REASON: &str = "a process it started kept its output open after it exited (killed)";

/// A harness's words for a file that printed no TAP (who says so: the protocol crate's
/// dialects).
pub use tapline_protocol::dialect::NO_TAP_NO_SUBTESTS;

/// The parser's reason for a stream without any TAP (`crate::protocol::NO_TAP_OUTPUT`).
const NO_TAP_OUTPUT: &str = "no TAP output";

/// One reason a file failed, in the order a file's reasons are told.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FailureReason {
    /// Stopped by Ctrl-C, SIGTERM, a watch restart or a failed sink: `interrupted`.
    Interrupted,
    /// Stopped because `file` bailed out: `stopped: FILE bailed out`.
    StoppedByBailOut { file: String },
    /// `timed out after 5s` (`after` as the limit is shown).
    Timeout { after: String },
    /// `exited with code 3`.
    Exit { code: i32 },
    /// `while running "test_crash"`: the test a file was in when its process died or was
    /// killed (`super::running`), told after how it ended.
    Running { test: String },
    /// `killed by SIGSEGV`, or `killed by signal 99` for a signal without a name here.
    Signal {
        signal: i32,
        name: Option<&'static str>,
    },
    /// `no TAP output`: the stream held no TAP at all.
    NoTapOutput,
    /// A harness's words for a file that printed no TAP ([`NO_TAP_NO_SUBTESTS`]).
    NoSubtestsRun,
    /// A failing stream that named no reason of its own: `its TAP stream failed`.
    StreamFailed,
    /// A descendant kept the output pipes open ([`LEAK_REASON`]).
    Leaked,
    /// `--flaky-fails`: `flaky: passed on attempt 2 of 3 (--flaky-fails)`.
    FlakyFails { attempt: u32, of: u32 },
    /// A daemon stream that ended before its end: `cut: …`.
    Cut { why: String },
    /// The daemon stopped while the stream went on.
    DaemonStopped,
    /// A file the run never started (a report's entry for it): `not run`.
    NotRun,
    /// The stream's own verdict, in the parser's words: `no plan`, `planned 5, ran 3`,
    /// `bailed out: …`, `2 test points failed: …`.
    Stream(String),
    /// Anything else told in words: a broken resource limit, a log that could not be created,
    /// a command that could not start.
    Other(String),
}

impl FailureReason {
    /// The stream's reason `text`, typed when it is one the parser gives in fixed words.
    pub fn of_stream(text: &str) -> Self {
        if text == NO_TAP_OUTPUT {
            FailureReason::NoTapOutput
        } else {
            FailureReason::Stream(text.to_owned())
        }
    }

    /// `reasons` as one text, `sep` between them (the reports' `a; b`).
    pub fn join(reasons: &[FailureReason], sep: &str) -> String {
        let mut out = String::new();
        for (i, r) in reasons.iter().enumerate() {
            if i > 0 {
                out.push_str(sep);
            }
            out.push_str(&r.to_string());
        }
        out
    }

    /// `reasons` as a file's headline tells them (`tapline run`'s terminal, docs/run.md): the
    /// parser's `N test points failed: "a", "b"` is left out, since the counts beside it and the
    /// failures listed under it already say it; the kind of reason (an exit code, a bad plan, a
    /// signal) stays.
    pub fn headline(reasons: &[FailureReason], sep: &str) -> String {
        let kept: Vec<FailureReason> = (reasons.iter())
            .filter(|r| !r.names_failed_points())
            .cloned()
            .collect();
        FailureReason::join(&kept, sep)
    }

    /// Whether this is the parser's `3 test points failed: "a", …` (its
    /// `failed_points_reason`), read back from its words alone.
    fn names_failed_points(&self) -> bool {
        let (FailureReason::Stream(text) | FailureReason::Other(text)) = self else {
            return false;
        };
        let Some((count, rest)) = text.split_once(' ') else {
            return false;
        };
        !count.is_empty()
            && count.bytes().all(|b| b.is_ascii_digit())
            && (rest.starts_with("test point failed: ") || rest.starts_with("test points failed: "))
    }

    /// The reason `text` was written for (see the module's documentation).
    fn parse(text: &str) -> Self {
        match text {
            "interrupted" => FailureReason::Interrupted,
            NO_TAP_OUTPUT => FailureReason::NoTapOutput,
            NO_TAP_NO_SUBTESTS => FailureReason::NoSubtestsRun,
            "its TAP stream failed" => FailureReason::StreamFailed,
            LEAK_REASON => FailureReason::Leaked,
            DAEMON_STOPPED => FailureReason::DaemonStopped,
            "not run" => FailureReason::NotRun,
            _ => match text.strip_prefix("exited with code ").map(str::parse) {
                Some(Ok(code)) => FailureReason::Exit { code },
                _ => FailureReason::Other(text.to_owned()),
            },
        }
    }
}

/// [`FailureReason::DaemonStopped`]'s words.
const DAEMON_STOPPED: &str = "interrupted: the daemon stopped before the stream ended";

impl fmt::Display for FailureReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use FailureReason::*;
        match self {
            Interrupted => f.write_str("interrupted"),
            StoppedByBailOut { file } => write!(f, "stopped: {file} bailed out"),
            Timeout { after } => write!(f, "timed out after {after}"),
            Exit { code } => write!(f, "exited with code {code}"),
            Running { test } => write!(f, "while running {test:?}"),
            Signal {
                name: Some(name), ..
            } => write!(f, "killed by {name}"),
            Signal { signal, name: None } => write!(f, "killed by signal {signal}"),
            NoTapOutput => f.write_str(NO_TAP_OUTPUT),
            NoSubtestsRun => f.write_str(NO_TAP_NO_SUBTESTS),
            StreamFailed => f.write_str("its TAP stream failed"),
            Leaked => f.write_str(LEAK_REASON),
            FlakyFails { attempt, of } => {
                write!(
                    f,
                    "flaky: passed on attempt {attempt} of {of} (--flaky-fails)"
                )
            }
            Cut { why } => write!(f, "cut: {why}"),
            DaemonStopped => f.write_str(DAEMON_STOPPED),
            NotRun => f.write_str("not run"),
            Stream(text) | Other(text) => f.write_str(text),
        }
    }
}

/// The reason's text, as a report shows it (tests compare with words).
impl PartialEq<&str> for FailureReason {
    fn eq(&self, other: &&str) -> bool {
        self.to_string() == *other
    }
}

/// Words with no variant of their own (as read back from JSON).
impl From<String> for FailureReason {
    fn from(text: String) -> Self {
        FailureReason::parse(&text)
    }
}

impl From<&str> for FailureReason {
    fn from(text: &str) -> Self {
        FailureReason::parse(text)
    }
}

impl Serialize for FailureReason {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for FailureReason {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = std::borrow::Cow::<'de, str>::deserialize(d)?;
        Ok(FailureReason::parse(&text))
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_headline_leaves_out_the_failed_points_names_and_keeps_the_kind() {
        let reasons = [
            FailureReason::Exit { code: 1 },
            FailureReason::of_stream("2 test points failed: \"a\", \"b\""),
        ];
        assert_eq!(
            FailureReason::headline(&reasons, "; "),
            "exited with code 1"
        );
        let plan = [FailureReason::of_stream("planned 5, ran 3")];
        assert_eq!(FailureReason::headline(&plan, "; "), "planned 5, ran 3");
        let odd = [FailureReason::Other("12 tests failed: x".into())];
        assert_eq!(FailureReason::headline(&odd, "; "), "12 tests failed: x");
    }

    use super::*;

    fn every() -> Vec<FailureReason> {
        use FailureReason::*;
        vec![
            Interrupted,
            StoppedByBailOut {
                file: "t/a.t".into(),
            },
            Timeout { after: "5s".into() },
            Exit { code: 3 },
            Signal {
                signal: 11,
                name: Some("SIGSEGV"),
            },
            Signal {
                signal: 99,
                name: None,
            },
            NoTapOutput,
            NoSubtestsRun,
            StreamFailed,
            Leaked,
            FlakyFails { attempt: 2, of: 3 },
            Cut {
                why: "the connection ended before the stream was complete".into(),
            },
            DaemonStopped,
            NotRun,
            Stream("planned 5, ran 3".into()),
            Other("exceeded CPU time 1s".into()),
        ]
    }

    /// The words every report has always written, one per reason.
    #[test]
    fn each_reason_reads_as_the_reports_always_wrote_it() {
        let words: Vec<String> = every().iter().map(ToString::to_string).collect();
        assert_eq!(
            words,
            [
                "interrupted",
                "stopped: t/a.t bailed out",
                "timed out after 5s",
                "exited with code 3",
                "killed by SIGSEGV",
                "killed by signal 99",
                "no TAP output",
                "no TAP output (No subtests run)",
                "its TAP stream failed",
                LEAK_REASON,
                "flaky: passed on attempt 2 of 3 (--flaky-fails)",
                "cut: the connection ended before the stream was complete",
                "interrupted: the daemon stopped before the stream ended",
                "not run",
                "planned 5, ran 3",
                "exceeded CPU time 1s",
            ]
        );
    }

    #[test]
    fn json_is_the_words_and_reads_back_as_the_same_words() {
        for r in every() {
            let json = serde_json::to_string(&r).expect("serializes");
            assert_eq!(
                json,
                serde_json::to_string(&r.to_string()).expect("a string")
            );
            let back: FailureReason = serde_json::from_str(&json).expect("reads back");
            assert_eq!(back.to_string(), r.to_string(), "{json}");
        }
        let typed: FailureReason = serde_json::from_str("\"interrupted\"").expect("reads");
        assert_eq!(typed, FailureReason::Interrupted);
        let code: FailureReason = serde_json::from_str("\"exited with code 2\"").expect("reads");
        assert_eq!(code, FailureReason::Exit { code: 2 });
        let escaped: FailureReason = serde_json::from_str("\"a \\\"b\\\"\"").expect("reads");
        assert_eq!(escaped, FailureReason::Other("a \"b\"".into()));
    }

    #[test]
    fn joined() {
        let reasons = [FailureReason::Exit { code: 1 }, FailureReason::NoTapOutput];
        assert_eq!(
            FailureReason::join(&reasons, "; "),
            "exited with code 1; no TAP output"
        );
        assert_eq!(FailureReason::join(&[], "; "), "");
    }
}
