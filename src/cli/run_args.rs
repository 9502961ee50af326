//! `tapline run`'s flags (the biggest command's arguments, kept apart from the others).
use super::ColorChoice;
use clap::ValueEnum;
use std::path::PathBuf;

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
