//! Helpers shared by the integration tests: the temporary project a run works in, what a
//! test needs from outside (`require`), a daemon to talk to, headless Chromium, the
//! repository's recorded streams read back, and a recorded stream as a run (as events, or
//! replayed by `tapline run` with every report).
pub(crate) mod browser;
pub(crate) mod daemon;
pub(crate) mod npm;
mod project;
mod replay;
mod require;
mod text;

pub(crate) use project::{copy_dir, file_doc, Project, Ran, HANG};
pub(crate) use replay::replay;
pub(crate) use require::{require, tool, unmet};
use std::path::{Path, PathBuf};
use std::time::Duration;
use tapline::event::run::{
    ExitInfo, FailureReason, FileInfo, FileResult, RunEvent, RunSummary, Tally,
};
use tapline::event::{Event, Verdict};
use tapline::protocol::Parser;
use tapline::report::jsonl::JsonlWriter;
use tapline::report::summary::SummaryWriter;
pub(crate) use text::{unmarkdown, unxml};

pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The recorded `go test -json` and JUnit streams (`test-data/formats`).
pub fn formats_dir() -> PathBuf {
    repo().join("test-data/formats")
}

/// `tapline parse ARGS` of `stdin`: exit code, stdout, stderr.
pub fn parse_cli(args: &[&str], stdin: &[u8]) -> (i32, String, String) {
    let out = assert_cmd::Command::cargo_bin("tapline")
        .expect("binary built")
        .arg("parse")
        .args(args)
        .write_stdin(stdin.to_vec())
        .output()
        .expect("tapline runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The `--format summary` document for a stream, parsed back.
pub fn summary(bytes: &[u8]) -> serde_json::Value {
    let mut p = Parser::new(SummaryWriter::new(Vec::new()));
    p.feed(bytes);
    let out = p.finish().finish().expect("writing to a Vec cannot fail");
    serde_json::from_slice(&out).expect("summary is JSON")
}

/// The `--format jsonl` events for a stream, parsed back.
pub fn jsonl_events(bytes: &[u8]) -> Vec<serde_json::Value> {
    let mut p = Parser::new(JsonlWriter::new(Vec::new()));
    p.feed(bytes);
    let out = p.finish().finish().expect("writing to a Vec cannot fail");
    out.split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_slice(l).expect("each line is JSON"))
        .collect()
}

/// Every file below `dir` with the extension, sorted.
pub fn files_with_ext(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == ext) {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// A stream's events as a run of one file (`rel`, run by `command`) would carry them: its
/// verdict and tally (as a run counts it) as the file's result, a fixed 40 ms duration.
pub fn one_file_run(events: &[Event<'static>], rel: &str, command: &str) -> Vec<RunEvent> {
    let verdict: Verdict<'static> = events
        .iter()
        .find_map(|e| match e {
            Event::End { verdict } => Some(verdict.clone()),
            _ => None,
        })
        .expect("a verdict");
    // Counted as a run counts a TAP stream's tests (node:test's as node counts them).
    let mut counted = tapline::event::leaves::TapTally::default();
    for e in events {
        counted.event(e);
    }
    let tally: Tally = *counted.tally();
    let ok = verdict.ok;
    let mut out = vec![
        RunEvent::RunStarted {
            run: 1,
            files: 1,
            jobs: 1,
            started_ms: None,
            host: None,
            cwd: None,
            command: None,
            test_filter: None,
        },
        RunEvent::FileStarted {
            run: 1,
            file: FileInfo {
                index: 0,
                rel: rel.to_owned(),
                command: command.to_owned(),
                log: None,
                attempt: 1,
                leaves: false,
            },
        },
    ];
    out.extend(events.iter().map(|event| RunEvent::Tap {
        run: 1,
        file: 0,
        event: event.clone(),
    }));
    let result = FileResult {
        ok,
        reasons: verdict
            .reasons
            .iter()
            .map(|r| FailureReason::of_stream(r))
            .collect(),
        exit: Some(ExitInfo {
            code: Some(i32::from(!ok)),
            signal: None,
        }),
        timed_out: false,
        cancelled: false,
        leaked: false,
        duration: Duration::from_millis(40),
        tally,
        verdict,
        attempts: 1,
        flaky: false,
        cached: false,
        no_tests: false,
        tests: Default::default(),
    };
    out.push(RunEvent::FileFinished {
        run: 1,
        file: 0,
        result: Box::new(result),
    });
    out.push(RunEvent::RunFinished {
        run: 1,
        summary: Box::new(RunSummary {
            ok,
            files_total: 1,
            files_passed: usize::from(ok),
            files_failed: usize::from(!ok),
            tests: tally,
            duration: Duration::from_millis(40),
            ..RunSummary::default()
        }),
    });
    out
}
