//! How a daemon stream is judged: its TAP's verdict and how its connection ended (a stream
//! that stops short is cut), and the result of one the daemon had to abandon. Used by the
//! connection tasks ([`super::stream`]) and the dispatcher, which owns no stream of its own.
use crate::event::collect::Collect;
use crate::event::run::{FailureReason, FileResult, Tally};
use crate::event::{Event, ProblemKind, Verdict};
use std::time::Instant;

/// How a producer connection ended.
#[derive(Debug)]
pub(crate) enum Ending {
    /// The client closed its side (or died): complete if the TAP says so.
    Eof,
    /// Reading failed (a reset connection).
    Failed(String),
    /// The daemon is stopping.
    Stopped,
}

pub(crate) fn is_unterminated(ev: &Event<'_>) -> bool {
    matches!(
        ev,
        Event::Problem(p) if matches!(
            p.kind,
            ProblemKind::UnterminatedBlock
                | ProblemKind::UnterminatedSubtest
                | ProblemKind::UnterminatedYaml
        )
    )
}

/// Whether the stream stopped short: no plan, fewer points than planned, or something left
/// open. A bail-out is a complete (failing) stream.
pub(crate) fn incomplete(v: &Verdict<'_>, unterminated: bool) -> bool {
    if v.bailout.is_some() {
        return false;
    }
    unterminated
        || match &v.plan {
            None => true,
            Some(p) if p.skip_all => false,
            Some(p) => v.count < p.end.saturating_sub(p.start).saturating_add(1),
        }
}

/// The stream's verdict: its TAP's, and how its connection ended. Every failure says why.
pub(crate) fn judge(
    c: &mut Collect,
    ending: Ending,
    unterminated: bool,
    started: Instant,
) -> FileResult {
    let verdict = c.verdict.clone().unwrap_or_else(Verdict::none);
    let mut reasons = Vec::new();
    match ending {
        Ending::Stopped => reasons.push(FailureReason::DaemonStopped),
        Ending::Failed(e) => reasons.push(FailureReason::Cut {
            why: format!("failed to read the connection: {e}"),
        }),
        // Nothing at all is a cut too (no plan: incomplete): the producer died before its
        // first line.
        Ending::Eof if incomplete(&verdict, unterminated) => reasons.push(FailureReason::Cut {
            why: "the connection ended before the stream was complete".to_owned(),
        }),
        Ending::Eof => {}
    }
    // The stream's reasons, `no TAP output` among them (one rule, in the protocol).
    reasons.extend(verdict.reasons.iter().map(|r| FailureReason::of_stream(r)));
    if !verdict.ok && reasons.is_empty() {
        reasons.push(FailureReason::StreamFailed);
    }
    // Not "cancelled" (which reports show as not run): a cut stream fails.
    FileResult {
        ok: reasons.is_empty(),
        tally: c.tally,
        verdict,
        tests: c.names.take(),
        ..FileResult::failed(reasons, started.elapsed())
    }
}

/// A stream's result when its connection task could not report one in time (daemon stopping).
pub(crate) fn abandoned(tally: Tally, started: Instant) -> FileResult {
    FileResult {
        tally,
        ..FileResult::failed(vec![FailureReason::DaemonStopped], started.elapsed())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::Parser;

    fn judged(bytes: &[u8], ending: Ending) -> FileResult {
        let mut parser = Parser::new(Collect::default());
        parser.feed(bytes);
        let mut c = parser.finish();
        let unterminated = c.events.iter().any(is_unterminated);
        judge(&mut c, ending, unterminated, Instant::now())
    }

    const CUT: &str = "cut: the connection ended before the stream was complete";

    fn is_cut(r: &FileResult) -> bool {
        r.reasons
            .iter()
            .any(|x| matches!(x, FailureReason::Cut { .. }))
    }

    #[test]
    fn complete_streams_are_judged_by_their_tap() {
        let r = judged(b"1..2\nok 1\nok 2\n", Ending::Eof);
        assert!(r.ok, "{:?}", r.reasons);
        assert_eq!(r.tally.pass, 2);
        let r = judged(b"ok 1\nnot ok 2 - b\n1..2\n", Ending::Eof);
        assert!(!r.ok);
        assert!(!is_cut(&r), "{:?}", r.reasons);
        let r = judged(b"1..0 # SKIP no db\n", Ending::Eof);
        assert!(r.ok, "{:?}", r.reasons);
        let r = judged(b"1..3\nok 1\nBail out! db down\n", Ending::Eof);
        assert!(!r.ok);
        assert!(!is_cut(&r), "{:?}", r.reasons);
    }

    #[test]
    fn short_streams_fail_as_cut_with_the_reason() {
        for bytes in [
            &b"1..3\nok 1\n"[..],
            b"ok 1\nok 2\n",
            b"",
            b"TAP version 14\n1..1\n# Subtest: a\n    1..2\n    ok 1\n",
            b"1..1\nnot ok 1\n  ---\n  message: x\n",
        ] {
            let r = judged(bytes, Ending::Eof);
            assert!(!r.ok, "{bytes:?}");
            assert_eq!(r.reasons[0], CUT, "{bytes:?}");
            assert!(
                r.reasons.len() > 1,
                "{bytes:?}: the TAP reason too: {:?}",
                r.reasons
            );
            assert!(!r.cancelled);
        }
    }

    #[test]
    fn a_stopping_daemon_interrupts_open_streams() {
        let r = judged(b"1..1\nok 1\n", Ending::Stopped);
        assert!(!r.ok && !r.cancelled, "it fails, as cut");
        assert_eq!(r.reasons[0], FailureReason::DaemonStopped);
        assert!(r.reasons[0].to_string().starts_with("interrupted"));
        let r = judged(b"1..2\nok 1\n", Ending::Failed("reset".into()));
        assert!(!r.ok);
        assert_eq!(r.reasons[0], "cut: failed to read the connection: reset");
    }
}
