//! `tapline init`: writes the commented `tapline.toml` `run::init` drafts for the repository
//! at the project root; an existing file is kept unless `--force` (exit 2 saying so).
use crate::cli::InitArgs;
use crate::{Failure, Outcome};
use std::fs;
use tapline::run::{config, init};

pub fn run(args: &InitArgs) -> Outcome {
    let cwd = std::env::current_dir()
        .map_err(|e| Failure::usage(format!("failed to read the current directory: {e}")))?;
    let root = config::find_project_root(&cwd);
    let path = root.join(config::FILE_NAME);
    if path.exists() && !args.force {
        return Err(Failure::usage(format!(
            "failed to write {}: it already exists (`tapline init --force` replaces it)",
            path.display()
        )));
    }
    let findings = init::look(&root);
    let text = init::render(&findings);
    fs::write(&path, &text)
        .map_err(|e| Failure::usage(format!("failed to write {}: {e}", path.display())))?;
    let suites = text.lines().filter(|l| *l == "[[suite]]").count();
    tapline::say!(
        "tapline: wrote {} ({suites} suite{}); `tapline run --list` shows what a run takes",
        path.display(),
        if suites == 1 { "" } else { "s" }
    );
    Ok(0)
}
