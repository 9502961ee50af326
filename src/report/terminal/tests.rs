//! Snapshots of whole runs in every verbosity, and the live region's drawing rules.
use super::*;
use crate::event::run::{ExitInfo, FailureReason};
use crate::event::Assert;
use crate::event::{Plan, Verdict};
use crate::report::sink::{Explaining, RunSink};
use std::borrow::Cow;
use std::path::PathBuf;
use std::time::Duration;

const RUN: u64 = 7;

fn opts(verbosity: Verbosity) -> TerminalOptions {
    TerminalOptions {
        style: Style::default(),
        live: false,
        verbosity,
        width: 80,
    }
}

fn point(ok: bool, name: &str) -> Assert<'static> {
    Assert::plain(ok, name)
}

fn timed(ok: bool, name: &str, ms: f64) -> Assert<'static> {
    Assert {
        duration_ms: Some(ms),
        ..point(ok, name)
    }
}

fn skip(name: &str, why: &str) -> Assert<'static> {
    Assert {
        skip: Some(Cow::Owned(why.to_owned())),
        ..point(true, name)
    }
}

fn todo(name: &str, why: &str) -> Assert<'static> {
    Assert {
        todo: Some(Cow::Owned(why.to_owned())),
        ..point(false, name)
    }
}

fn verdict(ok: bool, t: &Tally, plan: Option<Plan<'static>>) -> Verdict<'static> {
    Verdict {
        ok,
        count: t.total(),
        pass: t.pass,
        fail: t.fail,
        todo: t.todo,
        skip: t.skip,
        plan,
        bailout: None,
        reasons: Vec::new(),
    }
}

/// Builds a run's events by hand, keeping the tallies the scheduler would compute.
struct Script {
    events: Vec<RunEvent>,
    files: usize,
    rels: BTreeMap<usize, String>,
    tallies: BTreeMap<usize, Tally>,
    /// Each finished file's (passed, ms, cancelled).
    results: BTreeMap<usize, (bool, u64, bool)>,
}

impl Script {
    fn new(files: usize) -> Self {
        Script {
            events: vec![RunEvent::RunStarted {
                run: RUN,
                files,
                jobs: 4,
                started_ms: None,
                host: None,
                cwd: None,
                command: None,
                test_filter: None,
            }],
            files,
            rels: BTreeMap::new(),
            tallies: BTreeMap::new(),
            results: BTreeMap::new(),
        }
    }

    fn start(&mut self, index: usize, rel: &str) -> &mut Self {
        self.start_logged(index, rel, None)
    }

    fn start_logged(&mut self, index: usize, rel: &str, log: Option<&str>) -> &mut Self {
        self.rels.insert(index, rel.to_owned());
        let file = FileInfo {
            index,
            rel: rel.to_owned(),
            command: format!("run {rel}"),
            log: log.map(PathBuf::from),
            attempt: 1,
            leaves: false,
        };
        self.events.push(RunEvent::FileStarted { run: RUN, file });
        self
    }

    fn tap(&mut self, file: usize, event: Event<'static>) -> &mut Self {
        self.events.push(RunEvent::Tap {
            run: RUN,
            file,
            event,
        });
        self
    }

    fn assert(&mut self, file: usize, a: Assert<'static>) -> &mut Self {
        if a.depth == 0 {
            self.tallies.entry(file).or_default().add(&a);
        }
        self.tap(file, Event::Assert(a))
    }

    fn out(&mut self, file: usize, text: &str) -> &mut Self {
        self.tap(
            file,
            Event::Output {
                depth: 0,
                line: 0,
                text: Cow::Owned(text.to_owned()),
            },
        )
    }

    fn comment(&mut self, file: usize, text: &str) -> &mut Self {
        self.tap(
            file,
            Event::Comment {
                depth: 0,
                line: 0,
                text: Cow::Owned(text.to_owned()),
            },
        )
    }

    fn err(&mut self, file: usize, text: &str) -> &mut Self {
        self.events.push(RunEvent::Stderr {
            run: RUN,
            file,
            text: text.to_owned(),
        });
        self
    }

    /// A subtest opening inside the level `parent` (0: the file itself); the event carries
    /// the subtest's own level, as the parser writes it.
    fn subtest(&mut self, file: usize, parent: u32, name: &str) -> &mut Self {
        self.tap(
            file,
            Event::SubtestStart {
                depth: parent + 1,
                line: 0,
                name: Cow::Owned(name.to_owned()),
                buffered: false,
            },
        )
    }

    fn finish(&mut self, file: usize, reasons: &[&str], ms: u64) -> &mut Self {
        self.finish_with(file, reasons, ms, None, false)
    }

    fn finish_with(
        &mut self,
        file: usize,
        reasons: &[&str],
        ms: u64,
        plan: Option<Plan<'static>>,
        cancelled: bool,
    ) -> &mut Self {
        let tally = self.tallies.get(&file).copied().unwrap_or_default();
        let ok = reasons.is_empty() && tally.fail == 0 && !cancelled;
        self.results.insert(file, (ok, ms, cancelled));
        let result = FileResult {
            ok,
            reasons: reasons.iter().map(|r| FailureReason::from(*r)).collect(),
            exit: Some(ExitInfo {
                code: Some(i32::from(!ok)),
                signal: None,
            }),
            timed_out: false,
            cancelled,
            leaked: false,
            duration: Duration::from_millis(ms),
            tally,
            verdict: verdict(ok, &tally, plan),
            attempts: 1,
            flaky: false,
            cached: false,
            no_tests: false,
            tests: Default::default(),
        };
        self.tap(
            file,
            Event::End {
                verdict: result.verdict.clone(),
            },
        );
        self.events.push(RunEvent::FileFinished {
            run: RUN,
            file,
            result: Box::new(result),
        });
        self
    }

    /// `RunFinished` as the scheduler would summarise the files seen.
    fn end(
        &mut self,
        ms: u64,
        interrupted: bool,
        newly_failing: &[&str],
        fixed: &[&str],
    ) -> Vec<RunEvent> {
        let mut tests = Tally::default();
        self.tallies.values().for_each(|t| tests.merge(t));
        let passed = self.results.values().filter(|(ok, _, _)| *ok).count();
        let cancelled = self.results.values().filter(|(_, _, c)| *c).count();
        let failed = self.results.len() - passed - cancelled;
        let not_run = self.files - self.results.len();
        let mut slowest: Vec<(String, u64)> = self
            .results
            .iter()
            .map(|(i, (_, ms, _))| (self.rels[i].clone(), *ms))
            .collect();
        slowest.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        slowest.truncate(3);
        let summary = RunSummary {
            ok: failed == 0 && cancelled == 0 && not_run == 0 && !interrupted,
            files_total: self.files,
            files_passed: passed,
            files_failed: failed,
            files_not_run: not_run,
            files_cancelled: cancelled,
            tests,
            duration: Duration::from_millis(ms),
            interrupted,
            slowest,
            newly_failing: newly_failing.iter().map(|s| (*s).to_owned()).collect(),
            fixed: fixed.iter().map(|s| (*s).to_owned()).collect(),
            ..RunSummary::default()
        };
        self.events.push(RunEvent::RunFinished {
            run: RUN,
            summary: Box::new(summary),
        });
        std::mem::take(&mut self.events)
    }
}

fn render(events: &[RunEvent], opts: TerminalOptions) -> String {
    let mut r = Explaining::new(TerminalReporter::new(Vec::new(), opts));
    for ev in events {
        r.on(ev).expect("writing to a Vec");
    }
    let out = String::from_utf8(r.into_inner().finish().expect("writing to a Vec")).expect("utf-8");
    assert!(
        !out.contains('\x1b'),
        "escape codes with styles and live off:\n{out}"
    );
    out
}

fn all_passing() -> Vec<RunEvent> {
    let mut s = Script::new(3);
    s.start(0, "test/math.t").start(1, "test/strings.t");
    s.assert(0, timed(true, "adds", 1.0))
        .assert(1, point(true, "concatenates"));
    s.assert(0, timed(true, "subtracts", 0.4))
        .assert(0, timed(true, "divides by zero safely", 12.0));
    s.assert(1, skip("unicode folding", "needs ICU"))
        .assert(1, point(true, "trims"));
    s.finish(0, &[], 35);
    s.start(2, "test/util.t")
        .assert(2, point(true, "formats dates"));
    s.finish(1, &[], 1240).finish(2, &[], 8);
    s.end(1300, false, &[], &[])
}

#[test]
fn all_passing_run() {
    insta::assert_snapshot!(render(&all_passing(), opts(Verbosity::Normal)));
}

const API_DIAG: &str = "message: should be equivalent
operator: deepEqual
at:
  file: test/api.t
  line: 42
  column: 7
wanted:
  status: 200
  users: [ann, bob]
found:
  status: 500
  users: [ann]
";

fn failing() -> Vec<RunEvent> {
    let mut s = Script::new(3);
    s.start_logged(0, "test/api.t", Some(".nogit/testlogs/test__api.t.log"));
    s.start(1, "test/crash.t");
    s.out(0, "connecting to db at localhost:5432")
        .assert(0, timed(true, "connects", 15.0));
    s.out(0, "GET /users -> 500 Internal Server Error")
        .err(0, "warning: pool exhausted");
    s.assert(
        0,
        Assert {
            diagnostics: Some(Cow::Borrowed(API_DIAG)),
            ..timed(false, "fetches users", 31.0)
        },
    );
    s.out(0, "retrying once: still 500");
    s.subtest(0, 0, "auth");
    s.assert(
        0,
        Assert {
            depth: 1,
            ..point(true, "accepts a good token")
        },
    );
    s.out(0, "token: abc.def");
    s.assert(
        0,
        Assert {
            depth: 1,
            diagnostics: Some(Cow::Borrowed("wanted: 401\nfound: 200\n")),
            ..point(false, "rejects a bad token")
        },
    );
    s.assert(
        0,
        Assert {
            closes_subtest: true,
            ..point(false, "auth")
        },
    );
    s.assert(1, point(true, "parses header"))
        .assert(1, point(true, "parses body"));
    s.out(1, "about to free the buffer");
    s.err(1, "Segmentation fault (core dumped)");
    s.finish(1, &["killed by SIGSEGV", "planned 4, ran 2"], 212);
    s.finish(0, &["exited with code 2"], 1840);
    s.start(2, "test/ok.t")
        .assert(2, point(true, "works"))
        .finish(2, &[], 5);
    s.end(2100, false, &["test/crash.t"], &["test/legacy.t"])
}

#[test]
fn failing_run() {
    insta::assert_snapshot!(render(&failing(), opts(Verbosity::Normal)));
}

fn mixed() -> Vec<RunEvent> {
    let mut s = Script::new(4);
    s.start(0, "test/cache.t")
        .start(1, "test/db.t")
        .start(2, "test/legacy.t")
        .start(3, "test/parser.t");
    s.assert(0, point(true, "stores"))
        .assert(0, skip("evicts on memory pressure", "slow"));
    s.assert(0, todo("shares across processes", "not implemented"))
        .assert(0, point(true, "expires"));
    let plan = Plan {
        start: 1,
        end: 0,
        skip_all: true,
        reason: Some(Cow::Borrowed("no DATABASE_URL")),
    };
    s.tap(
        1,
        Event::Plan {
            depth: 0,
            line: 1,
            plan: plan.clone(),
        },
    );
    s.finish_with(1, &[], 3, Some(plan), false);
    s.assert(2, point(true, "old api")).assert(
        2,
        Assert {
            todo: Some(Cow::Borrowed("flaky")),
            ..point(true, "retries")
        },
    );
    s.subtest(3, 0, "numbers").assert(
        3,
        Assert {
            depth: 1,
            ..point(true, "integers")
        },
    );
    s.subtest(3, 1, "floats");
    s.assert(
        3,
        Assert {
            depth: 2,
            ..point(true, "1.5")
        },
    );
    s.assert(
        3,
        Assert {
            depth: 2,
            diagnostics: Some(Cow::Borrowed("wanted: 1e3\nfound: \"1e3\"\n")),
            ..point(false, "exponent")
        },
    );
    s.assert(
        3,
        Assert {
            depth: 1,
            closes_subtest: true,
            ..point(false, "floats")
        },
    );
    s.assert(
        3,
        Assert {
            closes_subtest: true,
            ..point(false, "numbers")
        },
    );
    s.subtest(3, 0, "strings (TODO)").assert(
        3,
        Assert {
            depth: 1,
            ..point(false, "escapes")
        },
    );
    s.assert(
        3,
        Assert {
            closes_subtest: true,
            ..todo("strings (TODO)", "escapes are next")
        },
    );
    s.finish(0, &[], 60).finish(2, &[], 20).finish(3, &[], 90);
    s.end(180, false, &[], &[])
}

#[test]
fn mixed_run() {
    insta::assert_snapshot!(render(&mixed(), opts(Verbosity::Normal)));
}

#[test]
fn mixed_run_quiet() {
    insta::assert_snapshot!(render(&mixed(), opts(Verbosity::Quiet)));
}

#[test]
fn quiet_passing_run_is_one_line() {
    let out = render(&all_passing(), opts(Verbosity::Quiet));
    assert_eq!(out, "✓ PASS  3 files · 6 passed, 1 skipped · 1.3s\n");
}

#[test]
fn verbose_run() {
    let mut s = Script::new(2);
    s.start(0, "test/math.t").start(1, "test/io.t");
    s.comment(0, "math suite")
        .assert(0, timed(true, "adds", 1.0));
    s.out(1, "opening /tmp/x").assert(1, point(true, "opens"));
    s.subtest(0, 0, "division").assert(
        0,
        Assert {
            depth: 1,
            ..point(true, "by one")
        },
    );
    s.err(1, "EACCES: permission denied, open '/root/x'");
    s.assert(
        1,
        Assert {
            diagnostics: Some(Cow::Borrowed("message: cannot open\ncode: EACCES\n")),
            ..point(false, "opens a protected file")
        },
    );
    s.assert(
        0,
        Assert {
            depth: 1,
            ..skip("by zero", "undefined")
        },
    );
    s.assert(
        0,
        Assert {
            closes_subtest: true,
            ..point(true, "division")
        },
    );
    s.finish(0, &[], 12).finish(1, &["exited with code 1"], 30);
    insta::assert_snapshot!(render(
        &s.end(50, false, &[], &[]),
        opts(Verbosity::Verbose)
    ));
}

#[test]
fn interrupted_run() {
    let mut s = Script::new(5);
    s.start(0, "test/a.t").start(1, "test/b.t");
    s.assert(0, point(true, "one"))
        .assert(1, point(true, "first"))
        .finish(0, &[], 100);
    s.start(2, "test/c.t")
        .assert(2, point(false, "breaks"))
        .finish(2, &["exited with code 1"], 40);
    s.out(1, "waiting for the server…");
    s.finish_with(1, &["interrupted"], 2500, None, true);
    insta::assert_snapshot!(render(
        &s.end(2600, true, &[], &[]),
        opts(Verbosity::Normal)
    ));
}

/// Regression: a run a watch restart stopped read as failures ("1 of 2 files failed", the
/// stopped file under "Failures:") though nothing failed.
#[test]
fn a_stopped_file_reads_as_cancelled_not_failed() {
    let mut s = Script::new(2);
    s.start(0, "test/a.t").start(1, "test/slow.t");
    s.assert(0, point(true, "one")).finish(0, &[], 10);
    s.assert(1, point(true, "first"));
    s.finish_with(1, &["interrupted"], 900, None, true);
    let out = render(&s.end(950, true, &[], &[]), opts(Verbosity::Normal));
    assert!(!out.contains("Failures:"), "{out}");
    assert!(
        out.contains("Cancelled (stopped before the end): test/slow.t"),
        "{out}"
    );
    assert!(
        out.contains("⊘ INTERRUPTED  1 of 2 files passed · 1 cancelled · 2 passed"),
        "{out}"
    );
    assert!(out.contains("⊘ test/slow.t  1 passed"), "{out}");
}

/// The live line counts what a filter left out as the file's and the summary's lines do.
#[test]
fn live_region_counts_not_selected_points_as_not_selected() {
    let mut r = Explaining::new(TerminalReporter::new(
        Vec::new(),
        TerminalOptions {
            live: true,
            ..opts(Verbosity::Normal)
        },
    ));
    let mut s = Script::new(1);
    s.start(0, "test/fast.t")
        .assert(0, point(true, "quick"))
        .assert(
            0,
            Assert {
                not_selected: true,
                ..point(true, "other")
            },
        );
    for ev in &s.events {
        r.on(ev).expect("writing to a Vec");
    }
    let start = Instant::now();
    r.inner_mut().started = Some(start);
    r.tick(start + Duration::from_millis(1000))
        .expect("writing to a Vec");
    let frame = String::from_utf8(std::mem::take(&mut r.inner_mut().out)).expect("utf-8");
    assert!(
        frame.starts_with("Running 1 of 1 file · 0 done · 1 passed · 1 not selected · 1.0s"),
        "{frame:?}"
    );
}

#[test]
fn live_region_is_drawn_and_cleared_before_permanent_lines() {
    let mut r = Explaining::new(TerminalReporter::new(
        Vec::new(),
        TerminalOptions {
            live: true,
            ..opts(Verbosity::Normal)
        },
    ));
    let mut s = Script::new(12);
    s.start(0, "test/fast.t").start(1, "test/slow.t");
    s.subtest(1, 0, "uploads").assert(
        1,
        Assert {
            depth: 1,
            ..point(true, "small file")
        },
    );
    s.assert(0, point(true, "quick"))
        .assert(0, skip("later", ""));
    for ev in &s.events {
        r.on(ev).expect("writing to a Vec");
    }
    assert!(
        r.inner_mut().out.is_empty(),
        "nothing permanent yet, and no region before a tick"
    );
    let start = Instant::now();
    r.inner_mut().started = Some(start);
    r.tick(start + Duration::from_millis(3400))
        .expect("writing to a Vec");
    let frame = String::from_utf8(std::mem::take(&mut r.inner_mut().out)).expect("utf-8");
    assert_eq!(
        frame,
        "Running 2 of 12 files · 0 done · 1 passed · 1 skipped · 3.4s\n  test/fast.t  › later\n  test/slow.t  › uploads"
    );

    s.events.clear();
    s.finish(0, &[], 20);
    for ev in &s.events {
        r.on(ev).expect("writing to a Vec");
    }
    let frame = String::from_utf8(std::mem::take(&mut r.inner_mut().out)).expect("utf-8");
    let (clear, rest) = frame.split_at("\r\x1b[2A\x1b[J".len());
    assert_eq!(
        clear, "\r\x1b[2A\x1b[J",
        "the 3-line region is cleared first: {frame:?}"
    );
    assert!(
        rest.starts_with("✓ test/fast.t  1 passed, 1 skipped  20ms\n"),
        "{frame:?}"
    );
    assert!(rest.ends_with("Running 1 of 12 files · 1 done · 1 passed · 1 skipped · 3.4s\n  test/slow.t  › uploads"), "{frame:?}");

    let out = r.into_inner().finish().expect("writing to a Vec");
    assert_eq!(out, b"\r\x1b[1A\x1b[J", "finish leaves no region behind");
}

#[test]
fn live_lines_fit_the_width() {
    let mut r = Explaining::new(TerminalReporter::new(
        Vec::new(),
        TerminalOptions {
            live: true,
            width: 30,
            ..opts(Verbosity::Normal)
        },
    ));
    let mut s = Script::new(20);
    for i in 0..10 {
        s.start(i, &format!("test/file-{i:02}.t"));
    }
    s.assert(3, point(true, "a test with a rather long name indeed"));
    s.assert(4, point(true, "名前の長いテストです"));
    for ev in &s.events {
        r.on(ev).expect("writing to a Vec");
    }
    let lines = r.inner_mut().region_lines();
    assert_eq!(lines.len(), 1 + LIVE_FILES + 1);
    assert_eq!(lines[0], "Running 10 of 20 files · 0 d…");
    assert_eq!(lines[4], "  test/file-03.t  › a test w…");
    assert_eq!(lines[5], "  test/file-04.t  › 名前の長…");
    assert_eq!(lines[9], "  … and 2 more");
    assert!(
        lines
            .iter()
            .all(|l| l.chars().map(columns).sum::<usize>() <= 29),
        "{lines:#?}"
    );
}

#[test]
fn not_live_never_moves_the_cursor() {
    let mut r = Explaining::new(TerminalReporter::new(Vec::new(), opts(Verbosity::Verbose)));
    for ev in &failing() {
        r.on(ev).expect("writing to a Vec");
        r.tick(Instant::now()).expect("writing to a Vec");
    }
    let out = r.into_inner().finish().expect("writing to a Vec");
    assert!(!out.contains(&0x1b), "no escape codes at all");
}

#[test]
fn leftover_output_shows_its_newest_lines_with_a_note() {
    let lines: Vec<String> = (0..5).map(|i| format!("line {i}")).collect();
    assert_eq!(
        lines::newest(&lines, 2),
        ["… 3 earlier lines", "line 3", "line 4"]
    );
    assert_eq!(lines::newest(&lines, 10), lines);
}

#[test]
fn stale_runs_are_ignored() {
    let mut events = all_passing();
    events.insert(
        1,
        RunEvent::FileStarted {
            run: RUN - 1,
            file: FileInfo {
                index: 9,
                rel: "old.t".into(),
                command: String::new(),
                log: None,
                attempt: 1,
                leaves: false,
            },
        },
    );
    assert!(!render(&events, opts(Verbosity::Normal)).contains("old.t"));
}

/// A live reporter with one running file, fed `tap` as it arrives: parsed line by line and
/// each line's events handed on at once, as the run's file task does; the region after each.
fn live_region_after_each_line(tap: &str) -> Vec<Vec<String>> {
    let mut r = Explaining::new(TerminalReporter::new(
        Vec::new(),
        TerminalOptions {
            live: true,
            ..opts(Verbosity::Normal)
        },
    ));
    let mut s = Script::new(1);
    s.start(0, "t/stall.t");
    for ev in &s.events {
        r.on(ev).expect("writing to a Vec");
    }
    let mut parser = crate::protocol::Parser::new(Vec::<Event<'static>>::new());
    let mut regions = Vec::new();
    for line in tap.split_inclusive('\n') {
        parser.feed(line.as_bytes());
        for event in parser.sink_mut().drain(..) {
            let ev = RunEvent::Tap {
                run: RUN,
                file: 0,
                event,
            };
            r.on(&ev).expect("writing to a Vec");
        }
        regions.push(r.inner_mut().region_lines());
    }
    regions
}

#[test]
fn live_region_names_the_point_just_read_not_the_one_before() {
    let regions = live_region_after_each_line("1..3\nok 1 - a\nnot ok 2 - b\n  ---\n  x: 1\n");
    // The file stalls after `not ok 2 - b` (its YAML block still open): `b` is shown, and
    // counted, while nothing else arrives.
    assert_eq!(
        regions[2],
        [
            "Running 1 of 1 file · 0 done · 1 passed · 1 failed",
            "  t/stall.t  › b"
        ]
    );
    assert_eq!(regions[4], regions[2], "its YAML block changes nothing");
    assert_eq!(regions[1][1], "  t/stall.t  › a");
}

#[test]
fn live_region_names_a_v2_test_started_and_points_inside_subtests() {
    // The v2 header, `1..2`, `ok 1 - adds`, `test:started` "waits for the server", then a
    // subtest `group` with `ok 1 - inner`.
    let tap = include_str!("../../../test-data/v2/started-then-subtest.tap");
    let current: Vec<String> = live_region_after_each_line(tap)
        .into_iter()
        .map(|region| region.get(1).cloned().unwrap_or_default())
        .collect();
    assert_eq!(
        current,
        [
            "  t/stall.t",
            "  t/stall.t",
            "  t/stall.t  › adds",
            // `adds` is still pending (a META line could follow): the test that started names
            // what the file is doing.
            "  t/stall.t  › waits for the server",
            "  t/stall.t  › waits for the server",
            "  t/stall.t  › group > inner",
        ]
    );
}

/// A stream of failures is explained up to a limit and counted past it, so the terminal
/// holds a bounded amount per file (the daemon's streams never end).
#[test]
fn failing_points_past_the_limit_are_counted_not_kept() {
    let mut s = Script::new(1);
    s.start_logged(0, "test/many.t", Some(".nogit/testlogs/test__many.t.log"));
    for i in 0..(crate::explain::FILE_EXPLAINED + 150) {
        s.assert(0, point(false, &format!("case {i}")));
    }
    s.finish(0, &[], 10);
    let events = s.end(20, false, &[], &[]);
    let mut r = Explaining::new(TerminalReporter::new(Vec::new(), opts(Verbosity::Normal)));
    for ev in &events[..events.len() - 1] {
        r.on(ev).expect("writing to a Vec");
    }
    let kept: usize = r
        .inner_mut()
        .files
        .values()
        .map(|f| f.failures().count())
        .sum();
    assert_eq!(kept, crate::explain::FILE_EXPLAINED);
    let out = render(&events, opts(Verbosity::Normal));
    assert!(out.contains("case 99"), "{out}");
    assert!(!out.contains("case 100"), "{out}");
    assert!(
        out.contains("… 150 more failing points not shown (the log has every one)"),
        "{out}"
    );
    assert!(
        out.contains("… 150 more failing points in test/many.t"),
        "{out}"
    );
}

#[test]
fn max_fail_names_the_files_not_run_only_when_there_are_some() {
    let sum = |not_run| RunSummary {
        ok: false,
        files_total: 4,
        files_failed: 1,
        files_not_run: not_run,
        max_fail_reached: Some(1),
        ..RunSummary::default()
    };
    let all_started = summary_line(&sum(0), Style::default());
    assert!(
        all_started.contains("stopped after 1 failed file ·"),
        "{all_started}"
    );
    assert!(!all_started.contains("not run"), "{all_started}");
    let some_left = summary_line(&sum(3), Style::default());
    assert!(
        some_left.contains("3 not run (stopped after 1 failed file)"),
        "{some_left}"
    );
}
