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

/// The commands, in the order a user meets them: running tests first, the daemon and shell
/// helpers last.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// Run test files (default: what the project's own harness runs: package.json's test
    /// command, else `test/`, `tests/` and `t/`) as supervised child processes and report them.
    // Boxed: the run's options outweigh parse's by far.
    Run(Box<RunArgs>),
    /// Every test of every discovered file and suite, by its stable ID (`t/a.t > outer >
    /// inner`): as the last run of the file reported it, else read from its source.
    List(ListArgs),
    /// Parse a TAP, `go test -json` or JUnit XML stream from a file or stdin
    /// (`node --test | tapline parse`, `go test -json ./... | tapline parse`).
    Parse(ParseArgs),
    /// Write a commented `tapline.toml` for this repository: a `[[suite]]` for each go module
    /// and pytest configuration, notes on what a plain `tapline run` already follows.
    Init(InitArgs),
    /// Replay a recorded run (from `-o run.jsonl` or `run --format jsonl`) into `-o` reports,
    /// or into the terminal report when no `-o` is given.
    Report(ReportArgs),
    /// What the history store (`.nogit/testlogs/history.jsonl`) knows: per file and per test,
    /// runs, passes, failures, flaky runs, flip rate, durations and the last verdict.
    History(HistoryArgs),
    /// Line coverage of the last `run --coverage`: `tapline coverage who FILE:LINE` names
    /// the test files that reached that line.
    Coverage(CoverageArgs),
    /// The reporter daemon: takes TAP streams over a socket (`tapline send`) into one live
    /// view, per-stream logs and reports, until SIGTERM (exit 0) or SIGINT (130).
    Serve(ServeArgs),
    /// Stream TAP from a file or stdin to the daemon (`node --test | tapline send unit`);
    /// exits with the daemon's verdict: 0 passed, 1 failed, 2 no daemon or refused.
    Send(SendArgs),
    /// Every event of every stream the daemon takes, as JSON lines tagged with `stream`,
    /// until the daemon stops.
    Events(EventsArgs),
    /// The daemon's open and finished streams with their counts, as JSON.
    Status(StatusArgs),
    /// Print a completion script for a shell (`tapline completions bash > …`).
    Completions {
        /// The shell.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the man page (roff) generated from these definitions (`tapline man | man -l -`),
    /// one command's page (`tapline man run`), or write every page into a folder (`--dir`).
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
    for j in 0..=b.len() {
        d[0][j] = j;
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
    /// The test files that reached FILE:LINE in the last run with `--coverage`, one a line;
    /// exit 1 when none did, 2 when the line is no code any engine counted.
    Who {
        /// A source line: its path (from here or the project root) and line number.
        #[arg(value_name = "FILE:LINE")]
        at: String,
        /// Log folder holding `coverage.json` (default `.nogit/testlogs` under the project
        /// root).
        #[arg(long)]
        log_dir: Option<PathBuf>,
    },
}

#[derive(clap::Args, Debug)]
pub struct ListArgs {
    /// Files, folders, globs or suite names, as `tapline run` takes them (default: what it runs).
    pub paths: Vec<String>,
    /// `json`: one object per test and line (`id`, `file`, `name`, `source`, `location`).
    #[arg(long, value_enum, default_value_t = HistoryFormat::Human)]
    pub format: HistoryFormat,
    /// Which source: `auto` (the last run's report of each file, else pytest's own listing
    /// for pytest's files, else its static scan), `static` (read from the source, not run),
    /// `runtime` (the framework's own listing: `pytest --collect-only`, `go test -list`) or
    /// `history` (what the last run reported).
    #[arg(long, value_enum, default_value_t = ListSource::Auto)]
    pub source: ListSource,
    /// Also write the list (JSON lines) to FILE, for machines that do not discover.
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
    /// Merge the `-o FILE.jsonl` records of a sharded run's shards (`run --partition`) into
    /// one run's reports, as if one machine had run it all; exit code as that run's, 2 when a
    /// shard is missing, given twice, or of another selection.
    Merge(MergeArgs),
}

#[derive(clap::Args, Debug)]
pub struct MergeArgs {
    /// The shards' records: files, globs (`shards/*.jsonl`) or folders (their `*.jsonl`).
    #[arg(required = true, value_name = "SHARD")]
    pub shards: Vec<String>,
    /// Merge without the shards that are missing: their files are reported as not run, and
    /// the run fails.
    #[arg(long)]
    pub allow_missing: bool,
    /// Also append the merged run to the history store (as `tapline history import` does),
    /// so the next sharded run is balanced by these durations.
    #[arg(long)]
    pub history: bool,
    /// Log folder holding `history.jsonl` (default `.nogit/testlogs` under the project root).
    #[arg(long)]
    pub log_dir: Option<PathBuf>,
    /// Fail (exit 1) when the merged run's coverage (`run --coverage`) is below PCT percent
    /// of lines, or `[coverage] min` when not given; checked here, never per shard.
    #[arg(long, value_name = "PCT")]
    pub coverage_min: Option<String>,
    #[command(flatten)]
    pub replay: ReplayArgs,
}

/// Where a replayed or merged run is reported.
#[derive(clap::Args, Debug)]
pub struct ReplayArgs {
    /// Write a report, the format chosen by the extension (repeatable): `.jsonl`, `.json`,
    /// `.xml` JUnit, `.md` Markdown, `.html` a page, `.lcov` and `.cobertura.xml` the coverage.
    /// Without one, the terminal report.
    #[arg(short = 'o', long = "output", value_name = "PATH")]
    pub output: Vec<PathBuf>,
    /// CI annotations: `github` (default when GITHUB_ACTIONS=true) or `none`.
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
    #[arg(long, value_name = "PATH")]
    pub socket: Option<PathBuf>,
    /// Also listen on TCP, e.g. `127.0.0.1:7357` (port 0: any free port, printed on stderr).
    /// A non-loopback address needs `--token` and TLS (`--tls-cert`, `--tls-key`).
    #[arg(long, value_name = "ADDR:PORT")]
    pub listen: Option<std::net::SocketAddr>,
    /// A file holding the token every TCP connection must present first.
    #[arg(long, value_name = "FILE", requires = "listen")]
    pub token: Option<PathBuf>,
    /// The TCP listener speaks TLS with this certificate chain (PEM), loopback included.
    #[arg(long, value_name = "FILE", requires_all = ["listen", "tls_key"])]
    pub tls_cert: Option<PathBuf>,
    /// The private key (PEM) of `--tls-cert`.
    #[arg(long, value_name = "FILE", requires = "tls_cert")]
    pub tls_key: Option<PathBuf>,
    /// Do not write per-stream logs.
    #[arg(long)]
    pub no_logs: bool,
    /// Log folder (default `.nogit/testlogs/serve` under the project root).
    #[arg(long)]
    pub log_dir: Option<PathBuf>,
    /// Machine output on stdout; the human report goes to stderr either way.
    #[arg(long, value_enum, default_value_t = RunFormat::Human)]
    pub format: RunFormat,
    /// Write a report when the daemon stops, the format chosen by the extension (repeatable):
    /// `.jsonl` the events, `.json` the summary document, `.xml` JUnit, `.md` Markdown,
    /// `.html` a page. Each stream is one file of the report, named by the stream.
    #[arg(short = 'o', long = "output", value_name = "PATH")]
    pub output: Vec<PathBuf>,
    /// CI annotations: `github` (default when GITHUB_ACTIONS=true) or `none`.
    #[arg(long, value_enum)]
    pub annotations: Option<Annotations>,
    /// Failures and the summary only.
    #[arg(short, long, conflicts_with = "verbose")]
    pub quiet: bool,
    /// Every test line as it happens.
    #[arg(short, long)]
    pub verbose: bool,
    /// When to use colour.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
}

/// Which daemon a client talks to.
#[derive(clap::Args, Debug)]
pub struct DaemonTarget {
    /// The daemon's Unix socket (default `.nogit/tapline.sock` under the project root).
    #[arg(long, value_name = "PATH", conflicts_with = "connect")]
    pub socket: Option<PathBuf>,
    /// A daemon listening on TCP (`tapline serve --listen`).
    #[arg(long, value_name = "HOST:PORT")]
    pub connect: Option<String>,
    /// A file holding the daemon's token (with `--connect`).
    #[arg(long, value_name = "FILE", requires = "connect")]
    pub token: Option<PathBuf>,
    /// Connect with TLS, trusting the CA certificates in this PEM file (with `--connect`).
    /// Without it, TLS trusting the system's roots to a non-loopback address, plain TCP to
    /// a loopback one.
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
    #[command(flatten)]
    pub target: DaemonTarget,
}

#[derive(clap::Args, Debug)]
#[command(args_conflicts_with_subcommands = true)]
pub struct HistoryArgs {
    #[command(subcommand)]
    pub action: Option<HistoryAction>,
    /// Only files and tests that were flaky or changed verdict at least once.
    #[arg(long)]
    pub flaky: bool,
    /// Only the N slowest files by p95 duration (default 10), slowest first.
    #[arg(long, value_name = "N", num_args = 0..=1, default_missing_value = "10")]
    pub slow: Option<usize>,
    /// Only files and tests whose last run failed.
    #[arg(long)]
    pub failing: bool,
    /// Every test by its ID (flakiness, p50/p95 durations, distinct errors), not only those
    /// that failed at least once; with `--slow N`, the N slowest tests by p95.
    #[arg(long)]
    pub tests: bool,
    /// `json`: `{"files": [...], "tests": [...]}` on stdout.
    #[arg(long, value_enum, default_value_t = HistoryFormat::Human)]
    pub format: HistoryFormat,
    /// Log folder holding `history.jsonl` (default `.nogit/testlogs` under the project root).
    #[arg(long)]
    pub log_dir: Option<PathBuf>,
    /// When to use colour.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
}

#[derive(Subcommand, Debug)]
pub enum HistoryAction {
    /// Append recorded runs (`-o run.jsonl`, or a merged sharded run's) to the history store,
    /// as if they had run here: CI keeps one `history.jsonl` that balances the next shards.
    Import {
        /// The runs' records, one JSON event per line.
        #[arg(required = true, value_name = "RUN.jsonl")]
        runs: Vec<PathBuf>,
        /// Log folder holding `history.jsonl` (default `.nogit/testlogs` under the project root).
        #[arg(long)]
        log_dir: Option<PathBuf>,
    },
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum HistoryFormat {
    Human,
    Json,
}

#[derive(clap::Args, Debug, Clone)]
pub struct RunArgs {
    /// Test files, directories (searched recursively, honouring .gitignore) or globs; none:
    /// what the project's own harness runs.
    pub paths: Vec<String>,
    /// Print what would run, one file per line with its command, and exit.
    #[arg(long)]
    #[arg(help_heading = "Selection")]
    pub list: bool,
    /// Only the tests whose names (`outer > inner`) match: a substring, or `/regex/`;
    /// repeatable. Passed down as each framework's filter; files with no matching test do
    /// not run (docs/tests.md).
    /// With `--watch`, the pattern every run starts with (the `t` key changes it).
    #[arg(short = 't', long = "test", value_name = "PATTERN")]
    #[arg(help_heading = "Selection")]
    pub test: Vec<String>,
    /// Only the tests that failed in the last run of each file (by ID, through the same
    /// filters as `-t`), and whole the files that failed without a failing test.
    #[arg(long, conflicts_with_all = ["watch", "test"])]
    #[arg(help_heading = "Selection")]
    pub only_failed: bool,
    /// Files run at once (default, and `0`: the number of cores).
    #[arg(short = 'j', long)]
    #[arg(help_heading = "Execution")]
    pub jobs: Option<usize>,
    /// Per-file time limit, e.g. `30s`, `2m`, `500ms` (default 120s; `0` for none).
    #[arg(long)]
    #[arg(help_heading = "Execution")]
    pub timeout: Option<String>,
    /// Time between SIGTERM and SIGKILL when a file is stopped (default 5s).
    #[arg(long)]
    #[arg(help_heading = "Execution")]
    pub grace: Option<String>,
    /// Command for every file, `{}` standing for its path (e.g. `--exec 'deno run {}'`). A
    /// directory still yields only its test files.
    #[arg(long)]
    #[arg(help_heading = "Execution")]
    pub exec: Option<String>,
    /// Set a variable for every test file (repeatable); wins over `[run] env` of tapline.toml.
    #[arg(long = "env", value_name = "KEY=VALUE")]
    #[arg(help_heading = "Execution")]
    pub env: Vec<String>,
    /// Prepend DIR to PERL5LIB, PYTHONPATH and NODE_PATH for every test file (repeatable, like
    /// `prove -I`; `-I lib` is `prove -l`). Relative to the project root.
    #[arg(short = 'I', long = "lib", value_name = "DIR")]
    #[arg(help_heading = "Execution")]
    pub lib: Vec<PathBuf>,
    /// Parse every file's stderr as TAP too. A perl file's is by default, read with its stdout
    /// from one pipe, in the order written; another's is read from its own pipe.
    #[arg(long, conflicts_with = "no_merge")]
    #[arg(help_heading = "Execution")]
    pub merge: bool,
    /// Keep every file's stderr apart, as the tests' output, on a pipe of its own (perl's too).
    #[arg(long)]
    #[arg(help_heading = "Execution")]
    pub no_merge: bool,
    /// Do not write per-file logs.
    #[arg(long)]
    #[arg(help_heading = "Output")]
    pub no_logs: bool,
    /// Log folder (default `.nogit/testlogs` under the project root).
    #[arg(long)]
    #[arg(help_heading = "Output")]
    pub log_dir: Option<PathBuf>,
    /// Machine output on stdout; the human report goes to stderr either way.
    #[arg(long, value_enum, default_value_t = RunFormat::Human)]
    #[arg(help_heading = "Output")]
    pub format: RunFormat,
    /// Failures and the summary only.
    #[arg(short, long, conflicts_with = "verbose")]
    #[arg(help_heading = "Output")]
    pub quiet: bool,
    /// Every test line and all child output, as it happens.
    #[arg(short, long)]
    #[arg(help_heading = "Output")]
    pub verbose: bool,
    /// When to use colour.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    #[arg(help_heading = "Output")]
    pub color: ColorChoice,
    /// Run, then re-run on every change under the project root what it can affect, by the
    /// dependency traces of earlier runs (a changed test file alone, a module's loaders).
    /// Keys: Enter/a all, f failing, p pattern, q quit (exit 0; Ctrl-C exits 130). On a piped stdin, one command per line; EOF quits.
    #[arg(short = 'w', long, conflicts_with = "list")]
    #[arg(help_heading = "Watch")]
    pub watch: bool,
    /// Watch mode: how long a change settles before it starts a run (default 300ms).
    #[arg(long, requires = "watch", value_name = "DURATION")]
    #[arg(help_heading = "Watch")]
    pub debounce: Option<String>,
    /// Watch mode: changes to paths matching these globs start no run (comma-separated; a glob
    /// without `/` matches any name in the path).
    #[arg(
        long,
        requires = "watch",
        value_delimiter = ',',
        value_name = "GLOB,GLOB"
    )]
    #[arg(help_heading = "Watch")]
    pub watch_ignore: Vec<String>,
    /// Watch mode: clear the screen and scrollback before each run instead of keeping earlier
    /// runs above a separator line.
    #[arg(long, requires = "watch")]
    #[arg(help_heading = "Watch")]
    pub clear: bool,
    /// Run a failed file up to N more times; a file that fails, then passes, is flaky.
    #[arg(long, value_name = "N")]
    #[arg(help_heading = "Execution")]
    pub retries: Option<u32>,
    /// A flaky file fails the run (by default it counts as passed and is reported as flaky).
    #[arg(long)]
    #[arg(help_heading = "Execution")]
    pub flaky_fails: bool,
    /// Run the selection N times in sequence and report each test's stability (pass rate,
    /// consistency, class, durations); exits 0 only if every test is stable and passing.
    #[arg(long, value_name = "N", conflicts_with_all = ["watch", "list"],
          value_parser = clap::value_parser!(u64).range(1..))]
    #[arg(help_heading = "History")]
    pub runs: Option<u64>,
    /// Run one shard of a sharded run: `slice:M/N` (round-robin), `hash:M/N` (a file keeps
    /// its shard), `time:M/N` (balanced by history's durations), M from 1; `auto` or
    /// `auto:STRATEGY` reads M/N from the CI engine (TAPLINE_PARTITION, GitLab, CircleCI,
    /// Buildkite, Kubernetes Indexed Jobs, Bazel). `-o FILE.jsonl` records it for
    /// `tapline report merge`.
    #[arg(long, value_name = "STRATEGY:M/N", conflicts_with_all = ["watch", "runs"])]
    #[arg(help_heading = "Selection")]
    pub partition: Option<String>,
    /// With `--partition time`: the weight of a file history does not know (default: the
    /// median of the known ones).
    #[arg(long, value_name = "DURATION")]
    #[arg(help_heading = "Selection")]
    pub time_default: Option<String>,
    /// The order files start in: slowest-first (the default once history knows the files),
    /// failed-first, declared, random or random:SEED (the seed is printed).
    #[arg(long, value_name = "ORDER")]
    #[arg(help_heading = "History")]
    pub order: Option<String>,
    /// Skip files unchanged (content, command, environment, `[run] cache_inputs`) since they
    /// last passed, reporting their cached result.
    #[arg(long, conflicts_with = "no_cache")]
    #[arg(help_heading = "History")]
    pub cache: bool,
    /// Run every file even when `[run] cache = true` (their results still refresh the cache).
    #[arg(long)]
    #[arg(help_heading = "History")]
    pub no_cache: bool,
    /// Stop after the first failed file: `--max-fail 1`.
    #[arg(long, conflicts_with = "max_fail")]
    #[arg(help_heading = "Execution")]
    pub fail_fast: bool,
    /// After N failed files no new file starts; running files finish (or are stopped with
    /// `--stop-running`). Files never started are reported as not run, and the run fails.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    #[arg(help_heading = "Execution")]
    pub max_fail: Option<u64>,
    /// With `--max-fail`/`--fail-fast`: also stop the files still running (gracefully).
    #[arg(long)]
    #[arg(help_heading = "Execution")]
    pub stop_running: bool,
    /// Run every file even after one bails out (`Bail out!` otherwise stops the run, as it
    /// stops prove); the bailing file still fails.
    #[arg(long)]
    #[arg(help_heading = "Execution")]
    pub keep_going: bool,
    /// Write a report, the format chosen by the extension (repeatable): `.jsonl` the run's
    /// events, `.json` the summary document, `.xml` JUnit, `.md` Markdown, `.html` a page,
    /// `.lcov` and `.cobertura.xml` the coverage (`--coverage`).
    #[arg(short = 'o', long = "output", value_name = "PATH")]
    #[arg(help_heading = "Reports")]
    pub output: Vec<PathBuf>,
    /// CI annotations: `github` writes `::error`/`::warning` workflow commands (default when
    /// GITHUB_ACTIONS=true), `none` turns them off.
    #[arg(long, value_enum)]
    #[arg(help_heading = "Reports")]
    pub annotations: Option<Annotations>,
    /// Also stream each file to a `tapline serve` (a Unix socket path, or HOST:PORT), named
    /// `shard M/N: path`, to watch every shard live in one place. Never changes the run: a
    /// daemon that is absent or goes away is one warning line.
    #[arg(long, value_name = "ADDR", conflicts_with = "watch")]
    #[arg(help_heading = "Reports")]
    pub forward: Option<String>,
    /// A file holding the daemon's token (with `--forward HOST:PORT`).
    #[arg(long, value_name = "FILE", requires = "forward")]
    #[arg(help_heading = "Reports")]
    pub forward_token: Option<PathBuf>,
    /// Forward with TLS trusting the CA certificates in this PEM file (with `--forward
    /// HOST:PORT`). Without it: TLS with the system's roots to a non-loopback address, plain
    /// TCP to a loopback one.
    #[arg(long, value_name = "FILE", requires = "forward")]
    #[arg(help_heading = "Reports")]
    pub forward_tls_ca: Option<PathBuf>,
    /// Neither read nor append the history store: declared order unless `--order` says
    /// otherwise.
    #[arg(long)]
    #[arg(help_heading = "History")]
    pub no_history: bool,
    /// Record no dependency traces (what each file loaded), as `[run] trace = false` does.
    #[arg(long)]
    #[arg(help_heading = "History")]
    pub no_trace: bool,
    /// Measure line coverage in every runtime (node/tsx, Python with coverage.py, Perl with
    /// Devel::Cover, go suites) into one report: `-o cov.lcov`, `-o cov.cobertura.xml`, the
    /// summary; see docs/coverage.md. `[coverage] enabled = true` turns it on too.
    #[arg(long)]
    #[arg(help_heading = "Reports")]
    pub coverage: bool,
    /// With `--coverage`: fail (exit 1) below PCT percent of lines reached (`[coverage]
    /// min`). A shard (`--partition`) is not checked: `report merge --coverage-min` is.
    #[arg(long, value_name = "PCT")]
    #[arg(help_heading = "Reports")]
    pub coverage_min: Option<String>,
    /// One process per test file, none in a warm worker (tape files otherwise share a node
    /// process per job); `[run] isolate = true` says the same. See docs/run.md.
    #[arg(long)]
    #[arg(help_heading = "Execution")]
    pub isolate: bool,
    /// Run only the test files a change to these paths can affect, by the traces of earlier
    /// runs (files with no trace run); see docs/traces.md.
    #[arg(long, value_name = "PATH", num_args = 1.., conflicts_with_all = ["changed", "watch"])]
    #[arg(help_heading = "Selection")]
    pub affected_by: Vec<String>,
    /// Run only the test files that declare this tag (tapbundle's `tap.tags('T')` in their
    /// source; files, not single tests, are selected); repeatable: any of them. See
    /// docs/tstest.md.
    #[arg(long = "tag", value_name = "TAG", conflicts_with = "watch")]
    #[arg(help_heading = "Selection")]
    pub tags: Vec<String>,
    /// Run only the test files affected by what changed since REV (default: the merge base
    /// with the default branch), the working tree and untracked files, by `git`.
    #[arg(long, value_name = "REV", num_args = 0..=1, default_missing_value = "", conflicts_with = "watch")]
    #[arg(help_heading = "Selection")]
    pub changed: Option<String>,
    /// Per process of a test file: heap and private writable memory, e.g. `256M`, `2G`
    /// (RLIMIT_DATA). A file stopped by it fails with the limit named.
    #[arg(long, value_name = "SIZE")]
    #[arg(help_heading = "Limits and sandbox")]
    pub max_memory: Option<String>,
    /// Per process of a test file: CPU time, e.g. `2s`, `1m` (RLIMIT_CPU).
    #[arg(long, value_name = "DURATION")]
    #[arg(help_heading = "Limits and sandbox")]
    pub max_cpu_time: Option<String>,
    /// Per process of a test file: open file descriptors (RLIMIT_NOFILE).
    #[arg(long, value_name = "N")]
    #[arg(help_heading = "Limits and sandbox")]
    pub max_open_files: Option<u64>,
    /// Processes and threads of the user running the tests (RLIMIT_NPROC; root is exempt).
    #[arg(long, value_name = "N")]
    #[arg(help_heading = "Limits and sandbox")]
    pub max_processes: Option<u64>,
    /// Output (stdout and stderr together) a file may write, e.g. `1M`; past it the file is
    /// stopped, and its log keeps what came.
    #[arg(long, value_name = "SIZE")]
    #[arg(help_heading = "Limits and sandbox")]
    pub max_output: Option<String>,
    /// Run each file inside bubblewrap: no network, read-only file system (the checkout too),
    /// private /tmp and HOME, own PID namespace.
    #[arg(long, conflicts_with = "no_sandbox")]
    #[arg(help_heading = "Limits and sandbox")]
    pub sandbox: bool,
    /// Run without the sandbox even when `[run] sandbox = true`.
    #[arg(long)]
    #[arg(help_heading = "Limits and sandbox")]
    pub no_sandbox: bool,
    /// A path that stays writable inside the sandbox (repeatable; relative to the working
    /// directory).
    #[arg(long, value_name = "PATH")]
    #[arg(help_heading = "Limits and sandbox")]
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
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
    /// The input's format; by default told from its first bytes (XML is JUnit, test2json
    /// records are go's, anything else TAP).
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub input_format: Option<InputFormatArg>,
    /// When to use colour.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
    /// Write a report, the format chosen by the extension (repeatable): `.jsonl`, `.json`
    /// (what `--format jsonl|summary` print), `.xml` JUnit, `.md` Markdown, `.html` a page.
    #[arg(short = 'o', long = "output", value_name = "PATH")]
    pub output: Vec<PathBuf>,
    /// CI annotations: `github` (default when GITHUB_ACTIONS=true) or `none`.
    #[arg(long, value_enum)]
    pub annotations: Option<Annotations>,
    /// Let a stream with no plan, no test point and no bail out pass ("no tests found", as
    /// tap-parser has it) instead of failing as `no TAP output`.
    #[arg(long)]
    pub allow_empty: bool,
}

#[derive(clap::Args, Debug)]
pub struct ManArgs {
    /// A command whose page to print (`run`, `parse`, …); the main page without one.
    pub command: Option<String>,
    /// Write every page (`tapline.1`, `tapline-run.1`, …, each with all its options) into
    /// this folder, created if missing (`man -M` or a `man1/` folder on MANPATH reads them).
    #[arg(long, value_name = "DIR", conflicts_with = "command")]
    pub dir: Option<PathBuf>,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum InputFormatArg {
    Tap,
    GoJson,
    Junit,
}

impl From<InputFormatArg> for tapline::protocol::InputFormat {
    fn from(f: InputFormatArg) -> Self {
        match f {
            InputFormatArg::Tap => Self::Tap,
            InputFormatArg::GoJson => Self::GoJson,
            InputFormatArg::Junit => Self::Junit,
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
