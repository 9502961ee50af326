//! The `tapline` binary: parses arguments, dispatches, maps outcomes to exit codes.
mod bazel;
mod cli;
mod daemon_cmd;
mod docs_cmd;
mod history_cmd;
mod init_cmd;
mod parse_cmd;
mod report_cmd;
mod reports;
mod run_cmd;

use clap::Parser as _;
use std::process::ExitCode;

/// Exit codes: 0 passed, 1 failed, 2 usage or input error, 3 internal error.
pub(crate) const EXIT_USAGE: u8 = 2;
pub(crate) const EXIT_INTERNAL: u8 = 3;

fn main() -> ExitCode {
    let cli = match cli::Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() { EXIT_USAGE } else { 0 };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    match cli.command {
        cli::Command::Parse(args) => parse_cmd::run(&args),
        cli::Command::Run(args) => ExitCode::from(run_cmd::run(&args)),
        cli::Command::History(args) => ExitCode::from(history_cmd::run(&args)),
        cli::Command::Report(args) => ExitCode::from(report_cmd::run(&args)),
        cli::Command::Completions { shell } => ExitCode::from(docs_cmd::completions(shell)),
        cli::Command::Man(args) => ExitCode::from(docs_cmd::man(&args)),
        cli::Command::Serve(args) => ExitCode::from(daemon_cmd::serve(&args)),
        cli::Command::Send(args) => ExitCode::from(daemon_cmd::send(&args)),
        cli::Command::Events(args) => ExitCode::from(daemon_cmd::events(&args)),
        cli::Command::Status(args) => ExitCode::from(daemon_cmd::status(&args)),
        cli::Command::Init(args) => ExitCode::from(init_cmd::run(&args)),
    }
}
