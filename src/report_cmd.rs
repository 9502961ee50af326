//! `tapline report RUN.jsonl`: replays a recorded run's events into `-o` reports (the same
//! sinks as a live run, so a replayed `.json` equals the live one), or into the terminal report
//! on stdout when no `-o` is given. `tapline report merge SHARD…` replays the shards of a
//! sharded run as one run ([`tapline::report::merge`]). Exit codes: the recorded run's (0
//! passed, 1 failed, 130 interrupted), 2 for input that cannot be read or is not a run's events
//! (or shards that do not make one run), 3 for a report that cannot be written.
use crate::cli::{MergeArgs, ReplayArgs, ReportAction, ReportArgs};
use crate::{Failure, Outcome};
use std::cell::RefCell;
use std::io::{self, BufRead, BufReader, IsTerminal, Read};
use std::path::{Path, PathBuf};
use std::rc::Rc;
use tapline::event::run::RunEvent;
use tapline::report::merge::{self, ShardInput};
use tapline::report::reader_gone::{self, UntilGone};
use tapline::report::sink::{Explaining, RunSink};
use tapline::report::terminal::{TerminalOptions, TerminalReporter};
use tapline::report::threaded::ReportsThread;
use tapline::report::{outlets, output};

pub fn run(args: &ReportArgs) -> Outcome {
    if let Some(ReportAction::Merge(m)) = &args.action {
        return merge_shards(m);
    }
    let file = (args.file.as_deref())
        .ok_or_else(|| Failure::usage("failed to replay: no recorded run given"))?;
    let input: Box<dyn Read> = if file.as_os_str() == "-" {
        Box::new(io::stdin().lock())
    } else {
        let f = std::fs::File::open(file)
            .map_err(|e| Failure::usage(format!("failed to open {}: {e}", file.display())))?;
        Box::new(f)
    };
    let mut replay = Replay::new(&args.replay)?;
    let name = file.display().to_string();
    let errors = Rc::new(RefCell::new(None));
    for ev in Events::new(input, name.clone(), errors.clone()) {
        if let Err(e) = replay.on(ev) {
            return replay_write_failure(&e);
        }
    }
    if let Some(e) = errors.borrow_mut().take() {
        return Err(Failure::usage(e));
    }
    replay.finish(&name)
}

/// The sinks a replay feeds, and the exit code its events give.
struct Replay {
    sinks: Explaining<ReplaySinks>,
    code: Option<u8>,
}

/// With no `-o` the terminal report, and annotations when they are on.
struct ReplaySinks {
    terminal: Option<TerminalReporter<io::BufWriter<UntilGone<io::Stdout>>>>,
    reports: Option<ReportsThread>,
}

impl RunSink for ReplaySinks {
    fn on(&mut self, ev: &RunEvent) -> io::Result<()> {
        self.on_owned(ev.clone())
    }
    fn on_owned(&mut self, ev: RunEvent) -> io::Result<()> {
        (self.terminal.as_mut())
            .map_or(Ok(()), |t| t.on(&ev))
            .and_then(|()| self.reports.as_mut().map_or(Ok(()), |r| r.on_owned(ev)))
    }
    fn keeps(&self) -> bool {
        self.reports.is_some()
    }
}

impl Replay {
    fn new(args: &ReplayArgs) -> Result<Replay, Failure> {
        let (annotations, quiet, color) = (args.annotations, args.quiet, args.color);
        let targets = output::targets(&args.output).map_err(Failure::Usage)?;
        let human = targets.is_empty();
        let reports = crate::reports::build(targets, annotations, false)?;
        let terminal = human.then(|| {
            let stdout = io::stdout();
            let opts = TerminalOptions {
                style: color.style(stdout.is_terminal()),
                live: false,
                verbosity: outlets::verbosity(quiet, false),
                width: 100,
            };
            TerminalReporter::new(io::BufWriter::new(reader_gone::stdout()), opts)
        });
        Ok(Replay {
            sinks: Explaining::new(ReplaySinks { terminal, reports }),
            code: None,
        })
    }

    /// Passes one event on.
    fn on(&mut self, ev: RunEvent) -> io::Result<()> {
        if let RunEvent::RunFinished { summary, .. } = &ev {
            self.code = Some(if summary.interrupted {
                outlets::EXIT_INTERRUPTED
            } else {
                u8::from(!summary.ok)
            });
        }
        if let RunEvent::SeriesFinished { stability } = &ev {
            if self.code == Some(0) && !stability.all_stable() {
                self.code = Some(1);
            }
        }
        self.sinks.on_owned(ev)
    }

    /// The recorded run's exit code, once the reports are written.
    fn finish(self, name: &str) -> Outcome {
        let mut sinks = self.sinks.into_inner();
        let written = sinks
            .terminal
            .take()
            .map_or(Ok(()), |t| t.finish().map(drop));
        let report_errors = (sinks.reports.as_mut())
            .map(ReportsThread::take_errors)
            .unwrap_or_default();
        let code = self.code.ok_or_else(|| {
            io::Error::other(format!(
                "{name} holds no finished run (no run_finished event)"
            ))
        });
        let closed = outlets::Closed {
            written,
            report_errors,
        };
        match code {
            Err(e) => Err(Failure::usage(e)),
            code => outlets::exit_code(code, &closed).map_err(Failure::Internal),
        }
    }
}

/// A recording's events, read line by line; the first unreadable line ends them and is kept in
/// `error` (a run's record can be large: it is never held whole).
struct Events {
    lines: std::iter::Enumerate<io::Lines<BufReader<Box<dyn Read>>>>,
    name: String,
    error: Rc<RefCell<Option<String>>>,
}

impl Events {
    fn new(input: Box<dyn Read>, name: String, error: Rc<RefCell<Option<String>>>) -> Events {
        Events {
            lines: BufReader::with_capacity(1 << 16, input).lines().enumerate(),
            name,
            error,
        }
    }
}

impl Iterator for Events {
    type Item = RunEvent;
    fn next(&mut self) -> Option<RunEvent> {
        loop {
            let (n, line) = self.lines.next()?;
            let fail = |msg: String| {
                *self.error.borrow_mut() = Some(msg);
                None
            };
            let line = match line {
                Ok(l) => l,
                Err(e) => return fail(format!("failed to read {}: {e}", self.name)),
            };
            if line.trim().is_empty() {
                continue;
            }
            return match RunEvent::from_recorded(&line) {
                Ok(None) => continue,
                Ok(Some(ev)) => Some(ev),
                Err(e) => fail(format!(
                    "failed to read {} line {}: not an event of a tapline run ({e})",
                    self.name,
                    n + 1
                )),
            };
        }
    }
}

/// `tapline report merge`.
fn merge_shards(args: &MergeArgs) -> Outcome {
    let paths = shard_paths(&args.shards).map_err(Failure::usage)?;
    let errors = Rc::new(RefCell::new(None));
    let mut inputs = Vec::new();
    for path in &paths {
        inputs.push(open_shard(path, &errors).map_err(Failure::usage)?);
    }
    let (shards, missing) = merge::check(inputs, args.allow_missing).map_err(Failure::usage)?;
    let mut replay = Replay::new(&args.replay)?;
    let mut recorded = Vec::new();
    let mut coverage = tapline::coverage::RunCoverage::default();
    let merged = merge::merge(shards, missing, &mut |ev: RunEvent| {
        if args.history {
            recorded.push(ev.clone());
        }
        if let RunEvent::Coverage { coverage: c, .. } = &ev {
            coverage.add(c);
        }
        replay.on(ev)
    });
    match merged {
        Err(e) => return replay_write_failure(&e),
        Ok(Err(e)) => return Err(Failure::usage(e)),
        Ok(Ok(_)) => {}
    }
    if let Some(e) = errors.borrow_mut().take() {
        return Err(Failure::usage(e));
    }
    if args.history {
        crate::history_cmd::append(recorded, args.log_dir.as_ref()).map_err(Failure::internal)?;
    }
    let code = replay.finish("the merged shards")?;
    crate::run_cmd::coverage::after_merge(args, &coverage, code).map_err(Failure::usage)
}

/// A replay's sink failed. A reader that went away (`| head`) is no failure: the terminal
/// report drops the rest ([`reader_gone`]) and the replay still ends with the recorded verdict.
fn replay_write_failure(e: &io::Error) -> Outcome {
    Err(Failure::internal(format!(
        "failed to write the report: {e}"
    )))
}

/// Files as given, globs expanded, folders' `*.jsonl`, each once, in the order given.
fn shard_paths(args: &[String]) -> Result<Vec<PathBuf>, String> {
    let mut out: Vec<PathBuf> = Vec::new();
    for arg in args {
        let path = Path::new(arg);
        let found: Vec<PathBuf> = if path.is_dir() {
            let mut files: Vec<PathBuf> = std::fs::read_dir(path)
                .map_err(|e| format!("failed to read the folder {arg}: {e}"))?
                .filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
                .collect();
            files.sort();
            files
        } else if arg.contains(['*', '?', '[']) {
            glob_files(arg)?
        } else {
            vec![path.to_path_buf()]
        };
        if found.is_empty() {
            return Err(format!("failed to find a shard's record in {arg}"));
        }
        for p in found {
            if !out.contains(&p) {
                out.push(p);
            }
        }
    }
    Ok(out)
}

/// The files a glob matches, from the current directory, sorted.
fn glob_files(pattern: &str) -> Result<Vec<PathBuf>, String> {
    let glob = globset::Glob::new(pattern)
        .map_err(|e| format!("failed to read the glob {pattern}: {e}"))?
        .compile_matcher();
    // Walk from the glob's literal head (`shards/` of `shards/*.jsonl`).
    let head: PathBuf = Path::new(pattern)
        .components()
        .take_while(|c| !c.as_os_str().to_string_lossy().contains(['*', '?', '[']))
        .collect();
    let start = if head.as_os_str().is_empty() {
        PathBuf::from(".")
    } else {
        head
    };
    let mut found: Vec<PathBuf> = ignore::WalkBuilder::new(&start)
        .standard_filters(false)
        .build()
        .filter_map(Result::ok)
        .map(|e| e.into_path())
        .filter(|p| p.is_file())
        .filter(|p| glob.is_match(p.strip_prefix("./").unwrap_or(p)))
        .collect();
    found.sort();
    Ok(found)
}

/// A shard's record: its header (the first event) and the rest, read as merged.
fn open_shard(
    path: &Path,
    errors: &Rc<RefCell<Option<String>>>,
) -> Result<ShardInput<Events>, String> {
    let file =
        std::fs::File::open(path).map_err(|e| format!("failed to open {}: {e}", path.display()))?;
    let name = path.display().to_string();
    let mut events = Events::new(Box::new(file), name.clone(), errors.clone());
    match events.next() {
        Some(RunEvent::Shard(header)) => Ok(ShardInput {
            name,
            header,
            events,
        }),
        _ => Err(errors
            .borrow_mut()
            .take()
            .unwrap_or_else(|| merge::MergeError::NotAShard { name }.to_string())),
    }
}
