//! The `tapline` binary: parses arguments, dispatches, maps outcomes to exit codes.
mod cli;
mod daemon_cmd;
mod history_cmd;
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
        cli::Command::Completions { shell } => {
            use clap::CommandFactory as _;
            let mut cmd = cli::Cli::command();
            clap_complete::generate(shell, &mut cmd, "tapline", &mut std::io::stdout());
            ExitCode::SUCCESS
        }
        cli::Command::Man => {
            use clap::CommandFactory as _;
            let man = clap_mangen::Man::new(cli::Cli::command());
            match man.render(&mut std::io::stdout()) {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
                Err(e) => {
                    eprintln!("tapline: failed to write the man page: {e}");
                    ExitCode::from(EXIT_INTERNAL)
                }
            }
        }
        cli::Command::Serve(args) => ExitCode::from(daemon_cmd::serve(&args)),
        cli::Command::Send(args) => ExitCode::from(daemon_cmd::send(&args)),
        cli::Command::Events(args) => ExitCode::from(daemon_cmd::events(&args)),
        cli::Command::Status(args) => ExitCode::from(daemon_cmd::status(&args)),
    }
}
