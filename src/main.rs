//! The `tapline` binary: parses arguments, dispatches, maps outcomes to exit codes.
mod bazel;
mod cli;
mod coverage_cmd;
mod daemon_cmd;
mod docs_cmd;
mod history_cmd;
mod init_cmd;
mod list_cmd;
mod parse_cmd;
mod report_cmd;
mod reports;
mod run_cmd;

use clap::Parser as _;
use std::process::ExitCode;

pub(crate) use tapline::report::outlets::{EXIT_INTERNAL, EXIT_USAGE};

/// Why a command stopped short, with the exit code that says so: [`EXIT_USAGE`] for what it
/// was given (flags, input, the project's files), [`EXIT_INTERNAL`] for what failed inside
/// (a write, a thread). The message reads after "tapline: ".
#[derive(Debug)]
pub(crate) enum Failure {
    Usage(String),
    Internal(String),
}

/// A command's end: its exit code (0 passed, 1 failed, 130 interrupted …), or why it stopped.
pub(crate) type Outcome = Result<u8, Failure>;

impl Failure {
    pub(crate) fn usage(message: impl std::fmt::Display) -> Self {
        Failure::Usage(message.to_string())
    }

    pub(crate) fn internal(message: impl std::fmt::Display) -> Self {
        Failure::Internal(message.to_string())
    }

    /// Says why on stderr, once, and gives the exit code.
    pub(crate) fn exit(self) -> u8 {
        let (code, message) = match self {
            Failure::Usage(m) => (EXIT_USAGE, m),
            Failure::Internal(m) => (EXIT_INTERNAL, m),
        };
        tapline::say!("tapline: {message}");
        code
    }
}

/// The process's exit code for a command's end.
fn exit_code(outcome: Outcome) -> ExitCode {
    ExitCode::from(outcome.unwrap_or_else(Failure::exit))
}

fn main() -> ExitCode {
    let cli = match cli::Cli::try_parse() {
        Ok(c) => c,
        Err(mut e) => {
            let code = if e.use_stderr() { EXIT_USAGE } else { 0 };
            cli::suggest_command(&mut e);
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    match cli.command {
        cli::Command::Parse(args) => exit_code(parse_cmd::run(&args)),
        cli::Command::Run(args) => exit_code(run_cmd::run(&args)),
        cli::Command::History(args) => exit_code(history_cmd::run(&args)),
        cli::Command::Report(args) => exit_code(report_cmd::run(&args)),
        cli::Command::Completions { shell } => exit_code(docs_cmd::completions(shell)),
        cli::Command::Man(args) => exit_code(docs_cmd::man(&args)),
        cli::Command::Serve(args) => exit_code(daemon_cmd::serve(&args)),
        cli::Command::Send(args) => ExitCode::from(daemon_cmd::send(&args)),
        cli::Command::Events(args) => ExitCode::from(daemon_cmd::events(&args)),
        cli::Command::Status(args) => ExitCode::from(daemon_cmd::status(&args)),
        cli::Command::Init(args) => exit_code(init_cmd::run(&args)),
        cli::Command::Coverage(args) => exit_code(coverage_cmd::run(&args)),
        cli::Command::List(args) => exit_code(list_cmd::run(&args)),
    }
}
