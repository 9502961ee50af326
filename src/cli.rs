//! Command-line definitions (clap) and dispatch; the work lives in the library modules.
use clap::{Parser as ClapParser, Subcommand, ValueEnum};
use std::path::PathBuf;

#[derive(ClapParser, Debug)]
#[command(
    name = "tapline",
    version,
    about = "Run tests of any language and report their TAP."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

/// The commands, in the order a user meets them: running the tests, listing them, setting the
/// project up, then what earlier runs left (history, replayed reports, coverage), other
/// producers' streams (`parse`), the daemon, and the shell helpers last. Each says what it does
/// in one line under `-h` and the list of commands; `--help` gives the whole text.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// Run the project's tests and report them.
    ///
    /// Each test file is a supervised child process whose TAP (or the framework's own
    /// stream) is read as it comes. Without paths, what the project's own harness runs:
    /// package.json's test command, else `test/`, `tests/` and `t/`.
    // Boxed: the run's options outweigh parse's by far.
    Run(Box<RunArgs>),
    /// List every test by its stable ID.
    ///
    /// Every test of every discovered file and suite, by its stable ID (`t/a.t > outer >
    /// inner`), as `-t` and the reports name it: as the last run of the file reported it,
    /// else read from its source.
    List(ListArgs),
    /// Write a commented `tapline.toml` for this repository.
    ///
    /// A `[[suite]]` for each go module and pytest configuration, and notes on what a plain
    /// `tapline run` already follows.
    Init(InitArgs),
    /// What earlier runs tell: flaky, slow and failing files and tests.
    ///
    /// What the history store (`.nogit/testlogs/history.jsonl`) knows, per file and per test:
    /// runs, passes, failures, flaky runs, flip rate, durations and the last verdict.
    History(HistoryArgs),
    /// Replay a recorded run (`-o run.jsonl`) into reports, or merge shards.
    ///
    /// A run recorded with `-o run.jsonl` or `run --format jsonl` becomes `-o` reports, or the
    /// terminal report when no `-o` is given; `report merge` joins a sharded run's records.
    Report(ReportArgs),
    /// Which test files reached a line in the last `run --coverage`.
    ///
    /// `tapline coverage who FILE:LINE` names the test files that reached that line.
    Coverage(CoverageArgs),
    /// Parse a TAP, `go test -json` or JUnit XML stream from a file or stdin.
    ///
    /// For producers tapline does not start: `node --test | tapline parse`,
    /// `go test -json ./... | tapline parse`, `tapline parse results.xml`.
    Parse(ParseArgs),
    /// The reporter daemon: TAP streams over a socket into one live view.
    ///
    /// Takes TAP streams over a socket (`tapline send`) into one live view, per-stream logs
    /// and reports, until SIGTERM (exit 0) or SIGINT (130).
    Serve(ServeArgs),
    /// Stream TAP to the daemon (`node --test | tapline send unit`).
    ///
    /// From a file or stdin, as it is produced. Exits with the daemon's verdict: 0 passed,
    /// 1 failed, 2 no daemon or refused.
    Send(SendArgs),
    /// The daemon's open and finished streams with their counts.
    ///
    /// A line per stream on a terminal (`--format human`), the JSON document when stdout is
    /// not one (`--format json`).
    Status(StatusArgs),
    /// Every event of every stream the daemon takes, as JSON lines.
    ///
    /// Each tagged with its `stream`, until the daemon stops.
    Events(EventsArgs),
    /// Print a completion script for a shell (`tapline completions bash > …`).
    Completions {
        /// The shell.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the man page (`tapline man | man -l -`), or write every page.
    ///
    /// The page is roff generated from these definitions; `tapline man run` prints one
    /// command's page, `--dir` writes every page into a folder.
    Man(ManArgs),
}

/// An unknown command gets the nearest one as a tip where clap's own likeness finds none: a
/// slip of two letters or fewer (`rnu`, `lsit`, `prase`) names the command meant.
pub fn suggest_command(e: &mut clap::Error) {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    if e.kind() != ErrorKind::InvalidSubcommand || e.get(ContextKind::SuggestedSubcommand).is_some()
    {
        return;
    }
    let Some(ContextValue::String(typed)) = e.get(ContextKind::InvalidSubcommand) else {
        return;
    };
    let command = <Cli as clap::CommandFactory>::command();
    let nearest = command
        .get_subcommands()
        .map(|c| c.get_name())
        .map(|name| (typo_distance(typed, name), name))
        .filter(|&(d, name)| d <= 2 && d < name.len().min(typed.len()))
        .min();
    if let Some((_, name)) = nearest {
        let name = name.to_owned();
        e.insert(
            ContextKind::SuggestedSubcommand,
            ContextValue::Strings(vec![name]),
        );
    }
}

/// Edits between two words, a swap of neighbours counting as one (optimal string alignment).
fn typo_distance(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = best;
        }
    }
    d[a.len()][b.len()]
}

#[derive(clap::Args, Debug)]
pub struct CoverageArgs {
    #[command(subcommand)]
    pub action: CoverageAction,
}

#[derive(Subcommand, Debug)]
pub enum CoverageAction {
    /// The test files that reached FILE:LINE in the last run with `--coverage`.
    ///
    /// One a line; exit 1 when none did, 2 when the line is no code any engine counted.
    Who {
        /// A source line: its path (from here or the project root) and line number.
        #[arg(value_name = "FILE:LINE")]
        at: String,
        /// Log folder holding `coverage.json` [default: .nogit/testlogs].
        ///
        /// Relative to the project root.
        #[arg(long)]
        log_dir: Option<PathBuf>,
    },
}

#[derive(clap::Args, Debug, Clone)]
pub struct ListArgs {
    /// Files, folders, globs or suite names, as `tapline run` takes them [default: what
    /// it runs].
    pub paths: Vec<String>,
    /// `json`: one object per test and line.
    ///
    /// Each object holds `id`, `file`, `name`, `source` and `location`.
    #[arg(long, value_enum, default_value_t = HistoryFormat::Human)]
    pub format: HistoryFormat,
    /// Where the tests are read from.
    ///
    /// `auto`: the last run's report of each file, else pytest's own listing for
    /// pytest's files, else its static scan; `static`: read from the source, not run;
    /// `runtime`: the framework's own listing (`pytest --collect-only`, `go test
    /// -list`); `history`: what the last run reported.
    #[arg(long, value_enum, default_value_t = ListSource::Auto)]
    pub source: ListSource,
    /// Also write the list (JSON lines) to FILE.
    ///
    /// For machines that do not discover: `--from FILE` reads it there.
    #[arg(long, value_name = "FILE")]
    pub write: Option<PathBuf>,
    /// Read the list from FILE (written by `--write`) instead of discovering.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["source", "write"])]
    pub from: Option<PathBuf>,
    /// Log folder holding the last run's `tests/` (default `.nogit/testlogs`).
    #[arg(long)]
    pub log_dir: Option<PathBuf>,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ListSource {
    Auto,
    Static,
    Runtime,
    History,
}

#[derive(clap::Args, Debug)]
pub struct InitArgs {
    /// Replace an existing tapline.toml.
    #[arg(long)]
    pub force: bool,
}

#[derive(clap::Args, Debug)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct ReportArgs {
    #[command(subcommand)]
    pub action: Option<ReportAction>,
    /// The recorded run's events, one JSON object per line; `-` for stdin.
    #[arg(required = true)]
    pub file: Option<PathBuf>,
    #[command(flatten)]
    pub replay: ReplayArgs,
}

#[derive(Subcommand, Debug)]
pub enum ReportAction {
    /// Merge the `-o FILE.jsonl` records of a sharded run's shards into one run.
    ///
    /// The shards of `run --partition` become one run's reports, as if one machine had
    /// run it all; the exit code is that run's, 2 when a shard is missing, given twice,
    /// or of another selection.
    Merge(MergeArgs),
}

#[derive(clap::Args, Debug)]
pub struct MergeArgs {
    /// The shards' records: files, globs (`shards/*.jsonl`) or folders (their `*.jsonl`).
    #[arg(required = true, value_name = "SHARD")]
    pub shards: Vec<String>,
    /// Merge without the shards that are missing.
    ///
    /// Their files are reported as not run, and the run fails.
    #[arg(long)]
    pub allow_missing: bool,
    /// Also append the merged run to the history store.
    ///
    /// As `tapline history import` does, so the next sharded run is balanced by these
    /// durations.
    #[arg(long)]
    pub history: bool,
    /// Log folder holding `history.jsonl` [default: .nogit/testlogs].
    ///
    /// Relative to the project root.
    #[arg(long)]
    pub log_dir: Option<PathBuf>,
    /// Fail (exit 1) when the merged run's coverage is below PCT percent of lines.
    ///
    /// The coverage of `run --coverage`; `[coverage] min` when not given. Checked here,
    /// never per shard.
    #[arg(long, value_name = "PCT")]
    pub coverage_min: Option<String>,
    #[command(flatten)]
    pub replay: ReplayArgs,
}

/// Where a replayed or merged run is reported.
#[derive(clap::Args, Debug)]
pub struct ReplayArgs {
    /// Write a report, the format chosen by the extension (repeatable).
    ///
    /// `.jsonl`, `.json`, `.xml` JUnit, `.md` Markdown, `.html` a page, `.lcov` and
    /// `.cobertura.xml` the coverage. Without one, the terminal report.
    #[arg(short = 'o', long = "output", value_name = "PATH")]
    pub output: Vec<PathBuf>,
    /// CI annotations: `github` or `none`.
    ///
    /// `github` writes `::error`/`::warning` workflow commands (the default when
    /// GITHUB_ACTIONS=true); `none` turns them off.
    #[arg(long, value_enum)]
    pub annotations: Option<Annotations>,
    /// Failures and the summary only (terminal report).
    #[arg(short, long)]
    pub quiet: bool,
    /// When to use colour.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
}

#[derive(clap::Args, Debug)]
pub struct ServeArgs {
    /// The Unix socket (default `.nogit/tapline.sock` under the project root).
    #[arg(long, value_name = "PATH", help_heading = "Listening")]
    pub socket: Option<PathBuf>,
    /// Also listen on TCP, e.g. `127.0.0.1:7357`.
    ///
    /// Port 0: any free port, printed on stderr. A non-loopback address needs `--token`
    /// and TLS (`--tls-cert`, `--tls-key`).
    #[arg(long, value_name = "ADDR:PORT", help_heading = "Listening")]
    pub listen: Option<std::net::SocketAddr>,
    /// A file holding the token every TCP connection must present first.
    #[arg(
        long,
        value_name = "FILE",
        requires = "listen",
        help_heading = "Listening"
    )]
    pub token: Option<PathBuf>,
    /// The TCP listener speaks TLS with this certificate chain (PEM).
    ///
    /// Loopback included.
    #[arg(long, value_name = "FILE", requires_all = ["listen", "tls_key"], help_heading = "Listening")]
    pub tls_cert: Option<PathBuf>,
    /// The private key (PEM) of `--tls-cert`.
    #[arg(
        long,
        value_name = "FILE",
        requires = "tls_cert",
        help_heading = "Listening"
    )]
    pub tls_key: Option<PathBuf>,
    /// Do not write per-stream logs.
    #[arg(long, help_heading = "Output")]
    pub no_logs: bool,
    /// Log folder (default `.nogit/testlogs/serve` under the project root).
    #[arg(long, help_heading = "Output")]
    pub log_dir: Option<PathBuf>,
    /// Machine output on stdout.
    ///
    /// `jsonl` the events as they happen, `summary` one JSON document at the end; the
    /// human report goes to stderr either way.
    #[arg(long, value_enum, default_value_t = RunFormat::Human, help_heading = "Output")]
    pub format: RunFormat,
    /// Write a report when the daemon stops, the format chosen by the extension.
    ///
    /// Repeatable: `.jsonl` the events, `.json` the summary document, `.xml` JUnit,
    /// `.md` Markdown, `.html` a page. Each stream is one file of the report, named by
    /// the stream.
    #[arg(
        short = 'o',
        long = "output",
        value_name = "PATH",
        help_heading = "Reports"
    )]
    pub output: Vec<PathBuf>,
    /// CI annotations: `github` or `none`.
    ///
    /// `github` writes `::error`/`::warning` workflow commands (the default when
    /// GITHUB_ACTIONS=true); `none` turns them off.
    #[arg(long, value_enum, help_heading = "Reports")]
    pub annotations: Option<Annotations>,
    /// Failures and the summary only.
    #[arg(short, long, conflicts_with = "verbose", help_heading = "Output")]
    pub quiet: bool,
    /// Every test line as it happens.
    #[arg(short, long, help_heading = "Output")]
    pub verbose: bool,
    /// When to use colour.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto, help_heading = "Output")]
    pub color: ColorChoice,
}

/// Which daemon a client talks to.
#[derive(clap::Args, Debug)]
#[command(next_help_heading = "Daemon")]
pub struct DaemonTarget {
    /// The daemon's Unix socket [default: .nogit/tapline.sock].
    ///
    /// Relative to the project root.
    #[arg(long, value_name = "PATH", conflicts_with = "connect")]
    pub socket: Option<PathBuf>,
    /// A daemon listening on TCP (`tapline serve --listen`).
    #[arg(long, value_name = "HOST:PORT")]
    pub connect: Option<String>,
    /// A file holding the daemon's token (with `--connect`).
    #[arg(long, value_name = "FILE", requires = "connect")]
    pub token: Option<PathBuf>,
    /// Connect with TLS, trusting the CA certificates in this PEM file.
    ///
    /// With `--connect`. Without it, TLS trusting the system's roots to a non-loopback
    /// address, plain TCP to a loopback one.
    #[arg(long, value_name = "FILE", requires = "connect")]
    pub tls_ca: Option<PathBuf>,
}

#[derive(clap::Args, Debug)]
pub struct SendArgs {
    /// The stream's name (its log and report entry are named after it).
    pub name: String,
    /// The TAP to send; `-` or nothing for stdin (sent as it is produced).
    pub file: Option<PathBuf>,
    /// Metadata for the stream, a JSON object (shown by `tapline status`).
    #[arg(long, value_name = "JSON")]
    pub meta: Option<String>,
    #[command(flatten)]
    pub target: DaemonTarget,
}

#[derive(clap::Args, Debug)]
pub struct EventsArgs {
    /// Only streams whose name matches this glob.
    #[arg(long, value_name = "GLOB")]
    pub stream: Option<String>,
    #[command(flatten)]
    pub target: DaemonTarget,
}

#[derive(clap::Args, Debug)]
pub struct StatusArgs {
    /// A line per stream, or the daemon's JSON document.
    ///
    /// Default: `human` when stdout is a terminal, `json` when it is not (what scripts
    /// read).
    #[arg(long, value_enum)]
    pub format: Option<HistoryFormat>,
    #[command(flatten)]
    pub target: DaemonTarget,
}

#[derive(clap::Args, Debug)]
#[command(args_conflicts_with_subcommands = true)]
pub struct HistoryArgs {
    #[command(subcommand)]
    pub action: Option<HistoryAction>,
    /// Only files and tests that were flaky or changed verdict at least once.
    #[arg(long, help_heading = "Selection")]
    pub flaky: bool,
    /// Only the N slowest files by p95 duration (default 10), slowest first.
    #[arg(long, value_name = "N", num_args = 0..=1, default_missing_value = "10", help_heading = "Selection")]
    pub slow: Option<usize>,
    /// Only files and tests whose last run failed.
    #[arg(long, help_heading = "Selection")]
    pub failing: bool,
    /// Every test by its ID, not only those that failed at least once.
    ///
    /// Each with its flakiness, p50/p95 durations and distinct errors; with `--slow N`,
    /// the N slowest tests by p95.
    #[arg(long, help_heading = "Selection")]
    pub tests: bool,
    /// `json`: one document on stdout.
    ///
    /// The document is `{"files": [...], "tests": [...]}`.
    #[arg(long, value_enum, default_value_t = HistoryFormat::Human, help_heading = "Output")]
    pub format: HistoryFormat,
    /// Log folder holding `history.jsonl` [default: .nogit/testlogs].
    ///
    /// Relative to the project root.
    #[arg(long)]
    pub log_dir: Option<PathBuf>,
    /// When to use colour.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto, help_heading = "Output")]
    pub color: ColorChoice,
}

#[derive(Subcommand, Debug)]
pub enum HistoryAction {
    /// Append recorded runs (`-o run.jsonl`) to the history store.
    ///
    /// As if they had run here, a merged sharded run's too: CI keeps one
    /// `history.jsonl` that balances the next shards.
    Import {
        /// The runs' records, one JSON event per line.
        #[arg(required = true, value_name = "RUN.jsonl")]
        runs: Vec<PathBuf>,
        /// Log folder holding `history.jsonl` [default: .nogit/testlogs].
        ///
        /// Relative to the project root.
        #[arg(long)]
        log_dir: Option<PathBuf>,
    },
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum HistoryFormat {
    Human,
    Json,
}

/// `tapline run`'s flags, under the headings of its help (`-h` one line each, `--help` the
/// whole text): what runs, how, what the terminal shows, the reports, watch mode, what history
/// changes, and the limits.
#[derive(clap::Args, Debug, Clone)]
pub struct RunArgs {
    /// Test files, directories or globs [default: what the project's own harness runs].
    ///
    /// Directories are searched recursively, honouring .gitignore. None given: what the
    /// project's own harness runs (package.json's test command, else `test/`, `tests/` and
    /// `t/`).
    pub paths: Vec<String>,

    // Selection: which files and tests run.
    /// Print what would run, one file per line with its command, and exit.
    #[arg(long, help_heading = "Selection")]
    pub list: bool,
    /// Only the tests whose names match PATTERN (substring or `/regex/`).
    ///
    /// A name is the path of names down to the test (`outer > inner`); repeatable: any
    /// of them. Passed down as each framework's filter; files with no matching test do
    /// not run (docs/tests.md). With `--watch`, the pattern every run starts with (the
    /// `t` key changes it).
    #[arg(
        short = 't',
        long = "test",
        value_name = "PATTERN",
        help_heading = "Selection"
    )]
    pub test: Vec<String>,
    /// Only the tests that failed in the last run of each file.
    ///
    /// Picked by ID, through the same filters as `-t`; a file that failed without a
    /// failing test runs whole.
    #[arg(long, conflicts_with_all = ["watch", "test"], help_heading = "Selection")]
    pub only_failed: bool,
    /// Only the files affected by what changed since REV (git).
    ///
    /// REV defaults to the merge base with the default branch; the working tree and
    /// untracked files count as changed.
    #[arg(long, value_name = "REV", num_args = 0..=1, default_missing_value = "",
          conflicts_with = "watch", help_heading = "Selection")]
    pub changed: Option<String>,
    /// Only the files a change to these paths can affect.
    ///
    /// By the dependency traces of earlier runs; a file with no trace yet runs. See
    /// docs/traces.md.
    #[arg(long, value_name = "PATH", num_args = 1.., conflicts_with_all = ["changed", "watch"],
          help_heading = "Selection")]
    pub affected_by: Vec<String>,
    /// Only the files that declare this tag (repeatable).
    ///
    /// A tag is tapbundle's `tap.tags('T')` in the file's source; files, not single
    /// tests, are selected; given more than once, any of them. See docs/tstest.md.
    #[arg(
        long = "tag",
        value_name = "TAG",
        conflicts_with = "watch",
        help_heading = "Selection"
    )]
    pub tags: Vec<String>,
    /// Run one shard of a sharded run: `slice|hash|time:M/N` or `auto`.
    ///
    /// `slice:M/N` deals files round-robin, `hash:M/N` keeps a file in its shard,
    /// `time:M/N` balances by history's durations; M counts from 1. `auto` or
    /// `auto:STRATEGY` reads M/N from the CI engine (TAPLINE_PARTITION, GitLab,
    /// CircleCI, Buildkite, Kubernetes Indexed Jobs, Bazel). `-o FILE.jsonl` records
    /// the shard for `tapline report merge`.
    #[arg(long, value_name = "STRATEGY:M/N", conflicts_with_all = ["watch", "runs"],
          help_heading = "Selection")]
    pub partition: Option<String>,
    /// With `--partition time`: the weight of a file history does not know.
    ///
    /// Default: the median of the known ones.
    #[arg(long, value_name = "DURATION", help_heading = "Selection")]
    pub time_default: Option<String>,

    // Execution: how the files run.
    /// Files run at once [default: the number of cores].
    ///
    /// `0` also means the number of cores.
    #[arg(short = 'j', long, value_name = "N", help_heading = "Execution")]
    pub jobs: Option<usize>,
    /// Per-file time limit [default: 120s; 0: none].
    ///
    /// E.g. `30s`, `2m`, `500ms`. A file past it is stopped (SIGTERM, then SIGKILL
    /// after `--grace`) and fails as timed out.
    #[arg(long, value_name = "DURATION", help_heading = "Execution")]
    pub timeout: Option<String>,
    /// Time between SIGTERM and SIGKILL when a file is stopped [default: 5s].
    #[arg(long, value_name = "DURATION", help_heading = "Execution")]
    pub grace: Option<String>,
    /// Command for every file, `{}` standing for its path.
    ///
    /// E.g. `--exec 'deno run {}'`. A directory given still yields only its test files.
    #[arg(long, value_name = "COMMAND", help_heading = "Execution")]
    pub exec: Option<String>,
    /// Set a variable for every test file (repeatable).
    ///
    /// Wins over `[run] env` of tapline.toml.
    #[arg(long = "env", value_name = "KEY=VALUE", help_heading = "Execution")]
    pub env: Vec<String>,
    /// Prepend DIR to PERL5LIB, PYTHONPATH and NODE_PATH (like `prove -I`).
    ///
    /// For every test file; repeatable; `-I lib` is `prove -l`. Relative to the project
    /// root.
    #[arg(
        short = 'I',
        long = "lib",
        value_name = "DIR",
        help_heading = "Execution"
    )]
    pub lib: Vec<PathBuf>,
    /// Parse every file's stderr as TAP too.
    ///
    /// A perl file's is by default, read with its stdout from one pipe, in the order
    /// written; another's is read from its own pipe.
    #[arg(long, conflicts_with = "no_merge", help_heading = "Execution")]
    pub merge: bool,
    /// Keep every file's stderr apart, perl's too.
    ///
    /// Each file's stderr is the tests' output, read from a pipe of its own.
    #[arg(long, help_heading = "Execution")]
    pub no_merge: bool,
    /// One process per test file, none in a warm worker.
    ///
    /// Tape files otherwise share a node process per job; `[run] isolate = true` says
    /// the same. See docs/run.md.
    #[arg(long, help_heading = "Execution")]
    pub isolate: bool,
    /// Run a failed file up to N more times (passing later: flaky).
    ///
    /// A file that fails, then passes, is flaky: it counts as passed unless
    /// `--flaky-fails`.
    #[arg(long, value_name = "N", help_heading = "Execution")]
    pub retries: Option<u32>,
    /// A flaky file fails the run.
    ///
    /// By default a flaky file counts as passed and is reported as flaky.
    #[arg(long, help_heading = "Execution")]
    pub flaky_fails: bool,
    /// Stop after the first failed file: `--max-fail 1`.
    #[arg(long, conflicts_with = "max_fail", help_heading = "Execution")]
    pub fail_fast: bool,
    /// After N failed files no new file starts.
    ///
    /// Running files finish, or are stopped with `--stop-running`. Files never started
    /// are reported as not run, and the run fails.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..),
          help_heading = "Execution")]
    pub max_fail: Option<u64>,
    /// With `--max-fail`/`--fail-fast`: also stop the files still running.
    ///
    /// They are stopped gracefully: SIGTERM, then SIGKILL after `--grace`.
    #[arg(long, help_heading = "Execution")]
    pub stop_running: bool,
    /// Run every file even after one bails out.
    ///
    /// `Bail out!` otherwise stops the run, as it stops prove; the bailing file still
    /// fails.
    #[arg(long, help_heading = "Execution")]
    pub keep_going: bool,

    // Output: what the terminal and stdout show, and the logs.
    /// Failures and the summary only.
    #[arg(short, long, conflicts_with = "verbose", help_heading = "Output")]
    pub quiet: bool,
    /// Every test line and all child output, as it happens.
    #[arg(short, long, help_heading = "Output")]
    pub verbose: bool,
    /// When to use colour.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto, help_heading = "Output")]
    pub color: ColorChoice,
    /// Machine output on stdout.
    ///
    /// `jsonl` the run's events as they happen, `summary` one JSON document at the end; the
    /// human report goes to stderr either way.
    #[arg(long, value_enum, default_value_t = RunFormat::Human, help_heading = "Output")]
    pub format: RunFormat,
    /// Do not write per-file logs.
    #[arg(long, help_heading = "Output")]
    pub no_logs: bool,
    /// Log folder [default: .nogit/testlogs under the project root].
    #[arg(long, value_name = "DIR", help_heading = "Output")]
    pub log_dir: Option<PathBuf>,

    // Reports: files written, CI annotations, coverage, a daemon.
    /// Write a report, the format chosen by the extension (repeatable).
    ///
    /// `.jsonl` the run's events, `.json` the summary document, `.xml` JUnit, `.md`
    /// Markdown, `.html` a page, `.lcov` and `.cobertura.xml` the coverage
    /// (`--coverage`).
    #[arg(
        short = 'o',
        long = "output",
        value_name = "PATH",
        help_heading = "Reports"
    )]
    pub output: Vec<PathBuf>,
    /// CI annotations: `github` or `none`.
    ///
    /// `github` writes `::error`/`::warning` workflow commands (the default when
    /// GITHUB_ACTIONS=true); `none` turns them off.
    #[arg(long, value_enum, help_heading = "Reports")]
    pub annotations: Option<Annotations>,
    /// Measure line coverage in every runtime into one report.
    ///
    /// node/tsx, Python with coverage.py, Perl with Devel::Cover and go suites, merged:
    /// `-o cov.lcov`, `-o cov.cobertura.xml`, the summary; see docs/coverage.md.
    /// `[coverage] enabled = true` turns it on too.
    #[arg(long, help_heading = "Reports")]
    pub coverage: bool,
    /// With `--coverage`: fail (exit 1) below PCT percent of lines reached.
    ///
    /// Default: `[coverage] min`. A shard (`--partition`) is not checked: `report merge
    /// --coverage-min` is.
    #[arg(long, value_name = "PCT", help_heading = "Reports")]
    pub coverage_min: Option<String>,
    /// Also stream each file to a `tapline serve` (socket path or HOST:PORT).
    ///
    /// Each file is a stream named `shard M/N: path`, to watch every shard live in one
    /// place. Never changes the run: a daemon that is absent or goes away is one
    /// warning line.
    #[arg(
        long,
        value_name = "ADDR",
        conflicts_with = "watch",
        help_heading = "Reports"
    )]
    pub forward: Option<String>,
    /// A file holding the daemon's token (with `--forward HOST:PORT`).
    #[arg(
        long,
        value_name = "FILE",
        requires = "forward",
        help_heading = "Reports"
    )]
    pub forward_token: Option<PathBuf>,
    /// Forward with TLS trusting the CA certificates in this PEM file.
    ///
    /// With `--forward HOST:PORT`. Without it: TLS with the system's roots to a
    /// non-loopback address, plain TCP to a loopback one.
    #[arg(
        long,
        value_name = "FILE",
        requires = "forward",
        help_heading = "Reports"
    )]
    pub forward_tls_ca: Option<PathBuf>,

    // Watch: re-running on change, and the keys of the watch bar.
    /// Run, then re-run what each change can affect; keys: a/Enter f F p t q.
    ///
    /// A change anywhere under the project root reruns what it can affect, by the dependency
    /// traces of earlier runs: a changed test file alone, a module's loaders.
    ///
    /// Keys on a terminal: `Enter` or `a` all files, `f` the failing files, `F` only the
    /// failing tests, `p` a file pattern, `t` a test-name pattern (empty: every test), `q`
    /// quit (exit 0; Ctrl-C exits 130); at a pattern prompt, `Esc` cancels. On a piped stdin,
    /// one command a line: `a`, `f`, `F`, `p PATTERN`, `t [PATTERN]`, `q`; end of input quits.
    #[arg(short = 'w', long, conflicts_with = "list", help_heading = "Watch")]
    pub watch: bool,
    /// How long a change settles before it starts a run [default: 300ms].
    #[arg(
        long,
        requires = "watch",
        value_name = "DURATION",
        help_heading = "Watch"
    )]
    pub debounce: Option<String>,
    /// Changes to paths matching these globs start no run.
    ///
    /// Comma-separated; a glob without `/` matches any name in the path.
    #[arg(
        long,
        requires = "watch",
        value_delimiter = ',',
        value_name = "GLOB,GLOB",
        help_heading = "Watch"
    )]
    pub watch_ignore: Vec<String>,
    /// Clear the screen before each run instead of a separator line.
    ///
    /// The screen and its scrollback are cleared; by default earlier runs stay above a
    /// separator line.
    #[arg(long, requires = "watch", help_heading = "Watch")]
    pub clear: bool,

    // History: what earlier runs change about this one.
    /// Run the selection N times and report each test's stability.
    ///
    /// In sequence; each test's pass rate, consistency, class and durations. Exits 0
    /// only if every test is stable and passing.
    #[arg(long, value_name = "N", conflicts_with_all = ["watch", "list"],
          value_parser = clap::value_parser!(u64).range(1..), help_heading = "History")]
    pub runs: Option<u64>,
    /// The order files start in: slowest-first, failed-first, declared, random[:SEED].
    ///
    /// slowest-first is the default once history knows the files; `random` prints its
    /// seed, `random:SEED` repeats an order.
    #[arg(long, value_name = "ORDER", help_heading = "History")]
    pub order: Option<String>,
    /// Skip files unchanged since they last passed, reporting their cached result.
    ///
    /// Unchanged: content, command, environment and `[run] cache_inputs`.
    #[arg(long, conflicts_with = "no_cache", help_heading = "History")]
    pub cache: bool,
    /// Run every file even when `[run] cache = true`.
    ///
    /// Their results still refresh the cache.
    #[arg(long, help_heading = "History")]
    pub no_cache: bool,
    /// Neither read nor append the history store.
    ///
    /// Files start in declared order unless `--order` says otherwise.
    #[arg(long, help_heading = "History")]
    pub no_history: bool,
    /// Record no dependency traces (what each file loaded).
    ///
    /// As `[run] trace = false` does.
    #[arg(long, help_heading = "History")]
    pub no_trace: bool,

    // Limits and sandbox: what a test file may use.
    /// Per process: heap and private writable memory, e.g. `256M`.
    ///
    /// Per process of a test file, e.g. `256M`, `2G` (RLIMIT_DATA). A file stopped by
    /// it fails with the limit named.
    #[arg(long, value_name = "SIZE", help_heading = "Limits and sandbox")]
    pub max_memory: Option<String>,
    /// Per process: CPU time, e.g. `2s`, `1m`.
    ///
    /// Per process of a test file (RLIMIT_CPU).
    #[arg(long, value_name = "DURATION", help_heading = "Limits and sandbox")]
    pub max_cpu_time: Option<String>,
    /// Per process: open file descriptors.
    ///
    /// Per process of a test file (RLIMIT_NOFILE).
    #[arg(long, value_name = "N", help_heading = "Limits and sandbox")]
    pub max_open_files: Option<u64>,
    /// Processes and threads of the user running the tests.
    ///
    /// RLIMIT_NPROC; root is exempt.
    #[arg(long, value_name = "N", help_heading = "Limits and sandbox")]
    pub max_processes: Option<u64>,
    /// Output a file may write before it is stopped, e.g. `1M`.
    ///
    /// stdout and stderr together; past it the file is stopped, and its log keeps what
    /// came.
    #[arg(long, value_name = "SIZE", help_heading = "Limits and sandbox")]
    pub max_output: Option<String>,
    /// Run each file inside bubblewrap: no network, read-only file system.
    ///
    /// The checkout is read-only too; /tmp and HOME are private, the PID namespace its
    /// own.
    #[arg(
        long,
        conflicts_with = "no_sandbox",
        help_heading = "Limits and sandbox"
    )]
    pub sandbox: bool,
    /// Run without the sandbox even when `[run] sandbox = true`.
    #[arg(long, help_heading = "Limits and sandbox")]
    pub no_sandbox: bool,
    /// A path that stays writable inside the sandbox (repeatable).
    ///
    /// Relative to the working directory.
    #[arg(long, value_name = "PATH", help_heading = "Limits and sandbox")]
    pub sandbox_write: Vec<PathBuf>,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Annotations {
    Github,
    None,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum RunFormat {
    Human,
    Jsonl,
    Summary,
}

#[derive(clap::Args, Debug)]
pub struct ParseArgs {
    /// The stream to read; `-` or nothing for stdin.
    pub file: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Human, help_heading = "Output")]
    pub format: Format,
    /// The input's format [default: told from its first bytes].
    ///
    /// XML is JUnit, test2json records are go's, anything else TAP; `libtest` (cargo
    /// test's plain output) and `json-result` (a runner's one JSON result line at the
    /// end) are never told, only given.
    #[arg(long, value_enum, value_name = "FORMAT", help_heading = "Input")]
    pub input_format: Option<InputFormatArg>,
    /// When to use colour.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto, help_heading = "Output")]
    pub color: ColorChoice,
    /// Write a report, the format chosen by the extension (repeatable).
    ///
    /// `.jsonl` and `.json` are what `--format jsonl|summary` print; `.xml` JUnit,
    /// `.md` Markdown, `.html` a page.
    #[arg(
        short = 'o',
        long = "output",
        value_name = "PATH",
        help_heading = "Reports"
    )]
    pub output: Vec<PathBuf>,
    /// CI annotations: `github` or `none`.
    ///
    /// `github` writes `::error`/`::warning` workflow commands (the default when
    /// GITHUB_ACTIONS=true); `none` turns them off.
    #[arg(long, value_enum, help_heading = "Reports")]
    pub annotations: Option<Annotations>,
    /// Let a stream with no test at all pass.
    ///
    /// A stream with no plan, no test point and no bail out passes ("no tests found",
    /// as tap-parser has it) instead of failing as `no TAP output`.
    #[arg(long, help_heading = "Input")]
    pub allow_empty: bool,
}

#[derive(clap::Args, Debug)]
pub struct ManArgs {
    /// A command whose page to print (`run`, `parse`, …); the main page without one.
    pub command: Option<String>,
    /// Write every page (`tapline.1`, `tapline-run.1`, …) into this folder.
    ///
    /// Each with all its options; the folder is created if missing (`man -M` or a
    /// `man1/` folder on MANPATH reads them).
    #[arg(long, value_name = "DIR", conflicts_with = "command")]
    pub dir: Option<PathBuf>,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum InputFormatArg {
    Tap,
    GoJson,
    Junit,
    /// libtest's plain output (`cargo test`), with cargo's messages around it.
    Libtest,
    /// One JSON result line at the end (`{"success": …, "result": {…}}`).
    JsonResult,
}

impl From<InputFormatArg> for tapline::protocol::InputFormat {
    fn from(f: InputFormatArg) -> Self {
        match f {
            InputFormatArg::Tap => Self::Tap,
            InputFormatArg::GoJson => Self::GoJson,
            InputFormatArg::Junit => Self::Junit,
            InputFormatArg::Libtest => Self::Libtest,
            InputFormatArg::JsonResult => Self::JsonResult,
        }
    }
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Human,
    Jsonl,
    Summary,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColorChoice {
    Auto,
    Always,
    Never,
}

impl ColorChoice {
    /// The style for an output stream: `always`/`never` win, `auto` asks the stream.
    pub fn style(self, stream_is_terminal: bool) -> tapline::report::style::Style {
        let forced = match self {
            ColorChoice::Always => Some(true),
            ColorChoice::Never => Some(false),
            ColorChoice::Auto => None,
        };
        let enabled = tapline::report::style::color_enabled(forced, stream_is_terminal);
        tapline::report::style::Style { enabled }
    }
}
