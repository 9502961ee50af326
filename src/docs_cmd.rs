//! `tapline completions` and `tapline man`: documents generated from the command-line
//! definitions, so they never fall behind `--help`.
use crate::cli::{Cli, ManArgs};
use clap::CommandFactory as _;
use std::io::{self, Write};

/// Writes a completion script for `shell` to stdout.
pub(crate) fn completions(shell: clap_complete::Shell) -> crate::Outcome {
    let mut cmd = Cli::command();
    // Rendered into memory first: clap_complete panics on a failed write (a closed pipe).
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut cmd, "tapline", &mut script);
    to_stdout(&script, "the completion script")
}

/// `tapline man`: the main page on stdout; `tapline man run`: that command's page;
/// `--dir DIR`: every page (`tapline.1`, `tapline-run.1`, …) written into DIR.
pub(crate) fn man(args: &ManArgs) -> crate::Outcome {
    if let Some(dir) = &args.dir {
        return man_pages_into(dir);
    }
    let mut cmd = Cli::command().disable_help_subcommand(true);
    cmd.build();
    let page = match &args.command {
        None => cmd,
        Some(name) => match cmd.find_subcommand(name) {
            Some(sub) => sub.clone(),
            None => {
                let names: Vec<&str> = cmd.get_subcommands().map(|s| s.get_name()).collect();
                return Err(crate::Failure::usage(format!(
                    "failed to find the command `{name}` (one of: {})",
                    names.join(", ")
                )));
            }
        },
    };
    let mut roff = Vec::new();
    clap_mangen::Man::new(page)
        .render(&mut roff)
        .map_err(|e| crate::Failure::internal(format!("failed to render the man page: {e}")))?;
    to_stdout(&roff, "the man page")
}

fn man_pages_into(dir: &std::path::Path) -> crate::Outcome {
    let written =
        std::fs::create_dir_all(dir).and_then(|()| clap_mangen::generate_to(Cli::command(), dir));
    match written {
        Ok(()) => {
            let pages = std::fs::read_dir(dir).map_or(0, |d| {
                d.filter_map(Result::ok)
                    .filter(|e| e.file_name().to_string_lossy().ends_with(".1"))
                    .count()
            });
            tapline::say!("tapline: {pages} man pages in {}", dir.display());
            Ok(0)
        }
        Err(e) => Err(crate::Failure::usage(format!(
            "failed to write the man pages into {}: {e}",
            dir.display()
        ))),
    }
}

/// Writes `bytes` to stdout; a reader that went away (`| head`) is not an error.
fn to_stdout(bytes: &[u8], what: &str) -> crate::Outcome {
    let mut out = io::stdout().lock();
    match out.write_all(bytes).and_then(|()| out.flush()) {
        Ok(()) => Ok(0),
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(0),
        Err(e) => Err(crate::Failure::internal(format!(
            "failed to write {what}: {e}"
        ))),
    }
}
