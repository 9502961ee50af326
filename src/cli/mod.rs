//! Command-line definitions (clap) and dispatch; the work lives in the library modules.
use clap::{Parser as ClapParser, Subcommand, ValueEnum};
use std::path::PathBuf;
mod run_args;
pub use run_args::{Annotations, RunArgs, RunFormat};

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
