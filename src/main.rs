//! The `tapline` binary: parses arguments, dispatches, maps outcomes to exit codes.
mod cli;
mod history_cmd;
mod parse_cmd;
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
    }
}
