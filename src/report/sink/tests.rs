//! The summary document assembled per file equals, byte for byte, the one the old assembly
//! (`reference`) made from the same events: every stream of test-data, in runs of every shape.
use super::reference::OldSummaryRun;
use super::*;
use crate::event::run::{BailedOut, ExitInfo, FileInfo, Tally};
use crate::event::run::{FailureReason, FileResult};
use crate::event::stability::Stability;
use crate::event::{Event, Verdict};
use crate::report::summary::SummaryWriter;
use std::path::{Path, PathBuf};
use std::time::Duration;

const RUN: u64 = 1;

/// Every `.tap` stream of test-data (conformance, producers, streams), parsed.
fn streams() -> Vec<(String, Vec<Event<'static>>)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("test-data");
    let mut out = Vec::new();
    for dir in ["conformance", "producers", "streams"] {
        let mut paths: Vec<PathBuf> = std::fs::read_dir(root.join(dir))
            .expect("test-data is there")
            .map(|e| e.expect("entry").path())
            .filter(|p| p.extension().is_some_and(|e| e == "tap"))
            .collect();
        paths.sort();
        for p in paths {
            let bytes = std::fs::read(&p).expect("readable");
            let mut events = crate::protocol::parse_all(&bytes);
            with_durations(&mut events);
            out.push((format!("{dir}/{}", file_name(&p)), events));
        }
    }
    assert!(out.len() > 200, "found {} streams", out.len());
    out
}

fn file_name(p: &Path) -> String {
    p.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Durations on some points, with the float forms serde_json writes (few streams have any).
fn with_durations(events: &mut [Event<'static>]) {
    let forms = [0.5, 12.0, 1e-7, 123_456.789, 3.0e21, f64::NAN];
    let asserts = events.iter_mut().filter_map(|e| match e {
        Event::Assert(a) => Some(a),
        _ => None,
    });
    for (i, a) in asserts.enumerate() {
        if a.duration_ms.is_none() && i % 3 == 1 {
            a.duration_ms = Some(forms[i / 3 % forms.len()]);
        }
    }
}

fn verdict_of(events: &[Event<'static>]) -> Verdict<'static> {
    events
        .iter()
        .rev()
        .find_map(|e| match e {
            Event::End { verdict } => Some(verdict.clone()),
            _ => None,
        })
        .expect("every parsed stream ends")
}

/// A run's events, in the order a scheduler sends them.
struct Run {
    events: Vec<RunEvent>,
}

impl Run {
    fn new() -> Self {
        Run { events: Vec::new() }
    }

    fn start(&mut self, index: usize, rel: &str, log: Option<&str>) -> &mut Self {
        self.events.push(RunEvent::FileStarted {
            run: RUN,
            file: info(index, rel, log),
        });
        self
    }

    fn tap(&mut self, index: usize, events: &[Event<'static>]) -> &mut Self {
        self.events.extend(events.iter().map(|event| RunEvent::Tap {
            run: RUN,
            file: index,
            event: event.clone(),
        }));
        self
    }

    fn finish(&mut self, index: usize, result: FileResult) -> &mut Self {
        self.events.push(RunEvent::FileFinished {
            run: RUN,
            file: index,
            result: Box::new(result),
        });
        self
    }

    fn not_run(&mut self, index: usize, rel: &str) -> &mut Self {
        self.events.push(RunEvent::FileNotRun {
            run: RUN,
            file: info(index, rel, None),
        });
        self
    }

    fn end(&mut self, ok: bool) -> Vec<RunEvent> {
        self.events.push(RunEvent::RunFinished {
            run: RUN,
            summary: Box::new(run_summary(ok)),
        });
        std::mem::take(&mut self.events)
    }
}

fn info(index: usize, rel: &str, log: Option<&str>) -> FileInfo {
    FileInfo {
        index,
        rel: rel.to_owned(),
        command: format!("sh {rel}"),
        log: log.map(PathBuf::from),
        attempt: 1,
        leaves: false,
    }
}

/// A result varied by `n`: every shape of `exit`, reasons (some needing escapes), flags.
fn result(n: usize, verdict: Verdict<'static>) -> FileResult {
    let exit = match n % 4 {
        0 => Some(ExitInfo {
            code: Some(0),
            signal: None,
        }),
        1 => Some(ExitInfo {
            code: None,
            signal: Some(9),
        }),
        2 => None,
        _ => Some(ExitInfo {
            code: Some(3),
            signal: None,
        }),
    };
    let reasons = match n % 3 {
        0 => Vec::new(),
        1 => vec![FailureReason::Exit { code: 3 }],
        _ => vec![
            FailureReason::Stream("planned 5, ran 3".to_owned()),
            // Quotes, backslashes, control characters and a v2 marker's brackets.
            FailureReason::Stream(format!(
                "bailed out: {}",
                include_str!("../../../test-data/v2/awkward.txt")
            )),
        ],
    };
    FileResult {
        ok: verdict.ok && reasons.is_empty(),
        reasons,
        exit,
        timed_out: n % 7 == 3,
        cancelled: false,
        leaked: false,
        duration: Duration::from_micros(n as u64 * 1_234_567),
        tally: Tally::default(),
        verdict,
        attempts: 1 + (n % 2) as u32,
        flaky: n % 5 == 1,
        cached: false,
        no_tests: false,
        tests: Default::default(),
    }
}

fn run_summary(ok: bool) -> RunSummary {
    RunSummary {
        ok,
        files_total: 3,
        files_passed: 2,
        files_failed: 1,
        files_not_run: 0,
        files_cancelled: 0,
        tests: Tally {
            pass: 5,
            fail: 1,
            skip: 2,
            todo: 0,
            ..Tally::default()
        },
        duration: Duration::from_millis(4321),
        interrupted: !ok,
        max_fail_reached: Some(2),
        bailed_out: Some(BailedOut {
            file: "t/ä \"b\".t".to_owned(),
            reason: String::new(),
        }),
        slowest: vec![("t/a.t".to_owned(), 40), ("t/b.t".to_owned(), 3)],
        newly_failing: vec!["t/a.t".to_owned()],
        fixed: Vec::new(),
        flaky: vec![("t/c.t".to_owned(), 2)],
        files_cached: 1,
        files_no_tests: 0,
    }
}

/// The documents both assemblies write for `events`.
fn both(events: &[RunEvent]) -> (String, String) {
    let mut old = OldSummaryRun::new(Vec::new());
    let mut new = SummaryRun::new(Vec::new());
    for ev in events {
        old.on(ev).expect("old assembly");
        new.on(ev).expect("new assembly");
    }
    let text = |b: Vec<u8>| String::from_utf8(b).expect("utf-8");
    (
        text(std::mem::take(old.out_mut())),
        text(std::mem::take(new.out_mut())),
    )
}

/// The document written with running files' summaries spooled past `at` bytes and finished
/// ones past `kept_at` in all.
fn spilled(events: &[RunEvent], at: usize, kept_at: usize) -> String {
    let mut run = SummaryRun::new(Vec::new());
    run.files = document::Entries::spilling_at(at, kept_at);
    for ev in events {
        run.on(ev).expect("spilling assembly");
    }
    String::from_utf8(std::mem::take(run.out_mut())).expect("utf-8")
}

#[track_caller]
fn assert_same(events: &[RunEvent]) {
    let (old, new) = both(events);
    assert!(!old.is_empty(), "a document was written");
    // The same bytes whether summaries stay in memory or go to the spool, whole or in part.
    for (at, kept_at) in [(0, 0), (1, usize::MAX), (700, 3000), (usize::MAX, 0)] {
        assert_same_bytes(&old, &spilled(events, at, kept_at));
    }
    assert_same_bytes(&old, &new);
}

#[track_caller]
fn assert_same_bytes(old: &str, new: &str) {
    if old != new {
        let at = old
            .bytes()
            .zip(new.bytes())
            .position(|(a, b)| a != b)
            .unwrap_or(old.len().min(new.len()));
        let around = |s: &str| {
            String::from_utf8_lossy(&s.as_bytes()[at.saturating_sub(300)..s.len().min(at + 200)])
                .into_owned()
        };
        panic!(
            "documents differ at byte {at}:\nold: {}\nnew: {}",
            around(old),
            around(new)
        );
    }
}

#[test]
fn every_stream_of_test_data_as_one_file_each() {
    let streams = streams();
    let mut run = Run::new();
    for (i, (rel, events)) in streams.iter().enumerate() {
        let log = (i % 2 == 0).then(|| format!("/tmp/logs/{rel}.log"));
        run.start(i, rel, log.as_deref())
            .tap(i, events)
            .finish(i, result(i, verdict_of(events)));
    }
    assert_same(&run.end(false));
}

#[test]
fn interleaved_files_retries_cached_not_run_and_gaps() {
    let streams = streams();
    let (a, b, c) = (&streams[10].1, &streams[40].1, &streams[120].1);
    let mut run = Run::new();
    // Files 0 and 2 run at once; their points arrive interleaved.
    run.start(2, "t/two \"quoted\".t", None)
        .start(0, "t/zero.t", Some("/logs/zero.log"));
    let (a1, a2) = a.split_at(a.len() / 2);
    run.tap(0, a1).tap(2, b).tap(0, a2);
    run.finish(2, result(1, verdict_of(b)))
        .finish(0, result(2, verdict_of(a)));
    // Retried: the first attempt's points are dropped with it.
    run.start(3, "t/retried.t", None).tap(3, a);
    run.events.push(RunEvent::AttemptFailed {
        run: RUN,
        file: 3,
        attempt: 1,
        of: 2,
        result: Box::new(result(3, verdict_of(a))),
    });
    run.start(3, "t/retried.t", Some("/logs/retried.2.log"))
        .tap(3, c)
        .finish(3, result(5, verdict_of(c)));
    // Cached: started and finished, no stream.
    let mut cached = result(0, verdict_of(a));
    cached.cached = true;
    run.start(5, "t/cached.t", None).finish(5, cached);
    // Started, never finished: left out, as is index 4 (never seen).
    run.start(6, "t/hung.t", None).tap(6, a);
    run.not_run(7, "t/later.t").not_run(9, "t/ünïcödé.t");
    // Finished but never started (a replayed recording cut at its start).
    run.finish(1, result(4, verdict_of(b)));
    // Finished without a single event.
    run.start(8, "t/silent.t", None)
        .finish(8, result(6, verdict_of(a)));
    assert_same(&run.end(false));
}

#[test]
fn runs_without_files_and_runs_one_after_another() {
    assert_same(&Run::new().end(true));
    let streams = streams();
    let mut events = Run::new().not_run(0, "t/a.t").end(false);
    for n in 0..3 {
        let s = &streams[n * 50].1;
        events.extend(
            Run::new()
                .start(0, "t/a.t", None)
                .tap(0, s)
                .finish(0, result(n, verdict_of(s)))
                .end(n % 2 == 0),
        );
    }
    assert_same(&events);
}

#[test]
fn a_series_writes_its_last_run_with_stability() {
    let streams = streams();
    let mut events = vec![RunEvent::SeriesStarted { runs: 2 }];
    for n in 0..2 {
        let mut run = Run::new();
        for (i, (rel, s)) in streams.iter().skip(n * 7).take(5).enumerate() {
            run.start(i, rel, None)
                .tap(i, s)
                .finish(i, result(i + n, verdict_of(s)));
        }
        events.extend(run.not_run(5, "t/never.t").end(n == 0));
    }
    events.push(RunEvent::SeriesFinished {
        stability: Stability {
            runs: 2,
            ..Stability::default()
        },
    });
    assert_same(&events);
}

#[test]
fn the_pretty_parse_summary_is_the_compact_one_reindented() {
    for (rel, events) in streams() {
        let compact = write_all(SummaryWriter::new(Vec::new()), &events);
        for level in [0, 1, 5] {
            let pretty = write_all(SummaryWriter::pretty(Vec::new(), level), &events);
            let mut want = Vec::new();
            super::reference::reindent(&mut want, compact.trim_ascii_end(), level);
            assert_eq!(
                String::from_utf8_lossy(&pretty),
                String::from_utf8_lossy(&want),
                "{rel} at level {level}"
            );
        }
    }
}

fn write_all<const PRETTY: bool>(
    mut w: SummaryWriter<Vec<u8>, PRETTY>,
    events: &[Event<'static>],
) -> Vec<u8> {
    for e in events {
        crate::event::Sink::event(&mut w, e);
    }
    w.finish().expect("a Vec takes every write")
}

/// Counts the events it is given; fails every one when `fails`.
struct Counting {
    seen: usize,
    fails: bool,
}

impl RunSink for Counting {
    fn on(&mut self, _ev: &RunEvent) -> io::Result<()> {
        self.seen += 1;
        if self.fails {
            return Err(io::Error::other("closed"));
        }
        Ok(())
    }
}

/// Regression: a failing sink kept every event from the sinks after it (the reports lost the
/// run's end when the terminal went away).
#[test]
fn a_failing_sink_keeps_no_event_from_the_others() {
    let mut broken = Counting {
        seen: 0,
        fails: true,
    };
    let mut fine = Counting {
        seen: 0,
        fails: false,
    };
    let ev = RunEvent::SeriesStarted { runs: 2 };
    {
        let mut fanout = Fanout(vec![&mut broken, &mut fine]);
        let err = fanout.on(&ev).expect_err("the first error is the answer");
        assert_eq!(err.to_string(), "closed");
        assert!(fanout.on_owned(ev).is_err());
    }
    assert_eq!((broken.seen, fine.seen), (2, 2));
}

/// Records, in one log shared by several sinks, which sink saw which event and how: lent
/// (`on`) or given (`on_owned`, only when it `keeps`).
struct Logging<'l> {
    name: &'static str,
    keeps: bool,
    log: &'l std::cell::RefCell<Vec<String>>,
}

impl RunSink for Logging<'_> {
    fn on(&mut self, ev: &RunEvent) -> io::Result<()> {
        let RunEvent::SeriesStarted { runs } = ev else {
            return Ok(());
        };
        self.log
            .borrow_mut()
            .push(format!("{} lent {runs}", self.name));
        Ok(())
    }
    fn on_owned(&mut self, ev: RunEvent) -> io::Result<()> {
        let RunEvent::SeriesStarted { runs } = ev else {
            return Ok(());
        };
        self.log
            .borrow_mut()
            .push(format!("{} given {runs}", self.name));
        Ok(())
    }
    fn keeps(&self) -> bool {
        self.keeps
    }
}

/// A batch reaches every sink event by event, in the same order: given by value to a last
/// sink that keeps events, lent to one that only reads them (each layer's move of an event was
/// a copy per point: issue 42's CPU).
#[test]
fn a_batch_is_lent_unless_the_last_sink_keeps_its_events() {
    let batch = || {
        (1..=2)
            .map(|runs| RunEvent::SeriesStarted { runs })
            .collect()
    };
    for keeps in [false, true] {
        let log = std::cell::RefCell::new(Vec::new());
        let mut a = Logging {
            name: "a",
            keeps: false,
            log: &log,
        };
        let mut b = Logging {
            name: "b",
            keeps,
            log: &log,
        };
        let mut fanout = Fanout(vec![&mut a, &mut b]);
        assert_eq!(fanout.keeps(), keeps);
        let mut layered = crate::event::sink::Unflushed::new(&mut fanout);
        assert_eq!(layered.keeps(), keeps);
        layered.give(batch()).expect("no sink fails");
        let last = if keeps { "given" } else { "lent" };
        let want = [
            "a lent 1".to_string(),
            format!("b {last} 1"),
            "a lent 2".to_string(),
            format!("b {last} 2"),
        ];
        assert_eq!(log.into_inner(), want);
    }
}
