//! The JUnit report: its elements, its pieces, and the plain cases written without quick-junit
//! against quick-junit writing every case.
use super::*;
use crate::report::lossless;
use proptest::{prop_assert_eq, proptest};

fn file(rel: &str, status: FileStatus) -> FileView {
    FileView {
        rel: rel.to_owned(),
        status,
        duration: Some(Duration::from_millis(12)),
        tally: Default::default(),
        reasons: Vec::new(),
        log: Some(".nogit/testlogs/a.log".into()),
        command: None,
        cases: Vec::new(),
        points: Vec::new(),
        failures: Vec::new(),
        output_tail: Vec::new(),
        failures_left_out: 0,
        attempts: 1,
        flaky: false,
        cached: false,
        earlier_attempts: Vec::new(),
        stdout: Vec::new(),
        stderr: Vec::new(),
        stream_lines_dropped: (0, 0),
        warnings: Vec::new(),
        points_dropped: 0,
        spooled: Vec::new(),
    }
}

/// `points` as a file's top-level points, each a leaf case in its place.
fn set_points(f: &mut FileView, points: Vec<PointView>) {
    f.cases = points
        .iter()
        .enumerate()
        .map(|(point, p)| CaseView {
            point,
            test: true,
            parents: "".into(),
            point_view: p.clone(),
        })
        .collect();
    f.points = points;
}

fn point(name: &str, status: PointStatus) -> PointView {
    PointView {
        id: None,
        name: name.to_owned(),
        status,
        reason: None,
        duration_ms: Some(1.5),
    }
}

/// `write()`'s document for `run`.
fn xml(run: &RunView) -> String {
    text_of(run, write)
}

/// The same document from quick-junit writing every case.
fn whole_xml(run: &RunView) -> String {
    text_of(run, write_whole)
}

fn text_of(run: &RunView, writer: fn(&mut dyn Write, &RunView) -> io::Result<()>) -> String {
    let mut out = Vec::new();
    writer(&mut out, run).unwrap();
    String::from_utf8(out).unwrap()
}

#[test]
fn leaf_cases_skips_failures_and_crashes() {
    let mut a = file("t/a.t", FileStatus::Fail);
    set_points(
        &mut a,
        vec![
            point("adds", PointStatus::Pass),
            point("group", PointStatus::Fail),
            point("later", PointStatus::Todo),
        ],
    );
    // The group's failing leaf comes before it in the stream; the group itself is no case.
    a.cases[1].test = false;
    a.cases.insert(
        1,
        CaseView {
            point: 1,
            test: true,
            parents: "group".into(),
            point_view: point("inner <b>", PointStatus::Fail),
        },
    );
    a.cases[2].point = 2;
    a.cases[3].point = 3;
    a.failures = vec![FailureView {
        point: 1,
        name: "group > inner <b>".into(),
        message: Some("boom ]]> \u{1b}[31mred\u{1b}[0m \u{7}bell".into()),
        ..FailureView::default()
    }];
    let mut b = file("t/b.t", FileStatus::Fail);
    b.reasons = vec!["killed by SIGSEGV".into()];
    b.output_tail = vec!["Segmentation fault".into()];
    b.stderr = vec!["oops".into()];
    let c = file("t/c.t", FileStatus::NotRun);
    let run = RunView {
        files: vec![a, b, c],
        ..RunView::default()
    };
    let x = xml(&run);
    assert!(x.contains(r#"<testsuite name="t/a.t" tests="3""#), "{x}");
    assert!(
        x.contains(r#"<testcase name="adds" classname="t/a.t" time="0.002"#),
        "{x}"
    );
    // The subtest's failing leaf is the case, named by its path; the subtest is none.
    assert!(
        x.contains(r#"<testcase name="group &gt; inner &lt;b&gt;" classname="t/a.t""#),
        "{x}"
    );
    assert!(!x.contains(r#"<testcase name="group""#), "{x}");
    assert!(
        x.contains(r#"message="boom ]]&gt; \u{1b}[31mred\u{1b}[0m \u{7}bell""#),
        "control bytes and ANSI made visible, not lost: {x}"
    );
    assert!(x.contains(r#"<skipped message="TODO"/>"#), "{x}");
    assert!(
        x.contains(r#"<error message="killed by SIGSEGV" type="file">"#),
        "{x}"
    );
    assert!(x.contains("<system-err>oops</system-err>"), "{x}");
    assert!(x.contains(r#"<skipped message="not run"/>"#), "{x}");
    assert!(!x.contains('\u{1b}') && !x.contains('\u{7}'));
}

#[test]
fn a_flaky_file_keeps_its_failed_attempts() {
    let mut a = file("t/flaky.t", FileStatus::Pass);
    set_points(&mut a, vec![point("works", PointStatus::Pass)]);
    a.flaky = true;
    a.attempts = 2;
    a.earlier_attempts = vec![crate::report::record::AttemptView {
        attempt: 1,
        duration: Duration::from_millis(5),
        reasons: vec!["exited with code 1".into()],
        failures: Vec::new(),
        output_tail: vec!["first try".into()],
        log: None,
    }];
    let x = xml(&RunView {
        files: vec![a],
        ..RunView::default()
    });
    assert!(x.contains("<flakyFailure"), "{x}");
    assert!(
        x.contains(r#"message="attempt 1: exited with code 1" type="flaky""#),
        "{x}"
    );
}

#[test]
fn a_file_failing_every_attempt_keeps_them_as_rerun_failures_of_its_failing_case() {
    let mut a = file("t/broken.t", FileStatus::Fail);
    set_points(
        &mut a,
        vec![
            point("passes", PointStatus::Pass),
            point("breaks", PointStatus::Fail),
        ],
    );
    a.attempts = 2;
    a.earlier_attempts = vec![crate::report::record::AttemptView {
        attempt: 1,
        duration: Duration::from_millis(5),
        reasons: vec!["1 test point failed".into()],
        failures: Vec::new(),
        output_tail: Vec::new(),
        log: None,
    }];
    let x = xml(&RunView {
        files: vec![a],
        ..RunView::default()
    });
    assert!(!x.contains("<flakyFailure"), "{x}");
    let breaks = x.find(r#"name="breaks""#).expect("failing case");
    let rerun = x.find("<rerunFailure").expect("rerun kept");
    assert!(rerun > breaks, "the rerun belongs to the failing case: {x}");
    assert!(x.contains(r#"type="rerun""#), "{x}");
}

// ------------------------------------------- rendered as files end, equal to the whole

mod pieces {
    use super::super::*;
    use crate::event::run::{ExitInfo, FailureReason, FileInfo, FileResult, RunSummary, Tally};
    use crate::event::{Assert, Event, Verdict};
    use crate::report::record::Meta;
    use std::borrow::Cow;

    /// Builds a run's events by hand, as the scheduler sends them.
    struct Run {
        run: u64,
        events: Vec<RunEvent>,
        tallies: Vec<Tally>,
    }

    fn assert(ok: bool, name: &str) -> Assert<'static> {
        Assert::plain(ok, name)
    }

    impl Run {
        fn new(run: u64, files: usize) -> Self {
            let events = vec![RunEvent::RunStarted {
                run,
                files,
                jobs: 2,
                started_ms: Some(1_795_421_421_000),
                host: Some("ci".into()),
                cwd: Some("/p".into()),
                command: Some("tapline run".into()),
                test_filter: None,
            }];
            Run {
                run,
                events,
                tallies: vec![Tally::default(); files],
            }
        }

        fn info(file: usize, rel: &str, attempt: u32) -> FileInfo {
            FileInfo {
                index: file,
                rel: rel.to_owned(),
                command: format!("sh {rel}"),
                log: Some(format!("/p/.nogit/testlogs/{file}.{attempt}.log").into()),
                attempt,
                leaves: false,
            }
        }

        fn start(&mut self, file: usize, rel: &str, attempt: u32) -> &mut Self {
            self.tallies[file] = Tally::default();
            let file = Self::info(file, rel, attempt);
            self.events.push(RunEvent::FileStarted {
                run: self.run,
                file,
            });
            self
        }

        fn tap(&mut self, file: usize, event: Event<'static>) -> &mut Self {
            if let Event::Assert(a) = &event {
                if a.depth == 0 {
                    self.tallies[file].add(a);
                }
            }
            self.events.push(RunEvent::Tap {
                run: self.run,
                file,
                event,
            });
            self
        }

        fn point(&mut self, file: usize, a: Assert<'static>) -> &mut Self {
            self.tap(file, Event::Assert(a))
        }

        fn output(&mut self, file: usize, text: &str) -> &mut Self {
            let text = Cow::Owned(text.to_owned());
            self.tap(
                file,
                Event::Output {
                    depth: 0,
                    line: 0,
                    text,
                },
            )
        }

        fn stderr(&mut self, file: usize, text: &str) -> &mut Self {
            self.events.push(RunEvent::Stderr {
                run: self.run,
                file,
                text: text.to_owned(),
            });
            self
        }

        fn result(&self, file: usize, reasons: &[&str], ms: u64) -> FileResult {
            let tally = self.tallies[file];
            let ok = reasons.is_empty() && tally.fail == 0;
            FileResult {
                ok,
                reasons: reasons.iter().map(|r| FailureReason::from(*r)).collect(),
                exit: Some(ExitInfo {
                    code: Some(i32::from(!ok)),
                    signal: None,
                }),
                timed_out: false,
                cancelled: false,
                leaked: false,
                duration: Duration::from_millis(ms),
                tally,
                verdict: Verdict {
                    ok,
                    count: tally.total(),
                    pass: tally.pass,
                    fail: tally.fail,
                    todo: tally.todo,
                    skip: tally.skip,
                    plan: None,
                    bailout: None,
                    reasons: Vec::new(),
                },
                attempts: 1,
                flaky: false,
                cached: false,
                no_tests: false,
                tests: Default::default(),
            }
        }

        fn finish(&mut self, file: usize, reasons: &[&str], attempt: u32) -> &mut Self {
            let mut result = self.result(file, reasons, 7 + file as u64);
            result.attempts = attempt;
            result.flaky = attempt > 1 && result.ok;
            self.events.push(RunEvent::FileFinished {
                run: self.run,
                file,
                result: Box::new(result),
            });
            self
        }

        fn attempt_failed(&mut self, file: usize, attempt: u32) -> &mut Self {
            let result = self.result(file, &["exited with code 1"], 3);
            self.events.push(RunEvent::AttemptFailed {
                run: self.run,
                file,
                attempt,
                of: 3,
                result: Box::new(result),
            });
            self
        }

        fn not_run(&mut self, file: usize, rel: &str) -> &mut Self {
            let file = Self::info(file, rel, 1);
            self.events.push(RunEvent::FileNotRun {
                run: self.run,
                file,
            });
            self
        }

        fn end(&mut self, interrupted: bool) -> Vec<RunEvent> {
            let mut tests = Tally::default();
            self.tallies.iter().for_each(|t| tests.merge(t));
            self.events.push(RunEvent::RunFinished {
                run: self.run,
                summary: Box::new(RunSummary {
                    ok: tests.fail == 0,
                    files_total: self.tallies.len(),
                    tests,
                    duration: Duration::from_millis(1234),
                    interrupted,
                    ..RunSummary::default()
                }),
            });
            std::mem::take(&mut self.events)
        }
    }

    /// A run of every kind of file: hostile names and output, a diff, a subtest, SKIP
    /// and TODO, a flaky file, a file failing on every attempt, a crash, a file not run,
    /// and events arriving late for a file that had finished.
    fn every_kind(run: u64) -> Vec<RunEvent> {
        let mut r = Run::new(run, 8);
        let timed = |ok, name: &str, ms| Assert {
            duration_ms: Some(ms),
            ..assert(ok, name)
        };
        r.start(0, "t/<hostile> \"&\" 50%, a:b \u{FFFF}.t", 1)
            .output(0, "plain \u{1b}[31mred\u{1b}[0m \u{7}bell ]]> \u{FFFE}")
            .point(0, timed(true, "a <b> & \"c\" \u{1b}[1mbold\u{1b}[0m", 1.5))
            .point(0, assert(true, ""))
            .point(
                0,
                Assert {
                    skip: Some("no \u{FFFF} network".into()),
                    ..assert(true, "skipped")
                },
            )
            .point(
                0,
                Assert {
                    todo: Some(Cow::Borrowed("")),
                    ..assert(false, "todo")
                },
            )
            .point(
                0,
                Assert {
                    id: Some(9),
                    ..assert(true, "")
                },
            )
            .stderr(0, "warn: \u{1b}[33mcareful\u{1b}[0m")
            .finish(0, &[], 1);
        r.start(1, "t/diff.t", 1)
            .tap(
                1,
                Event::SubtestStart {
                    depth: 0,
                    line: 0,
                    name: "group".into(),
                    buffered: false,
                },
            )
            .output(1, "inner says hi")
            .point(
                1,
                Assert {
                    depth: 1,
                    ..assert(false, "inner")
                },
            )
            .point(
                1,
                Assert {
                    closes_subtest: true,
                    ..assert(false, "group")
                },
            )
            .point(
                1,
                Assert {
                    diagnostics: Some(
                        "message: differs\nwanted: 1\nfound: 2\nat: t/diff.t:3\n".into(),
                    ),
                    ..assert(false, "compares")
                },
            )
            .finish(1, &["2 failed"], 1);
        r.start(2, "t/flaky.t", 1)
            .point(2, assert(false, "coin"))
            .attempt_failed(2, 1)
            .start(2, "t/flaky.t", 2)
            .point(2, assert(false, "coin"))
            .attempt_failed(2, 2)
            .start(2, "t/flaky.t", 3)
            .point(2, assert(true, "coin"))
            .finish(2, &[], 3);
        r.start(3, "t/broken.t", 1)
            .point(3, assert(false, "never"))
            .attempt_failed(3, 1)
            .start(3, "t/broken.t", 2)
            .point(3, assert(false, "never"))
            .finish(3, &["1 failed"], 2);
        r.start(4, "t/crash.t", 1)
            .stderr(4, "Segmentation fault")
            .finish(4, &["killed by SIGSEGV"], 1);
        // A file whose events come after its end: its suite is rendered again.
        r.start(5, "t/late.t", 1)
            .point(5, assert(true, "first"))
            .finish(5, &[], 1)
            .point(5, assert(true, "late point"));
        // Started, never finished (the run was stopped).
        r.start(6, "t/stopped.t", 1).point(6, assert(true, "begun"));
        r.not_run(7, "t/never.t");
        r.end(true)
    }

    /// The whole document and the one written in pieces, after `events`.
    fn both(events: &[RunEvent]) -> (String, String) {
        let mut record = Collector::new(Meta::default());
        let mut suites = Suites::default();
        for ev in events {
            record.on(ev);
            suites.on(ev, &record);
        }
        let mut whole = Vec::new();
        write_whole(&mut whole, record.view()).unwrap();
        let mut pieces = Vec::new();
        suites.write(&mut pieces, &record).unwrap();
        let text = |b: Vec<u8>| String::from_utf8(b).unwrap();
        let (whole, pieces) = (text(whole), text(pieces));
        assert_eq!(super::xml(record.view()), whole, "write() differs");
        // With the plain cases spooled as they arrive (as a run with `-o r.xml` has it).
        let mut spooled = Collector::new(Meta::default()).with_spool();
        let mut suites = Suites::default();
        for ev in events {
            spooled.on(ev);
            suites.on(ev, &spooled);
        }
        let mut from_spool = Vec::new();
        suites.write(&mut from_spool, &spooled).unwrap();
        assert_eq!(text(from_spool), whole, "the spooled document differs");
        (whole, pieces)
    }

    #[test]
    fn pieces_are_the_whole_document_byte_for_byte() {
        let (whole, pieces) = both(&every_kind(1));
        assert!(whole.contains("<flakyFailure"), "{whole}");
        assert!(whole.contains("<rerunFailure"), "{whole}");
        assert!(whole.contains(r#"<skipped message="not run"/>"#), "{whole}");
        assert!(whole.contains("late point"), "{whole}");
        assert!(whole.contains("\u{FFFD}"), "{whole}");
        assert_eq!(whole.matches("<testsuite ").count(), 8, "{whole}");
        assert_eq!(pieces, whole);
    }

    #[test]
    fn a_run_without_files_and_a_series_are_the_whole_document_too() {
        let (whole, pieces) = both(&Run::new(1, 0).end(false));
        assert!(whole.contains("<testsuites"), "{whole}");
        assert_eq!(pieces, whole);
        let mut series = vec![RunEvent::SeriesStarted { runs: 2 }];
        series.extend(every_kind(1));
        let mut second = Run::new(2, 1);
        second
            .start(0, "t/one.t", 1)
            .point(0, assert(true, "fine"))
            .finish(0, &[], 1);
        series.extend(second.end(false));
        series.push(RunEvent::SeriesFinished {
            stability: Default::default(),
        });
        let (whole, pieces) = both(&series);
        assert_eq!(
            whole.matches("<testsuite ").count(),
            1,
            "the last run's: {whole}"
        );
        assert_eq!(pieces, whole);
        // Watch mode: the next run starts afresh.
        let mut events = every_kind(1);
        events.extend(every_kind(2)[..6].iter().cloned());
        let mut third = Run::new(3, 1);
        third
            .start(0, "t/x.t", 1)
            .point(0, assert(false, "x"))
            .finish(0, &[], 1);
        events.extend(third.end(false));
        let (whole, pieces) = both(&events);
        assert_eq!(whole.matches("<testsuite ").count(), 1, "{whole}");
        assert_eq!(pieces, whole);
    }

    #[test]
    fn a_file_is_rendered_when_it_ends_and_again_only_if_it_changed() {
        let events = every_kind(1);
        let mut record = Collector::new(Meta::default());
        let mut suites = Suites::default();
        let rendered = |s: &Suites| s.done.ready();
        for ev in &events {
            record.on(ev);
            suites.on(ev, &record);
            if let RunEvent::FileFinished { file: 2, .. } = ev {
                // Files 0, 1 and 2 are ready before the run ends; retries did not count.
                assert_eq!(rendered(&suites), [0, 1, 2]);
            }
        }
        // File 5 changed after its end; 6 never ended; 7 never ran.
        assert_eq!(rendered(&suites), [0, 1, 2, 3, 4]);
    }
}

#[test]
fn plain_cases_are_spliced_between_the_others_as_quick_junit_writes_them() {
    let mut a = file("t/a <&'\"> \u{1b}[1mb.t", FileStatus::Fail);
    let mut todo = point("later <&'\">", PointStatus::Todo);
    todo.reason = Some("not yet & \"soon\"".into());
    let mut skip = point("skipped", PointStatus::Skip);
    skip.reason = Some("no \u{1b}[31mnetwork".into());
    let mut unnamed = point("", PointStatus::Pass);
    unnamed.id = Some(7);
    unnamed.duration_ms = None;
    set_points(
        &mut a,
        vec![
            point("first", PointStatus::Pass),
            point("second 'quoted' & <tagged>", PointStatus::Pass),
            point("fails", PointStatus::Fail),
            todo,
            skip,
            point("caf\u{e9}", PointStatus::Pass),
            unnamed,
            point("last", PointStatus::Pass),
        ],
    );
    a.stdout = vec!["printed".into()];
    let run = RunView {
        files: vec![a, file("t/empty.t", FileStatus::Pass)],
        ..RunView::default()
    };
    let fast = xml(&run);
    assert_eq!(fast, whole_xml(&run));
    assert!(
        fast.contains(r#"name="second &apos;quoted&apos; &amp; &lt;tagged&gt;""#),
        "{fast}"
    );
    assert!(
        fast.contains(r##"<testcase name="#7" classname="##),
        "{fast}"
    );
    assert!(!fast.contains('\u{FFFF}'), "no marker is left: {fast}");
}

#[test]
fn a_suite_without_the_markers_of_its_runs_is_not_spliced() {
    let mut runs = plain::Runs::default();
    runs.begin("t");
    let case = plain::Plain {
        time: None,
        skipped: None,
    };
    assert!(runs.push("a", "f > a", &case).is_some());
    assert!(
        runs.push("b", "f > b", &case).is_none(),
        "one marker per run"
    );
    let mut out = Vec::new();
    assert!(!runs.splice(b"\n    <testsuite/>", &mut out));
    assert!(!plain::is_plain("caf\u{e9}") && !plain::is_plain("a\tb") && plain::is_plain("a ~"));
}

mod generated {
    use super::*;
    use proptest::prelude::*;

    /// Names and messages mixing printable ASCII with all that needs cleaning or escaping.
    fn text() -> impl Strategy<Value = String> {
        let piece = prop_oneof![
            6 => "[a-z0-9 ]{1,8}",
            2 => Just("<&'\">".to_owned()),
            1 => Just("\u{1b}[31m".to_owned()),
            1 => Just("\u{7}\t\r".to_owned()),
            1 => Just("\u{FFFF}\u{FFFE}".to_owned()),
            1 => Just("\u{9b}\u{e9}\u{1F600}".to_owned()),
            1 => Just("\u{7f}~".to_owned()),
        ];
        prop::collection::vec(piece, 0..4).prop_map(|p| p.concat())
    }

    fn a_point() -> impl Strategy<Value = PointView> {
        let status = prop_oneof![
            6 => Just(PointStatus::Pass),
            1 => Just(PointStatus::Fail),
            2 => Just(PointStatus::Skip),
            1 => Just(PointStatus::Todo),
        ];
        let duration = prop_oneof![
            Just(None),
            (0.0f64..5000.0).prop_map(Some),
            Just(Some(-1.0)),
            Just(Some(f64::NAN)),
            Just(Some(f64::INFINITY)),
        ];
        (
            text(),
            status,
            prop::option::of(text()),
            duration,
            prop::option::of(1u64..100),
        )
            .prop_map(|(name, status, reason, duration_ms, id)| PointView {
                id,
                name,
                status,
                reason,
                duration_ms,
            })
    }

    fn a_file() -> impl Strategy<Value = FileView> {
        let status = prop_oneof![
            Just(FileStatus::Pass),
            Just(FileStatus::Fail),
            Just(FileStatus::NotRun),
        ];
        (
            text(),
            status,
            prop::collection::vec(a_point(), 0..12),
            any::<bool>(),
        )
            .prop_map(|(rel, status, points, retried)| {
                let mut f = file(&rel, status);
                f.failures = points
                    .iter()
                    .enumerate()
                    .filter(|(_, p)| p.status == PointStatus::Fail)
                    .map(|(point, p)| FailureView {
                        point,
                        name: p.name.clone(),
                        message: Some("differs".into()),
                        ..FailureView::default()
                    })
                    .collect();
                set_points(&mut f, points);
                if retried {
                    f.attempts = 2;
                    f.flaky = status == FileStatus::Pass;
                    f.earlier_attempts = vec![crate::report::record::AttemptView {
                        attempt: 1,
                        duration: Duration::from_millis(3),
                        reasons: vec!["exited with code 1".into()],
                        failures: Vec::new(),
                        output_tail: Vec::new(),
                        log: None,
                    }];
                }
                f
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 500, ..ProptestConfig::default() })]

        #[test]
        fn every_document_is_what_quick_junit_writes_alone(
            files in prop::collection::vec(a_file(), 0..4)
        ) {
            let run = RunView { files, ..RunView::default() };
            prop_assert_eq!(xml(&run), whole_xml(&run));
        }
    }
}

/// A run of one file whose one failing point has `message` and printed `output`, with a
/// passing point after it (a plain case, so a marker of `plain.rs` shares the suite).
fn failing_with(message: &str, output: Vec<String>) -> RunView {
    let mut f = file("t/a.t", FileStatus::Fail);
    set_points(
        &mut f,
        vec![
            point("fails", PointStatus::Fail),
            point("passes", PointStatus::Pass),
        ],
    );
    f.failures = vec![FailureView {
        point: 0,
        name: "fails".into(),
        message: Some(message.into()),
        location: Some("t/a.t:3".into()),
        output,
        ..FailureView::default()
    }];
    RunView {
        files: vec![f],
        ..RunView::default()
    }
}

/// The message and the text an XML reader gets from the one `<failure>` of `doc`, which
/// parses to its end.
fn failure_read_back(doc: &str) -> (String, String) {
    let mut reader = quick_xml::Reader::from_str(doc);
    while !matches!(
        reader.read_event().expect("well-formed"),
        quick_xml::events::Event::Eof
    ) {}
    let unescape = |s: &str| {
        quick_xml::escape::unescape(s)
            .expect("references")
            .into_owned()
    };
    let start = doc.find("<failure message=\"").expect("a failure") + "<failure message=\"".len();
    let quote = start + doc[start..].find('"').expect("the message's end");
    let end = doc.find("</failure>").expect("its end");
    (unescape(&doc[start..quote]), unescape(&doc[quote + 2..end]))
}

#[test]
fn a_failure_keeps_every_character_its_test_printed() {
    let run = failing_with(
        "wanted\tone tab \u{1b}[31mred\u{1b}[0m",
        vec![
            "\tindented".into(),
            "cr\rhere, C1 \u{9b}, DEL \u{7f}, NUL \u{0}, \u{FFFF} \u{FFFE}".into(),
        ],
    );
    let doc = xml(&run);
    assert_eq!(doc, whole_xml(&run));
    assert!(
        doc.contains(r#"<failure message="wanted&#9;one tab \u{1b}[31mred\u{1b}[0m">"#),
        "{doc}"
    );
    let (message, body) = failure_read_back(&doc);
    assert_eq!(message, "wanted\tone tab \\u{1b}[31mred\\u{1b}[0m");
    assert_eq!(
        body,
        "wanted\tone tab \\u{1b}[31mred\\u{1b}[0m\n\nat t/a.t:3\n\n\tindented\n\
         cr\rhere, C1 \\u{9b}, DEL \\u{7f}, NUL \\u{0}, \\u{ffff} \\u{fffe}"
    );
    // The passing case is still written by `plain.rs`, its marker not taken for a kept tab.
    assert!(
        doc.contains(r#"<testcase name="passes" classname="t/a.t""#),
        "{doc}"
    );
}

#[test]
fn a_failure_reads_message_diff_location_then_output_with_no_heading() {
    let run = failing_with("boom\nsecond line", vec!["printed".into(), String::new()]);
    let mut f = run.files[0].failures[0].clone();
    f.stack = Some("at f (t/a.t:3:1)\n\nat g (t/a.t:9:1)\n".into());
    assert_eq!(
        explain(&f, false),
        "boom\nsecond line\n\nat t/a.t:3\nat f (t/a.t:3:1)\nat g (t/a.t:9:1)\n\nprinted\n"
    );
    assert_eq!(
        explain(&f, true),
        "fails:\nboom\nsecond line\n\nat t/a.t:3\nat f (t/a.t:3:1)\nat g (t/a.t:9:1)\n\nprinted\n"
    );
}

/// A failure's JUnit text when it has only a diff: the diff's lines.
fn diff_text(expected: &serde_json::Value, actual: &serde_json::Value) -> String {
    let (_, failure) = lossless::failing_file(lossless::highlighted(expected, actual));
    explain(&failure, false)
}

fn reference_text(expected: &serde_json::Value, actual: &serde_json::Value) -> String {
    let plain = lossless::reference(expected, actual);
    plain.strip_suffix('\n').unwrap_or(&plain).to_owned()
}

#[test]
fn the_real_cases_keep_every_character_of_their_diff() {
    for case in lossless::cases() {
        let text = diff_text(&case.expected, &case.actual);
        assert_eq!(
            text,
            reference_text(&case.expected, &case.actual),
            "{}",
            case.name
        );
        let lines: Vec<&str> = text.lines().collect();
        assert!(
            lines.contains(&case.minus) && lines.contains(&case.plus),
            "{}: {text}",
            case.name
        );
        // And so in the document CI reads.
        let (file, _) = lossless::failing_file(lossless::highlighted(&case.expected, &case.actual));
        let run = RunView {
            files: vec![file],
            ..RunView::default()
        };
        let document = xml(&run);
        let unescaped = quick_xml::escape::unescape(&document).expect("well-formed references");
        assert!(unescaped.contains(&text), "{}: {document}", case.name);
    }
}

proptest! {
    #![proptest_config(lossless::config())]

    #[test]
    fn diff_text_drops_and_invents_nothing((expected, actual) in lossless::value_pair()) {
        prop_assert_eq!(diff_text(&expected, &actual), reference_text(&expected, &actual));
    }
}

#[test]
fn a_files_streams_keep_their_tabs_as_a_failures_body_does() {
    let mut run = failing_with("boom", vec![]);
    run.files[0].stdout = vec!["col\tumn".into(), "\tindented \u{1b}[1mbold".into()];
    run.files[0].stderr = vec!["warn\there".into()];
    let doc = xml(&run);
    assert_eq!(doc, whole_xml(&run));
    assert!(
        doc.contains("<system-out>col\tumn\n\tindented \\u{1b}[1mbold</system-out>"),
        "{doc}"
    );
    assert!(doc.contains("<system-err>warn\there</system-err>"), "{doc}");
}
