//! One test file's life: spawn it supervised, archive every byte it writes, parse its stdout
//! into TAP events (or the `go-json` event stream / JUnit output its format names, or the
//! JUnit reports a `[[suite]]` leaves), and judge it by its stream and its process together.
use super::discover::{Host, Input, Silent};
pub(super) use super::feed::Feed;
use super::not_selected::LeftOut;
use super::runners::Streams;
use crate::event::collect::Collect;
use crate::event::run::{ExitInfo, FailureReason, FileInfo, FileResult, RunEvent};
use crate::event::Verdict;
use crate::protocol::{AnyParser, InputFormat};
use crate::supervise::limits::{self, AllocationWatch, Evidence, Limits};
use crate::supervise::sandbox::Sandbox;
use crate::supervise::{self, Cancel, Chunk, Exit, Outcome, Spec};
use std::ffi::OsString;
use std::fs::File;
use std::io::Write;
use std::path::PathBuf;
use std::time::{Duration, Instant};
use tokio::sync::{mpsc, watch};

/// Everything a file task needs, decided by the scheduler.
pub(crate) struct FileJob {
    pub run: u64,
    pub info: FileInfo,
    /// Program and arguments, or why it cannot start (a missing interpreter).
    pub command: Result<Vec<OsString>, String>,
    pub cwd: PathBuf,
    /// Set after `TAPLINE=1`.
    pub env: Vec<(OsString, OsString)>,
    pub timeout: Option<Duration>,
    pub grace: Duration,
    /// How its stdout and stderr are read: apart, or both parsed as TAP, from one pipe or two.
    pub streams: Streams,
    pub log: Option<File>,
    pub limits: Limits,
    /// `--sandbox`: the command runs inside bubblewrap.
    pub sandbox: Option<std::sync::Arc<Sandbox>>,
    /// The output's format and a suite's reports; `cwd` above already holds its place.
    pub input: Input,
    /// Where this file's trace is recorded, if it can be.
    pub trace: Option<super::trace::FileTrace>,
    /// Where the trace is stored after the task ends, when it may be ([`super::trace::Later`]).
    pub trace_later: Option<super::trace::Later>,
    /// Its line coverage (`--coverage`).
    pub coverage: Option<super::coverage::FileCoverage>,
    /// The run's page host, for a file that runs as a page.
    pub pages: crate::harness::registry::Pages,
}

pub(crate) async fn run_file(
    job: FileJob,
    tx: mpsc::Sender<Vec<RunEvent>>,
    cancel: watch::Receiver<Option<Cancel>>,
) -> FileResult {
    let run = job.run;
    let file = job.info.index;
    let started = Instant::now();
    let started_at = std::time::SystemTime::now();
    if let Some(why) = &job.input.skip {
        return skipped(why, run, file, &tx, started).await;
    }
    let spec = match spec_of(&job) {
        Ok(spec) => spec,
        Err(why) => return not_started(why, started),
    };
    // Only a memory limit needs the runtime's words; without one, nothing is scanned.
    let mut allocation = job.limits.memory.map(|_| AllocationWatch::default());
    let (chunk_tx, mut chunk_rx) = mpsc::channel::<Chunk>(64);
    let child = match job.input.host {
        Host::Page => {
            allocation = None;
            let coverage = job.coverage.as_ref().and_then(|c| c.page_out());
            let pages = job.pages.clone();
            tokio::spawn(in_page(spec, pages, coverage, chunk_tx, cancel))
        }
        _ => tokio::spawn(async move {
            let outcome = supervise::run(spec, chunk_tx, cancel).await;
            (outcome.map_err(|e| e.to_string()), Vec::new())
        }),
    };

    let parser = parser_of(&job.input).named(&job.info.rel);
    let mut feed = Feed::new(run, file, &tx, job.streams, parser);
    let mut log = job.log;
    let mut log_error = None;
    while let Some(chunk) = chunk_rx.recv().await {
        if let Some(f) = log.as_mut() {
            // Unbuffered on purpose: the log must hold what arrived even if tapline dies.
            if let Err(e) = f.write_all(chunk.bytes()) {
                log_error = Some(format!("failed to write the log: {e}"));
                log = None;
            }
        }
        if let Some(watch) = allocation.as_mut() {
            watch.feed(chunk.bytes());
        }
        feed.chunk(&chunk).await;
    }
    let (mut parser, late) = feed.finish().await;
    let (outcome, page_reasons) = match child.await {
        Ok(ended) => ended,
        Err(e) => (
            Err(format!("failed to supervise the child: {e}")),
            Vec::new(),
        ),
    };
    let broken = match &outcome {
        Ok(_) if !page_reasons.is_empty() => page_reasons,
        Ok(o) => limits::broken(&job.limits, &evidence(o, allocation.and_then(|w| w.found))),
        Err(_) => Vec::new(),
    };
    if let Ok(o) = &outcome {
        // The verdict of a file judged by its exit status (other formats take no notice).
        parser.ended(ended(o));
    }
    if let Some(glob) = &job.input.report {
        // The reports are complete once the command has ended.
        read_reports(&mut parser, &job.cwd, glob, started_at);
    }
    let mut collected = parser.finish();
    let mut events: Vec<RunEvent> = (collected.events.drain(..))
        .map(|event| RunEvent::Tap { run, file, event })
        .collect();
    events.extend(late);
    if !events.is_empty() {
        let _ = tx.send(events).await;
    }
    let mut result = judge(&mut collected, outcome, job.timeout, started, broken);
    if job.input.format == InputFormat::Tap {
        judge_silent(&mut result, job.input.silent);
    }
    if let Some(e) = log_error {
        result.reasons.push(FailureReason::Other(e));
    }
    if let Some(coverage) = job.coverage {
        let cwd = job.cwd.clone();
        if let Some(coverage) = coverage.finish(!result.cancelled, cwd).await {
            let coverage = std::sync::Arc::new(coverage);
            let _ = tx
                .send(vec![RunEvent::Coverage {
                    run,
                    file: job.info.index,
                    coverage,
                }])
                .await;
        }
    }
    if let Some(trace) = job.trace {
        // A cancelled file was stopped half-way: what it loaded so far says little, and the
        // run that restarts it records it whole.
        match job.input.host {
            Host::Page => {
                let loaded = job.pages.loaded(&job.info.rel).await;
                trace.finish_loaded(!result.cancelled, loaded);
            }
            _ => {
                let later = job.trace_later.as_ref();
                trace.finish_or_later(!result.cancelled, later).await;
            }
        }
    }
    result
}

/// What to start for the file: its command (wrapped by the sandbox), environment and limits;
/// why it cannot start otherwise.
fn spec_of(job: &FileJob) -> Result<Spec, String> {
    let (argv, init_env) = with_init(job, job.command.clone()?)?;
    let argv = match &job.coverage {
        Some(coverage) => coverage.adapt(argv),
        None => argv,
    };
    let argv = match &job.sandbox {
        // A page runs in the run's one browser, not in a process of its own (docs/browser.md:
        // why --sandbox does not wrap the browser).
        Some(sandbox) if !argv.is_empty() && job.input.host != Host::Page => {
            // A suite's command writes its JUnit reports: their folder stays writable.
            let reports = match job.input.report.as_deref().map(|g| report_dir(&job.cwd, g)) {
                Some(Err(why)) => return Err(why),
                Some(Ok(dir)) => vec![dir],
                None => Vec::new(),
            };
            // A harness's plugin lives in the temp folder, which the sandbox replaces.
            let plugin = match harness_of(&job.input) {
                Some(harness) => harness.sandbox_reads()?,
                None => Vec::new(),
            };
            sandbox.wrap_with(&argv, &job.cwd, &reports, &plugin)
        }
        _ => argv,
    };
    let Some((program, args)) = argv.split_first() else {
        return Err("empty command".to_owned());
    };
    let trace_env = job.trace.as_ref().map(|t| t.env()).unwrap_or_default();
    // What its harness sets (a plugin's folder first on the interpreter's path).
    let harness_vars = match harness_of(&job.input) {
        Some(harness) => harness.env(&job.env)?,
        None => Vec::new(),
    };
    let coverage_env = job.coverage.as_ref().map(|c| c.env()).unwrap_or_default();
    // What a harness sets for any file it would run, before the user's `--env`, which wins.
    let harness_env = match &job.command {
        Ok(command) => crate::harness::registry::file_env(command, &job.info.rel),
        Err(_) => Vec::new(),
    };
    Ok(Spec {
        program: program.clone(),
        args: args.to_vec(),
        cwd: job.cwd.clone(),
        env: std::iter::once(("TAPLINE".into(), "1".into()))
            .chain(harness_env)
            .chain(job.env.iter().cloned())
            .chain(trace_env)
            .chain(init_env)
            .chain(harness_vars)
            .chain(coverage_env)
            .collect(),
        timeout: job.timeout,
        grace: job.grace,
        leak_wait: supervise::DEFAULT_LEAK_WAIT,
        rlimits: job.limits.rlimits(),
        max_output: job.limits.output,
        merged: job.streams == Streams::OnePipe,
        stdin: None,
    })
}

/// The harness that runs a file, when a built-in rule mapped it.
fn harness_of(input: &Input) -> Option<&'static dyn crate::harness::Harness> {
    input.harness.and_then(crate::harness::registry::harness)
}

/// `argv` loading the folder's init module first, and the variables that name it, for a file
/// whose folder has one, as the harness that loads it does
/// ([`crate::harness::Harness::preload`]).
fn with_init(job: &FileJob, argv: Vec<OsString>) -> Result<crate::harness::Preloaded, String> {
    let Some(init) = job.input.init.as_deref() else {
        return Ok((argv, Vec::new()));
    };
    if job.input.host == Host::Page {
        // The page host bundles it ahead of the file instead.
        return Ok((argv, Vec::new()));
    }
    let shown = crate::util::paths::relative(init, &job.cwd);
    let inline = job.sandbox.is_some();
    crate::harness::registry::preload(argv, init, &shown, inline)
}

/// The parser for what the file prints: TAP, another format tapline reads, or a suite's
/// JUnit reports (read once the command ends).
pub(super) fn parser_of(input: &Input) -> AnyParser<Collect> {
    let collect = match input.format {
        InputFormat::Tap => {
            let mut collect = match (&input.selection, &input.refilter) {
                (Some(selection), _) => Collect::marked(Box::new(selection.marking())),
                (None, Some(refilter)) => match refilter.left_out() {
                    Some(reason) => Collect::marked(Box::new(LeftOut(reason))),
                    None => Collect::default(),
                },
                (None, None) => Collect::default(),
            };
            if input.counting == crate::harness::api::Counting::Asserts {
                collect.count_asserts();
            }
            collect
        }
        _ => Collect::counting_tests(),
    };
    match input.report {
        Some(_) => AnyParser::for_junit_reports(collect),
        None => AnyParser::new(collect, Some(input.format))
            .go_package_dirs(input.go_packages.clone())
            .tests_listed_by(crate::harness::registry::crash_lister(input.format)),
    }
}

/// A file's page in the run's browser ([`crate::harness::registry::Pages`]), as a child would run:
/// its console as chunks, its end as an outcome (exit 0, or 1 with the page's reasons, which
/// the verdict names instead of the exit).
async fn in_page(
    spec: Spec,
    pages: crate::harness::registry::Pages,
    coverage: Option<PathBuf>,
    chunks: mpsc::Sender<Chunk>,
    cancel: watch::Receiver<Option<Cancel>>,
) -> (Result<Outcome, String>, Vec<String>) {
    let started = Instant::now();
    // The command is `<browser> <switches…> <file>`, as --list shows it.
    let file = spec.args.last().cloned().unwrap_or_default();
    let job = crate::harness::registry::PageJob {
        binary: spec.program.into(),
        file: file.into(),
        root: super::config::find_project_root(&spec.cwd),
        cwd: spec.cwd,
        timeout: spec.timeout,
        grace: spec.grace,
        max_output: spec.max_output,
        coverage,
    };
    let mut end = pages.run(job, chunks, cancel).await;
    if end.output_exceeded {
        let limits = Limits {
            output: spec.max_output,
            ..Limits::default()
        };
        let evidence = Evidence {
            signal: None,
            failed: true,
            cpu_time: None,
            output_exceeded: true,
            allocation_failure: None,
        };
        end.reasons.splice(0..0, limits::broken(&limits, &evidence));
    }
    let outcome = Outcome {
        exit: Exit::Code(i32::from(!end.reasons.is_empty())),
        timed_out: end.timed_out,
        cancelled: end.cancelled,
        leaked: false,
        duration: started.elapsed(),
        output_exceeded: end.output_exceeded,
        cpu_time: None,
    };
    (Ok(outcome), end.reasons)
}

/// The folder a suite's report glob writes into (its part before the first wildcard), created
/// so that the sandbox can keep it writable.
fn report_dir(cwd: &std::path::Path, glob: &str) -> Result<PathBuf, String> {
    let literal: PathBuf = std::path::Path::new(glob)
        .parent()
        .into_iter()
        .flat_map(|p| p.components())
        .take_while(|c| {
            !c.as_os_str()
                .to_string_lossy()
                .contains(['*', '?', '[', '{'])
        })
        .collect();
    let dir = cwd.join(literal);
    std::fs::create_dir_all(&dir)
        .map(|()| dir.clone())
        .map_err(|e| format!("failed to create the report folder {}: {e}", dir.display()))
}

/// Reads the JUnit reports a suite's command left; none (or only older ones) is a failure.
fn read_reports(
    parser: &mut AnyParser<Collect>,
    dir: &std::path::Path,
    glob: &str,
    since: std::time::SystemTime,
) {
    // File systems with coarse timestamps round a report written just now down.
    let since = since.checked_sub(Duration::from_secs(1)).unwrap_or(since);
    let (files, stale) = match super::suite::reports(dir, glob, since) {
        Ok(found) => found,
        Err(e) => return parser.report_problem(e),
    };
    if files.is_empty() {
        let older = if stale > 0 {
            format!(" ({stale} older, from an earlier run, not read)")
        } else {
            String::new()
        };
        return parser.report_problem(format!(
            "no JUnit report matches `{glob}` after the command ended{older}"
        ));
    }
    for path in files {
        let name = path
            .strip_prefix(dir)
            .unwrap_or(&path)
            .display()
            .to_string();
        match std::fs::read(&path) {
            Ok(bytes) => parser.add_junit_document(&name, &bytes),
            Err(e) => parser.report_problem(format!("failed to read the report {name}: {e}")),
        }
    }
}

/// An entry that does not run (an optional suite without its program): a skipped stream.
async fn skipped(
    why: &str,
    run: u64,
    file: usize,
    tx: &mpsc::Sender<Vec<RunEvent>>,
    started: Instant,
) -> FileResult {
    let mut parser = AnyParser::new(Collect::default(), Some(InputFormat::Tap));
    parser.feed(format!("1..0 # {}\n", why.replace('\n', " ")).as_bytes());
    let mut collected = parser.finish();
    let events = (collected.events.drain(..))
        .map(|event| RunEvent::Tap { run, file, event })
        .collect();
    let _ = tx.send(events).await;
    let outcome = Outcome::ended(Exit::Code(0), started.elapsed());
    let mut r = judge(&mut collected, Ok(outcome), None, started, Vec::new());
    r.exit = None;
    r
}

pub(super) fn not_started(why: String, started: Instant) -> FileResult {
    FileResult::failed(vec![FailureReason::Other(why)], started.elapsed())
}

/// What the child's end says about the limits it may have broken.
fn evidence(o: &Outcome, allocation_failure: Option<&'static str>) -> Evidence {
    let signal = match o.exit {
        Exit::Signal(n) => Some(n),
        // A shell, or bubblewrap, reports its child's death by signal N as exit 128 + N.
        Exit::Code(code) if (129..=128 + 64).contains(&code) => Some(code - 128),
        Exit::Code(_) => None,
    };
    Evidence {
        signal,
        failed: !o.exit.success(),
        cpu_time: o.cpu_time,
        output_exceeded: o.output_exceeded,
        allocation_failure,
    }
}

/// The file's verdict: its stream's and its process's. Every reason it failed is named; a
/// limit it broke (`broken`) is named instead of the bare exit it caused.
pub(super) fn judge(
    c: &mut Collect,
    outcome: Result<Outcome, String>,
    timeout: Option<Duration>,
    started: Instant,
    broken: Vec<String>,
) -> FileResult {
    let verdict = c.verdict.clone().unwrap_or_else(Verdict::none);
    let outcome = match outcome {
        Ok(o) => o,
        Err(why) => {
            let mut r = not_started(why, started);
            r.verdict = verdict;
            return r;
        }
    };
    let mut reasons = Vec::new();
    if !broken.is_empty() {
        // A browser page's own words (`interrupted`) come typed again.
        reasons.extend(broken.into_iter().map(FailureReason::from));
    } else if outcome.timed_out {
        let after = timeout.map(limits::humane).unwrap_or_default();
        reasons.push(FailureReason::Timeout { after });
    } else if outcome.cancelled {
        reasons.push(FailureReason::Interrupted);
    } else if !outcome.exit.success() && !forgiven(c, outcome.exit) {
        reasons.push(exit_reason(outcome.exit));
    }
    // A process that died (or was killed) in a test names it, beside how it ended.
    if !reasons.is_empty() {
        reasons.extend(c.running().map(|test| FailureReason::Running { test }));
    }
    reasons.extend(plan_shortfall(&verdict));
    // The stream's reasons, `no TAP output` among them (one rule, in the protocol).
    reasons.extend(verdict.reasons.iter().map(|r| FailureReason::of_stream(r)));
    if !verdict.ok && reasons.is_empty() {
        // The parser names every failing verdict's reasons (tests/integration/
        // verdict_invariant.rs); should one ever come without, the file still says why.
        reasons.push(FailureReason::StreamFailed);
    }
    let ok = reasons.is_empty();
    if outcome.leaked {
        reasons.push(FailureReason::Leaked);
    }
    let exit = match outcome.exit {
        Exit::Code(code) => ExitInfo {
            code: Some(code),
            signal: None,
        },
        Exit::Signal(sig) => ExitInfo {
            code: None,
            signal: Some(sig),
        },
    };
    FileResult {
        ok,
        exit: Some(exit),
        timed_out: outcome.timed_out,
        cancelled: outcome.cancelled,
        leaked: outcome.leaked,
        tally: c.tally,
        verdict,
        tests: c.names.take(),
        ..FileResult::failed(reasons, outcome.duration)
    }
}

/// Whether `exit` is the framework's own for failed tests that `-t` did not select
/// ([`super::not_selected::Marking::forgives`]).
fn forgiven(c: &Collect, exit: Exit) -> bool {
    match exit {
        Exit::Code(code) => c.forgives(code),
        Exit::Signal(_) => false,
    }
}

/// How a child ended, as an `exit-status` file's verdict says it.
fn ended(o: &Outcome) -> crate::protocol::result::Ended {
    let ok = o.exit.success() && !o.timed_out && !o.cancelled;
    let how = if o.timed_out {
        "timed out".to_owned()
    } else if o.cancelled {
        "interrupted".to_owned()
    } else {
        exit_reason(o.exit).to_string()
    };
    crate::protocol::result::Ended { ok, how }
}

/// A failing stream that ran fewer or more points than it planned: `planned 4, ran 2`, as
/// TAP's own harnesses say it. The parser checks the plan's count only of a stream with no
/// failure; a file that died after a failure still did not run what it planned.
fn plan_shortfall(verdict: &Verdict<'_>) -> Option<FailureReason> {
    let plan = verdict.plan.as_ref()?;
    if verdict.ok || plan.skip_all || verdict.bailout.is_some() {
        return None;
    }
    let planned = (plan.end + 1).saturating_sub(plan.start);
    let said = verdict.reasons.iter().any(|r| r.contains("planned "));
    (planned != verdict.count && !said)
        .then(|| FailureReason::of_stream(&format!("planned {planned}, ran {}", verdict.count)))
}

/// How a child that did not succeed ended, as a reason.
fn exit_reason(exit: Exit) -> FailureReason {
    match exit {
        Exit::Code(code) => FailureReason::Exit { code },
        Exit::Signal(signal) => FailureReason::Signal {
            signal,
            name: exit.signal_name(),
        },
    }
}

/// A file that printed no TAP, judged as its own harness judges it ([`Silent`], which each
/// room gives its files): [`Silent::NoSubtests`] fails it as `No subtests run`, as a harness
/// that words it so does; [`Silent::NoTests`] counts a file that exits 0 as a file with no
/// tests, not a failure (`no_tests`, kept out of the passed files), as a harness that runs
/// files with no tests does; [`Silent::Fails`] leaves `no TAP output` (a room may add a hint
/// of its own). Any other reason it failed (an exit code, a timeout) stands.
pub(super) fn judge_silent(r: &mut FileResult, silent: Silent) {
    let no_tap = |x: &FailureReason| *x == FailureReason::NoTapOutput;
    let Some(at) = r.reasons.iter().position(no_tap) else {
        return;
    };
    match silent {
        Silent::Fails => {}
        Silent::NoSubtests => r.reasons[at] = FailureReason::NoSubtestsRun,
        Silent::NoTests => {
            let exited_0 = r.exit.is_some_and(|e| e.code == Some(0));
            let only = r
                .reasons
                .iter()
                .all(|x| no_tap(x) || *x == FailureReason::Leaked);
            if exited_0 && only && !r.timed_out && !r.cancelled {
                r.reasons.remove(at);
                r.ok = true;
                r.no_tests = true;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn judged(bytes: &[u8], exit: Exit) -> FileResult {
        let mut parser = AnyParser::new(Collect::default(), Some(InputFormat::Tap));
        parser.feed(bytes);
        let mut collected = parser.finish();
        let outcome = Outcome::ended(exit, Duration::ZERO);
        judge(
            &mut collected,
            Ok(outcome),
            None,
            Instant::now(),
            Vec::new(),
        )
    }

    fn streams() -> Vec<(PathBuf, Vec<u8>)> {
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("test-data");
        let mut out = Vec::new();
        let mut dirs = vec![root];
        while let Some(d) = dirs.pop() {
            for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
                let p = e.path();
                if p.is_dir() {
                    dirs.push(p);
                } else if p.extension().is_some_and(|x| x == "tap") {
                    let bytes = std::fs::read(&p).expect("test data readable");
                    out.push((p, bytes));
                }
            }
        }
        assert!(out.len() >= 150, "test data missing: {} streams", out.len());
        out
    }

    /// Issue 7: a failing file always says why; a passing one has nothing failing to say.
    #[test]
    fn every_failing_file_names_its_reasons() {
        for (path, bytes) in streams() {
            for exit in [Exit::Code(0), Exit::Code(1), Exit::Signal(9)] {
                let r = judged(&bytes, exit);
                let at = format!("{} ({exit:?})", path.display());
                if r.ok {
                    assert!(r.reasons.is_empty(), "{at}: passing with {:?}", r.reasons);
                    assert!(r.verdict.ok, "{at}: passing file, failing stream");
                } else {
                    assert!(!r.reasons.is_empty(), "{at}: failing without a reason");
                }
                if !r.verdict.ok {
                    assert!(!r.ok, "{at}: failing stream, passing file");
                    for reason in &r.verdict.reasons {
                        assert!(
                            r.reasons.iter().any(|x| x.to_string() == **reason),
                            "{at}: {reason:?} not in the file's reasons"
                        );
                    }
                }
            }
        }
    }

    /// Issue 16: a file with no TAP is judged as its harness judges it.
    #[test]
    fn a_silent_file_is_judged_by_its_harness() {
        let silent = |silent: Silent, exit: Exit| {
            let mut r = judged(b"", exit);
            judge_silent(&mut r, silent);
            (r.ok, r.no_tests, r.reasons)
        };
        assert_eq!(
            silent(Silent::NoTests, Exit::Code(0)),
            (true, true, Vec::<FailureReason>::new()),
            "Silent::NoTests: a file with no tests"
        );
        assert_eq!(
            silent(Silent::NoTests, Exit::Code(1)),
            (
                false,
                false,
                vec![FailureReason::Exit { code: 1 }, FailureReason::NoTapOutput]
            ),
            "a crash is still a failure"
        );
        assert_eq!(
            silent(Silent::NoSubtests, Exit::Code(0)),
            (false, false, vec![FailureReason::NoSubtestsRun])
        );
        assert_eq!(
            silent(Silent::Fails, Exit::Code(0)),
            (false, false, vec![FailureReason::NoTapOutput])
        );
        let mut r = judged(b"1..1\nok 1\n", Exit::Code(0));
        judge_silent(&mut r, Silent::NoTests);
        assert!(r.ok && !r.no_tests, "a file with TAP is judged by it");
    }

    #[test]
    fn a_failed_point_is_the_files_reason() {
        let r = judged(b"1..2\nok 1\nnot ok 2 - adds\n", Exit::Code(1));
        assert!(!r.ok);
        assert_eq!(
            r.reasons,
            ["exited with code 1", "1 test point failed: \"adds\""]
        );
    }
}
